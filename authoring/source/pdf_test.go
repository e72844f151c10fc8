package source

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/source/sourcetest"
	"github.com/eligo/eligo/engine"
)

// statutePages lays a statute out as a PDF of pages of at most 20 lines,
// so even a short statute spans several pages.
func statutePages(text string) [][]string {
	var lines []string
	for _, p := range sourcetest.Layout(text) {
		lines = append(lines, p...)
	}
	var pages [][]string
	for len(lines) > 20 {
		pages = append(pages, lines[:20])
		lines = lines[20:]
	}
	return append(pages, lines)
}

func TestExtractPDFStatutes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"us-fmla-employee", "uk-child-benefit"} {
		pages := statutePages(casebankSource(t, name))
		if len(pages) < 3 {
			t.Fatalf("%s: %d pages, want at least 3", name, len(pages))
		}
		ex, err := Extract(context.Background(), MediaPDF, sourcetest.PDF(pages))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ex.Pages) != len(pages) || ex.Pages[0] != 0 {
			t.Fatalf("%s: page offsets %v for %d pages", name, ex.Pages, len(pages))
		}
		if strings.ContainsRune(ex.Text, '\f') {
			t.Errorf("%s: form feed left in the text", name)
		}
		// Every line shown on a page is extracted within that page's span,
		// curly quotes, dashes and section signs included.
		for i, lines := range pages {
			end := len(ex.Text)
			if i+1 < len(ex.Pages) {
				end = ex.Pages[i+1]
			}
			page := engine.NewSourceText(ex.Text[ex.Pages[i]:end])
			for _, l := range lines {
				if _, _, ok := page.Locate(l); strings.TrimSpace(l) != "" && !ok {
					t.Errorf("%s: page %d: line %q not extracted", name, i+1, l)
				}
			}
		}
	}
}

func TestExtractPDFQuoteOnPageTwo(t *testing.T) {
	t.Parallel()
	pages := statutePages(casebankSource(t, "us-fmla-employee"))
	ex, err := Extract(context.Background(), MediaPDF, sourcetest.PDF(pages))
	if err != nil {
		t.Fatal(err)
	}
	// Two lines of page 2 as one quote, with its line break as a space.
	i := 1
	for strings.TrimSpace(pages[1][i]) == "" || strings.TrimSpace(pages[1][i+1]) == "" {
		i++
	}
	first := pages[1][i]
	quote := first + " " + pages[1][i+1]
	start, end, ok := engine.LocateQuote(ex.Text, quote)
	if !ok {
		t.Fatalf("quote %q not located in %q", quote, ex.Text)
	}
	if got := PageOf(ex.Pages, start); got != 2 {
		t.Errorf("quote starts on page %d, want 2", got)
	}
	if got := PageOf(ex.Pages, end-1); got != 2 {
		t.Errorf("quote ends on page %d, want 2", got)
	}
	if !strings.HasPrefix(ex.Text[start:end], first) {
		t.Errorf("located %q, want it to start with %q", ex.Text[start:end], first)
	}
}

func TestExtractPDFWithoutText(t *testing.T) {
	t.Parallel()
	// Pages with no text operators, as a scan without OCR has.
	_, err := Extract(context.Background(), MediaPDF, sourcetest.PDF([][]string{{}, {}}))
	if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "no text layer") {
		t.Fatalf("got %v, want ErrNoText saying there is no text layer", err)
	}
}

func TestExtractPDFEmptyPagesKeepTheirNumbers(t *testing.T) {
	t.Parallel()
	ex, err := Extract(context.Background(), MediaPDF, sourcetest.PDF([][]string{{"first"}, {}, {"third"}, {}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Pages) != 4 {
		t.Fatalf("pages %v, want 4 entries", ex.Pages)
	}
	start, _, ok := engine.LocateQuote(ex.Text, "third")
	if !ok || PageOf(ex.Pages, start) != 3 {
		t.Fatalf("third: ok %v, page %d in %q %v", ok, PageOf(ex.Pages, start), ex.Text, ex.Pages)
	}
}
