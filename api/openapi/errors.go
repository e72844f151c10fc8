package openapi

import (
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
	"github.com/eligo/eligo/api"
)

// This file documents the error responses of every operation. They are
// worked out from the Route declaration and the operation's input type by
// errorResponses, in one place, so the reference docs list exactly the
// errors the middleware and the handlers can answer with, and an operation
// added later gets its errors without anyone writing them down.

// errorShape is one of the error bodies an operation can answer with.
type errorShape int

const (
	shapeProblem errorShape = iota
	shapeValidation
	shapeNotFound
	shapeAnonymousLimited
)

// errorShapeTypes are the Go types whose schemas describe the shapes (the
// schema takes the type's name), so the document and the encoder read the
// same declarations.
var errorShapeTypes = [...]reflect.Type{
	shapeProblem:          reflect.TypeFor[api.ProblemError](),
	shapeValidation:       reflect.TypeFor[api.ValidationError](),
	shapeNotFound:         reflect.TypeFor[api.NotFoundError](),
	shapeAnonymousLimited: reflect.TypeFor[api.AnonymousLimited](),
}

// errorCase is one status an operation can answer with: its bodies, what it
// means there and the headers sent with it.
type errorCase struct {
	status      int
	shapes      []errorShape
	description string
	headers     []string
}

// operationShape is what the error documentation needs to know of an
// operation's input type.
type operationShape struct {
	// body is set when the operation reads a request body.
	body bool
	// params is set when it reads path, query or header parameters.
	params bool
}

// shapeOf reads what the error documentation needs of a registered
// operation: whether it reads a body, and parameters (beyond the
// Idempotency-Key header every idempotent operation takes).
func shapeOf(op *huma.Operation) operationShape {
	sh := operationShape{body: op.RequestBody != nil}
	for _, p := range op.Parameters {
		if p.Name != api.IdempotencyHeader {
			sh.params = true
		}
	}
	return sh
}

// errorCases lists the errors the operation can answer with, in status
// order. It is the one statement of which declaration yields which error:
//
//   - every operation: 401 and 403 (keyed: the key is missing, unusable or
//     without the scopes, and no 403 where any key will do; open: a
//     presented key that could not be used where the operation needed it),
//     and 503 (the key store or the usage counters could not be read, or
//     the work ran past the work deadline);
//   - Route.NotFound: 404 with a string detail;
//   - a request body: 413 over the caller's cap;
//   - a body or parameters: 422 validation list;
//   - an enforced metering class: 429, in the keyed shape and, on the open
//     surface, the anonymous one;
//   - Route.Idempotent: 400, 409 and 422 for the Idempotency-Key;
//   - each of Route.Refusals: its status with a problem detail, its reason
//     code and meaning added to that status's description.
func errorCases(r api.Route, sh operationShape) []errorCase {
	byStatus := map[int]*errorCase{}
	add := func(status int, shape errorShape, description string, headers ...string) {
		c, ok := byStatus[status]
		if !ok {
			c = &errorCase{status: status}
			byStatus[status] = c
		}
		if !slices.Contains(c.shapes, shape) {
			c.shapes = append(c.shapes, shape)
		}
		if c.description != "" {
			c.description += " "
		}
		c.description += description
		for _, h := range headers {
			if !slices.Contains(c.headers, h) {
				c.headers = append(c.headers, h)
			}
		}
	}
	if r.Access == api.Keyed {
		add(http.StatusUnauthorized, shapeProblem,
			"No usable API key: `missing_api_key` (no x-api-key header), `invalid_api_key` (unknown, malformed or revoked) or `api_key_expired`.",
			"WWW-Authenticate")
		if !r.AnyKey {
			add(http.StatusForbidden, shapeProblem,
				"`denied_missing_permission`: the key lacks a scope this operation needs; `action` and `missing_permissions` name it.")
		}
	} else {
		add(http.StatusUnauthorized, shapeProblem,
			"A key was sent but could not be used (`invalid_api_key`, `api_key_expired`), and the request needed it: the object it names is not public, or the request needs a key (`missing_api_key`).",
			"WWW-Authenticate")
		add(http.StatusForbidden, shapeProblem,
			"`denied_missing_permission`: a key was sent without the scope the request needed; `action` and `missing_permissions` name it.")
	}
	if r.NotFound != "" {
		add(http.StatusNotFound, shapeNotFound, "The "+r.NotFound+" is unknown, archived under that slug, or private to another tenant or to an anonymous caller. `detail` is a plain string with no reason code.")
	}
	if sh.body {
		add(http.StatusRequestEntityTooLarge, shapeProblem,
			"`body_too_large`: the body exceeds the caller's cap (2 MB anonymous), refused before it is read.")
	}
	if sh.body || sh.params {
		add(http.StatusUnprocessableEntity, shapeValidation,
			"The request is malformed: `detail` is a list of `{type, loc, msg, input}` (missing, extra_forbidden, int_type, enum, json_invalid...).")
	}
	if r.Class.Known() && r.Class.Enforced() {
		description := "`daily_quota_exceeded`: the key has used its rolling 24-hour budget for the `" + string(r.Class) + "` class; `Retry-After: 86400`."
		add(http.StatusTooManyRequests, shapeProblem, description, "Retry-After", api.HeaderRateLimitClass, api.HeaderRateLimitLimit, api.HeaderRateLimitRemaining, api.HeaderRateLimitReset)
		if r.Access == api.Open {
			add(http.StatusTooManyRequests, shapeAnonymousLimited,
				"Anonymous callers get `{error: \"rate_limit_exceeded\", retry_after: <epoch seconds>}` instead, and no Retry-After.")
		}
	}
	add(http.StatusServiceUnavailable, shapeProblem,
		"`rate_limit_backend_unavailable`: the API key or the usage counters could not be read. Transient: retry with exponential backoff. "+
			"`database_unavailable`: a reference had to be read from the database, which could not be reached. Transient: retry with backoff. "+
			"`work_deadline_exceeded`: the request's work ran past the server's work deadline (its write timeout less a quarter, at most 10 s less: 50 s by default), "+
			"so it was stopped and nothing was written; `Retry-After: 30`. A smaller request finishes sooner.",
		"Retry-After")
	if sh.body {
		add(http.StatusServiceUnavailable, shapeProblem,
			"`server_busy`: the body is over 64 KiB and the server is reading as many large bodies as its memory allows (`--body-memory`); nothing was read; `Retry-After: 5`.")
	}
	if r.Idempotent {
		add(http.StatusBadRequest, shapeProblem, "`"+api.ReasonIdempotencyKeyInvalid+"`: the Idempotency-Key header is not 1 to 255 printable ASCII characters.")
		add(http.StatusConflict, shapeProblem, "`"+api.ReasonIdempotencyKeyInUse+"`: a request with this Idempotency-Key is still being served; `Retry-After: 5`.", "Retry-After")
		add(http.StatusUnprocessableEntity, shapeProblem, "`"+api.ReasonIdempotencyKeyReused+"`: this Idempotency-Key was used for another path or body in the last 24 hours.")
	}
	for _, refusal := range r.Refusals {
		add(refusal.Status, shapeProblem, "`"+refusal.ReasonCode+"`: "+refusal.Meaning)
	}
	cases := make([]errorCase, 0, len(byStatus))
	for _, c := range byStatus {
		cases = append(cases, *c)
	}
	slices.SortFunc(cases, func(a, b errorCase) int { return a.status - b.status })
	return cases
}

