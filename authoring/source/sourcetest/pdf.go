// Package sourcetest builds real documents for tests of source extraction,
// so tests across the repository can upload a statute as a PDF and check
// what pdftotext makes of it without committing binary fixtures; Amplifying
// builds the hostile kind, and PeakHeap measures what extracting it costs.
package sourcetest

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Page geometry of the PDFs PDF writes: US Letter, text from 72 pt left
// and 720 pt up, 11 pt Helvetica on a 14 pt leading.
const (
	// LineWidth is the most characters Layout puts on a line, which keeps
	// a line of ordinary text inside the page (pdftotext drops text that
	// runs off it).
	LineWidth = 90
	// PageLines is the most lines Layout puts on a page, which keeps the
	// last line above the bottom edge.
	PageLines = 48
)

// PDF returns a minimal, valid PDF 1.4 document with one page per element
// of pages, each page showing its strings as successive lines of 11 pt
// Helvetica. pdftotext extracts the lines back, one per line, with a form
// feed between pages, so tests can exercise PDF extraction end to end.
//
// The font uses WinAnsiEncoding: ASCII round-trips exactly, as do Latin-1
// letters and the typographic characters statutes use (curly quotes, en and
// em dashes, §, …, •); any other character is written as '?', and tabs and
// other control characters as a space. A line longer than LineWidth
// characters may run off the page and lose its end; a page of more than
// PageLines lines loses its last lines. Layout splits a text to fit. A page
// with no strings has no text at all, like a scanned page.
func PDF(pages [][]string) []byte {
	w := &pdfWriter{}
	w.begin(len(pages))
	for i, lines := range pages {
		w.page(5 + 2*i)
		w.content(textContent(lines, 11, 14, 72, 720))
	}
	return w.end()
}

// Amplifying returns a PDF of pages pages that all show one content
// stream, stored once: a full page of 4 pt text (160 lines of 210
// characters, about 33 KB of text). Each further page costs the file about
// 110 bytes and the extraction another 33 KB, so a file of a few hundred
// kilobytes extracts to tens of megabytes: the shape of a hostile upload,
// for tests of extraction limits.
func Amplifying(pages int) []byte {
	const lines, width = 160, 210
	text := make([]string, lines)
	for i := range text {
		words := strings.Repeat(fmt.Sprintf("amplified%03d ", i%1000), width/13+1)
		text[i] = words[:width]
	}
	w := &pdfWriter{}
	w.begin(pages)
	for range pages {
		w.page(4 + pages)
	}
	w.content(textContent(text, 4, 4.8, 10, 782))
	return w.end()
}

// pdfWriter writes the objects of a PDF and its cross-reference table:
// object 1 is the catalog, 2 the page tree, 3 the font, then the pages
// and content streams in the order written.
type pdfWriter struct {
	b       bytes.Buffer
	offsets []int // byte offset of object i+1
	kids    []int // the page objects' numbers
}

func (w *pdfWriter) obj(body string) {
	w.offsets = append(w.offsets, w.b.Len())
	fmt.Fprintf(&w.b, "%d 0 obj\n%s\nendobj\n", len(w.offsets), body)
}

// begin writes the header and the catalog, keeps object 2 for the page
// tree (end writes it) and writes the font; page and content objects are
// numbered from 4 in the order they are written, for about pages pages.
func (w *pdfWriter) begin(pages int) {
	w.kids = make([]int, 0, pages)
	w.b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	w.obj("<< /Type /Catalog /Pages 2 0 R >>")
	w.offsets = append(w.offsets, 0) // the page tree, written by end
	w.obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
}

// page writes a page object drawing the content stream numbered contents.
func (w *pdfWriter) page(contents int) {
	w.kids = append(w.kids, len(w.offsets)+1)
	w.obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "+
		"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", contents))
}

// content writes a content stream object.
func (w *pdfWriter) content(stream []byte) {
	w.obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(stream), stream))
}

