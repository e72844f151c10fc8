package syntax

// TokenKind classifies a Token: the lexer's classes, so that a tool
// reading the text as written (an editor's ranges, highlighting and
// completion) splits it exactly as the parser does.
type TokenKind uint8

// Token kinds. A keyword is a TokenIdent whose text is among Keywords.
const (
	TokenIdent   TokenKind = iota + 1 // a lower-case word, keywords included
	TokenField                        // group.name
	TokenString                       // "...", quotes included in Text
	TokenNumber                       // 12, 1250.50, 1e3
	TokenPunct                        // { } ( ) [ ] , == != < <= > >= + - * ??
	TokenComment                      // # to the end of the line
	TokenInvalid                      // a character the language does not use
)

// Token is one lexeme of a .rules text with the span it covers.
type Token struct {
	// Kind is the lexeme's class.
	Kind TokenKind
	// Text is the lexeme exactly as written: a string with its quotes
	// (an unclosed one up to the end of its line), a comment from its #.
	Text string
	// Start is the position of its first character.
	Start Pos
	// End is the position just past its last character, on the same line
	// (no lexeme spans lines).
	End Pos
}

// Tokens splits src into its lexemes, comments included, with the spans
// they cover, by the parser's own lexer: an editor places a diagnostic's
// range, finds the name under the cursor and highlights the text with it,
// so that it never disagrees with the compiler about where a word ends.
// Malformed lexemes are returned as written (an unclosed string, a
// character the language does not use); what is wrong with them is
// Compile's to say.
func Tokens(src []byte) []Token {
	var errs ErrorList
	l := newLexer("", string(src), &errs)
	var out []Token
	for {
		for l.off < len(l.src) && (l.src[l.off] == ' ' || l.src[l.off] == '\t' || l.src[l.off] == '\r' || l.src[l.off] == '\n') {
			l.advance(1)
		}
		start := l.off
		t := l.next()
		if t.kind == tokEOF {
			return out
		}
		raw := l.src[start:l.off]
		out = append(out, Token{Kind: exportedKind(t, raw), Text: raw, Start: t.pos, End: Pos{Line: l.line, Col: l.col}})
	}
}

// exportedKind is the class of t, written raw. A character the lexer
// substitutes for what its writer evidently meant (= for ==, && for and,
// a string opened with a curly quote) is TokenInvalid: the text as
// written is not the language, whatever the parser reads on as.
func exportedKind(t token, raw string) TokenKind {
	switch t.kind {
	case tokIdent, tokField:
		if raw != t.text {
			return TokenInvalid
		}
		if t.kind == tokField {
			return TokenField
		}
		return TokenIdent
	case tokPunct:
		if raw != t.text {
			return TokenInvalid
		}
		return TokenPunct
	case tokString:
		if raw == "" || raw[0] != '"' {
			return TokenInvalid
		}
		return TokenString
	case tokNumber:
		return TokenNumber
	case tokComment:
		return TokenComment
	}
	return TokenInvalid
}
