package api

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"
)

// The error bodies as the OpenAPI document names them. Which statuses and
// shapes each operation answers with is worked out from its Route by
// package openapi; here are only the shapes, and the union huma asks for.

// ProblemError is the body of most errors: detail is a Problem.
type ProblemError struct {
	// Detail carries the reason code callers branch on.
	Detail Problem `json:"detail"`
}

// ValidationError is the body of a 422 validation failure: detail is a
// list of pydantic-style items, one per offending member.
type ValidationError struct {
	// Detail has one item per problem found, never empty.
	Detail []ValidationItem `json:"detail" nullable:"false" minItems:"1"`
}

// NotFoundError is the body of a 404 lookup: detail is a plain string
// with no reason code; callers match on the status.
type NotFoundError struct {
	// Detail says what was not found.
	Detail string `json:"detail"`
}

// ErrorShapes are the Go types of the error bodies, whose schemas the
// document references.
var ErrorShapes = []reflect.Type{reflect.TypeFor[ProblemError](), reflect.TypeFor[ValidationError](), reflect.TypeFor[NotFoundError]()}

// Schema describes an *Error on the wire: one of the three detail shapes.
// Operations document the shapes each status can take (package openapi);
// this is the union, for any place huma needs the error type's schema.
func (*Error) Schema(registry huma.Registry) *huma.Schema {
	refs := make([]*huma.Schema, len(ErrorShapes))
	for i, t := range ErrorShapes {
		refs[i] = registry.Schema(t, true, "")
	}
	return &huma.Schema{OneOf: refs}
}

// defaultResponse documents the opaque 500 of op before huma registers
// it (huma adds a default of its own only to an operation with none).
func defaultResponse(registry huma.Registry, op *huma.Operation) {
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	op.Responses["default"] = &huma.Response{
		Description: "Unexpected failure: 500 `internal_error`, opaque. Quote the X-Request-Id response header when reporting it.",
		Content:     map[string]*huma.MediaType{"application/json": {Schema: registry.Schema(reflect.TypeFor[ProblemError](), true, "")}},
	}
}
