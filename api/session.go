package api

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/eligo/eligo/auth"
)

// Console sessions, the HTTP side (DESIGN.md, "Console sessions"; the
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
	errNoSession = &Error{status: http.StatusUnauthorized, Detail: Problem{
		Error: "unauthorized", ReasonCode: ReasonMissingAPIKey,
		Message: "Not signed in: the console session is unknown, was signed out, or ended (after 30 minutes idle or 12 hours in all).",
		Hint:    "Sign in again (POST " + SessionPath + "), or send an API key in the x-api-key header.",
	}}
	errCrossSite = &Error{status: http.StatusForbidden, Detail: Problem{
		Error: "forbidden", ReasonCode: ReasonCrossSiteRequest,
		Message: "The console session authenticates only requests made by the console's own pages, and this one came from another origin.",
		Hint:    "Call the API from a server with an API key in the x-api-key header; a browser page on another origin cannot use the console's session.",
	}}
	errCSRFToken = &Error{status: http.StatusForbidden, Detail: Problem{
		Error: "forbidden", ReasonCode: ReasonCSRFTokenInvalid,
		Message: "A request authenticated by the console session must carry the session's token in the " + CSRFHeader + " header, and this one did not.",
		Hint:    "Send the " + CSRFHeader + " value answered by POST or GET " + SessionPath + ".",
	}}
	errSignInBody = ValidationFailed(ValidationItem{Type: "json_invalid", Loc: []any{"body"},
		Msg: `The body must be the JSON object {"api_key": "elg_..."} and nothing else.`})
)

// signInRoute is what a sign-in's key is judged against: a keyed route
// needing no scope, so a bad key gets exactly the 401 the API gives it.
var signInRoute = Route{Access: Keyed}

// ServeConsoleSession serves SessionPath: sign-in, who is signed in, and
// sign-out. Each answer is private and never cached.
func (s *Server) ServeConsoleSession() {
	s.Page("POST "+SessionPath, http.HandlerFunc(s.signIn))
	s.Page("GET "+SessionPath, http.HandlerFunc(s.whoIsSignedIn))
	s.Page("DELETE "+SessionPath, http.HandlerFunc(s.signOut))
}

