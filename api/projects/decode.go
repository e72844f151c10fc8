package projects

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"unicode/utf8"

	"github.com/eligo/eligo/authoring"
)

// jsonUpload is the JSON form of an upload: one file.
type jsonUpload struct {
	Filename      string `json:"filename" minLength:"1" maxLength:"255" doc:"The file's name; its extension gives the media type when media_type is absent."`
	MediaType     string `json:"media_type,omitempty" maxLength:"100" doc:"text/plain, text/markdown, text/html or application/pdf."`
	Text          string `json:"text,omitempty" doc:"The content as UTF-8 text; or send content_base64."`
	ContentBase64 string `json:"content_base64,omitempty" doc:"The content's bytes, standard base64; for PDF."`
	URL           string `json:"url,omitempty" maxLength:"2000" doc:"Where the text is published (http or https); needed to cite the source by url."`
	Title         string `json:"title,omitempty" maxLength:"500"`
	Licence       string `json:"licence,omitempty" maxLength:"200" doc:"The licence the text is published under; every published reference needs one."`
}

// SchemaName is the name of jsonUpload's schema in the published API document,
// where the Go name would not say what it is.
func (jsonUpload) SchemaName() string { return "SourceUploadRequest" }

// maxFormFiles bounds the file parts of one multipart upload, and
// maxFormField the bytes of one of its text fields.
const (
	maxFormFiles = 20
	maxFormField = 4000
)

// bodyError is an upload body decodeUpload cannot read: kind is the
// validation type, loc the member below body.
type bodyError struct {
	kind string
	loc  []any
	msg  string
	// json is set for a JSON body, whose schema errors explain it better.
	json bool
}

func (e *bodyError) Error() string { return e.msg }

// decodeUpload reads an upload body of the given Content-Type into the
// files it carries. It never panics and keeps nothing beyond the body it
// was given.
func decodeUpload(contentType string, raw []byte) ([]authoring.Upload, error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, &bodyError{kind: "value_error", loc: nil, msg: "Content-Type must be multipart/form-data or application/json"}
	}
	switch mediaType {
	case "application/json":
		return decodeJSONUpload(raw)
	case "multipart/form-data":
		if params["boundary"] == "" {
			return nil, &bodyError{kind: "value_error", msg: "a multipart/form-data body needs a boundary parameter"}
		}
		return decodeForm(multipart.NewReader(bytes.NewReader(raw), params["boundary"]))
	}
	return nil, &bodyError{kind: "value_error", msg: "Content-Type must be multipart/form-data or application/json, not " + mediaType}
}

func decodeJSONUpload(raw []byte) ([]authoring.Upload, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var body jsonUpload
	if err := dec.Decode(&body); err != nil {
		return nil, &bodyError{kind: "json_invalid", msg: "the body is not a valid upload object: " + err.Error(), json: true}
	}
	if dec.More() {
		return nil, &bodyError{kind: "json_invalid", msg: "the body holds more than one JSON value", json: true}
	}
	if body.Filename == "" {
		return nil, &bodyError{kind: "missing", loc: []any{"filename"}, msg: "Field required", json: true}
	}
	up := authoring.Upload{Filename: body.Filename, MediaType: body.MediaType, URL: body.URL, Title: body.Title, Licence: body.Licence}
	switch {
	case body.Text != "" && body.ContentBase64 != "":
		return nil, &bodyError{kind: "value_error", loc: []any{"content_base64"}, msg: "send the content as text or as content_base64, not both"}
	case body.Text != "":
		up.Content = []byte(body.Text)
	case body.ContentBase64 != "":
		content, err := base64.StdEncoding.DecodeString(body.ContentBase64)
		if err != nil {
			return nil, &bodyError{kind: "value_error", loc: []any{"content_base64"}, msg: "content_base64 is not standard base64"}
		}
		up.Content = content
	default:
		return nil, &bodyError{kind: "missing", loc: []any{"text"}, msg: "send the content as text or content_base64"}
	}
	return []authoring.Upload{up}, nil
}

// decodeForm reads the file parts and the url, title and licence fields
// of a multipart form.
func decodeForm(r *multipart.Reader) ([]authoring.Upload, error) {
	var files []authoring.Upload
	fields := map[string]string{}
	for {
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &bodyError{kind: "value_error", msg: "the multipart body is malformed: " + err.Error()}
		}
		name := part.FormName()
		content, err := io.ReadAll(part)
		if err != nil {
			return nil, &bodyError{kind: "value_error", msg: "the multipart body is malformed: " + err.Error()}
		}
		if part.FileName() != "" {
			if len(files) == maxFormFiles {
				return nil, &bodyError{kind: "too_long", loc: []any{name}, msg: fmt.Sprintf("at most %d files per upload", maxFormFiles)}
			}
			files = append(files, authoring.Upload{Filename: part.FileName(), MediaType: part.Header.Get("Content-Type"), Content: content})
			continue
		}
		switch name {
		case "url", "title", "licence", "media_type":
			if len(content) > maxFormField || !utf8.Valid(content) {
				return nil, &bodyError{kind: "value_error", loc: []any{name}, msg: fmt.Sprintf("%s must be UTF-8 text of at most %d bytes", name, maxFormField)}
			}
			fields[name] = strings.TrimSpace(string(content))
		default:
			return nil, &bodyError{kind: "extra_forbidden", loc: []any{name}, msg: "Extra inputs are not permitted: the form takes file parts and url, title, licence, media_type"}
		}
	}
	if len(files) == 0 {
		return nil, &bodyError{kind: "missing", loc: []any{"file"}, msg: "the form has no file part"}
	}
	for i := range files {
		files[i].URL, files[i].Title, files[i].Licence = fields["url"], fields["title"], fields["licence"]
		if mt := fields["media_type"]; mt != "" {
			files[i].MediaType = mt
		}
	}
	return files, nil
}
