package source

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/eligo/eligo/engine"
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
		qs, qe, ok := engine.LocateQuote(text, quote)
		if want := engine.CollapseSpace(quote) != ""; ok != want {
			t.Fatalf("%s: Locate(%q) ok %v, want %v", mt, quote, ok, want)
		}
		lead := start + len(quote) - len(strings.TrimLeftFunc(quote, unicode.IsSpace))
		if ok && (qs > lead || engine.CollapseSpace(text[qs:qe]) != engine.CollapseSpace(quote)) {
			t.Fatalf("%s: Locate(%q) = [%d,%d) %q", mt, quote, qs, qe, text[qs:qe])
		}
	})
}
