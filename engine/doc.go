// Package engine compiles the Eligo rules language and evaluates it: type
// checker, compiled IR and its loader, Kleene three-valued evaluation,
// traces, explanations and digests. It does no I/O and imports no package
// of the project but its own (engine/syntax for the syntax tree,
// engine/value for numbers and dates), so the CLI, the API and the solver
// use it alike. The language itself is specified in syntax/GRAMMAR.md.
//
// # Compiling
//
// Compile turns .rules source into a *Ruleset, or returns a
// syntax.ErrorList: every error found, sorted, each printed
// "file:line:col: message" in words a policy analyst can act on. Warnings
// (a field no criterion reads, a group the outcome leaves out) come back
// separately and never block. Compile never panics. It reads the text with
// syntax.Parse, which refuses a text over one of the limits in
// syntax/limits.go before any other work.
//
// Compilation does all the work that does not depend on the answers: field
// names become input slots, constants are decoded, enum strings become
// indexes, source references and deep links are built, and the expressions
// are flattened into one instruction slice the evaluator walks.
//
// # The compiled IR
//
// Ruleset, Field, Group, Criterion, Source and Expr are plain exported
// structs, read-only after Compile (or LoadIR), safe for concurrent use. An Expr is one
// of four node kinds; its JSON (MarshalJSON) is display.expr (docs/api.md#expressions-displayexpr):
//
//	{"type":"op","operator":">=","args":[...]}
//	{"type":"field_ref","key":"employment.months_employed"}
//	{"type":"const","sort":"int","value":12,"field_context":"employment.months_employed"}
//	{"type":"group_ref","key":"service"}   (in Ruleset.Outcome only)
//
// Operators are the Op* constants ("and", "or", "not", "==", "!=", "<",
// "<=", ">", ">=", "in", "not in", "+", "-", "*", "neg", "min", "max",
// "years_between", "months_between", "days_between", "add_days",
// "add_months", "add_years", "decision_date",
// "present", "absent", "??"). "and" and "or" are n-ary; "in" and "not in"
// take the tested value first and the listed constants after it. A const's
// sort is int, decimal, bool, enum or date; its value is a JSON number
// (exact digits), a bool, the enum string or "YYYY-MM-DD"; field_context
// names the field it is compared with or defaults, else null. Field and
// group nodes carry their slot index (Expr.Slot) for the solver.
//
// ContentDigest is "sha256:" + hex SHA-256 of the RFC 8785 (JCS) form of
// the Ruleset's JSON: comments and layout never change it, any change of
// meaning or of published text (titles, questions, quotes) does.
//
// # Stored IR
//
// A published ruleset is stored as its compiled IR, not just its source:
// the JSON json.Marshal writes for the Ruleset (the document ContentDigest
// hashes) with its FormatVersion in a column beside it. The IR is the content. A
// load never re-parses the source, so a later compiler that would make
// something else of the same text changes neither what a stored ruleset
// decides nor its digest.
//
// IRVersion is the newest version of the IR this engine writes; a ruleset
// that needs nothing newer is written in an older one (FormatVersion). The
// version is not in the JSON (that would change every published digest).
// LoadIR(version, data) reads every version the engine has ever written
// and refuses any other with an error wrapping ErrUnknownIRVersion; today
// those are versions 1 and 2.
//
// LoadIR decodes strictly: an unknown or missing member, a wrong JSON type,
// an unknown operator is an error naming where it is
// ("groups[2].criteria[0].expr.args[1]: unknown operator ..."). Numbers are
// read exactly; key order, white space and number spelling do not matter,
// as PostgreSQL jsonb changes all three. The decoded members then go
// through Build, which is also what a composition of several sections'
// IR calls: it resolves every key to its slot, infers every node's sort by
// the checker's rules, checks everything evaluation, traces, explanations
// and the graph rely on, derives Criterion.Slots and Criterion.Text, and
// prepares the digest and the program as Compile does. Build works on a
// copy and never changes its argument.
//
// The digest of a loaded ruleset is the hash of the canonical form of the
// stored bytes. As a guard that nothing in the document went unread, the
// loaded ruleset is marshalled again and must canonicalise to the same
// bytes, or LoadIR refuses it.
//
// Criterion.Text is printed from the IR on both paths, so it is the same
// for a compiled and a loaded ruleset; it reads as `eligo fmt` prints the
// source expression, except that numbers are spelled from their value
// (43759.8 where the source wrote 43759.80).
//
// # Converting answers
//
// Ruleset.Convert reads a request's field_values (raw JSON bytes, numbers
// kept exact) and ConvertMap an already decoded map. They return Inputs:
// one Value per field slot plus FieldErrors, each
//
//	{"field": "<key>", "value": <the value sent>, "type": "<field type>", "message": "<sentence>"}
//
// (type is absent for an unknown key). JSON null, like a missing key, means
// unanswered. Numbers: 1, 1.0 and 1e0 are the same int; 1.5 for an int, more
// than 18 significant digits, a string, or a bool for a number are errors.
// Enums take one of their listed strings; bools only true or false; dates a
// strict "YYYY-MM-DD" calendar date or an integer ordinal with 0001-01-01 =
// 1 (Python's date.toordinal()). InputsHash gives inputs_hash (docs/api.md#replay).
//
// # Evaluating
//
// Ruleset.Evaluate (or EvaluateInto, which reuses a Result and does not
// allocate) decides Inputs under Kleene's three-valued logic as syntax/GRAMMAR.md
// states: an unanswered field is unknown; "and" with a false side is false
// and "or" with a true side is true whatever the other sides; present,
// absent and a known default are never unknown. A criterion is satisfied,
// not_satisfied or pending (a discretionary one always pending); an all
// group fails when one criterion fails, an any group holds when one
// alternative holds; the outcome is eligible, not_eligible or undetermined,
// and always undetermined when there is a field error. MissingFields are
// the unanswered fields some pending criterion reads.
//
// Options.Trace and Options.Explanation add the trace and
// explanation (docs/api.md#trace-and-explanation) in a second pass over the result, so the plain path pays
// nothing for them. Ruleset.Report assembles the whole decision as the CLI
// prints it. Ruleset.RunCase runs one casebank or project test case.
//
// # Finding quotes
//
// A criterion cites its source with an exact quote. SourceText (and
// LocateQuote for one quote) is the one rule by which a quote is found in
// a source's text: each run of white space matches any other, leading and
// trailing white space is ignored, and nothing else is forgiven.
// Authoring's quote checks, publish's quotes stage and the casebank's
// citation check all call it, so they cannot disagree. CollapseSpace is
// the form quotes are compared in, and TextFragment's deep links use it.
package engine

// Version is the engine version stamped on every decision. Outcomes for the
// same rules and inputs may differ between engine versions.
const Version = "eligo-core@0.33.1"
