// Package cors decides the CORS grant of a response: the open surface
// answers any origin without credentials; every other operation answers
// only the deployment's first-party origins, with credentials
// (docs/api.md#keys-and-access). A foreign origin simply gets no
// Access-Control-Allow-* headers, which the browser treats as a refusal.
package cors

import (
	"net/http"
	"slices"
	"strings"
)

// The grants' header values.
const (
	corsOpenMethods     = "GET, POST, OPTIONS"
	corsOpenHeaders     = "Content-Type, X-API-Key"
	corsFirstPartyHdrs  = "Content-Type, X-API-Key, X-Provider-Key, Idempotency-Key"
	corsExposedHeaders  = "X-Request-Id, X-RateLimit-Class, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Next-Cursor, X-Skipped-Invalid-Records, Idempotent-Replayed"
	corsPreflightMaxAge = "600"
)

// Header values set on every open-surface response, shared rather than
// allocated per response; net/http only reads them.
var (
	corsAnyOrigin = []string{"*"}
	corsExposed   = []string{corsExposedHeaders}
)

// Policy is a deployment's CORS policy: the open surface's grant to any
// origin, and FirstParty's grant, with credentials, everywhere else.
type Policy struct {
	// FirstParty are the browser origins (scheme://host[:port]) granted
	// CORS, with credentials, outside the open surface.
	FirstParty []string
}

// Operation is what a grant depends on of the operation a request names.
type Operation struct {
	// Declared is false when no operation has the method and path, which
	// grants nothing.
	Declared bool
	// Open is set on the open surface.
	Open bool
	// Method is the operation's method.
	Method string
}

// Preflight answers an OPTIONS preflight for the operation the browser
// asked about.
func (p Policy) Preflight(w http.ResponseWriter, op Operation, origin string) {
	h := w.Header()
	h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	switch {
	case !op.Declared || origin == "":
	case op.Open:
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", corsOpenMethods)
		h.Set("Access-Control-Allow-Headers", corsOpenHeaders)
		h.Set("Access-Control-Max-Age", corsPreflightMaxAge)
	case p.firstParty(origin):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Access-Control-Allow-Methods", strings.ToUpper(op.Method)+", OPTIONS")
		h.Set("Access-Control-Allow-Headers", corsFirstPartyHdrs)
		h.Set("Access-Control-Max-Age", corsPreflightMaxAge)
	}
	w.WriteHeader(http.StatusNoContent)
}

// Grant adds the CORS grant, if any, to an actual (non-preflight)
// response of a declared operation. The open surface grants every origin alike, so its answer
// carries the grant whether or not the request named an Origin, and a
// shared cache can serve it to any browser. A keyed route's grant depends
// on the Origin, so its answer always says so (Vary), including when no
// Origin was sent.
func (p Policy) Grant(w http.ResponseWriter, open bool, origin string) {
	h := w.Header()
	if open {
		h["Access-Control-Allow-Origin"] = corsAnyOrigin
		h["Access-Control-Expose-Headers"] = corsExposed
		return
	}
	h.Add("Vary", "Origin")
	switch {
	case origin == "":
	case p.firstParty(origin):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Access-Control-Expose-Headers", corsExposedHeaders)
	}
}

// firstParty reports whether origin is one of the first-party origins.
func (p Policy) firstParty(origin string) bool {
	return origin != "" && slices.Contains(p.FirstParty, origin)
}