// errorHeaderDocs documents the headers errorCases names.
var errorHeaderDocs = map[string]struct {
	doc     string
	integer bool
}{
	"WWW-Authenticate":           {"The authentication scheme: `ApiKey header=\"x-api-key\"`.", false},
	"Retry-After":                {"Seconds to wait: 86400 on a keyed 429 over the daily budget, 30 on a 429 `tenant_generation_limit`; 1 on a 503, 30 on a 503 `work_deadline_exceeded`.", true},
	api.HeaderRateLimitClass:     {"The operation's metering class.", false},
	api.HeaderRateLimitLimit:     {"The class's rolling 24-hour budget on the caller's tier.", true},
	api.HeaderRateLimitRemaining: {"Requests left in the window: 0 here.", true},
	api.HeaderRateLimitReset:     {"Epoch seconds of the next hourly boundary.", true},
}

// documentErrors adds to each registered operation of s the error
// responses its Route declares (errorCases); huma documented only its
// success, and the api core the opaque default.
func documentErrors(s *api.Server) {
	registry := s.OpenAPI().Components.Schemas
	for _, route := range s.Routes() {
		op := s.Operation(route.Method, route.Path)
		if op == nil {
			continue
		}
		for _, c := range errorCases(route, shapeOf(op)) {
			resp := &huma.Response{
				Description: http.StatusText(c.status) + ". " + c.description,
				Content:     map[string]*huma.MediaType{"application/json": {Schema: shapesSchema(registry, c.shapes)}},
			}
			for _, name := range c.headers {
				h := errorHeaderDocs[name]
				typ := huma.TypeString
				if h.integer {
					typ = huma.TypeInteger
				}
				if resp.Headers == nil {
					resp.Headers = map[string]*huma.Param{}
				}
				resp.Headers[name] = &huma.Param{Description: h.doc, Schema: &huma.Schema{Type: typ}}
			}
			op.Responses[strconv.Itoa(c.status)] = resp
		}
	}
}

// shapesSchema is a reference to the one shape, or a oneOf of several
// (they are told apart by the type of detail, or by its absence).
func shapesSchema(registry huma.Registry, shapes []errorShape) *huma.Schema {
	refs := make([]*huma.Schema, len(shapes))
	for i, sh := range shapes {
		refs[i] = registry.Schema(errorShapeTypes[sh], true, "")
	}
	if len(refs) == 1 {
		return refs[0]
	}
	return &huma.Schema{OneOf: refs}
}
