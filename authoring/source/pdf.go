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

// PDFTimeout bounds a pdftotext run when Extract's context has no deadline
// of its own: a PDF that takes longer is almost certainly hostile.
const PDFTimeout = 30 * time.Second

// pdftotext is the poppler command Extract runs, looked up on PATH
// (Debian's poppler-utils installs it as /usr/bin/pdftotext).
const pdftotext = "pdftotext"

// maxStderr bounds what is kept of pdftotext's diagnostics.
const maxStderr = 64 << 10

// maxDiagnostic bounds the pdftotext message quoted in an error.
const maxDiagnostic = 200

// extractPDF runs pdftotext on a PDF given on its standard input and reads
// the UTF-8 text from its standard output, with a form feed after each page.
func extractPDF(ctx context.Context, data []byte) (Extracted, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, PDFTimeout)
		defer cancel()
	}
	stdout := &cappedBuffer{limit: MaxTextBytes}
	stderr := &cappedBuffer{limit: maxStderr, discard: true}
	cmd := exec.CommandContext(ctx, pdftotext, "-enc", "UTF-8", "-eol", "unix", "-", "-")
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	err := cmd.Run()
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return Extracted{}, fmt.Errorf("run pdftotext (is poppler-utils installed?): %w", err)
	case stdout.exceeded:
		return Extracted{}, fmt.Errorf("pdftotext output exceeds %d bytes: %w", MaxTextBytes, ErrTooLarge)
	case err != nil && ctx.Err() != nil:
		return Extracted{}, fmt.Errorf("run pdftotext: %w", ctx.Err())
	case err != nil:
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return Extracted{}, fmt.Errorf("run pdftotext: %w", err)
		}
		return Extracted{}, fmt.Errorf("pdftotext cannot read the PDF (exit status %d): %s: %w",
			exit.ExitCode(), diagnostic(stderr.b.String()), ErrUnreadable)
	}
	return pdfPages(stdout.b.String()), nil
}

// pdfPages turns pdftotext's output into an Extracted: every form feed (one
// ends each page) becomes a newline and the offset after it starts the next
// page. Invalid UTF-8 (which a broken font map can produce) becomes U+FFFD
// and NUL is dropped, so the text is always storable.
func pdfPages(out string) Extracted {
	out = strings.ToValidUTF8(out, string(utf8.RuneError))
	out = strings.ReplaceAll(out, "\x00", "")
	ex := Extracted{Pages: []int{0}}
	for i := 0; i < len(out); i++ {
		if out[i] == '\f' && i+1 < len(out) {
			ex.Pages = append(ex.Pages, i+1)
		}
	}
	// A trailing form feed ends the last page; an empty page before it
	// still has its own (empty) start, counted above.
	ex.Text = strings.ReplaceAll(out, "\f", "\n")
	return ex
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
