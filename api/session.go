package api

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"time"

	"github.com/eligo/eligo/auth"
)

// Console sessions, the HTTP side (docs/console.md#signing-in-console-sessions; the
// rest is auth/session.go). The console signs in at SessionPath by
// exchanging an API key for a session: the browser keeps only the
// session's random id, in an HttpOnly, SameSite=Strict cookie, and never
// the key. A request with no x-api-key and that cookie is authenticated
// as the session's key (the same Principal, so the same scopes and the
// same metering), provided it comes from the console's own origin
// (Sec-Fetch-Site, or Origin) and carries the session's CSRF token in
// CSRFHeader. An x-api-key, when present, wins and the cookie is not
// read. SessionPath is a page of the console, outside RootPath and the
// OpenAPI document.
const (
	// SessionPath is where the console signs in (POST), reads who is
	// signed in (GET) and signs out (DELETE).
	SessionPath = "/console/session"
	// CSRFHeader carries the session's anti-forgery token: in the
	// answers of POST and GET SessionPath, and in every request the
	// cookie authenticates.
	CSRFHeader = "X-CSRF-Token"
	// sessionCookie names the cookie over plain HTTP; secureSessionCookie
	// over HTTPS, where the __Host- prefix makes the browser refuse one
	// set by a neighbouring subdomain or without Secure and Path=/.
	sessionCookie       = "eligo_session"
	secureSessionCookie = "__Host-eligo_session"
)

// The console session's refusals.
var (
	// ErrNoSession: no cookie, or a session unknown, signed out or ended.
	ErrNoSession = &Error{status: http.StatusUnauthorized, Detail: Problem{
		Error: "unauthorized", ReasonCode: ReasonMissingAPIKey,
		Message: "Not signed in: the console session is unknown, was signed out, or ended (after 30 minutes idle or 12 hours in all).",
		Hint:    "Sign in again (POST " + SessionPath + "), or send an API key in the x-api-key header.",
	}}
	errCrossSite = &Error{status: http.StatusForbidden, Detail: Problem{
		Error: "forbidden", ReasonCode: ReasonCrossSiteRequest,
		Message: "The console session authenticates only requests made by the console's own pages, and this one came from another origin.",
		Hint:    "Call the API from a server with an API key in the x-api-key header; a browser page on another origin cannot use the console's session.",
	}}
	// ErrCSRFToken: a cookie-authenticated request without its token.
	ErrCSRFToken = &Error{status: http.StatusForbidden, Detail: Problem{
		Error: "forbidden", ReasonCode: ReasonCSRFTokenInvalid,
		Message: "A request authenticated by the console session must carry the session's token in the " + CSRFHeader + " header, and this one did not.",
		Hint:    "Send the " + CSRFHeader + " value answered by POST or GET " + SessionPath + ".",
	}}
)

// SignInLimited answers a console sign-in refused by the sign-in limits
// (docs/console.md#sign-in-limits) before its key was looked at: 429 with
// a Retry-After of wait, rounded up to whole seconds.
// Its message gives the wait too, for the console to show as it is.
func SignInLimited(wait time.Duration) *Error {
	wait = max((wait + time.Second - 1).Truncate(time.Second), time.Second)
	return TooFrequent(ReasonSignInRateLimited,
		fmt.Sprintf("Too many sign-ins from this address, or naming this key, in the last few minutes; this one was not tried. Try again in %d seconds.",
			int(wait/time.Second)),
		"Wait the Retry-After seconds, then sign in again with the key exactly as it was issued. A script should send the key in the x-api-key header instead of signing in.", wait)
}

// TooFrequent is a 429 for a request refused by a rate limit that is not
// a budget (reason names which), with a Retry-After of wait rounded up to
// whole seconds: the sign-in limits and the editor's checks use it.
func TooFrequent(reason, message, hint string, wait time.Duration) *Error {
	wait = max((wait + time.Second - 1).Truncate(time.Second), time.Second)
	return (&Error{status: http.StatusTooManyRequests, Detail: Problem{
		Error: "too_many_requests", ReasonCode: reason, Message: message, Hint: hint,
	}}).WithRetryAfter(wait)
}

// signInRoute is what a sign-in's key is judged against: a keyed route
// needing no scope, so a bad key gets exactly the 401 the API gives it.
var signInRoute = Route{Access: Keyed}

// KeyRefusal is the answer to a sign-in (or a session) whose key err says
// cannot be used: the 401 the API gives that key, or the transient 503
// when the key store could not be read.
func (s *Server) KeyRefusal(ctx context.Context, err error) *Error {
	_, e := s.admit(ctx, auth.Principal{}, err, signInRoute)
	return e
}

// authenticateSession is authenticate for a request that presents no key
// but a console session's cookie holding id: it admits the session's
// principal against route only when the request is same-origin and
// carries the session's CSRF token, and refuses it (or, on the open
// surface, ignores it) as authenticate does a key.
func (s *Server) authenticateSession(ctx context.Context, r *http.Request, id string, route Route) (context.Context, *Error) {
	if e := s.SameOrigin(r); e != nil {
		return s.admit(ctx, auth.Principal{}, e, route)
	}
	if !ValidCSRFToken(r, id) {
		return s.admit(ctx, auth.Principal{}, ErrCSRFToken, route)
	}
	session, err := s.auth.ResolveSession(ctx, id)
	return s.admit(ctx, session.Principal, err, route)
}

// ValidCSRFToken reports whether r carries the CSRF token of session id.
func ValidCSRFToken(r *http.Request, id string) bool {
	got := r.Header.Get(CSRFHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(auth.CSRFToken(id))) == 1
}

// SameOrigin refuses a request a page of another origin made: a browser
// says where a request comes from in Sec-Fetch-Site, which only
// same-origin passes; an older browser sends Origin instead (on anything
// but a GET), which must then be this server's own. A request with
// neither is no browser's cross-site request (a script's, a test's) and
// passes; the cookie is then still only half of what it needs, the CSRF
// token being the other.
func (s *Server) SameOrigin(r *http.Request) *Error {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin":
		return nil
	case "":
		if origin := r.Header.Get("Origin"); origin == "" || origin == s.cfg.TrustedProxies.Origin(r) {
			return nil
		}
	}
	return errCrossSite
}

// SessionID returns the session id r's cookie carries; "" when none.
// Over HTTPS only the __Host- cookie counts.
func (s *Server) SessionID(r *http.Request) string {
	if len(r.Header["Cookie"]) == 0 {
		return ""
	}
	name := sessionCookie
	if s.cfg.TrustedProxies.Secure(r) {
		name = secureSessionCookie
	}
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// SessionCookie is the cookie that holds id for maxAge seconds; a
// negative maxAge clears it. HttpOnly keeps it from the page's scripts,
// SameSite=Strict from requests other sites start, and Secure, over
// HTTPS, from plain connections.
func (s *Server) SessionCookie(r *http.Request, id string, maxAge int) *http.Cookie {
	secure := s.cfg.TrustedProxies.Secure(r)
	name := sessionCookie
	if secure {
		name = secureSessionCookie
	}
	return &http.Cookie{Name: name, Value: id, Path: "/", MaxAge: maxAge, HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}
