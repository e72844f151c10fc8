package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"
)

// /decide reads its body itself rather than through huma's body handling,
// which decodes every body twice (once into generic values to validate
// against the schema, once into the struct). Here the common, valid body is
// decoded once, strictly, into decideRequest, with field_values kept as raw
// bytes for the engine. Only a body that fails that pass is validated
// against the same schema by huma's validator, so a malformed request gets
// exactly the 422 items every other operation gives.

// decodeDecideRequest reads a /decide body.
func (s *Server) decodeDecideRequest(raw []byte) (*decideRequest, error) {
	req := &decideRequest{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err == nil && !dec.More() && req.wellShaped() {
		return req, nil
	}
	return nil, s.decideRequestErrors(raw)
}

// wellShaped checks what the strict decode cannot: field_values is present
// and an object.
func (r *decideRequest) wellShaped() bool {
	return len(r.FieldValues) > 0 && r.FieldValues[0] == '{'
}

// decideRequestErrors explains why raw is not an acceptable body: 422
// json_invalid when it is not JSON, else the schema validator's items.
func (s *Server) decideRequestErrors(raw []byte) error {
	var parsed any
	if err := json.Unmarshal(raw, &parsed); err != nil {
		return newHumaError(http.StatusBadRequest, "", &huma.ErrorDetail{Location: "body", Message: err.Error()})
	}
	registry := s.huma.OpenAPI().Components.Schemas
	schema := registry.Schema(reflect.TypeFor[decideRequest](), true, "DecideRequest")
	pb := huma.NewPathBuffer(make([]byte, 0, 64), 0)
	pb.Push("body")
	res := &huma.ValidateResult{}
	huma.Validate(registry, schema, pb, huma.ModeWriteToServer, parsed, res)
	if len(res.Errors) == 0 {
		// The schema accepts what the strict decode refused; name the body.
		return ValidationFailed(ValidationItem{Type: "value_error", Loc: []any{"body"}, Msg: "Invalid request body", Input: parsed})
	}
	return newHumaError(http.StatusUnprocessableEntity, "validation failed", res.Errors...)
}

// documentDecideBodies points the request body and the 200 response of
// /decide at the decideRequest and decideResponse schemas: the handler
// reads and writes them as bytes, which huma would otherwise document as
// opaque.
func (s *Server) documentDecideBodies() {
	op := s.huma.OpenAPI().Paths["/decide"].Post
	registry := s.huma.OpenAPI().Components.Schemas
	op.RequestBody = &huma.RequestBody{
		Required: true,
		Content: map[string]*huma.MediaType{"application/json": {
			Schema: registry.Schema(reflect.TypeFor[decideRequest](), true, "DecideRequest"),
		}},
	}
	op.Responses["200"] = &huma.Response{
		Description: "The decision envelope.",
		Content: map[string]*huma.MediaType{"application/json": {
			Schema: registry.Schema(reflect.TypeFor[decideResponse](), true, "DecideResponse"),
		}},
	}
}
