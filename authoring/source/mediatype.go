package source

import (
	"errors"
	"fmt"
	"strings"
)

// The media types Extract accepts. They are the canonical forms MediaType
// returns and the values stored with a source.
const (
	// MediaPlain is plain UTF-8 text, kept as written.
	MediaPlain = "text/plain"
	// MediaMarkdown is Markdown, kept as written rather than rendered so
	// quotes are checked against the text the author sees.
	MediaMarkdown = "text/markdown"
	// MediaHTML is an HTML page, reduced to its visible text.
	MediaHTML = "text/html"
	// MediaPDF is a PDF with a text layer, extracted with pdftotext.
	MediaPDF = "application/pdf"
)

// ErrUnsupportedMediaType is wrapped by MediaType and Extract when an upload
// is none of the supported types, so the API can answer 415 and name them.
var ErrUnsupportedMediaType = errors.New("unsupported media type (supported: " +
	MediaPlain + ", " + MediaMarkdown + ", " + MediaHTML + ", " + MediaPDF + ")")

// octetStream is what clients declare when they do not know the type; the
// file name then decides.
const octetStream = "application/octet-stream"

// MediaType returns the canonical media type of an upload from the
// Content-Type the client declared and the upload's file name. Browsers and
// command-line clients label files inconsistently, so the declared type is
// normalised (parameters such as "; charset=utf-8" dropped, lower-cased,
// text/x-markdown read as Markdown and application/xhtml+xml as HTML), and
// only when it is empty or application/octet-stream is the type inferred
// from the file name's extension (.txt, .text, .md, .markdown, .html, .htm,
// .pdf, in any case). A declared type wins over the extension. Anything
// else is an error wrapping ErrUnsupportedMediaType.
func MediaType(filename, declared string) (string, error) {
	mt, _, _ := strings.Cut(declared, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if mt == "" || mt == octetStream {
		ext := extension(filename)
		if inferred := byExtension(ext); inferred != "" {
			return inferred, nil
		}
		if ext == "" {
			return "", fmt.Errorf("media type of %q: none declared and no file extension: %w", filename, ErrUnsupportedMediaType)
		}
		return "", fmt.Errorf("media type of %q: extension %q: %w", filename, ext, ErrUnsupportedMediaType)
	}
	switch mt {
	case MediaPlain:
		return MediaPlain, nil
	case MediaMarkdown, "text/x-markdown":
		return MediaMarkdown, nil
	case MediaHTML, "application/xhtml+xml":
		return MediaHTML, nil
	case MediaPDF:
		return MediaPDF, nil
	}
	return "", fmt.Errorf("media type %q: %w", mt, ErrUnsupportedMediaType)
}

// extension returns the lower-cased extension of the last element of a
// file name, which may be a client-side path with either kind of slash.
func extension(filename string) string {
	base := filename[strings.LastIndexAny(filename, `/\`)+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return ""
	}
	return strings.ToLower(base[dot:])
}

// byExtension maps a lower-cased extension to its media type, or "".
func byExtension(ext string) string {
	switch ext {
	case ".txt", ".text":
		return MediaPlain
	case ".md", ".markdown":
		return MediaMarkdown
	case ".html", ".htm":
		return MediaHTML
	case ".pdf":
		return MediaPDF
	}
	return ""
}