// signIn answers POST SessionPath with {"api_key": "..."}: 204 with the
// session's cookie and its CSRF token, or the key's 401.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if e := s.sameOrigin(r); e != nil {
		WriteError(w, e)
		return
	}
	if !IsJSONContentType(r.Header.Get("Content-Type")) {
		WriteError(w, ErrUnsupportedMediaType)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		WriteError(w, BodyReadFailed(err))
		return
	}
	var body struct {
		APIKey string `json:"api_key"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || dec.More() {
		WriteError(w, errSignInBody)
		return
	}
	ctx := r.Context()
	if body.APIKey == "" {
		WriteError(w, errMissingKey)
		return
	}
	id, session, err := s.auth.SignIn(ctx, body.APIKey)
	if err != nil {
		_, e := s.admit(ctx, auth.Principal{}, err, signInRoute)
		WriteError(w, e)
		return
	}
	if old := s.sessionID(r); old != "" {
		// Signing in again replaces the browser's session: the old row
		// would otherwise wait for the prune.
		if err := s.auth.SignOut(ctx, old); err != nil {
			Log(ctx).WarnContext(ctx, "sign in: end the replaced session", "error", err)
		}
	}
	http.SetCookie(w, s.sessionCookie(r, id, int(auth.SessionLifetime/time.Second)))
	w.Header().Set(CSRFHeader, session.CSRFToken)
	w.WriteHeader(http.StatusNoContent)
}

// consoleSession is GET SessionPath's answer: who the console acts as,
// until when, and the CSRF token its requests carry.
type consoleSession struct {
	TenantID  string   `json:"tenant_id"`
	KeyPrefix string   `json:"key_prefix"`
	Scopes    []string `json:"scopes"`
	Tier      string   `json:"tier"`
	// IdleExpiresAt is when the session ends unless used before;
	// ExpiresAt when it ends however busy; KeyExpiresAt is the key's own
	// expiry (null: never), which ends the session too.
	IdleExpiresAt time.Time  `json:"idle_expires_at"`
	ExpiresAt     time.Time  `json:"expires_at"`
	KeyExpiresAt  *time.Time `json:"key_expires_at"`
	CSRFToken     string     `json:"csrf_token"`
}

// whoIsSignedIn answers GET SessionPath: 200 with the session, so that a
// reloaded page recovers its CSRF token, or 401 when not signed in. The
// token is not asked for here: the answer is readable only by the
// console's own origin.
func (s *Server) whoIsSignedIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if e := s.sameOrigin(r); e != nil {
		WriteError(w, e)
		return
	}
	id := s.sessionID(r)
	if id == "" {
		WriteError(w, errNoSession)
		return
	}
	ctx := r.Context()
	session, err := s.auth.ResolveSession(ctx, id)
	if err != nil {
		s.refuseSession(w, r, err)
		return
	}
	p := session.Principal
	out := consoleSession{TenantID: p.TenantID, KeyPrefix: p.KeyPrefix, Scopes: auth.ScopeNames(p.Scopes), Tier: string(p.Tier),
		IdleExpiresAt: session.IdleExpiresAt.UTC(), ExpiresAt: session.ExpiresAt.UTC(), CSRFToken: session.CSRFToken}
	if session.KeyExpiresAt != nil {
		at := session.KeyExpiresAt.UTC()
		out.KeyExpiresAt = &at
	}
	w.Header().Set(CSRFHeader, session.CSRFToken)
	writeJSON(w, http.StatusOK, out)
}

// signOut answers DELETE SessionPath: the session's row is deleted and
// the cookie cleared; 204 also when no session was signed in. It needs
// the CSRF token, so another site cannot sign the console out.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if e := s.sameOrigin(r); e != nil {
		WriteError(w, e)
		return
	}
	if id := s.sessionID(r); id != "" {
		if !validCSRFToken(r, id) {
			WriteError(w, errCSRFToken)
			return
		}
		ctx := r.Context()
		if err := s.auth.SignOut(ctx, id); err != nil {
			_, e := s.admit(ctx, auth.Principal{}, err, signInRoute)
			WriteError(w, e)
			return
		}
	}
	http.SetCookie(w, s.sessionCookie(r, "", -1))
	w.WriteHeader(http.StatusNoContent)
}

// refuseSession answers a GET SessionPath whose session could not be
// resolved, clearing the cookie when the session has ended.
func (s *Server) refuseSession(w http.ResponseWriter, r *http.Request, err error) {
	_, e := s.admit(r.Context(), auth.Principal{}, err, signInRoute)
	if e.status == http.StatusUnauthorized {
		http.SetCookie(w, s.sessionCookie(r, "", -1))
	}
	WriteError(w, e)
}

// authenticateSession is authenticate for a request that presents no key
// but a console session's cookie holding id: it admits the session's
// principal against route only when the request is same-origin and
// carries the session's CSRF token, and refuses it (or, on the open
// surface, ignores it) as authenticate does a key.
func (s *Server) authenticateSession(ctx context.Context, r *http.Request, id string, route Route) (context.Context, *Error) {
	if e := s.sameOrigin(r); e != nil {
		return s.admit(ctx, auth.Principal{}, e, route)
	}
	if !validCSRFToken(r, id) {
		return s.admit(ctx, auth.Principal{}, errCSRFToken, route)
	}
	session, err := s.auth.ResolveSession(ctx, id)
	return s.admit(ctx, session.Principal, err, route)
}

// validCSRFToken reports whether r carries the CSRF token of session id.
func validCSRFToken(r *http.Request, id string) bool {
	got := r.Header.Get(CSRFHeader)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(auth.CSRFToken(id))) == 1
}

// sameOrigin refuses a request a page of another origin made: a browser
// says where a request comes from in Sec-Fetch-Site, which only
// same-origin passes; an older browser sends Origin instead (on anything
// but a GET), which must then be this server's own. A request with
// neither is no browser's cross-site request (a script's, a test's) and
// passes; the cookie is then still only half of what it needs, the CSRF
// token being the other.
func (s *Server) sameOrigin(r *http.Request) *Error {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin":
		return nil
	case "":
		if origin := r.Header.Get("Origin"); origin == "" || origin == s.ownOrigin(r) {
			return nil
		}
	}
	return errCrossSite
}

// ownOrigin is the origin r was addressed to: its scheme (secure) and
// the Host it named.
func (s *Server) ownOrigin(r *http.Request) string {
	if s.secure(r) {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// secure reports whether r reached the deployment over TLS: on this
// connection, or, when the connection is a trusted proxy's
// (Config.TrustedProxies), as that proxy says in X-Forwarded-Proto (its
// last value, the nearest hop's). A caller's own X-Forwarded-Proto is not
// believed.
func (s *Server) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	peer, ok := tcpPeer(r)
	if !ok || !s.trusted(peer) {
		return false
	}
	values := strings.Split(strings.Join(r.Header.Values("X-Forwarded-Proto"), ","), ",")
	return strings.EqualFold(strings.TrimSpace(values[len(values)-1]), "https")
}

// sessionID returns the session id r's cookie carries; "" when none.
// Over HTTPS only the __Host- cookie counts.
func (s *Server) sessionID(r *http.Request) string {
	if len(r.Header["Cookie"]) == 0 {
		return ""
	}
	name := sessionCookie
	if s.secure(r) {
		name = secureSessionCookie
	}
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// sessionCookie is the cookie that holds id for maxAge seconds; a
// negative maxAge clears it. HttpOnly keeps it from the page's scripts,
// SameSite=Strict from requests other sites start, and Secure, over
// HTTPS, from plain connections.
func (s *Server) sessionCookie(r *http.Request, id string, maxAge int) *http.Cookie {
	secure := s.secure(r)
	name := sessionCookie
	if secure {
		name = secureSessionCookie
	}
	return &http.Cookie{Name: name, Value: id, Path: "/", MaxAge: maxAge, HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}
