package source

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// grantAct is a short statute the nearest-passage cases search.
const grantAct = `Grant Act.

Section 1. A person qualifies for the grant if the person is at least 18 years old
and has lived in the county for  twelve months.

Section 2. The officer may, at their discretion, approve the grant.

Section 3. An applicant who is refused may appeal within 30 days of the refusal.
`

// The passage nearest a quote that is not in the text: found through a
// typo, a change of case or punctuation, a paraphrase and a line break;
// none for a quote from elsewhere, a quote with no word, or one over the
// word cap.
func TestNearest(t *testing.T) {
	w := NewWords(grantAct)
	for _, tc := range []struct {
		name, quote string
		want        string // the passage; "" for none
		minSim      float64
	}{
		{"a typo", "is at least 18 yeras old", "is at least 18 years old", 0.9},
		{"two typos and a dropped word", "the officer may at thier discretion aprove grant", "The officer may, at their discretion, approve the grant", 0.7},
		{"case and punctuation", "THE OFFICER MAY AT THEIR DISCRETION", "The officer may, at their discretion", 1},
		{"a paraphrase", "a person qualifies for the grant if they are at least 18 years old", "A person qualifies for the grant if the person is at least 18 years old", 0.75},
		{"across a line break and double space", "18 years old and has lived in the county for twelve month", "18 years old\nand has lived in the county for  twelve months", 0.9},
		{"a later section", "may appeal within thirty days of the refusal", "may appeal within 30 days of the refusal", 0.8},
		{"a quote from elsewhere", "the applicant must reside in the state for six consecutive years", "", 0},
		{"only shared little words", "the of and for", "", 0},
		{"no word at all", " — ; ", "", 0},
		{"over the word cap", strings.Repeat("grant ", MaxNearestQuoteWords+1), "", 0},
	} {
		p, ok := w.Nearest(tc.quote)
		if tc.want == "" {
			if ok {
				t.Errorf("%s: suggested %q (%.2f), want none", tc.name, grantAct[p.Start:p.End], p.Similarity)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no suggestion, want %q", tc.name, tc.want)
			continue
		}
		if got := grantAct[p.Start:p.End]; got != tc.want || p.Similarity < tc.minSim || p.Similarity > 1 {
			t.Errorf("%s: %q (%.2f), want %q (at least %.2f)", tc.name, got, p.Similarity, tc.want, tc.minSim)
		}
	}
}

// Only the first MaxNearestScan bytes of a text are searched.
func TestNearestScansBoundedText(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet ", MaxNearestScan/27+1)
	w := NewWords(filler + "the officer may approve the grant")
	if p, ok := w.Nearest("the officer may approve the grant"); ok {
		t.Errorf("a passage beyond the scan suggested at %d", p.Start)
	}
	w = NewWords("the officer may approve the grant " + filler)
	if p, ok := w.Nearest("the oficer may approve the grant"); !ok || p.Start != 0 {
		t.Errorf("a passage at the start: %+v %v", p, ok)
	}
}

// FuzzNearest checks that Nearest never panics, and that a suggestion is a
// non-empty span of the text starting and ending on a word, as close as
// promised.
func FuzzNearest(f *testing.F) {
	f.Add(grantAct, "is at least 18 yeras old")
	f.Add("a\xffb c", "a\xffb")
	f.Add("Ünïcode wörds hére", "unicode words here")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, text, quote string) {
		p, ok := NewWords(text).Nearest(quote)
		if !ok {
			return
		}
		if p.Start < 0 || p.End <= p.Start || p.End > len(text) || p.End > MaxNearestScan {
			t.Fatalf("span %d..%d of a text of %d bytes", p.Start, p.End, len(text))
		}
		if p.Similarity < MinNearestSimilarity || p.Similarity > 1 {
			t.Fatalf("similarity %v", p.Similarity)
		}
		first, _ := utf8.DecodeRuneInString(text[p.Start:])
		last, _ := utf8.DecodeLastRuneInString(text[:p.End])
		if len(spans(string(first))) != 1 || len(spans(string(last))) != 1 {
			t.Fatalf("passage %q does not start and end on a word", text[p.Start:p.End])
		}
	})
}
