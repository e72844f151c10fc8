// Package syntax is the rules language's front end: source text to syntax
// tree and back. Tokens is the lexer's view an editor highlights from;
// Parse reads a .rules file into a *File, recovering from errors so that
// one pass reports as many as it can, each an Error at a Pos, sorted in an
// ErrorList; Print is the canonical printer behind `eligo fmt`, and
// Parse(Print(f)) gives f back. Declarations, Keywords, Functions and
// DescribeFunction are the vocabulary an editor's outline, completion and
// hover read. The language itself is specified in GRAMMAR.md, which Grammar
// returns as the binary embeds it.
//
// A text is bounded before any other work: Parse refuses one over a limit
// (MaxRulesBytes, MaxCriteria, MaxExprNodes, MaxExprDepth and the others in
// limits.go) with an error naming the limit and its value, so that reading
// whatever text a caller sends costs time and memory in proportion to the
// limits, not to the text.
//
// The package knows nothing of what a ruleset means: type checking,
// compiling and evaluating are the engine's (package engine), which reads
// the tree this package builds. Number literals are read into a value.Value
// so that the parser and the evaluator agree on every number.
package syntax
