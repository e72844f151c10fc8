package lsp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/lsp"
)

// household is a ruleset with a list of members read by aggregates.
const household = `section household
effective 2025-01-01

source act "Household Act" url "https://example.org/act" licence "public-domain"

list member "People in the household" up to 8
  question "How many people live in your household?"

field member.age int
  question "How old is this person?"
  range 0..130
field member.earnings decimal
  range 0..

value member.countable decimal "Countable earnings" {
  if member.age < 16 then 0 else member.earnings
  cite act "earnings"
}

group people all "People" {
  criterion young "A child under five" {
    any(member where member.age < 5)
    cite act "a child under five"
  }
  criterion earnings "Earnings" {
    sum(member.countable) <= 1000 + 500 * count(member)
    cite act "earnings"
  }
}
`

// TestListsInTheEditor: a list and its member fields are hovered,
// completed and outlined, and the text has no problem to report.
func TestListsInTheEditor(t *testing.T) {
	c := start(t, lsp.Options{})
	uri := "untitled:household.rules"
	c.open(uri, household)
	for _, tc := range []struct {
		name string
		at   lsp.Position
		want []string
	}{
		{"the list in an aggregate", at(t, household, "any(member", 0, 5), []string{"**list** `member`: People in the household, up to 8", "How many people live in your household?"}},
		{"the list at its declaration", at(t, household, "list member", 0, 6), []string{"**list** `member`"}},
		{"a member field in an aggregate", at(t, household, "member.age < 5", 0, 8), []string{"member.age", "How old is this person?"}},
		{"a member's value in an aggregate", at(t, household, "sum(member.countable", 0, 8), []string{"**value** `member.countable`", "Countable earnings"}},
		{"a member's value at its declaration", at(t, household, "value member.countable", 0, 8), []string{"**value** `member.countable`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hoverAt(c, uri, tc.at)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("hover %q lacks %q", got, w)
				}
			}
		})
	}
	var list lsp.CompletionList
	c.call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": at(t, household, "any(member", 0, 0)}, &list)
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	for _, w := range []string{"member.age", "member.earnings", "member.countable", "count", "sum", "any", "all", "min", "max"} {
		if !slices.Contains(labels, w) {
			t.Errorf("completion %q lacks %q", labels, w)
		}
	}
	var syms []lsp.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	if !slices.ContainsFunc(syms, func(s lsp.DocumentSymbol) bool { return s.Kind == lsp.SymbolKindArray && s.Name == "member" }) {
		t.Errorf("the outline %+v lacks the list", syms)
	}
	c.shutdown()
}
