package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrUnreadable is wrapped by Extract when the bytes cannot be read as the
// declared type: text that is not UTF-8, a PDF that is corrupt, encrypted
// or not a PDF at all. The uploader can fix it; the server cannot.
var ErrUnreadable = errors.New("source unreadable")

// ErrNoText is wrapped by Extract when a source reads correctly but holds no
// text: an empty or blank file, an HTML page that is all markup, or a PDF
// without a text layer (a scan; OCR is not done). Such a source could
// support no quote, so it is refused at upload.
var ErrNoText = errors.New("source has no text")

// ErrTooLarge is wrapped by Extract when one file's extracted text would
// exceed its limit (MaxTextBytes, or Budget's per-source limit), or a PDF
// has more than MaxPages pages, so one upload cannot exhaust the memory of
// the process. Extraction stops as soon as the limit is passed.
var ErrTooLarge = errors.New("extracted text too large")

// ErrTooManyPages is wrapped by Extract for a PDF of more than MaxPages
// pages; it wraps ErrTooLarge.
var ErrTooManyPages = fmt.Errorf("too many pages: %w", ErrTooLarge)

// ErrBudgetExceeded is wrapped by Budget.Extract when the files of one
// request together extract to more text than the budget allows: each file
// is within its own limit, but not all of them at once.
var ErrBudgetExceeded = errors.New("extraction budget exceeded")

// ErrExtractionTimeout is wrapped by Extract when extraction ran out of its
// time (Budget's, or PDFTimeout): the PDF takes longer to read than any
// ordinary document, so it is refused rather than retried.
var ErrExtractionTimeout = errors.New("extraction took too long")

// MaxTextBytes bounds the text Extract returns for one file (16 MiB) when
// it is called without a Budget; a Budget sets its own, usually smaller.
const MaxTextBytes = 16 << 20

// MaxPages bounds the pages of a PDF: the longest statutes and codes run
// to a few thousand pages, and each page costs an offset in
// Extracted.Pages however little text it holds.
const MaxPages = 50_000

// Extracted is the text of a source as quotes are verified against it.
type Extracted struct {
	// Text is the extracted text: valid UTF-8, LF line ends, paragraphs
	// separated by blank lines where the source marks them.
	Text string
	// Pages is, for a PDF only, the byte offset in Text where each page
	// starts: page i+1 starts at Pages[i], Pages[0] is 0 and there is one
	// entry per page, empty pages included. It is nil for other types.
	// PageOf turns an offset into a page number.
	Pages []int
}

// Extract returns the text of an upload of the given media type (any form
// MediaType accepts as declared, such as "text/html; charset=utf-8"). The
// text is what quotes are verified against and what the model reads, so it
// is the text a reader of the source sees: plain text and Markdown as
// written (BOM dropped, CRLF and CR turned into LF), HTML without markup,
// scripts or styles and with block elements on their own lines, PDF as
// pdftotext reads it with page offsets in Pages. At most MaxTextBytes of
// text are produced, and a PDF gets PDFTimeout (or ctx's deadline, when
// sooner); Budget.Extract shares such limits among the files of a request.
//
// Errors wrap ErrUnsupportedMediaType, ErrUnreadable, ErrNoText,
// ErrTooLarge or ErrExtractionTimeout when the upload is at fault; any
// other error (pdftotext missing, the caller's context ending) is the
// server's.
func Extract(ctx context.Context, mediaType string, data []byte) (Extracted, error) {
	return NewBudget(MaxTextBytes, MaxTextBytes, PDFTimeout).Extract(ctx, mediaType, data)
}

// Budget is what extraction may spend on the files of one request: text
// bytes produced, per file and in all, and time in all. One hostile PDF of
// a few hundred kilobytes can extract to tens of megabytes of text, and a
// request can carry many of them, so the limits hold across the request
// rather than per file. It is meant for one request's files, extracted one
// after another; it is not safe for concurrent use.
type Budget struct {
	perSource, total, left int64
	timeout                time.Duration
	deadline               time.Time
}

