package engine

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalised is a text prepared for verifying quotes: its white space
// collapsed once, with a map back to the original offsets. Verifying every
// quote of a ruleset against one source then costs one substring search
// each. It is read-only after Normalise and safe for concurrent use.
type Normalised struct {
	norm string // the text with each run of white space one space, trimmed
	// runs are the maximal runs of non-space text, in order; each is the
	// same bytes in norm and in text, so an offset inside one maps across
	// by adding the difference of their starts.
	runs []run
}

// run maps the start of one run of non-space text in norm to its start in
// the original text.
type run struct{ norm, text int }

// Normalise prepares text for Locate. The text need not be valid UTF-8: an
// invalid byte counts as a character that is not white space.
func Normalise(text string) *Normalised {
	n := &Normalised{runs: make([]run, 0, len(text)/8)}
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
				n.runs = append(n.runs, run{norm: b.Len(), text: i})
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

// CollapseSpace returns s with each run of white space turned into one space
// and leading and trailing white space removed.
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
// white space: each run of white space in either matches any run in the
// other, and the quote's leading and trailing white space is ignored.
// Nothing else is forgiven — not case, not punctuation, not spelling — so
// a located quote is one a reader finds in the source as written. It
// returns the byte offsets in the original text of the first and past the
// last character of the match, or ok false when the quote is not there or
// is only white space.
func (n *Normalised) Locate(quote string) (start, end int, ok bool) {
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

// original maps an offset of a non-space byte in norm to the text.
func (n *Normalised) original(at int) int {
	i := sort.Search(len(n.runs), func(i int) bool { return n.runs[i].norm > at }) - 1
	return n.runs[i].text + at - n.runs[i].norm
}

// Locate finds quote in text as Normalised.Locate does. It normalises the
// text on every call; to verify several quotes against one text, Normalise
// it once and call its Locate.
func Locate(text, quote string) (start, end int, ok bool) {
	return Normalise(text).Locate(quote)
}
