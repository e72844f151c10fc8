package engine

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the one rule by which a citation's exact quote is found in
// its source's text. Authoring (a generated draft's provenance), publish
// (the quotes gate) and the casebank (a folder's citations) all call it,
// so a quote authoring reports verified is one publish accepts, and the
// reverse.
//
// The rule: each run of white space in the quote or the text matches any
// run in the other, and the quote's leading and trailing white space is
// ignored. White space is what unicode.IsSpace says it is (so a
// non-breaking space, U+0085 and U+2003 count; a zero-width space does
// not), and a byte that is not valid UTF-8 counts as a character that is
// not white space. Nothing else is forgiven — not case, not punctuation,
// not spelling, not Unicode normalisation — so a found quote is one a
// reader finds in the source as written. A quote that is empty or only
// white space is never found.

// SourceText is a source's text prepared for finding quotes in it: its
// white space collapsed once, with a map back to the original offsets.
// Finding every quote of a ruleset in one source then costs one substring
// search each. It is read-only after NewSourceText and safe for concurrent
// use.
type SourceText struct {
	norm string // the text with each run of white space one space, trimmed
	// runs are the maximal runs of non-space text, in order; each is the
	// same bytes in norm and in text, so an offset inside one maps across
	// by adding the difference of their starts.
	runs []quoteRun
}

// quoteRun maps the start of one run of non-space text in norm to its start in
// the original text.
type quoteRun struct{ norm, text int }

// NewSourceText prepares text for Locate. The text need not be valid
// UTF-8: an invalid byte counts as a character that is not white space.
func NewSourceText(text string) *SourceText {
	n := &SourceText{runs: make([]quoteRun, 0, len(text)/8)}
	var b strings.Builder
	b.Grow(len(text))
	inRun := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if isSpace(r, size) {
			inRun = false
		} else {
			if !inRun {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				n.runs = append(n.runs, quoteRun{norm: b.Len(), text: i})
				inRun = true
			}
			b.WriteString(text[i : i+size])
		}
		i += size
	}
	n.norm = b.String()
	return n
}

// isSpace reports whether a decoded rune is white space; an invalid byte
// (RuneError of size 1) is not.
func isSpace(r rune, size int) bool {
	return unicode.IsSpace(r) && !(r == utf8.RuneError && size == 1)
}

// CollapseSpace returns s with each run of white space turned into one
// space and leading and trailing white space removed: the form in which
// quotes are compared (see the rule at the top of this file), and the
// form a quote takes in a deep link's text fragment.
func CollapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isSpace(r, size) {
			pending = b.Len() > 0
		} else {
			if pending {
				b.WriteByte(' ')
				pending = false
			}
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Locate finds the first occurrence of quote in the text, forgiving only
// white space (the rule at the top of this file). It returns the byte
// offsets in the original text of the first and past the last character
// of the match, or ok false when the quote is not there or is only white
// space.
func (n *SourceText) Locate(quote string) (start, end int, ok bool) {
	q := CollapseSpace(quote)
	if q == "" {
		return 0, 0, false
	}
	at := strings.Index(n.norm, q)
	if at < 0 {
		return 0, 0, false
	}
	// The match starts and ends on non-space characters, each inside a run.
	return n.original(at), n.original(at+len(q)-1) + 1, true
}

// Contains reports whether Locate finds quote: the check publish and the
// casebank make, which need no offsets.
func (n *SourceText) Contains(quote string) bool {
	_, _, ok := n.Locate(quote)
	return ok
}

// original maps an offset of a non-space byte in norm to the text.
func (n *SourceText) original(at int) int {
	i := sort.Search(len(n.runs), func(i int) bool { return n.runs[i].norm > at }) - 1
	return n.runs[i].text + at - n.runs[i].norm
}

// LocateQuote finds quote in text as SourceText.Locate does. It prepares
// the text on every call; to find several quotes in one text, call
// NewSourceText once and its Locate for each.
func LocateQuote(text, quote string) (start, end int, ok bool) {
	return NewSourceText(text).Locate(quote)
}
