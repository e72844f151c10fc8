package api

import (
	"encoding/json"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// BodyErrors explains why raw is not an acceptable body for the
// schema of t (registered under name): 422 json_invalid when it is not
// JSON, else the schema validator's items, the answer huma gives on the
// operations whose body it reads. When the schema accepts the body (the
// strict reading refused something the validator does not check, such as
// a member name in other letter case), the body as a whole is named. The
// answers in field_values are never echoed.
func (s *Server) BodyErrors(raw []byte, t reflect.Type, name string) error {
	var parsed any
	if err := json.Unmarshal(raw, &parsed); err != nil {
		return newHumaError(http.StatusBadRequest, "", &huma.ErrorDetail{Location: "body", Message: err.Error()})
	}
	// A validation item echoes the object it is about (for a missing
	// member, the whole body): field_values, the applicant's answers, is
	// echoed as {} so that a 422 never carries them back.
	if body, ok := parsed.(map[string]any); ok {
		if _, isObject := body["field_values"].(map[string]any); isObject {
			body["field_values"] = map[string]any{}
		}
	}
	registry := s.huma.OpenAPI().Components.Schemas
	pb := huma.NewPathBuffer(make([]byte, 0, 64), 0)
	pb.Push("body")
	res := &huma.ValidateResult{}
	huma.Validate(registry, registry.Schema(t, true, name), pb, huma.ModeWriteToServer, parsed, res)
	if len(res.Errors) == 0 {
		return ValidationFailed(ValidationItem{Type: "value_error", Loc: []any{"body"}, Msg: "Invalid request body", Input: parsed})
	}
	return newHumaError(http.StatusUnprocessableEntity, "validation failed", res.Errors...)
}

// DocumentRequestBody documents the request body of the operation at
// (method, path) as the schema of t (registered under name): the handler
// reads the raw bytes, which huma would otherwise document as opaque.
// The middleware then refuses a Content-Type other than JSON on it (415), as
// huma does on the operations whose body it reads.
func (s *Server) DocumentRequestBody(method, path string, t reflect.Type, name string) {
	s.jsonBodies[strings.ToUpper(method)+" "+RootPath+muxPath(path)] = true
	item := s.huma.OpenAPI().Paths[path]
	op := map[string]*huma.Operation{http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPut: item.Put,
		http.MethodPatch: item.Patch, http.MethodDelete: item.Delete}[method]
	op.RequestBody = &huma.RequestBody{
		Required: true,
		Content: map[string]*huma.MediaType{"application/json": {
			Schema: s.huma.OpenAPI().Components.Schemas.Schema(t, true, name),
		}},
	}
}

// IsJSONContentType reports whether a request's Content-Type header names
// JSON: application/json or any application/*+json, with any parameters;
// an absent header counts as JSON, as huma reads it.
func IsJSONContentType(header string) bool {
	if header == "" {
		return true
	}
	mediaType, _, err := mime.ParseMediaType(header)
	if err != nil {
		return false
	}
	return mediaType == "application/json" || strings.HasPrefix(mediaType, "application/") && strings.HasSuffix(mediaType, "+json")
}
