package authoring

import (
	"context"

	"github.com/eligo/eligo/engine/syntax"
)

// DraftSymbols are what a code editor completes the draft's text from: the
// names it declares and the rules language's own words. They are read
// from the parsed text, not the compiled draft, so a draft that does not
// compile (the usual state of one being edited) still has them.
type DraftSymbols struct {
	// Complete is false when the text has syntax errors: the parser skips
	// to the next declaration after one, so a declaration it skipped is
	// missing from the lists.
	Complete bool `json:"complete" doc:"False when the draft has syntax errors: a declaration the parser skipped over is then missing."`
	// Fields are the declared fields, in declaration order.
	Fields []FieldSymbol `json:"fields" nullable:"false"`
	// Sources are the declared sources, in declaration order.
	Sources []SourceSymbol `json:"sources" nullable:"false"`
	// Groups are the declared groups, in declaration order.
	Groups []GroupSymbol `json:"groups" nullable:"false"`
	// Criteria are the declared criteria, group by group.
	Criteria []CriterionSymbol `json:"criteria" nullable:"false"`
	// Values are the declared named values and tables, in declaration
	// order.
	Values []ValueSymbol `json:"values" nullable:"false" doc:"The named values and tables the draft declares, in declaration order."`
	// Functions are the rules language's functions (syntax.Functions).
	Functions []string `json:"functions" nullable:"false" doc:"The rules language's functions, e.g. years_between."`
	// Keywords are the rules language's keywords (syntax.Keywords).
	Keywords []string `json:"keywords" nullable:"false" doc:"The rules language's keywords, e.g. criterion, cite, all."`
}

// ValueSymbol is one declared named value or table.
type ValueSymbol struct {
	ID    string `json:"id" doc:"The value's name, as criteria and other values read it."`
	Type  string `json:"type" doc:"The type as written: int, decimal, bool or date."`
	Title string `json:"title" doc:"The value's name for people."`
	Table bool   `json:"table" doc:"True for a table (looked up by its keys), false for a value defined by an expression."`
	Line  int    `json:"line" doc:"The line of the declaration, from 1."`
}

// FieldSymbol is one declared field.
type FieldSymbol struct {
	ID         string   `json:"id" doc:"The field id, <group>.<name>."`
	Type       string   `json:"type" doc:"The type as written: int, decimal, bool, date or enum."`
	Question   string   `json:"question" doc:"The question asked; empty when the draft gives none."`
	EnumValues []string `json:"enum_values" nullable:"false" doc:"An enum's values in the order written; empty for other types."`
	Line       int      `json:"line" doc:"The line of the declaration, from 1."`
}

// SourceSymbol is one declared source.
type SourceSymbol struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Line  int    `json:"line" doc:"The line of the declaration, from 1."`
}

// GroupSymbol is one declared group.
type GroupSymbol struct {
	ID    string `json:"id"`
	Kind  string `json:"kind" doc:"all or any, as written."`
	Title string `json:"title"`
	Line  int    `json:"line" doc:"The line of the declaration, from 1."`
}

// CriterionSymbol is one declared criterion.
type CriterionSymbol struct {
	ID            string `json:"id"`
	GroupID       string `json:"group_id"`
	Title         string `json:"title"`
	Discretionary bool   `json:"discretionary"`
	Line          int    `json:"line" doc:"The line of the declaration, from 1."`
}

// SymbolsOf reads the symbols of a rules text, from the parsed file's
// Declarations (the list `eligo lsp` reads too).
func SymbolsOf(text string) DraftSymbols {
	f, errs := syntax.Parse("draft.rules", []byte(text))
	out := DraftSymbols{Complete: len(errs) == 0, Fields: []FieldSymbol{}, Sources: []SourceSymbol{}, Groups: []GroupSymbol{},
		Criteria: []CriterionSymbol{}, Values: []ValueSymbol{}, Functions: syntax.Functions(), Keywords: syntax.Keywords()}
	for _, d := range f.Declarations() {
		switch d.Kind {
		case syntax.DeclField:
			out.Fields = append(out.Fields, FieldSymbol{ID: d.ID, Type: d.Field.Type, Question: d.Field.Question, EnumValues: orEmpty(d.Field.Enum), Line: d.Pos.Line})
		case syntax.DeclSource:
			out.Sources = append(out.Sources, SourceSymbol{ID: d.ID, Title: d.Source.Title, Line: d.Pos.Line})
		case syntax.DeclGroup:
			out.Groups = append(out.Groups, GroupSymbol{ID: d.ID, Kind: d.Group.Kind, Title: d.Group.Title, Line: d.Pos.Line})
		case syntax.DeclCriterion:
			out.Criteria = append(out.Criteria, CriterionSymbol{ID: d.ID, GroupID: d.Group.ID, Title: d.Criterion.Title, Discretionary: d.Criterion.Discretionary, Line: d.Pos.Line})
		case syntax.DeclValue:
			out.Values = append(out.Values, ValueSymbol{ID: d.ID, Type: d.Value.Type, Title: d.Value.Body.Title, Table: d.Value.Table, Line: d.Pos.Line})
		}
	}
	return out
}

// Symbols reads the symbols of the project's saved draft (SymbolsOf); a
// project without a draft is a 409 no_draft, as for Draft.
func (s *Drafts) Symbols(ctx context.Context, tenantID, projectID string) (DraftSymbols, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return DraftSymbols{}, err
	}
	if p.DraftText == nil {
		return DraftSymbols{}, noDraft()
	}
	return SymbolsOf(*p.DraftText), nil
}
