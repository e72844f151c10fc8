package lsp

import (
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// TestTextPositions converts between the engine's positions (columns in
// characters) and the protocol's (UTF-16 code units), and applies ranged
// changes by them, on a text with accents, a character outside the
// Basic Multilingual Plane and CRLF line ends.
func TestTextPositions(t *testing.T) {
	src := "a \"é😀\" b\r\nsecond\n"
	x := newText(src)
	for _, tc := range []struct {
		engine syntax.Pos
		lsp    Position
	}{
		{syntax.Pos{Line: 1, Col: 1}, Position{0, 0}},
		{syntax.Pos{Line: 1, Col: 4}, Position{0, 3}}, // é
		{syntax.Pos{Line: 1, Col: 5}, Position{0, 4}}, // the emoji
		{syntax.Pos{Line: 1, Col: 6}, Position{0, 6}}, // after it: two code units
		{syntax.Pos{Line: 1, Col: 8}, Position{0, 8}}, // b
		{syntax.Pos{Line: 2, Col: 7}, Position{1, 6}}, // end of "second"
	} {
		if got := x.toLSP(tc.engine); got != tc.lsp {
			t.Errorf("toLSP(%v) = %v, want %v", tc.engine, got, tc.lsp)
		}
		if got := x.fromLSP(tc.lsp); got != tc.engine {
			t.Errorf("fromLSP(%v) = %v, want %v", tc.lsp, got, tc.engine)
		}
	}
	if got := x.apply(ContentChange{Range: &Range{Start: Position{0, 6}, End: Position{0, 7}}, Text: "!\""}); got != "a \"é😀!\" b\r\nsecond\n" {
		t.Errorf("apply = %q", got)
	}
	if got := x.apply(ContentChange{Range: &Range{Start: Position{1, 0}, End: Position{5, 0}}, Text: "x"}); got != "a \"é😀\" b\r\nx" {
		t.Errorf("apply past the end = %q", got)
	}
	if got := x.end(); got != (Position{2, 0}) {
		t.Errorf("end = %v", got)
	}
	if got := pathOf("file:///tmp/a%20b/x.rules"); got != "/tmp/a b/x.rules" {
		t.Errorf("pathOf = %q", got)
	}
	if got := pathOf("untitled:Untitled-1"); got != "" {
		t.Errorf("pathOf(untitled) = %q", got)
	}
}
