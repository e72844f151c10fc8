package source

import (
	"context"
	"errors"
	"html"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExtractPlainAndMarkdown(t *testing.T) {
	t.Parallel()
	fmla := casebankSource(t, "us-fmla-employee")
	tests := []struct {
		name, mediaType, in, want string
	}{
		{"statute as written", MediaPlain, fmla, fmla},
		{"declared with charset", "text/plain; charset=utf-8", fmla, fmla},
		{"CRLF", MediaPlain, strings.ReplaceAll(fmla, "\n", "\r\n"), fmla},
		{"CR", MediaPlain, strings.ReplaceAll(fmla, "\n", "\r"), fmla},
		{"BOM", MediaPlain, "\uFEFF" + fmla, fmla},
		{"markdown kept as written", MediaMarkdown,
			"# 29 U.S.C. 2611\r\n\r\n**(A)** The term *eligible employee* means—\r\n- (i) _12 months_\r\n",
			"# 29 U.S.C. 2611\n\n**(A)** The term *eligible employee* means—\n- (i) _12 months_\n"},
	}
	for _, tt := range tests {
		ex, err := Extract(context.Background(), tt.mediaType, []byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if ex.Text != tt.want || ex.Pages != nil {
			t.Errorf("%s: got %q, pages %v; want %q, no pages", tt.name, ex.Text, ex.Pages, tt.want)
		}
	}
}

// statuteHTML wraps a statute in a web page the way a legislation site
// would: paragraphs as <p>, lines as <br>, typographic characters as
// entities, with a title, a script and a style that must not show. It
// returns the page and the text a reader sees.
func statuteHTML(text string) (page, visible string) {
	ent := strings.NewReplacer("“", "&ldquo;", "”", "&rdquo;", "—", "&mdash;", "§", "&sect;", "’", "&#8217;")
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>TITLE-MARKER</title>
<style>p { color: red } /* STYLE-MARKER */</style>
<script>var marker = "SCRIPT-MARKER <p>not a paragraph</p>";</script></head>
<body><nav>Home</nav>
<script type="module">import "SCRIPT-MARKER-2";</script>
<noscript>NOSCRIPT-MARKER</noscript><template><p>TEMPLATE-MARKER</p></template>
<article>`)
	var paras []string
	for _, p := range strings.Split(text, "\n\n") {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(p), "\n") {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
		if len(lines) == 1 && lines[0] == "" {
			continue
		}
		paras = append(paras, strings.Join(lines, "\n"))
		b.WriteString("\n  <p>")
		for i, l := range lines {
			if i > 0 {
				b.WriteString("<br>\n    ")
			}
			b.WriteString(ent.Replace(html.EscapeString(l)))
		}
		b.WriteString("</p>")
	}
	b.WriteString("\n</article><!-- COMMENT-MARKER --></body></html>\n")
	return b.String(), "Home\n\n" + strings.Join(paras, "\n\n")
}

func TestExtractHTMLStatutes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"us-fmla-employee", "uk-child-benefit"} {
		page, want := statuteHTML(casebankSource(t, name))
		ex, err := Extract(context.Background(), "text/html; charset=utf-8", []byte(page))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ex.Text != want {
			t.Errorf("%s: extracted text differs from what a reader sees\n got: %q\nwant: %q", name, ex.Text, want)
		}
		if ex.Pages != nil {
			t.Errorf("%s: pages %v for HTML", name, ex.Pages)
		}
		if strings.Contains(ex.Text, "MARKER") {
			t.Errorf("%s: hidden content leaked into %q", name, ex.Text)
		}
		if !strings.Contains(ex.Text, "“") || strings.Contains(ex.Text, "&ldquo;") {
			t.Errorf("%s: entities not decoded", name)
		}
	}
}

func TestExtractHTMLElements(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"<p>An <b>eligible</b> employee</p>", "An eligible employee"},
		{"<p>An <b>eligible</b>employee</p>", "An eligibleemployee"},
		{"<p>  spread \n\t over   lines  </p>", "spread over lines"},
		{"<h1>Title</h1><p>One.</p><p>Two.</p>", "Title\n\nOne.\n\nTwo."},
		{"<div>a</div><div>b</div>", "a\nb"},
		{"<div><div><p>deep</p></div></div>after", "deep\n\nafter"},
		{"<ul><li>one</li><li>two <i>2</i></li></ul>", "one\ntwo 2"},
		{"<dl><dt>Term</dt><dd>Meaning</dd></dl>", "Term\nMeaning"},
		{"line 1<br>line 2<br/><br>line 3<br><br><br><br>line 4", "line 1\nline 2\n\nline 3\n\nline 4"},
		{"<p>a<br></p><br><p>b</p>", "a\n\nb"},
		{"<table><tr><th>Age</th><th>Rate</th></tr><tr><td>16</td><td>£25.60</td></tr></table>", "Age\tRate\n16\t£25.60"},
		{"<p>before</p><pre>  (a)  kept\n\n    as is</pre><p>x</p>", "before\n\n  (a)  kept\n\n    as is\n\nx"},
		{"<blockquote>quoted</blockquote>tail", "quoted\n\ntail"},
		{"<p>&sect;&nbsp;825.110 &amp; &lt;b&gt; &#8220;q&#8221;</p>", "§\u00a0825.110 & <b> “q”"},
		{"<p>a<!-- hidden -->b</p>", "ab"},
		{"<p>a<script>x()</script>b<style>p{}</style>c</p>", "abc"},
		{"<svg><text>drawing</text></svg><p>text</p>", "text"},
		{"no markup at all", "no markup at all"},
		{"\uFEFF<p>bom</p>", "bom"},
		{"<p>unclosed <b>bold<p>next", "unclosed bold\n\nnext"},
		{"<section><p>one</p></section><section><p>two</p></section>", "one\n\ntwo"},
	}
	for _, tt := range tests {
		ex, err := Extract(context.Background(), MediaHTML, []byte(tt.in))
		if err != nil || ex.Text != tt.want {
			t.Errorf("Extract(%q) = %q, %v; want %q", tt.in, ex.Text, err, tt.want)
		}
	}
}

func TestExtractDeeplyNestedHTML(t *testing.T) {
	t.Parallel()
	nest := func(depth int) []byte {
		return []byte(strings.Repeat("<span>", depth) + "deep" + strings.Repeat("</span>", depth))
	}
	ex, err := Extract(context.Background(), MediaHTML, nest(400))
	if err != nil || ex.Text != "deep" {
		t.Fatalf("400 deep: got %q, %v; want deep", ex.Text, err)
	}
	// The parser refuses absurd nesting; that is the upload's fault.
	if _, err := Extract(context.Background(), MediaHTML, nest(100_000)); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("100,000 deep: got %v, want ErrUnreadable", err)
	}
}

func TestExtractRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mediaType string
		in              []byte
		want            error
	}{
		{"latin-1 text", MediaPlain, []byte("section 5 \xa7 r\xe9sum\xe9"), ErrUnreadable},
		{"latin-1 markdown", MediaMarkdown, []byte("# Act\n\xff"), ErrUnreadable},
		{"latin-1 html", MediaHTML, []byte("<p>caf\xe9</p>"), ErrUnreadable},
		{"binary", MediaPlain, []byte("PK\x03\x04\x00\x00"), ErrUnreadable},
		{"not a pdf", MediaPDF, []byte("this is not a PDF"), ErrUnreadable},
		{"broken pdf", MediaPDF, []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\n%%EOF\n"), ErrUnreadable},
		{"empty text", MediaPlain, nil, ErrNoText},
		{"blank text", MediaPlain, []byte(" \r\n\t\n\u00a0\u2003\n"), ErrNoText},
		{"blank markdown", MediaMarkdown, []byte("\uFEFF\n\n"), ErrNoText},
		{"markup only", MediaHTML, []byte("<html><head><title>t</title></head><body><p> </p><script>x</script><img src=a></body></html>"), ErrNoText},
		{"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", []byte("PK"), ErrUnsupportedMediaType},
		{"no type", "", []byte("text"), ErrUnsupportedMediaType},
	}
	for _, tt := range tests {
		ex, err := Extract(context.Background(), tt.mediaType, tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: got %q, %v; want %v", tt.name, ex.Text, err, tt.want)
		}
	}
}

func TestExtractUnreadablePDFNamesTheCause(t *testing.T) {
	t.Parallel()
	_, err := Extract(context.Background(), MediaPDF, []byte("this is not a PDF"))
	if !errors.Is(err, ErrUnreadable) {
		t.Fatalf("got %v, want ErrUnreadable", err)
	}
	// poppler warns "May not be a PDF file" first; the error line is the cause.
	if !strings.Contains(err.Error(), "Syntax Error") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q does not quote one line of pdftotext's error", err)
	}
}

func TestExtractPDFCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Extract(ctx, MediaPDF, []byte("%PDF-1.4\n"))
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnreadable) {
		t.Fatalf("got %v, want context.Canceled and not the uploader's fault", err)
	}
}

// TestExtractPDFWithoutPoppler cannot run in parallel: it empties PATH.
func TestExtractPDFWithoutPoppler(t *testing.T) {
	t.Setenv("PATH", "")
	_, err := Extract(context.Background(), MediaPDF, []byte("%PDF-1.4\n"))
	if !errors.Is(err, exec.ErrNotFound) || errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "poppler-utils") {
		t.Fatalf("got %v, want exec.ErrNotFound naming poppler-utils", err)
	}
}

func TestDiagnostic(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 150) // 300 bytes
	tests := []struct{ in, want string }{
		{"Syntax Warning: May not be a PDF file (continuing anyway)\nSyntax Error: Couldn't find trailer dictionary\n", "Syntax Error: Couldn't find trailer dictionary"},
		{"\n  Command Line Error: Incorrect password  \n", "Command Line Error: Incorrect password"},
		{"Internal: odd\nother\n", "Internal: odd"},
		{"", "no message"},
		{long, strings.Repeat("é", 100) + "…"},
	}
	for _, tt := range tests {
		if got := diagnostic(tt.in); got != tt.want || !utf8.ValidString(got) {
			t.Errorf("diagnostic(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCappedBuffer(t *testing.T) {
	t.Parallel()
	c := &cappedBuffer{limit: 5}
	if n, err := c.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("write under the limit: %d, %v", n, err)
	}
	if _, err := c.Write([]byte("def")); err == nil || !c.exceeded || c.b.String() != "abcde" {
		t.Fatalf("write over the limit: err %v, exceeded %v, kept %q", err, c.exceeded, c.b.String())
	}
	d := &cappedBuffer{limit: 2, discard: true}
	if n, err := d.Write([]byte("abc")); n != 3 || err != nil || d.b.String() != "ab" {
		t.Fatalf("discarding write: %d, %v, kept %q", n, err, d.b.String())
	}
}

func TestPDFPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out, text string
		pages     []int
	}{
		{"one\n\f", "one\n\n", []int{0}},
		{"one\n\ftwo\n\f", "one\n\ntwo\n\n", []int{0, 5}},
		{"one\n\f\fthree\n\f", "one\n\n\nthree\n\n", []int{0, 5, 6}},
		{"one\n\f\f", "one\n\n\n", []int{0, 5}},
		{"\f\f", "\n\n", []int{0, 1}},
		{"no feed", "no feed", []int{0}},
		{"bad \xff nul \x00\f", "bad \uFFFD nul \n", []int{0}},
	}
	for _, tt := range tests {
		for _, chunk := range []int{len(tt.out), 1, 2} {
			ex := streamPages(t, tt.out, chunk, MaxTextBytes)
			if ex.Text != tt.text || !equalInts(ex.Pages, tt.pages) {
				t.Errorf("pageText(%q) in chunks of %d = %q %v; want %q %v", tt.out, chunk, ex.Text, ex.Pages, tt.text, tt.pages)
			}
		}
	}
}

// streamPages writes out to a pageText in chunks of chunk bytes, as the
// pipe from pdftotext would, and returns what it made of it.
func streamPages(t testing.TB, out string, chunk, limit int) Extracted {
	t.Helper()
	pt := &pageText{limit: limit, stop: func() {}}
	for len(out) > 0 {
		n := min(chunk, len(out))
		if w, err := pt.Write([]byte(out[:n])); w != n || err != nil {
			t.Fatalf("Write(%q) = %d, %v", out[:n], w, err)
		}
		out = out[n:]
	}
	return pt.extracted()
}

func TestPageOf(t *testing.T) {
	t.Parallel()
	pages := []int{0, 10, 10, 25}
	tests := []struct{ offset, want int }{
		{-1, 0}, {0, 1}, {9, 1}, {10, 3}, {24, 3}, {25, 4}, {1 << 30, 4},
	}
	for _, tt := range tests {
		if got := PageOf(pages, tt.offset); got != tt.want {
			t.Errorf("PageOf(%v, %d) = %d, want %d", pages, tt.offset, got, tt.want)
		}
	}
	if got := PageOf(nil, 3); got != 0 {
		t.Errorf("PageOf(nil, 3) = %d, want 0", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
