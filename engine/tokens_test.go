package engine_test

import (
	"reflect"
	"testing"

	"github.com/eligo/eligo/engine"
)

// TestTokens checks the spans an editor places ranges with: each lexeme as
// written, where it starts and just past where it ends, columns in
// characters, malformed lexemes included.
func TestTokens(t *testing.T) {
	type tok struct {
		kind       engine.TokenKind
		text       string
		start, end engine.Pos
	}
	for _, tc := range []struct {
		name string
		src  string
		want []tok
	}{
		{"comparison", "a.b >= 3 # why\n", []tok{
			{engine.TokenField, "a.b", engine.Pos{1, 1}, engine.Pos{1, 4}},
			{engine.TokenPunct, ">=", engine.Pos{1, 5}, engine.Pos{1, 7}},
			{engine.TokenNumber, "3", engine.Pos{1, 8}, engine.Pos{1, 9}},
			{engine.TokenComment, "# why", engine.Pos{1, 10}, engine.Pos{1, 15}},
		}},
		{"string and unclosed string", "title \"é\\\"x\"\n  \"open\n", []tok{
			{engine.TokenIdent, "title", engine.Pos{1, 1}, engine.Pos{1, 6}},
			{engine.TokenString, "\"é\\\"x\"", engine.Pos{1, 7}, engine.Pos{1, 13}},
			{engine.TokenString, "\"open", engine.Pos{2, 3}, engine.Pos{2, 8}},
		}},
		{"substituted characters are invalid", "x = 1 && y\n", []tok{
			{engine.TokenIdent, "x", engine.Pos{1, 1}, engine.Pos{1, 2}},
			{engine.TokenInvalid, "=", engine.Pos{1, 3}, engine.Pos{1, 4}},
			{engine.TokenNumber, "1", engine.Pos{1, 5}, engine.Pos{1, 6}},
			{engine.TokenInvalid, "&&", engine.Pos{1, 7}, engine.Pos{1, 9}},
			{engine.TokenIdent, "y", engine.Pos{1, 10}, engine.Pos{1, 11}},
		}},
		{"curly quotes", "\u201chi\u201d @", []tok{
			{engine.TokenInvalid, "\u201chi\u201d", engine.Pos{1, 1}, engine.Pos{1, 5}},
			{engine.TokenInvalid, "@", engine.Pos{1, 6}, engine.Pos{1, 7}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []tok
			for _, k := range engine.Tokens([]byte(tc.src)) {
				got = append(got, tok{k.Kind, k.Text, k.Start, k.End})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Tokens(%q)\n got %+v\nwant %+v", tc.src, got, tc.want)
			}
		})
	}
}
