package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLocateQuote(t *testing.T) {
	t.Parallel()
	const text = "  (a) An eligible\temployee\n\n  is an employee\u00a0who:  \n§ 825.110 “eligible”—"
	tests := []struct {
		quote string
		want  string // the text matched as written; "" when not found
	}{
		{"(a) An eligible employee", "(a) An eligible\temployee"},
		{"  (a)   An\neligible employee\t", "(a) An eligible\temployee"},
		{"employee is an employee who:", "employee\n\n  is an employee\u00a0who:"},
		{"employee who", "employee\u00a0who"},
		{"§ 825.110 “eligible”—", "§ 825.110 “eligible”—"},
		{"“eligible”", "“eligible”"},
		{"a", "a"},
		// Only white space is forgiven.
		{"(A) An eligible employee", ""},
		{"An Eligible employee", ""},
		{"An eligible employees", ""},
		{"An eligibleemployee", ""},
		{"\"eligible\"", ""},
		{"eligible - employee", ""},
		{"", ""},
		{" \n\t\u00a0", ""},
	}
	n := NewSourceText(text)
	for _, tt := range tests {
		wantStart, wantEnd := 0, 0
		if tt.want != "" {
			wantStart = strings.Index(text, tt.want)
			wantEnd = wantStart + len(tt.want)
		}
		start, end, ok := n.Locate(tt.quote)
		if start != wantStart || end != wantEnd || ok != (tt.want != "") {
			t.Errorf("Locate(%q) = %d, %d, %v (%q); want %q", tt.quote, start, end, ok, text[start:end], tt.want)
		}
		if s2, e2, ok2 := LocateQuote(text, tt.quote); s2 != start || e2 != end || ok2 != ok {
			t.Errorf("Locate(text, %q) disagrees with NewSourceText(text).Locate", tt.quote)
		}
	}
}

// respace returns s with every run of white space replaced by a random
// run of one to three white-space characters, and random white space
// around it.
func respace(rng *rand.Rand, s string) string {
	spaces := []string{" ", "\n", "\t", "\r\n", "\u00a0", "\u2003"}
	pad := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(spaces[rng.IntN(len(spaces))])
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteString(pad())
	for i, w := range strings.Fields(s) {
		if i > 0 {
			b.WriteString(spaces[rng.IntN(len(spaces))])
			b.WriteString(pad())
		}
		b.WriteString(w)
	}
	b.WriteString(pad())
	return b.String()
}

// randomQuote picks a substring of text starting and ending on non-space
// characters, 20 to 200 bytes long, and returns its bounds.
func randomQuote(rng *rand.Rand, text string) (start, end int) {
	for {
		start = rng.IntN(len(text) - 200)
		end = start + 20 + rng.IntN(180)
		for !utf8.RuneStart(text[start]) {
			start++
		}
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++
		}
		q := text[start:end]
		if trimmed := strings.TrimSpace(q); trimmed == q && !strings.ContainsFunc(q, func(r rune) bool { return r == utf8.RuneError }) {
			return start, end
		}
	}
}

func TestLocateQuoteProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"us-fmla-employee", "uk-child-benefit", "medicaid-adult-expansion"} {
		text := casebankSource(t, name)
		n := NewSourceText(text)
		collapsed := CollapseSpace(text)
		for range 500 {
			qs, qe := randomQuote(rng, text)
			quote := text[qs:qe]

			// Re-spaced, it is still found, at the right offsets.
			start, end, ok := n.Locate(respace(rng, quote))
			if !ok || CollapseSpace(text[start:end]) != CollapseSpace(quote) || start > qs {
				t.Fatalf("%s: re-spaced %q: got %d, %d, %v", name, quote, start, end, ok)
			}
			if strings.Count(collapsed, CollapseSpace(quote)) == 1 && (start != qs || end != qe) {
				t.Fatalf("%s: %q located at [%d,%d), want [%d,%d)", name, quote, start, end, qs, qe)
			}

			// One character changed: not found.
			runes := []rune(quote)
			i := rng.IntN(len(runes))
			for unicode.IsSpace(runes[i]) {
				i = rng.IntN(len(runes))
			}
			changed := string(runes[:i]) + "☃" + string(runes[i+1:])
			if _, _, ok := n.Locate(changed); ok {
				t.Fatalf("%s: %q with one character changed was found", name, changed)
			}

			// Case changed: found only where the text has that case.
			for i = range runes {
				if unicode.IsLetter(runes[i]) {
					break
				}
			}
			if !unicode.IsLetter(runes[i]) {
				continue
			}
			flipped := []rune(quote)
			if unicode.IsUpper(flipped[i]) {
				flipped[i] = unicode.ToLower(flipped[i])
			} else {
				flipped[i] = unicode.ToUpper(flipped[i])
			}
			_, _, ok = n.Locate(string(flipped))
			if want := strings.Contains(collapsed, CollapseSpace(string(flipped))); ok != want {
				t.Fatalf("%s: %q with its case changed: ok %v, want %v", name, string(flipped), ok, want)
			}
		}
	}
}

