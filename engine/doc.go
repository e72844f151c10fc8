// Package engine is the Eligo rules language and its evaluator: lexer,
// parser, canonical printer, type checker, compiled IR, Kleene three-valued
// evaluation, traces, explanations and digests. It does no I/O and imports
// no other package of the project, so the CLI and the API use it alike.
//
// The life of a ruleset: Compile turns .rules source into a *Ruleset (or an
// ErrorList of file:line:col messages); Ruleset.Convert turns a request's
// field_values into Inputs (collecting field errors); Ruleset.Evaluate turns
// Inputs into a Result; Trace and Explain add the optional report sections
// in a second pass, so the plain path pays nothing for them.
package engine

// Version is the engine version stamped on every decision. Outcomes for the
// same rules and inputs may differ between engine versions.
const Version = "eligo-core@0.31.0"
