package authoring

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/lsp"
)

// The studio's editor checks and completes the text being typed, before
// it is saved, with the language server's own code (lsp.Document): one
// implementation of what an author is told, whether in VS Code or in the
// browser (docs/authoring.md, "Checking as you type").

// TextPosition is a place in a rules text as the Language Server Protocol
// gives it: a zero-based line and a character offset in UTF-16 code units,
// which is how a browser's strings count, so an editor there takes it as
// it is.
type TextPosition struct {
	Line      int `json:"line" minimum:"0" maximum:"1048576" doc:"The line, from 0."`
	Character int `json:"character" minimum:"0" maximum:"1048576" doc:"The offset in the line, from 0, in UTF-16 code units."`
}

// TextRange is a span of a rules text, End exclusive.
type TextRange struct {
	Start TextPosition `json:"start"`
	End   TextPosition `json:"end"`
}

// Diagnostic is one problem the language server finds in a text, at the
// range it is about.
type Diagnostic struct {
	Range    TextRange `json:"range"`
	Severity string    `json:"severity" enum:"error,warning,information" doc:"error: the text does not compile; warning: it does, but something is likely wrong."`
	Code     string    `json:"code" doc:"What kind of finding it is, when it has one (e.g. section); empty for the compiler's errors and warnings."`
	Message  string    `json:"message" doc:"The compiler's words, as eligo check prints them without the file:line:column the range says."`
}

// DraftCheck is what checking a rules text finds.
type DraftCheck struct {
	// Compiles is whether the text would compile as this project's draft
	// (its section the project's).
	Compiles bool `json:"compiles" doc:"Whether the text compiles as the project's draft: no diagnostic is an error."`
	// Diagnostics are the problems in text order.
	Diagnostics []Diagnostic `json:"diagnostics" nullable:"false" doc:"The language server's diagnostics of the text (compile errors and warnings, at their ranges), and a draft authoring another section than the project's."`
}

// Completion is one proposal of the language server at a place.
type Completion struct {
	Label      string `json:"label" doc:"What the rules say: a field, source, group id, a function, keyword or quoted enum value."`
	Kind       string `json:"kind" enum:"field,source,group,value,function,keyword,named_value" doc:"What kind of name it is: value is one of an enum field's values, named_value a value or table the rules declare."`
	Detail     string `json:"detail" doc:"In people's words: a source's or group's title, a field's type, a function's signature; empty for a keyword."`
	InsertText string `json:"insert_text" doc:"The text to insert in place of the word at the position."`
}

// DraftCompletions are the proposals at one place of a text.
type DraftCompletions struct {
	Items []Completion `json:"items" nullable:"false" doc:"By what precedes the position: the declared sources after cite (or a note's source), an enum field's values where it is compared or listed, group ids in the outcome, else the declared fields, the functions and the keywords."`
}

// sectionMismatch says that a draft authors another section than its
// project's; a draft that does is refused as one that does not compile.
func sectionMismatch(got, want string) string {
	return fmt.Sprintf("the draft's section is %s but the project authors %s", got, want)
}

// severities names the protocol's severities.
var severities = map[int]string{lsp.SeverityError: "error", lsp.SeverityWarning: "warning", lsp.SeverityInformation: "information"}

// completionKinds names the protocol's completion kinds.
var completionKinds = map[int]string{lsp.CompletionKindField: "field", lsp.CompletionKindReference: "source", lsp.CompletionKindClass: "group",
	lsp.CompletionKindEnumMember: "value", lsp.CompletionKindFunction: "function", lsp.CompletionKindKeyword: "keyword",
	lsp.CompletionKindVariable: "named_value"}

func textRange(r lsp.Range) TextRange {
	return TextRange{Start: TextPosition(r.Start), End: TextPosition(r.End)}
}

// Check checks text, a rules text of project projectID that need not be
// saved, as the language server checks an open document, and as the
// project's draft (its section). Nothing is stored; a project the tenant
// does not hold is ErrNotFound.
func (s *Drafts) Check(ctx context.Context, tenantID, projectID, text string) (DraftCheck, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return DraftCheck{}, err
	}
	doc := lsp.Open(text)
	out := DraftCheck{Diagnostics: []Diagnostic{}}
	for _, d := range doc.Diagnostics() {
		out.Diagnostics = append(out.Diagnostics, Diagnostic{Range: textRange(d.Range), Severity: severities[d.Severity], Code: d.Code, Message: d.Message})
	}
	rules := doc.Ruleset()
	out.Compiles = rules != nil
	if rules != nil && rules.SectionID != p.SectionID {
		out.Compiles = false
		at := syntax.Pos{Line: 1, Col: 1}
		if f := doc.File(); f != nil && f.Section != nil {
			at = f.Section.Pos
		}
		out.Diagnostics = append([]Diagnostic{{Range: textRange(doc.LineRange(at)), Severity: "error", Code: "section",
			Message: sectionMismatch(rules.SectionID, p.SectionID)}}, out.Diagnostics...)
	}
	slices.SortStableFunc(out.Diagnostics, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	return out, nil
}

// Complete is what the language server proposes at at in text, a rules
// text of project projectID that need not be saved. Nothing is stored; a
// project the tenant does not hold is ErrNotFound.
func (s *Drafts) Complete(ctx context.Context, tenantID, projectID, text string, at TextPosition) (DraftCompletions, error) {
	if _, err := s.store.ProjectOf(ctx, tenantID, projectID); err != nil {
		return DraftCompletions{}, err
	}
	list := lsp.Open(text).Complete(lsp.Position(at))
	out := DraftCompletions{Items: make([]Completion, len(list.Items))}
	for i, it := range list.Items {
		insert := it.InsertText
		if insert == "" {
			insert = it.Label
		}
		out.Items[i] = Completion{Label: it.Label, Kind: completionKinds[it.Kind], Detail: it.Detail, InsertText: insert}
	}
	return out, nil
}
