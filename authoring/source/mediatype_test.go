package source

import (
	"errors"
	"strings"
	"testing"
)

func TestMediaType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		filename, declared string
		want               string // "" when unsupported
	}{
		{"act.txt", "text/plain", MediaPlain},
		{"act.txt", "text/plain; charset=utf-8", MediaPlain},
		{"act", "Text/Plain ;charset=UTF-8", MediaPlain},
		{"act.md", "text/markdown", MediaMarkdown},
		{"act.md", "text/x-markdown; charset=utf-8", MediaMarkdown},
		{"act.html", "text/html; charset=iso-8859-1", MediaHTML},
		{"act.xhtml", "application/xhtml+xml", MediaHTML},
		{"act.pdf", "application/pdf", MediaPDF},
		{"act.pdf", " APPLICATION/PDF ", MediaPDF},
		// The declared type wins over the extension.
		{"act.pdf", "text/plain", MediaPlain},
		// Empty or octet-stream: the extension decides, in any case.
		{"act.txt", "", MediaPlain},
		{"ACT.TEXT", "", MediaPlain},
		{"act.md", "application/octet-stream", MediaMarkdown},
		{"notes.markdown", "", MediaMarkdown},
		{"page.htm", "", MediaHTML},
		{"page.HTML", "application/octet-stream; name=page.HTML", MediaHTML},
		{"scan.Pdf", "", MediaPDF},
		{`C:\Users\me\Downloads\act.v2.pdf`, "", MediaPDF},
		{"dir.pdf/act.txt", "", MediaPlain},
		// Unsupported.
		{"act.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ""},
		{"act.docx", "", ""},
		{"act.docx", "application/octet-stream", ""},
		{"act", "", ""},
		{"", "", ""},
		{"act.txt", "image/png", ""},
		{"act.txt", "text/csv", ""},
		{"dir.pdf/act", "", ""},
		{`dir.pdf\act`, "", ""},
	}
	for _, tt := range tests {
		got, err := MediaType(tt.filename, tt.declared)
		if tt.want == "" {
			if !errors.Is(err, ErrUnsupportedMediaType) {
				t.Errorf("MediaType(%q, %q) = %q, %v; want ErrUnsupportedMediaType", tt.filename, tt.declared, got, err)
				continue
			}
			for _, mt := range []string{MediaPlain, MediaMarkdown, MediaHTML, MediaPDF} {
				if !strings.Contains(err.Error(), mt) {
					t.Errorf("MediaType(%q, %q) error %q does not name %s", tt.filename, tt.declared, err, mt)
				}
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("MediaType(%q, %q) = %q, %v; want %q", tt.filename, tt.declared, got, err, tt.want)
		}
	}
}
