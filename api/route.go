package api

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
)

// Class is the metering class of an operation: the rate-limit bucket and
// usage metric an authenticated call counts against. The class table lives
// in package metering.
type Class = metering.Class

// The six metering classes, and ClassUnmetered for operations never
// counted (GET /usage).
const (
	ClassDecide    = metering.ClassDecide
	ClassRulesets  = metering.ClassRulesets
	ClassRulebooks = metering.ClassRulebooks
	ClassProjects  = metering.ClassProjects
	ClassGenerate  = metering.ClassGenerate
	ClassAdmin     = metering.ClassAdmin
	ClassUnmetered = metering.Unmetered
)

// Access says who may call an operation.
type Access int

const (
	// Keyed operations need a valid key carrying every scope in
	// Route.Scopes: 401 without a usable key, 403 without the scopes.
	Keyed Access = iota
	// Open operations belong to the open surface: anonymous callers are
	// served. A valid key carrying Route.Scopes makes the caller that
	// key's principal (so the handler may show the tenant's private
	// objects); any other key is ignored and the caller is anonymous. A
	// handler that needs a key for part of its work (a rulebook_id on
	// /decide) calls RequirePrincipal, which answers the 401 or 403 the key
	// earned.
	Open
)

// Endpoint is a (method, path) pair, path relative to the API root.
type Endpoint struct {
	// Method is the HTTP method, upper case as in net/http's constants.
	Method string
	// Path is relative to RootPath, with {name} for path parameters, as
	// declared in Route.Path.
	Path string
}

// OpenSurface lists the registered operations anonymous callers may use
// (docs/api.md#keys-and-access), in registration order: the set CORS
// answers for any origin. It is derived from the Route declarations, so it
// names only operations that exist.
func (s *Server) OpenSurface() []Endpoint { return slices.Clone(s.open) }

// Refusal is an error answer an operation gives of its own accord, beyond
// the ones every operation can give (authentication, validation, limits):
// declared on the Route so that the reference documentation lists exactly
// what the handler can answer.
type Refusal struct {
	// Status is the HTTP status, e.g. 422.
	Status int
	// ReasonCode is the detail's reason_code (one of the Reason*
	// constants).
	ReasonCode string
	// Meaning says when the operation answers it, for the reference docs.
	Meaning string
}

// RefusalRecordCorrupt is declared by every operation that loads the rules
// of a stored ruleset: a record that does not load is 422
// ruleset_record_corrupt, never a wrong answer.
var RefusalRecordCorrupt = Refusal{http.StatusUnprocessableEntity, ReasonRulesetRecordCorrupt,
	"the stored ruleset could not be loaded (its content does not match its digest); republish it."}

// Route declares one operation: its identity and reference documentation,
// who may call it, and how it is metered. Auth, CORS and metering read this
// declaration; handlers never check keys or scopes themselves.
type Route struct {
	// OperationID is the stable OpenAPI operation id, e.g. "decide".
	OperationID string
	// Method is the HTTP method.
	Method string
	// Path is relative to the API root, e.g. "/rulesets/{ruleset_id}/schema".
	Path string
	// Summary is the one-line title shown in the reference docs.
	Summary string
	// Description is the reference text; the required scopes are appended.
	Description string
	// Tags group operations in the reference docs.
	Tags []string
	// Access is Keyed or Open.
	Access Access
	// Scopes are required (Keyed) or unlock the key's principal (Open).
	Scopes []auth.Scope
	// AnyKey lets a Keyed operation with no Scopes accept any valid key:
	// for operations about the key itself, such as GET /usage.
	AnyKey bool
	// Class is the metering class.
	Class Class
	// Price is the cost, in metering units, of an anonymous request with
	// this body, for an operation whose cost depends on what is asked
	// (/decide's flags; docs/api.md, metering). The metering middleware reads the
	// body and calls it before the handler; nil means one unit. Keyed
	// callers always count one unit per request.
	Price func(body []byte) int64
	// DefaultStatus is the success status; 200 when zero.
	DefaultStatus int
	// NotFound names what the operation looks up that may be unknown or
	// invisible to the caller ("ruleset", "ruleset or rulebook"): it then
	// answers 404 with a string detail. Empty when it names nothing.
	NotFound string
	// StreamBody marks an operation whose handler reads its body as a
	// stream (huma.Context.BodyReader, taken in the input's Resolve): the
	// body is not read into memory before the handler, which reserves
	// StreamBodyMemory of the process's body memory whatever the body's
	// size (within the caller's cap), and an Idempotency-Key's request is
	// told by a digest taken as the body streams.
	StreamBody bool
	// Idempotent marks a POST that creates (a project, uploads, guidance,
	// a publish): it takes an Idempotency-Key header, and a retry with the
	// same key gets the first answer instead of doing the work twice.
	Idempotent bool
	// Refusals are the operation's own error answers (see Refusal). The
	// error responses in the reference docs are worked out from this
	// declaration and the ones above (see package openapi, errorCases).
	Refusals []Refusal
}

func (r Route) endpoint() Endpoint { return Endpoint{Method: r.Method, Path: r.Path} }

// idempotencyText is the description's paragraph on Idempotency-Key, for
// the operations that take one.
func (r Route) idempotencyText() string {
	if !r.Idempotent {
		return ""
	}
	return "\n\n" + idempotencyDoc
}