func TestLocateQuoteCaseNotForgiven(t *testing.T) {
	t.Parallel()
	text := casebankSource(t, "us-fmla-employee")
	if _, _, ok := LocateQuote(text, "FOR AT LEAST 12 MONTHS BY THE EMPLOYER"); ok {
		t.Fatal("an upper-cased quote was found")
	}
	if _, _, ok := LocateQuote(text, "for at least 12 months by the employer"); !ok {
		t.Fatal("the quote as written was not found")
	}
}

func BenchmarkLocateQuote(b *testing.B) {
	text := strings.Repeat(casebankSource(b, "uk-child-benefit"), 200) // about 1 MB
	quote := "the Child   Benefit Act 2005\nlater added references to a qualifying young person alongside the child"
	b.Run("NewSourceText", func(b *testing.B) {
		for b.Loop() {
			NewSourceText(text)
		}
	})
	n := NewSourceText(text)
	b.Run("Locate", func(b *testing.B) {
		for b.Loop() {
			if _, _, ok := n.Locate(quote + " X"); ok {
				b.Fatal("found a quote that is not there")
			}
		}
	})
}

// casebankSource returns the source.txt of a casebank entry: real statute
// text with the curly quotes, dashes and section signs uploads have.
func casebankSource(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "casebank", name, "source.txt"))
	if err != nil {
		t.Fatalf("read casebank source: %v", err)
	}
	return string(b)
}

// FuzzLocateQuote checks LocateQuote against its definition on arbitrary
// input: found exactly when the collapsed quote is in the collapsed text,
// at offsets inside the text whose collapsed form is the quote's. It also
// holds CollapseSpace to strings.Fields, which the deep links and the
// casebank and publish checks collapsed white space with before they
// called this file.
func FuzzLocateQuote(f *testing.F) {
	f.Add("(a) An eligible\temployee\n\n is", "eligible employee is")
	f.Add("§ 825.110\u00a0“eligible”—", " “eligible”— ")
	f.Add("abc", "")
	f.Fuzz(func(t *testing.T, text, quote string) {
		for _, s := range []string{text, quote} {
			if got, want := CollapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
				t.Fatalf("CollapseSpace(%q) = %q, strings.Fields gives %q", s, got, want)
			}
		}
		start, end, ok := LocateQuote(text, quote)
		q := CollapseSpace(quote)
		if want := q != "" && strings.Contains(CollapseSpace(text), q); ok != want {
			t.Fatalf("LocateQuote(%q, %q) ok %v, want %v", text, quote, ok, want)
		}
		if !ok {
			if start != 0 || end != 0 {
				t.Fatalf("LocateQuote(%q, %q) not found but returned [%d,%d)", text, quote, start, end)
			}
			return
		}
		if start < 0 || start >= end || end > len(text) {
			t.Fatalf("LocateQuote(%q, %q) = [%d,%d) out of range", text, quote, start, end)
		}
		if got := CollapseSpace(text[start:end]); got != q {
			t.Fatalf("LocateQuote(%q, %q) matched %q, which collapses to %q", text, quote, text[start:end], got)
		}
	})
}
