package syntax

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokenKind classifies a token of the rules language.
type tokenKind uint8

const (
	tokEOF     tokenKind = iota
	tokIdent             // lower-case word, keywords included
	tokField             // group.name
	tokString            // "..." (Text holds the unescaped value)
	tokNumber            // 12, 1250.50, 1e3
	tokPunct             // { } ( ) [ ] , == != < <= > >= + - * ??
	tokComment           // # ... (Text holds the whole line from #)
	tokInvalid           // a character the language does not use
)

// token is one lexeme with the position of its first character.
type token struct {
	// kind is the token's class.
	kind tokenKind
	// text is the lexeme: a string's unescaped contents, a comment's whole
	// line from #, otherwise the characters as written.
	text string
	// pos is where the token starts.
	pos Pos
	// lineStart is true when no other token precedes it on its line; the
	// parser resynchronises on such tokens after an error.
	lineStart bool
	// problem says what is wrong with a word as a name ("Adult" is not
	// one); the parser reports it where it reads the word as a name, so a
	// word where a keyword or a string belongs gets the error that says
	// so instead.
	problem string
}

// lexer splits source text into tokens, reporting malformed lexemes to errs.
type lexer struct {
	// src is the whole source text.
	src string
	// off is the byte offset of the next unread character.
	off int
	// line and col are the position of src[off], both from 1, col in
	// characters.
	line, col int
	// lastLine is the line of the last token returned, for lineStart.
	lastLine int
	// errs receives the lexical errors.
	errs *ErrorList
	// file is the file name errors carry.
	file string
	// end is the position just after the last non-comment token.
	end Pos
}

func newLexer(file, src string, errs *ErrorList) *lexer {
	return &lexer{src: src, line: 1, col: 1, errs: errs, file: file}
}

func (l *lexer) errorf(pos Pos, format string, args ...any) {
	l.errs.addFirst(l.file, pos, fmt.Sprintf(format, args...))
}

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.off < len(l.src); {
		r, size := utf8.DecodeRuneInString(l.src[l.off:])
		l.off += size
		i += size
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
	}
}

// next returns the next token, comments included.
func (l *lexer) next() token {
	t := l.scan()
	if t.kind != tokComment && t.kind != tokEOF {
		l.end = Pos{Line: l.line, Col: l.col}
	}
	return t
}

func (l *lexer) scan() token {
	for l.off < len(l.src) {
		c := l.src[l.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			l.advance(1)
			continue
		}
		break
	}
	pos := Pos{Line: l.line, Col: l.col}
	t := token{pos: pos, lineStart: l.line != l.lastLine}
	if l.off >= len(l.src) {
		t.kind = tokEOF
		return t
	}
	l.lastLine = l.line
	rest := l.src[l.off:]
	c := rest[0]
	switch {
	case c == '#':
		end := strings.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest)
		}
		t.kind, t.text = tokComment, strings.TrimRight(rest[:end], " \t\r")
		l.advance(end)
	case c == '"':
		t.kind = tokString
		t.text = l.lexString(pos)
	case c >= '0' && c <= '9':
		t.kind, t.text = tokNumber, l.lexNumber()
	case isWordStart(c):
		t.kind, t.text, t.problem = l.lexWord()
	default:
		for _, p := range puncts {
			if strings.HasPrefix(rest, p) {
				t.kind, t.text = tokPunct, p
				l.advance(len(p))
				return t
			}
		}
		r, size := utf8.DecodeRuneInString(rest)
		t.kind, t.text = tokInvalid, rest[:size]
		switch r {
		case '=':
			l.errorf(pos, "unexpected \"=\": write == to compare")
		case '&', '|', '!':
			l.errorf(pos, "unexpected %q: write and, or, not", r)
		case '\u201c', '\u201d':
			l.errorf(pos, "curly quote %q: strings use straight double quotes \"", r)
		default:
			l.errorf(pos, "unexpected character %q", r)
		}
		l.advance(size)
		l.substitute(&t, r)
	}
	return t
}

