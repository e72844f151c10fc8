package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
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

// ErrTooLarge is wrapped by Extract when the extracted text would exceed
// MaxTextBytes, so one upload cannot exhaust the memory of the process.
var ErrTooLarge = errors.New("extracted text too large")

// MaxTextBytes bounds the text Extract returns for a PDF: pdftotext's output
// beyond it is not read and the upload is refused with ErrTooLarge.
const MaxTextBytes = 64 << 20

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
// pdftotext reads it with page offsets in Pages. ctx bounds the pdftotext
// process; with no deadline it gets PDFTimeout.
//
// Errors wrap ErrUnsupportedMediaType, ErrUnreadable, ErrNoText or
// ErrTooLarge when the upload is at fault; any other error (pdftotext
// missing, the context ending) is the server's.
func Extract(ctx context.Context, mediaType string, data []byte) (Extracted, error) {
	mt, err := MediaType("", mediaType)
	if err != nil {
		return Extracted{}, fmt.Errorf("extract: %w", err)
	}
	var ex Extracted
	switch mt {
	case MediaPlain, MediaMarkdown:
		ex.Text, err = extractPlain(data)
	case MediaHTML:
		ex.Text, err = extractHTML(data)
	case MediaPDF:
		ex, err = extractPDF(ctx, data)
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
	return ex, nil
}

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
