package api

import (
	"net/http"
	"slices"
	"strings"
)

// CORS (docs/api.md#keys-and-access): the open surface answers any origin without
// credentials; every other route answers only first-party origins, with
// credentials. A foreign origin simply gets no Access-Control-Allow-* headers,
// which the browser treats as a refusal.
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

// answerPreflight answers an OPTIONS preflight for the route the browser
// asked about (declared is false when no operation has that method and
// path, which grants nothing).
func (s *Server) answerPreflight(w http.ResponseWriter, route Route, declared bool, origin string) {
	h := w.Header()
	h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	switch {
	case !declared || origin == "":
	case route.Access == Open:
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", corsOpenMethods)
		h.Set("Access-Control-Allow-Headers", corsOpenHeaders)
		h.Set("Access-Control-Max-Age", corsPreflightMaxAge)
	case s.firstParty(origin):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Access-Control-Allow-Methods", strings.ToUpper(route.Method)+", OPTIONS")
		h.Set("Access-Control-Allow-Headers", corsFirstPartyHdrs)
		h.Set("Access-Control-Max-Age", corsPreflightMaxAge)
	}
	w.WriteHeader(http.StatusNoContent)
}

// setCORSHeaders adds the CORS grant, if any, to an actual (non-preflight)
// response. The open surface grants every origin alike, so its answer
// carries the grant whether or not the request named an Origin, and a
// shared cache can serve it to any browser. A keyed route's grant depends
// on the Origin, so its answer always says so (Vary), including when no
// Origin was sent.
func (s *Server) setCORSHeaders(w http.ResponseWriter, route Route, origin string) {
	h := w.Header()
	if route.Access == Open {
		h["Access-Control-Allow-Origin"] = corsAnyOrigin
		h["Access-Control-Expose-Headers"] = corsExposed
		return
	}
	h.Add("Vary", "Origin")
	switch {
	case origin == "":
	case s.firstParty(origin):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Access-Control-Expose-Headers", corsExposedHeaders)
	}
}

func (s *Server) firstParty(origin string) bool {
	return origin != "" && slices.Contains(s.cfg.FirstPartyOrigins, origin)
}