// Register declares route on s and serves it with handler. It panics on a
// declaration that is incomplete or contradicts itself, so mistakes fail
// at start, not in production.
func Register[I, O any](s *Server, route Route, handler func(context.Context, *I) (*O, error)) {
	if err := s.addRoute(route); err != nil {
		panic(err)
	}
	op := huma.Operation{
		OperationID:   route.OperationID,
		Method:        route.Method,
		Path:          muxPath(route.Path),
		Summary:       route.Summary,
		Description:   route.Description + route.idempotencyText() + "\n\n" + route.accessText(),
		Tags:          route.Tags,
		DefaultStatus: route.DefaultStatus,
		// The middleware enforces the caller's cap before the body is read;
		// huma's own limit only backs it up. huma rejects a body of exactly
		// MaxBodyBytes, hence the +1.
		MaxBodyBytes: s.cfg.KeyedBodyLimit + 1,
		// The middleware reads every body within its own read deadline
		// (Config.BodyReadTimeout) before huma runs; see checkBody for why
		// huma's is off.
		BodyReadTimeout: -1,
		Extensions: map[string]any{
			"x-eligo-scopes":         auth.ScopeNames(route.Scopes),
			"x-eligo-open-surface":   route.Access == Open,
			"x-eligo-metering-class": string(route.Class),
		},
	}
	defaultResponse(s.huma.OpenAPI().Components.Schemas, &op)
	if route.Idempotent {
		op.Parameters = append(op.Parameters, &huma.Param{Name: IdempotencyHeader, In: "header",
			Description: "Makes a retry safe: a repeat with the same key within 24 hours gets the first answer. 1 to 255 printable ASCII characters, e.g. a UUID.",
			Schema:      &huma.Schema{Type: huma.TypeString, MinLength: new(1), MaxLength: new(maxIdempotencyKey)}})
	}
	// OpenAPI lists no scopes for apiKey schemes; they are in the
	// description and the x-eligo-scopes extension.
	if route.Access == Keyed {
		op.Security = []map[string][]string{{"apiKey": {}}}
	} else {
		op.Security = []map[string][]string{{}, {"apiKey": {}}}
	}
	huma.Register(s.huma, op, handler)
	if op.Path != route.Path {
		documentAt(s.huma.OpenAPI().Paths, op.Path, route.Path)
	}
	s.rememberBodyMembers(route.Method, route.Path)
}

// Routes are the declarations of the registered operations, in operation
// id order: what package openapi documents beside huma's own document.
func (s *Server) Routes() []Route {
	out := slices.Collect(maps.Values(s.routes))
	slices.SortFunc(out, func(a, b Route) int { return strings.Compare(a.OperationID, b.OperationID) })
	return out
}

// accessText documents the route's access rule in its description.
func (r Route) accessText() string {
	scopes := strings.Join(auth.ScopeNames(r.Scopes), "`, `")
	if r.Access == Open {
		if scopes == "" {
			return "Access: open surface; no key needed. Metering class: `" + string(r.Class) + "`."
		}
		return "Access: open surface; no key needed. A key carrying `" + scopes + "` also sees its tenant's private objects; any other key is ignored. Metering class: `" + string(r.Class) + "`."
	}
	if scopes == "" {
		return "Access: any valid API key. Metering class: `" + string(r.Class) + "`."
	}
	return "Access: API key with scope `" + scopes + "`. Metering class: `" + string(r.Class) + "`."
}

// addRoute checks route and indexes it by its ServeMux pattern, which is how
// the middleware finds the declaration of an incoming request.
func (s *Server) addRoute(route Route) error {
	if route.OperationID == "" || route.Summary == "" || route.Description == "" {
		return fmt.Errorf("route %s %s: operation id, summary and description are required", route.Method, route.Path)
	}
	if !route.Class.Known() && route.Class != ClassUnmetered {
		return fmt.Errorf("route %s: metering class %q is not one of the six (or ClassUnmetered)", route.OperationID, route.Class)
	}
	if route.Access == Keyed && len(route.Scopes) == 0 && !route.AnyKey {
		return fmt.Errorf("route %s: a keyed route needs at least one scope", route.OperationID)
	}
	pattern := strings.ToUpper(route.Method) + " " + RootPath + muxPath(route.Path)
	if _, dup := s.routes[pattern]; dup {
		return fmt.Errorf("route %s: %s registered twice", route.OperationID, pattern)
	}
	for _, r := range route.Refusals {
		if r.Status < 400 || r.ReasonCode == "" || r.Meaning == "" {
			return fmt.Errorf("route %s: refusal %+v needs an error status, a reason code and a meaning", route.OperationID, r)
		}
	}
	if route.Price != nil && route.Access != Open {
		return fmt.Errorf("route %s: only open-surface operations have an anonymous price", route.OperationID)
	}
	s.routes[pattern] = route
	if route.Access == Open {
		s.open = append(s.open, route.endpoint())
	}
	return nil
}

// muxPath is the ServeMux pattern path of an operation path: a path ending
// in "/" (GET /rulebooks/, docs/api.md#rulebooks) matches only itself, not every path
// below it, so an unknown path under it is a 404 rather than the list.
func muxPath(path string) string {
	if strings.HasSuffix(path, "/") {
		return path + "{$}"
	}
	return path
}

// documentAt moves the documentation of the operations huma registered at
// registered to path, merging with operations already documented there.
func documentAt(paths map[string]*huma.PathItem, registered, path string) {
	item := paths[registered]
	delete(paths, registered)
	existing := paths[path]
	if existing == nil {
		paths[path] = item
		return
	}
	for _, op := range []struct{ dst, src **huma.Operation }{{&existing.Get, &item.Get}, {&existing.Post, &item.Post},
		{&existing.Put, &item.Put}, {&existing.Patch, &item.Patch}, {&existing.Delete, &item.Delete}} {
		if *op.src != nil {
			*op.dst = *op.src
		}
	}
}
