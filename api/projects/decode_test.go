package projects

import (
	"bytes"
	"mime/multipart"
	"testing"
)

// FuzzDecodeUpload: whatever the Content-Type and body, the upload decoder
// never panics, refuses with its own error type, and never holds more file
// bytes than the body carried (memory stays bounded by the body cap).
func FuzzDecodeUpload(f *testing.F) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.SetBoundary("b0undary")
	_ = w.WriteField("url", "https://laws.example.org/act")
	part, _ := w.CreateFormFile("file", "act.html")
	_, _ = part.Write([]byte("<p>Section 1. A person qualifies.</p>"))
	_ = w.Close()
	f.Add(w.FormDataContentType(), buf.Bytes())
	f.Add("application/json", []byte(`{"filename":"act.txt","text":"Section 1."}`))
	f.Add("application/json", []byte(`{"filename":"act.pdf","content_base64":"JVBERi0xLjQK"}`))
	f.Add("application/json; charset=utf-8", []byte(`{"filename":"a.txt","text":"x","extra":1}`))
	f.Add("multipart/form-data", []byte("--x\r\n\r\n"))
	f.Add("text/plain", []byte("hello"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		uploads, err := decodeUpload(contentType, body)
		if err != nil {
			if _, ok := err.(*bodyError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(uploads) == 0 || len(uploads) > maxFormFiles {
			t.Fatalf("%d uploads decoded", len(uploads))
		}
		total := 0
		for _, up := range uploads {
			total += len(up.Content)
			if up.Filename == "" {
				t.Fatalf("an upload without a filename: %+v", up)
			}
		}
		if total > len(body) {
			t.Fatalf("%d content bytes from a %d-byte body", total, len(body))
		}
	})
}
