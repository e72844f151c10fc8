package source

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// fuzzMediaTypes are the types FuzzExtract drives: those Extract handles in
// process. PDF goes to pdftotext, which is poppler's to fuzz.
var fuzzMediaTypes = []string{MediaPlain, MediaMarkdown, MediaHTML}

// FuzzExtract checks that Extract never panics, always returns valid UTF-8
// or an upload error, and that any piece of what it returns can be located
// in it: the text is fit for verifying quotes.
func FuzzExtract(f *testing.F) {
	f.Add(uint8(2), []byte("<p>An <b>eligible</b> employee&nbsp;is</p><script>x</script>"), uint16(3), uint16(20))
	f.Add(uint8(0), []byte("\uFEFF(a) One.\r\n(b) Two.\r"), uint16(0), uint16(9))
	f.Add(uint8(1), []byte("# Act\n\n- (i) item\n"), uint16(2), uint16(100))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte, from, to uint16) {
		mt := fuzzMediaTypes[int(kind)%len(fuzzMediaTypes)]
		ex, err := Extract(context.Background(), mt, data)
		if err != nil {
			if !errors.Is(err, ErrUnreadable) && !errors.Is(err, ErrNoText) {
				t.Fatalf("%s: error %v is neither ErrUnreadable nor ErrNoText", mt, err)
			}
			return
		}
		text := ex.Text
		switch {
		case !utf8.ValidString(text):
			t.Fatalf("%s: invalid UTF-8 %q", mt, text)
		case strings.TrimSpace(text) == "":
			t.Fatalf("%s: blank text %q without ErrNoText", mt, text)
		case strings.ContainsAny(text, "\r\x00"):
			t.Fatalf("%s: CR or NUL in %q", mt, text)
		case ex.Pages != nil:
			t.Fatalf("%s: pages %v", mt, ex.Pages)
		}

		// Any substring, cut at rune boundaries, is located in the text.
		start, end := int(from)%(len(text)+1), int(to)%(len(text)+1)
		if start > end {
			start, end = end, start
		}
		for start > 0 && start < len(text) && !utf8.RuneStart(text[start]) {
			start--
		}
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++
		}
		quote := text[start:end]
		qs, qe, ok := Locate(text, quote)
		if want := collapse(quote) != ""; ok != want {
			t.Fatalf("%s: Locate(%q) ok %v, want %v", mt, quote, ok, want)
		}
		lead := start + len(quote) - len(strings.TrimLeftFunc(quote, unicode.IsSpace))
		if ok && (qs > lead || collapse(text[qs:qe]) != collapse(quote)) {
			t.Fatalf("%s: Locate(%q) = [%d,%d) %q", mt, quote, qs, qe, text[qs:qe])
		}
	})
}

// FuzzLocate checks Locate against its definition on arbitrary input:
// found exactly when the collapsed quote is in the collapsed text, at
// offsets inside the text whose collapsed form is the quote's.
func FuzzLocate(f *testing.F) {
	f.Add("(a) An eligible\temployee\n\n is", "eligible employee is")
	f.Add("§ 825.110\u00a0“eligible”—", " “eligible”— ")
	f.Add("abc", "")
	f.Fuzz(func(t *testing.T, text, quote string) {
		start, end, ok := Locate(text, quote)
		q := collapse(quote)
		if want := q != "" && strings.Contains(collapse(text), q); ok != want {
			t.Fatalf("Locate(%q, %q) ok %v, want %v", text, quote, ok, want)
		}
		if !ok {
			if start != 0 || end != 0 {
				t.Fatalf("Locate(%q, %q) not found but returned [%d,%d)", text, quote, start, end)
			}
			return
		}
		if start < 0 || start >= end || end > len(text) {
			t.Fatalf("Locate(%q, %q) = [%d,%d) out of range", text, quote, start, end)
		}
		if got := collapse(text[start:end]); got != q {
			t.Fatalf("Locate(%q, %q) matched %q, which collapses to %q", text, quote, text[start:end], got)
		}
	})
}