// end writes the page tree, listing every page object, then the
// cross-reference table and the trailer.
func (w *pdfWriter) end() []byte {
	kids := make([]string, len(w.kids))
	for i, n := range w.kids {
		kids[i] = fmt.Sprintf("%d 0 R", n)
	}
	w.offsets[1] = w.b.Len()
	fmt.Fprintf(&w.b, "2 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", strings.Join(kids, " "), len(kids))
	xref := w.b.Len()
	fmt.Fprintf(&w.b, "xref\n0 %d\n0000000000 65535 f \n", len(w.offsets)+1)
	for _, off := range w.offsets {
		fmt.Fprintf(&w.b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&w.b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(w.offsets)+1, xref)
	return w.b.Bytes()
}

// textContent is a content stream showing lines in size pt Helvetica on
// a leading of lead pt, from (x, y) down; no lines, no text.
func textContent(lines []string, size, lead float64, x, y int) []byte {
	var content bytes.Buffer
	if len(lines) > 0 {
		fmt.Fprintf(&content, "BT /F1 %g Tf %d %d Td %g TL\n", size, x, y, lead)
		for _, l := range lines {
			content.WriteByte('(')
			content.WriteString(pdfString(l))
			content.WriteString(") Tj T*\n")
		}
		content.WriteString("ET\n")
	}
	return content.Bytes()
}

// pdfString returns the body of a PDF literal string showing s in
// WinAnsiEncoding: delimiters and backslash escaped, bytes outside
// printable ASCII as octal escapes.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		c := winAnsi(r)
		switch {
		case c == '(' || c == ')' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteByte(' ')
		case c > 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// winAnsi returns the WinAnsiEncoding byte of r, or '?' when it has none.
func winAnsi(r rune) byte {
	switch {
	case r < 0x80 || (r >= 0xa0 && r <= 0xff):
		return byte(r)
	case r == utf8.RuneError:
		return '?'
	}
	switch r {
	case '€':
		return 0x80
	case '‚':
		return 0x82
	case 'ƒ':
		return 0x83
	case '„':
		return 0x84
	case '…':
		return 0x85
	case '†':
		return 0x86
	case '‡':
		return 0x87
	case 'ˆ':
		return 0x88
	case '‰':
		return 0x89
	case 'Š':
		return 0x8a
	case '‹':
		return 0x8b
	case 'Œ':
		return 0x8c
	case 'Ž':
		return 0x8e
	case '‘':
		return 0x91
	case '’':
		return 0x92
	case '“':
		return 0x93
	case '”':
		return 0x94
	case '•':
		return 0x95
	case '–':
		return 0x96
	case '—':
		return 0x97
	case '˜':
		return 0x98
	case '™':
		return 0x99
	case 'š':
		return 0x9a
	case '›':
		return 0x9b
	case 'œ':
		return 0x9c
	case 'ž':
		return 0x9e
	case 'Ÿ':
		return 0x9f
	}
	return '?'
}

// Layout splits a text into pages of lines that PDF shows in full: each
// line of the text is wrapped at spaces to at most LineWidth characters
// (a longer word is cut), blank lines are kept, and every PageLines lines
// start a new page. pdftotext reads the result back with the same words in
// the same order; only the white space between them may differ.
func Layout(text string) [][]string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		lines = append(lines, wrap(l)...)
	}
	var pages [][]string
	for len(lines) > PageLines {
		pages = append(pages, lines[:PageLines:PageLines])
		lines = lines[PageLines:]
	}
	return append(pages, lines)
}

// wrap breaks one line at spaces into lines of at most LineWidth runes.
func wrap(l string) []string {
	words := strings.Fields(l)
	if len(words) == 0 {
		return []string{""}
	}
	var out []string
	cur := ""
	for _, w := range words {
		for utf8.RuneCountInString(w) > LineWidth {
			if cur != "" {
				out = append(out, cur)
				cur = ""
			}
			cut := len(string([]rune(w)[:LineWidth]))
			out = append(out, w[:cut])
			w = w[cut:]
		}
		switch {
		case cur == "":
			cur = w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= LineWidth:
			cur += " " + w
		default:
			out = append(out, cur)
			cur = w
		}
	}
	return append(out, cur)
}