// substitute turns a character the language does not use, already
// reported, into the token its writer evidently meant, so that the parser
// reads on as if it had been written right and reports no consequences of
// it: = is ==, & and && are and, | and || are or, ! is not, and a string
// opened with a curly quote runs to the next curly or straight one.
func (l *lexer) substitute(t *token, r rune) {
	switch r {
	case '=':
		t.kind, t.text = tokPunct, "=="
	case '&', '|':
		if l.off < len(l.src) && rune(l.src[l.off]) == r {
			l.advance(1) // && and || are one mistake, not two
		}
		t.kind, t.text = tokIdent, "and"
		if r == '|' {
			t.text = "or"
		}
	case '!':
		t.kind, t.text = tokIdent, "not"
	case '\u201c':
		t.kind, t.text = tokString, l.lexCurly()
	}
}

// lexCurly reads the rest of a string opened with a curly quote, up to a
// closing curly or straight quote or the end of the line.
func (l *lexer) lexCurly() string {
	rest := l.src[l.off:]
	end := strings.IndexAny(rest, "\u201d\"\n")
	if end < 0 {
		end = len(rest)
	}
	text := rest[:end]
	l.advance(end)
	if l.off < len(l.src) && l.src[l.off] != '\n' {
		_, size := utf8.DecodeRuneInString(l.src[l.off:])
		l.advance(size)
	}
	return text
}

// puncts are the punctuation tokens, two-character ones first.
var puncts = [...]string{"=>", "==", "!=", "<=", ">=", "??", "..", "{", "}", "(", ")", "[", "]", ",", "<", ">", "+", "-", "*", "/"}

func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isWordChar(c byte) bool {
	return isWordStart(c) || c >= '0' && c <= '9'
}

// lexWord reads an identifier or a dotted field name, and what is wrong
// with it as a name.
func (l *lexer) lexWord() (kind tokenKind, word, problem string) {
	rest := l.src[l.off:]
	n := 0
	for n < len(rest) && (isWordChar(rest[n]) || rest[n] == '.' && n+1 < len(rest) && isWordStart(rest[n+1])) {
		n++
	}
	word = rest[:n]
	l.advance(n)
	parts := strings.Split(word, ".")
	for _, p := range parts {
		if !ValidIdent(p) {
			problem = fmt.Sprintf("%q is not a valid name: names are lower-case letters, digits and _, starting with a letter", word)
			break
		}
	}
	switch {
	case len(parts) == 1:
		return tokIdent, word, problem
	case len(parts) > 2 && problem == "":
		problem = fmt.Sprintf("field name %q has %d parts: write <group>.<name>", word, len(parts))
	}
	return tokField, word, problem
}

// validIdent reports whether s matches [a-z][a-z0-9_]*.
func ValidIdent(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (l *lexer) lexNumber() string {
	rest := l.src[l.off:]
	n := 0
	digits := func() {
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
	}
	digits()
	if n+1 < len(rest) && rest[n] == '.' && rest[n+1] >= '0' && rest[n+1] <= '9' {
		n++
		digits()
	}
	if n < len(rest) && (rest[n] == 'e' || rest[n] == 'E') {
		m := n + 1
		if m < len(rest) && (rest[m] == '+' || rest[m] == '-') {
			m++
		}
		if m < len(rest) && rest[m] >= '0' && rest[m] <= '9' {
			n = m
			digits()
		}
	}
	l.advance(n)
	return rest[:n]
}

// lexString reads a double-quoted string and returns its unescaped text.
func (l *lexer) lexString(pos Pos) string {
	var b strings.Builder
	l.advance(1)
	for {
		if l.off >= len(l.src) || l.src[l.off] == '\n' {
			l.errorf(pos, "this string is not closed: add \" before the end of the line (strings may not span lines)")
			return b.String()
		}
		c := l.src[l.off]
		switch c {
		case '"':
			l.advance(1)
			return b.String()
		case '\\':
			if l.off+1 < len(l.src) && (l.src[l.off+1] == '"' || l.src[l.off+1] == '\\') {
				b.WriteByte(l.src[l.off+1])
				l.advance(2)
				continue
			}
			l.errorf(Pos{l.line, l.col}, "unknown escape: only \\\" and \\\\ are allowed in strings")
			l.advance(1)
		default:
			r, size := utf8.DecodeRuneInString(l.src[l.off:])
			if r == utf8.RuneError && size == 1 {
				l.errorf(Pos{l.line, l.col}, "invalid UTF-8 in string")
			} else {
				b.WriteString(l.src[l.off : l.off+size])
			}
			l.advance(size)
		}
	}
}
