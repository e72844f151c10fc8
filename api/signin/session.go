// Package signin serves the web console's sign-in at api.SessionPath:
// an authoring team exchanges an API key for a server-side session, asks
// who is signed in, and signs out (docs/console.md#signing-in-console-sessions).
// It sits with the resources, above the api core whose session gate,
// cookies and refusals it uses, so that package web, which only serves the
// console's embedded files, imports nothing of the project.
package signin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
)

// The session itself (its store, expiry and revocation) is
// auth/session.go; how a request is authenticated by its cookie is the api
// core's gate (api/session.go).

// sessions serves the sign-in pages.
type sessions struct {
	server *api.Server
	auth   *auth.Authenticator
}

// errSignInBody answers a sign-in body that is not {"api_key": "..."}.
var errSignInBody = api.ValidationFailed(api.ValidationItem{Type: "json_invalid", Loc: []any{"body"},
	Msg: `The body must be the JSON object {"api_key": "elg_..."} and nothing else.`})

// ServeSessions serves api.SessionPath on s: sign-in, who is signed in, and
// sign-out. Each answer is private and never cached.
func ServeSessions(s *api.Server) {
	ss := sessions{server: s, auth: s.Authenticator()}
	s.Page("POST "+api.SessionPath, http.HandlerFunc(ss.signIn))
	s.Page("GET "+api.SessionPath, http.HandlerFunc(ss.whoIsSignedIn))
	s.Page("DELETE "+api.SessionPath, http.HandlerFunc(ss.signOut))
}

// signIn answers POST api.SessionPath with {"api_key": "..."}: 204 with the
// session's cookie and its CSRF token, the key's 401, or 429
// sign_in_rate_limited past the sign-in limits
// (docs/console.md#sign-in-limits).
func (ss sessions) signIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if e := ss.server.SameOrigin(r); e != nil {
		api.WriteError(w, e)
		return
	}
	if !api.IsJSONContentType(r.Header.Get("Content-Type")) {
		api.WriteError(w, api.ErrUnsupportedMediaType)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		api.WriteError(w, api.BodyReadFailed(err))
		return
	}
	var body struct {
		APIKey string `json:"api_key"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || dec.More() {
		api.WriteError(w, errSignInBody)
		return
	}
	ctx := r.Context()
	if body.APIKey == "" {
		api.WriteError(w, api.ErrMissingKey)
		return
	}
	id, session, err := ss.auth.SignIn(ctx, body.APIKey, metering.AddrSubject(api.ClientIP(ctx)))
	var limited *auth.SignInLimitedError
	if errors.As(err, &limited) {
		api.WriteError(w, api.SignInLimited(limited.Wait))
		return
	}
	if err != nil {
		e := ss.server.KeyRefusal(ctx, err)
		api.WriteError(w, e)
		return
	}
	if old := ss.server.SessionID(r); old != "" {
		// Signing in again replaces the browser's session: the old row
		// would otherwise wait for the prune.
		if err := ss.auth.SignOut(ctx, old); err != nil {
			api.Log(ctx).WarnContext(ctx, "sign in: end the replaced session", "error", err)
		}
	}
	http.SetCookie(w, ss.server.SessionCookie(r, id, int(auth.SessionLifetime/time.Second)))
	w.Header().Set(api.CSRFHeader, session.CSRFToken)
	w.WriteHeader(http.StatusNoContent)
}

// consoleSession is GET api.SessionPath's answer: who the console acts as,
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

// whoIsSignedIn answers GET api.SessionPath: 200 with the session, so that a
// reloaded page recovers its CSRF token, or 401 when not signed in. The
// token is not asked for here: the answer is readable only by the
// console's own origin.
func (ss sessions) whoIsSignedIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if e := ss.server.SameOrigin(r); e != nil {
		api.WriteError(w, e)
		return
	}
	id := ss.server.SessionID(r)
	if id == "" {
		api.WriteError(w, api.ErrNoSession)
		return
	}
	ctx := r.Context()
	session, err := ss.auth.ResolveSession(ctx, id)
	if err != nil {
		ss.refuseSession(w, r, err)
		return
	}
	p := session.Principal
	out := consoleSession{TenantID: p.TenantID, KeyPrefix: p.KeyPrefix, Scopes: auth.ScopeNames(p.Scopes), Tier: string(p.Tier),
		IdleExpiresAt: session.IdleExpiresAt.UTC(), ExpiresAt: session.ExpiresAt.UTC(), CSRFToken: session.CSRFToken}
	if session.KeyExpiresAt != nil {
		at := session.KeyExpiresAt.UTC()
		out.KeyExpiresAt = &at
	}
	w.Header().Set(api.CSRFHeader, session.CSRFToken)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// signOut answers DELETE api.SessionPath: the session's row is deleted and
// the cookie cleared; 204 also when no session was signed in. It needs
// the CSRF token, so another site cannot sign the console out.
func (ss sessions) signOut(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if e := ss.server.SameOrigin(r); e != nil {
		api.WriteError(w, e)
		return
	}
	if id := ss.server.SessionID(r); id != "" {
		if !api.ValidCSRFToken(r, id) {
			api.WriteError(w, api.ErrCSRFToken)
			return
		}
		ctx := r.Context()
		if err := ss.auth.SignOut(ctx, id); err != nil {
			e := ss.server.KeyRefusal(ctx, err)
			api.WriteError(w, e)
			return
		}
	}
	http.SetCookie(w, ss.server.SessionCookie(r, "", -1))
	w.WriteHeader(http.StatusNoContent)
}

// refuseSession answers a GET api.SessionPath whose session could not be
// resolved, clearing the cookie when the session has ended.
func (ss sessions) refuseSession(w http.ResponseWriter, r *http.Request, err error) {
	e := ss.server.KeyRefusal(r.Context(), err)
	if e.GetStatus() == http.StatusUnauthorized {
		http.SetCookie(w, ss.server.SessionCookie(r, "", -1))
	}
	api.WriteError(w, e)
}
