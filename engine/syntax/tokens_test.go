package syntax_test

import (
	"reflect"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// TestTokens checks the spans an editor places ranges with: each lexeme as
// written, where it starts and just past where it ends, columns in
// characters, malformed lexemes included.
func TestTokens(t *testing.T) {
	type tok struct {
		kind       syntax.TokenKind
		text       string
		start, end syntax.Pos
	}
	for _, tc := range []struct {
		name string
		src  string
		want []tok
	}{
		{"comparison", "a.b >= 3 # why\n", []tok{
			{syntax.TokenField, "a.b", syntax.Pos{1, 1}, syntax.Pos{1, 4}},
			{syntax.TokenPunct, ">=", syntax.Pos{1, 5}, syntax.Pos{1, 7}},
			{syntax.TokenNumber, "3", syntax.Pos{1, 8}, syntax.Pos{1, 9}},
			{syntax.TokenComment, "# why", syntax.Pos{1, 10}, syntax.Pos{1, 15}},
		}},
		{"string and unclosed string", "title \"é\\\"x\"\n  \"open\n", []tok{
			{syntax.TokenIdent, "title", syntax.Pos{1, 1}, syntax.Pos{1, 6}},
			{syntax.TokenString, "\"é\\\"x\"", syntax.Pos{1, 7}, syntax.Pos{1, 13}},
			{syntax.TokenString, "\"open", syntax.Pos{2, 3}, syntax.Pos{2, 8}},
		}},
		{"substituted characters are invalid", "x = 1 && y\n", []tok{
			{syntax.TokenIdent, "x", syntax.Pos{1, 1}, syntax.Pos{1, 2}},
			{syntax.TokenInvalid, "=", syntax.Pos{1, 3}, syntax.Pos{1, 4}},
			{syntax.TokenNumber, "1", syntax.Pos{1, 5}, syntax.Pos{1, 6}},
			{syntax.TokenInvalid, "&&", syntax.Pos{1, 7}, syntax.Pos{1, 9}},
			{syntax.TokenIdent, "y", syntax.Pos{1, 10}, syntax.Pos{1, 11}},
		}},
		{"curly quotes", "\u201chi\u201d @", []tok{
			{syntax.TokenInvalid, "\u201chi\u201d", syntax.Pos{1, 1}, syntax.Pos{1, 5}},
			{syntax.TokenInvalid, "@", syntax.Pos{1, 6}, syntax.Pos{1, 7}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []tok
			for _, k := range syntax.Tokens([]byte(tc.src)) {
				got = append(got, tok{k.Kind, k.Text, k.Start, k.End})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Tokens(%q)\n got %+v\nwant %+v", tc.src, got, tc.want)
			}
		})
	}
}
