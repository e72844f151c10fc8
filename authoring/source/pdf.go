package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"
)

// PDFTimeout bounds PDF extraction when Extract is called without a
// Budget: a PDF that takes longer is almost certainly hostile.
const PDFTimeout = 30 * time.Second

// pdftotext is the poppler command Extract runs, looked up on PATH
// (Debian's poppler-utils installs it as /usr/bin/pdftotext).
const pdftotext = "pdftotext"

// maxStderr bounds what is kept of pdftotext's diagnostics.
const maxStderr = 64 << 10

// maxDiagnostic bounds the pdftotext message quoted in an error.
const maxDiagnostic = 200

// errOverLimit is extractPDF's report that the text passed its limit;
// Budget.Extract says which limit that was.
var errOverLimit = errors.New("text over the limit")

// extractPDF runs pdftotext on a PDF given on its standard input and reads
// the UTF-8 text from its standard output, with a form feed after each
// page, as it comes: the text is cleaned and its pages found while it is
// read (pageText), and the process is stopped as soon as the text passes
// limit bytes (errOverLimit) or MaxPages pages (ErrTooLarge), so no more
// than the limit is ever held. ctx bounds the process; a deadline with
// the cause ErrExtractionTimeout is reported as that.
func extractPDF(ctx context.Context, data []byte, limit int) (Extracted, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, PDFTimeout, ErrExtractionTimeout)
		defer cancel()
	}
	// stop ends the process once the text is over a limit, rather than
	// leaving it to fill a pipe nobody reads.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	stdout := &pageText{limit: limit, stop: stop}
	stderr := &cappedBuffer{limit: maxStderr, discard: true}
	cmd := exec.CommandContext(ctx, pdftotext, "-enc", "UTF-8", "-eol", "unix", "-", "-")
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	err := cmd.Run()
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return Extracted{}, fmt.Errorf("run pdftotext (is poppler-utils installed?): %w", err)
	case stdout.over != nil:
		return Extracted{}, stdout.over
	case err != nil && ctx.Err() != nil:
		if cause := context.Cause(ctx); errors.Is(cause, ErrExtractionTimeout) {
			return Extracted{}, fmt.Errorf("pdftotext ran out of its time: %w", cause)
		}
		return Extracted{}, fmt.Errorf("run pdftotext: %w", ctx.Err())
	case err != nil:
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Extracted{}, fmt.Errorf("run pdftotext: %w", err)
		}
		return Extracted{}, fmt.Errorf("pdftotext cannot read the PDF (exit status %d): %s: %w",
			exit.ExitCode(), diagnostic(stderr.b.String()), ErrUnreadable)
	}
	return stdout.extracted(), nil
}

// pageText is an io.Writer that turns pdftotext's output into an
// Extracted as it is written: every form feed (one ends each page) becomes
// a newline and the offset after it starts the next page; invalid UTF-8
// (which a broken font map can produce) becomes U+FFFD, one for each run
// of invalid bytes, and NUL is dropped, so the text is always storable.
// Past limit bytes of text, or MaxPages pages, it records why in over,
// calls stop and fails the write.
type pageText struct {
	limit int
	stop  func()
	// chunks hold the text so far, textChunk bytes each but the last, so
	// it grows without the copies (and the garbage) of a doubling buffer;
	// size is their total length.
	chunks [][]byte
	size   int
	pages  []int
	// pending is the start of a UTF-8 sequence split between writes.
	pending []byte
	// invalid is true while a run of invalid bytes continues.
	invalid bool
	// feed is true when the last byte written was a form feed: the next
	// byte starts a page (a trailing form feed only ends the last).
	feed bool
	over error
}

// Write takes the next bytes of pdftotext's output.
func (t *pageText) Write(p []byte) (int, error) {
	if t.over != nil {
		return 0, t.over
	}
	n := len(p)
	if len(t.pending) > 0 {
		// A sequence split between writes is read with what follows.
		p = append(t.pending, p...)
		t.pending = nil
	}
	// Keep back a sequence the next write completes.
	tail := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				tail = i
			}
			break
		}
	}
	t.add(p[:tail])
	t.pending = append([]byte(nil), p[tail:]...)
	if t.over != nil {
		t.stop()
		return 0, t.over
	}
	return n, nil
}