// NewBudget returns the budget of one request: at most perSource bytes of
// text from any one file, total bytes from all of them, and timeout of
// extraction time in all, counted from now.
func NewBudget(perSource, total int64, timeout time.Duration) *Budget {
	return &Budget{perSource: perSource, total: total, left: total, timeout: timeout, deadline: time.Now().Add(timeout)}
}

// Extract is the package's Extract within b: the file's text counts
// against what is left of b, and a PDF's extraction stops as soon as its
// text passes the smaller of the per-file limit (ErrTooLarge) and what is
// left of the total (ErrBudgetExceeded), or b's time runs out
// (ErrExtractionTimeout). The text held never exceeds that limit by more
// than a buffer's growth.
func (b *Budget) Extract(ctx context.Context, mediaType string, data []byte) (Extracted, error) {
	mt, err := MediaType("", mediaType)
	if err != nil {
		return Extracted{}, fmt.Errorf("extract: %w", err)
	}
	limit := min(b.perSource, b.left)
	var ex Extracted
	switch mt {
	case MediaPlain, MediaMarkdown:
		ex.Text, err = extractPlain(data)
	case MediaHTML:
		ex.Text, err = extractHTML(data)
	case MediaPDF:
		ctx, cancel := context.WithDeadlineCause(ctx, b.deadline, ErrExtractionTimeout)
		defer cancel()
		ex, err = extractPDF(ctx, data, int(limit))
		if errors.Is(err, errOverLimit) {
			err = b.overLimit()
		}
	}
	if err == nil && int64(len(ex.Text)) > limit {
		err = b.overLimit()
	}
	if err != nil {
		return Extracted{}, fmt.Errorf("extract %s: %w", mt, err)
	}
	if strings.TrimSpace(ex.Text) == "" {
		if mt == MediaPDF {
			return Extracted{}, fmt.Errorf("extract %s: the PDF has no text layer (a scanned image? OCR is not done): %w", mt, ErrNoText)
		}
		return Extracted{}, fmt.Errorf("extract %s: empty or only white space: %w", mt, ErrNoText)
	}
	b.left -= int64(len(ex.Text))
	return ex, nil
}

// overLimit says which limit a file's text passed: its own, or what was
// left of the request's.
func (b *Budget) overLimit() error {
	if b.perSource <= b.left {
		return fmt.Errorf("the text extracted exceeds %d bytes, the most one source may hold: %w", b.perSource, ErrTooLarge)
	}
	return fmt.Errorf("the files of this request extract to more than %d bytes of text together: %w", b.total, ErrBudgetExceeded)
}

// Timeout is the extraction time the budget allowed in all, for messages.
func (b *Budget) Timeout() time.Duration { return b.timeout }

// utf8BOM is the byte order mark some editors put at the start of UTF-8.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// extractPlain checks and normalises plain text and Markdown.
func extractPlain(data []byte) (string, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := checkText(data); err != nil {
		return "", err
	}
	return normaliseNewlines(string(data)), nil
}

// checkText refuses bytes that are not UTF-8 text: invalid sequences (the
// file is in another encoding) and NUL bytes (it is binary, and PostgreSQL
// text cannot hold NUL).
func checkText(data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("not valid UTF-8 at byte %d (save the file as UTF-8): %w", invalidAt(data), ErrUnreadable)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Errorf("NUL byte at offset %d (a binary file?): %w", i, ErrUnreadable)
	}
	return nil
}

// invalidAt returns the offset of the first invalid UTF-8 sequence.
func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// normaliseNewlines turns CRLF and lone CR into LF.
func normaliseNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// PageOf returns the 1-based number of the page holding the byte at offset
// in an extracted text, given its Extracted.Pages, so a verified quote can
// be cited by page. It returns 0 when pages is empty (the source has no
// pages) or offset is negative; an offset past the end is on the last page.
func PageOf(pages []int, offset int) int {
	if len(pages) == 0 || offset < 0 {
		return 0
	}
	return sort.Search(len(pages), func(i int) bool { return pages[i] > offset })
}
