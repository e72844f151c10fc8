package sourcetest_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/authoring/source/sourcetest"
	"github.com/eligo/eligo/engine"
)

func TestPDFRoundTrip(t *testing.T) {
	t.Parallel()
	pages := [][]string{
		{"29 U.S.C. 2611 - Definitions", "(2) Eligible employee"},
		{"(A) The term “eligible employee” means—", `(i) escaped \ backslash (and parentheses)`, "§ 825.110 – résumé…"},
		{"page three"},
	}
	ex, err := source.Extract(context.Background(), source.MediaPDF, sourcetest.PDF(pages))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Pages) != len(pages) || ex.Pages[0] != 0 {
		t.Fatalf("pages %v, want %d starting at 0", ex.Pages, len(pages))
	}
	for i, lines := range pages {
		for _, l := range lines {
			start, _, ok := engine.LocateQuote(ex.Text, l)
			if !ok {
				t.Errorf("line %q not extracted from %q", l, ex.Text)
				continue
			}
			if got := source.PageOf(ex.Pages, start); got != i+1 {
				t.Errorf("line %q on page %d, want %d", l, got, i+1)
			}
		}
	}
	if start, _, ok := engine.LocateQuote(ex.Text, "(2) Eligible employee (A) The term"); !ok || source.PageOf(ex.Pages, start) != 1 {
		t.Errorf("a quote across the page break: ok %v, page %d", ok, source.PageOf(ex.Pages, start))
	}
}

func TestPDFCharacters(t *testing.T) {
	t.Parallel()
	// Characters WinAnsiEncoding lacks become '?', control characters a space.
	ex, err := source.Extract(context.Background(), source.MediaPDF, sourcetest.PDF([][]string{{"Ωmega\ttab ☃ end"}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(ex.Text); got != "?mega tab ? end" {
		t.Errorf("extracted %q, want %q", got, "?mega tab ? end")
	}
}

// TestPDFXref checks the cross-reference table byte for byte: every entry
// points at its object, and startxref at the table.
func TestPDFXref(t *testing.T) {
	t.Parallel()
	pdf := sourcetest.PDF([][]string{{"one"}, {"two", "three"}})
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.4\n")) || !bytes.HasSuffix(pdf, []byte("%%EOF\n")) {
		t.Fatal("missing header or trailer")
	}
	m := regexp.MustCompile(`startxref\n(\d+)\n`).FindSubmatch(pdf)
	if m == nil {
		t.Fatal("no startxref")
	}
	xref, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(pdf[xref:], []byte("xref\n0 8\n0000000000 65535 f \n")) {
		t.Fatalf("startxref %d does not point at an xref table of 8 entries: %q", xref, pdf[xref:min(xref+40, len(pdf))])
	}
	entries := strings.Split(string(pdf[xref:]), "\n")[3:10]
	for i, e := range entries {
		if len(e)+1 != 20 {
			t.Errorf("entry %d %q is not 20 bytes", i+1, e)
		}
		off, _ := strconv.Atoi(e[:10])
		if want := fmt.Sprintf("%d 0 obj\n", i+1); !bytes.HasPrefix(pdf[off:], []byte(want)) {
			t.Errorf("entry %d points at %q, want %q", i+1, pdf[off:min(off+10, len(pdf))], want)
		}
	}
}

func TestLayout(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40) // 200 bytes: three lines
	text := "title\n\n" + long + "\n" + strings.Repeat("x", 100) + "\n" + strings.Repeat("line\n", 60)
	pages := sourcetest.Layout(text)
	if len(pages) != 2 || len(pages[0]) != sourcetest.PageLines {
		t.Fatalf("%d pages, first of %d lines; want 2, the first full", len(pages), len(pages[0]))
	}
	var all []string
	for _, p := range pages {
		all = append(all, p...)
	}
	if all[0] != "title" || all[1] != "" {
		t.Errorf("first lines %q, want title and a blank line", all[:2])
	}
	for _, l := range all {
		if n := len([]rune(l)); n > sourcetest.LineWidth {
			t.Errorf("line of %d characters: %q", n, l)
		}
	}
	if strings.Join(strings.Fields(strings.Join(all, " ")), "") != strings.Join(strings.Fields(text), "") {
		t.Error("Layout lost or reordered text")
	}
}