// replacement is U+FFFD, which stands for each run of invalid bytes.
var replacement = []byte(string(utf8.RuneError))

// newline is what a form feed becomes.
var newline = []byte{'\n'}

// add appends cleaned bytes to the text, checking the limits as it goes:
// runs of ordinary characters are copied whole, and only invalid bytes,
// NUL and form feeds are handled one by one.
func (t *pageText) add(p []byte) {
	if t.pages == nil {
		t.pages = []int{0}
	}
	run := 0 // start of the run of ordinary characters not yet copied
	for i := 0; i < len(p) && t.over == nil; {
		if c := p[i]; c >= 0x20 && c < utf8.RuneSelf || c == '\n' || c == '\t' || c == '\r' {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r != 0 && r != '\f' && (r != utf8.RuneError || size > 1) {
			i += size // another valid character, U+FFFD itself included
			continue
		}
		t.put(p[run:i])
		switch {
		case r == utf8.RuneError: // one invalid byte
			if !t.invalid {
				t.put(replacement)
			}
			t.invalid = true
		case r == '\f':
			t.put(newline)
			t.feed = true
		default: // NUL is dropped, but ends a run of invalid bytes
			t.invalid = false
		}
		i += size
		run = i
	}
	t.put(p[run:])
}

// put appends b, starting a page first when b is the first text after a
// form feed; any text but the replacement character ends a run of invalid
// bytes.
func (t *pageText) put(b []byte) {
	if len(b) == 0 || t.over != nil {
		return
	}
	if t.feed {
		t.feed = false
		if len(t.pages) >= MaxPages {
			t.over = fmt.Errorf("the PDF has more than %d pages: %w", MaxPages, ErrTooManyPages)
			return
		}
		t.pages = append(t.pages, t.size)
	}
	if t.size+len(b) > t.limit {
		t.over = errOverLimit
		return
	}
	t.invalid = false
	t.size += len(b)
	for len(b) > 0 {
		last := len(t.chunks) - 1
		if last < 0 || len(t.chunks[last]) == cap(t.chunks[last]) {
			t.chunks = append(t.chunks, make([]byte, 0, textChunk))
			last++
		}
		n := min(len(b), cap(t.chunks[last])-len(t.chunks[last]))
		t.chunks[last] = append(t.chunks[last], b[:n]...)
		b = b[n:]
	}
}

// textChunk is the size of pageText's chunks.
const textChunk = 256 << 10

// extracted ends the output: a sequence left incomplete is invalid.
func (t *pageText) extracted() Extracted {
	if len(t.pending) > 0 {
		t.pending = nil
		t.add([]byte{0xff})
	}
	if t.pages == nil {
		t.pages = []int{0}
	}
	var text strings.Builder
	text.Grow(t.size)
	for _, c := range t.chunks {
		text.Write(c)
	}
	t.chunks = nil
	return Extracted{Text: text.String(), Pages: t.pages}
}

// diagnostic picks the line of pdftotext's standard error that says why it
// failed: the first "Error" line (poppler warns "May not be a PDF file"
// before it errs), else the first line, trimmed to maxDiagnostic bytes.
func diagnostic(stderr string) string {
	var first string
	for l := range strings.Lines(stderr) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.Contains(l, "Error") {
			first = l
			break
		}
		if first == "" {
			first = l
		}
	}
	if first == "" {
		return "no message"
	}
	first = strings.ToValidUTF8(first, string(utf8.RuneError))
	if len(first) > maxDiagnostic {
		cut := maxDiagnostic
		for cut > 0 && !utf8.RuneStart(first[cut]) {
			cut--
		}
		first = first[:cut] + "…"
	}
	return first
}

// cappedBuffer is an io.Writer that keeps at most limit bytes. Past the
// limit it either drops the rest quietly (discard) or fails the write,
// which closes the pipe so the process stops instead of filling memory.
type cappedBuffer struct {
	b        bytes.Buffer
	limit    int
	discard  bool
	exceeded bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.limit - c.b.Len()
	if len(p) <= room {
		return c.b.Write(p)
	}
	c.exceeded = true
	c.b.Write(p[:max(room, 0)])
	if c.discard {
		return len(p), nil
	}
	return 0, errors.New("output limit reached")
}
