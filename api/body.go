package api

import (
	"encoding/json"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/eligo/eligo/engine"
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
	withoutAnswers(parsed)
	registry := s.huma.OpenAPI().Components.Schemas
	pb := huma.NewPathBuffer(make([]byte, 0, 64), 0)
	pb.Push("body")
	res := &huma.ValidateResult{}
	schema := registry.Schema(t, true, name)
	huma.Validate(registry, schema, pb, huma.ModeWriteToServer, parsed, res)
	if len(res.Errors) == 0 {
		return ValidationFailed(ValidationItem{Type: "value_error", Loc: []any{"body"}, Msg: "Invalid request body", Input: parsed})
	}
	e := newHumaError(http.StatusUnprocessableEntity, "validation failed", res.Errors...)
	if pe, ok := e.(*Error); ok {
		suggestMembers(pe, memberNames(registry, schema))
	}
	return e
}

// DocumentRequestBody documents the request body of the operation at
// (method, path) as the schema of t (registered under name): the handler
// reads the raw bytes, which huma would otherwise document as opaque.
// The middleware then refuses a Content-Type other than JSON on it (415), as
// huma does on the operations whose body it reads.
func (s *Server) DocumentRequestBody(method, path string, t reflect.Type, name string) {
	s.jsonBodies[strings.ToUpper(method)+" "+RootPath+muxPath(path)] = true
	op := s.Operation(method, path)
	op.RequestBody = &huma.RequestBody{
		Required: true,
		Content: map[string]*huma.MediaType{"application/json": {
			Schema: s.huma.OpenAPI().Components.Schemas.Schema(t, true, name),
		}},
	}
	s.rememberBodyMembers(method, path)
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

// rememberBodyMembers keeps the top-level member names of the request body
// of the operation at (method, path), once huma has registered it, so that
// a misspelt member's 422 can say which was meant (suggestMembers).
func (s *Server) rememberBodyMembers(method, path string) {
	op := s.Operation(method, path)
	if op == nil || op.RequestBody == nil {
		return
	}
	if mt := op.RequestBody.Content["application/json"]; mt != nil {
		s.bodySchemas[strings.ToUpper(method)+" "+RootPath+muxPath(path)] = mt.Schema
		if members := memberNames(s.huma.OpenAPI().Components.Schemas, mt.Schema); len(members) > 0 {
			s.bodyMembers[strings.ToUpper(method)+" "+RootPath+muxPath(path)] = members
		}
	}
}

// memberNames are the names of the members schema (or the schema it
// references) declares, sorted.
func memberNames(registry huma.Registry, schema *huma.Schema) []string {
	if schema != nil && schema.Ref != "" {
		schema = registry.SchemaFromRef(schema.Ref)
	}
	if schema == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(schema.Properties))
}

// suggestMembers adds to each 422 item refusing an unknown top-level
// member of the body (extra_forbidden) the declared member it was
// probably meant to be (engine.Nearest over members, the body's own
// member names): "Extra inputs are not permitted; did you mean
// "include_explanation"?".
func suggestMembers(e *Error, members []string) {
	items, ok := e.Detail.([]ValidationItem)
	if !ok || len(members) == 0 {
		return
	}
	for i, it := range items {
		if it.Type != "extra_forbidden" || len(it.Loc) != 2 || it.Loc[0] != "body" {
			continue
		}
		if key, ok := it.Loc[1].(string); ok {
			if nearest := engine.Nearest(key, members); nearest != "" {
				items[i].Msg += "; did you mean " + quoted(nearest) + "?"
			}
		}
	}
}

// Operation is huma's documentation of the operation registered at
// (method, path), path as the Route declares it; nil when there is none.
func (s *Server) Operation(method, path string) *huma.Operation {
	item := s.huma.OpenAPI().Paths[path]
	if item == nil {
		return nil
	}
	return map[string]*huma.Operation{http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPut: item.Put,
		http.MethodPatch: item.Patch, http.MethodDelete: item.Delete}[strings.ToUpper(method)]
}
