package lsp

import (
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
)

// Document is one rules text as the language server reads it, for a
// program that is not an editor speaking the protocol: the studio's
// HTTP operations check and complete unsaved text with it, so an author
// in the browser sees the very diagnostics and completions `eligo lsp`
// gives (docs/authoring.md). It holds no file: the checks of a ruleset
// folder (cases.json, the source text beside it) and the solver's
// analysis are the server's alone.
type Document struct {
	c *compiled
}

// Open parses and compiles src, an unsaved text (its diagnostics'
// messages carry no file name: the range says where).
func Open(src string) *Document {
	return &Document{c: compile("", src)}
}

// Diagnostics are the compile errors and warnings at their ranges, as
// the server publishes them for an unsaved document.
func (d *Document) Diagnostics() []Diagnostic {
	return d.c.compileDiagnostics()
}

// Complete is what the server proposes at p (textDocument/completion).
func (d *Document) Complete(p Position) CompletionList {
	return d.c.complete(p)
}

// Ruleset is the compiled text, nil when it does not compile.
func (d *Document) Ruleset() *engine.Ruleset {
	return d.c.ruleset
}

// LineRange is the range from p to the end of its line, for a problem
// about a whole line (a header, a declaration) found outside this package.
func (d *Document) LineRange(p syntax.Pos) Range {
	return d.c.lineRange(p)
}

// File is the parsed text (with what the parser could read of a text with
// syntax errors).
func (d *Document) File() *syntax.File {
	return d.c.file
}
