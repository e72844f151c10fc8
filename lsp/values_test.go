package lsp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/lsp"
)

// computing is a ruleset with a named value, read by a criterion and
// another value, and a table.
const computing = `section computing
effective 2025-01-01

source act "Benefit Act" url "https://example.org/act" licence "public-domain"

field income.earned decimal
  range 0..
field household.size int
  range 1..

value gross decimal "Gross monthly income" unit "USD" output {
  income.earned * 1
  cite act "gross"
}

value net decimal "Net monthly income" unit "USD" {
  max(gross - 100, 0)
  cite act "net"
}

table limit decimal "Income limit" unit "USD" {
  keys household.size
  1..4 => 1000 + 300 * household.size
  5..  => 2200
  cite act "limit"
}

group money all "Money" {
  criterion under "Net income under the limit" {
    net <= limit
    cite act "under"
  }
}
`

// TestValuesInTheEditor: hover says what a value or table is and how it is
// computed, definition and references follow its name, completion offers
// it, and the outline lists it.
func TestValuesInTheEditor(t *testing.T) {
	c := start(t, lsp.Options{})
	uri := "untitled:computing.rules"
	c.open(uri, computing)
	for _, tc := range []struct {
		name string
		at   lsp.Position
		want []string
	}{
		{"a value at its use", at(t, computing, "net <= limit", 0, 1), []string{"**value** `net`: decimal (USD)", "Net monthly income", "= `max(gross - 100, 0)`", `Cites act: "net"`}},
		{"an output value at its declaration", at(t, computing, "value gross", 0, 7), []string{"**value** `gross`", "returned with the decision"}},
		{"a table", at(t, computing, "<= limit", 0, 4), []string{"**table** `limit`: decimal (USD)", "Looked up by household.size"}},
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
	var defs []lsp.Location
	c.call("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": at(t, computing, "gross - 100", 0, 2)}, &defs)
	if want := (lsp.Range{Start: at(t, computing, "value gross", 0, 6), End: at(t, computing, "value gross", 0, 11)}); len(defs) != 1 || defs[0].Range != want {
		t.Errorf("definition %+v, want %+v", defs, want)
	}
	var refs []lsp.Location
	c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": at(t, computing, "net <= limit", 0, 1),
		"context": map[string]any{"includeDeclaration": true}}, &refs)
	if len(refs) != 2 {
		t.Errorf("references of net: %+v", refs)
	}
	var list lsp.CompletionList
	c.call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": at(t, computing, "net <= limit", 0, 0)}, &list)
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	for _, w := range []string{"gross", "net", "limit", "income.earned", "round"} {
		if !slices.Contains(labels, w) {
			t.Errorf("completion %q lacks %q", labels, w)
		}
	}
	var syms []lsp.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	var names []string
	for _, s := range syms {
		if s.Kind == lsp.SymbolKindVariable {
			names = append(names, s.Name)
		}
	}
	if strings.Join(names, ",") != "gross,net,limit" {
		t.Errorf("outline values %q", names)
	}
	c.shutdown()
}
