package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/eligo/eligo/api/connlimit"
	"github.com/eligo/eligo/api/cors"
	"github.com/eligo/eligo/api/proxy"
	"github.com/eligo/eligo/auth"
)

type (
	requestStateKey struct{}
	keyOutcomeKey   struct{}
)

// requestState is the one context value the observe middleware adds: what
// the request log line and the handlers' own log lines need. A single
// value, rather than one per item, keeps the per-request cost to one
// allocation.
type requestState struct {
	id       string
	clientIP netip.Addr
	// route is filled in by the gate for the request log line; routeID
	// names the route in metrics: the operation id of a declared route,
	// the pattern of a page, "unmatched" when nothing matched.
	route   string
	routeID string
	// members are the route's body member names (Server.bodyMembers),
	// for the 422 of a misspelt one.
	members []string
	// base is the server's logger; logger is base with the request id,
	// built on first use (most requests log nothing but their line).
	base       *slog.Logger
	logger     *slog.Logger
	loggerOnce sync.Once
	// body is the request's body as the connection delivers it, before
	// any cap: what lingerAfterRefusal drains after a 413.
	body io.ReadCloser
}

// log returns the request's logger, carrying its id.
func (st *requestState) log() *slog.Logger {
	st.loggerOnce.Do(func() { st.logger = st.base.With("request_id", st.id) })
	return st.logger
}

func stateFrom(ctx interface{ Value(any) any }) *requestState {
	st, _ := ctx.Value(requestStateKey{}).(*requestState)
	return st
}

// observe gives each request an id (X-Request-Id: a trusted proxy's, else
// drawn here), X-Content-Type-Options: nosniff, a logger carrying the id,
// panic recovery into the opaque 500, and one log line when it ends:
// request id, method, route pattern, status, duration, size and client
// address. Header values and bodies are never logged.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &requestState{id: requestID(s.cfg.TrustedProxies, r), clientIP: s.cfg.TrustedProxies.ClientIP(r), base: s.log}
		w.Header()["X-Request-Id"] = []string{st.id}
		// No answer is ever to be sniffed into another type (an error
		// echoing input rendered as HTML): nosniff on every one.
		w.Header()["X-Content-Type-Options"] = []string{"nosniff"}
		ctx := context.WithValue(r.Context(), requestStateKey{}, st)
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				st.log().ErrorContext(ctx, "panic serving request", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if rec.status == 0 {
					WriteError(rec, Internal())
				}
			}
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			routeID := st.routeID
			if routeID == "" {
				routeID = "unmatched"
			}
			took := time.Since(start)
			s.metrics.Request(routeID, r.Method, status, took)
			s.log.LogAttrs(ctx, level, "request",
				slog.String("request_id", st.id),
				slog.String("method", r.Method),
				slog.String("route", st.route),
				slog.Int("status", status),
				slog.Float64("duration_ms", float64(took.Microseconds())/1000),
				slog.Int64("bytes", rec.bytes),
				slog.String("client_ip", st.clientIP.String()),
			)
		}()
		r = r.WithContext(ctx)
		if refuseOverflow(rec, r) {
			return
		}
		next.ServeHTTP(rec, r)
		if rec.status == http.StatusRequestEntityTooLarge && st.body != nil {
			lingerAfterRefusal(rec, st.body)
		}
	})
}

// requestID accepts the X-Request-Id of a trusted proxy (so that the
// balancer's log and this one's name the same request) when it is short
// and made of safe characters (so it cannot forge log lines), and draws a
// new one otherwise: any other caller could choose what its requests are
// logged as.
func requestID(trusted proxy.Trusted, r *http.Request) string {
	var incoming string
	if peer, ok := proxy.Peer(r); ok && trusted.Contains(peer) {
		incoming = r.Header.Get("X-Request-Id")
	}
	if len(incoming) > 0 && len(incoming) <= 64 && strings.IndexFunc(incoming, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) < 0 {
		return incoming
	}
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "req_" + hex.EncodeToString(b)
}

// statusRecorder remembers the status and size of a response for the log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	if status == http.StatusRequestEntityTooLarge {
		// The rest of the body is drained, not parsed as a next request
		// (see lingerAfterRefusal).
		r.Header().Set("Connection", "close")
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (read
// deadlines, flushing).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// gate finds the declaration of the request's route, then applies CORS,
// authentication, the body cap and metering before the route's handler
// runs.
func (s *Server) gate(w http.ResponseWriter, r *http.Request) {
	requestedMethod := r.Header.Get("Access-Control-Request-Method")
	preflight := r.Method == http.MethodOptions && requestedMethod != ""
	lookup := r
	if preflight {
		// A preflight is classified by the method the browser asks for.
		lookup = r.Clone(r.Context())
		lookup.Method = requestedMethod
	}
	_, pattern := s.mux.Handler(lookup)
	route, declared := s.routes[pattern]
	if st := stateFrom(r.Context()); st != nil {
		st.route, st.routeID = pattern, pattern
		if declared {
			st.routeID, st.members = route.OperationID, s.bodyMembers[pattern]
		}
	}
	origin := r.Header.Get("Origin")

	if preflight {
		s.cors().Preflight(w, cors.Operation{Declared: declared, Open: route.Access == Open, Method: route.Method}, origin)
		return
	}
	if pattern == "" {
		if allowed := s.allowedMethods(r); allowed != "" {
			w.Header().Set("Allow", allowed)
			WriteError(w, NewProblem(http.StatusMethodNotAllowed, "method_not_allowed", ReasonMethodNotAllowed,
				"This path does not accept "+r.Method+"; the Allow header lists the methods it does."))
			return
		}
		WriteError(w, NotFound("Not Found"))
		return
	}
	limit := int64(AnonymousBodyLimit)
	ctx := r.Context()
	if declared {
		s.cors().Grant(w, route.Access == Open, origin)
		var problem *Error
		if key := r.Header.Get("X-Api-Key"); key != "" {
			ctx, problem = s.authenticate(ctx, key, route)
		} else if id := s.SessionID(r); id != "" {
			// No key, a console session's cookie (session.go).
			ctx, problem = s.authenticateSession(ctx, r, id, route)
		} else {
			ctx, problem = s.authenticate(ctx, "", route)
		}
		if problem != nil {
			WriteError(w, problem)
			return
		}
		if p, keyed := auth.PrincipalFrom(ctx); keyed {
			limit = s.keyedBodyLimit(p.Tier)
		}
	}
	if st := stateFrom(ctx); st != nil && r.Body != nil && r.Body != http.NoBody {
		st.body = r.Body
	}
	if r.ContentLength > limit {
		WriteError(w, TooLarge(limit))
		return
	}
	if s.jsonBodies[pattern] && !IsJSONContentType(r.Header.Get("Content-Type")) {
		WriteError(w, ErrUnsupportedMediaType)
		return
	}
	// A caller gets BodyReadTimeout to send its body and WriteTimeout to
	// read the answer: a client that trickles its body or never reads
	// holds a connection for that long at most.
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	if r.Body != nil && r.Body != http.NoBody {
		_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyReadTimeout))
		// Chunked bodies have no Content-Length: cap the read itself.
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		length := r.ContentLength
		if route.StreamBody {
			// The handler holds a bounded window of the body, and the
			// deadline is lifted once the body is in, as checkBody does
			// for a body read before the handler.
			length = StreamBodyMemory
			r.Body = &liftAtEOF{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		release, ok := s.reserveBody(ctx, length, limit)
		if !ok {
			WriteError(w, errServerBusy)
			return
		}
		defer release()
	}
	// The work has WorkTimeout, less than WriteTimeout, so that whatever
	// it does, its answer (a 503 when it ran out) is written in time.
	ctx, cancel := context.WithTimeout(ctx, s.cfg.WorkTimeout)
	defer cancel()
	s.meterThen(w, r.WithContext(ctx), route, declared)
}

// reserveBody reserves the memory a body of length bytes (-1: unknown, up
// to limit) may take from the process's body budget, waiting at most
// BodyWait; a body of at most SmallBody needs none. ok is false when the
// budget stayed full: many large bodies are being read at once.
func (s *Server) reserveBody(ctx context.Context, length, limit int64) (release func(), ok bool) {
	size := length
	if size < 0 {
		size = limit
	}
	if size <= SmallBody {
		return func() {}, true
	}
	wait, cancel := context.WithTimeout(ctx, BodyWait)
	defer cancel()
	if s.bodies.Acquire(wait, size) != nil {
		return nil, false
	}
	return func() { s.bodies.Release(size) }, true
}

// StreamBodyMemory is what a request whose handler streams its body
// (Route.StreamBody) reserves of the process's body memory: the window it
// holds at once (a caseload upload's chunk and line buffer).
const StreamBodyMemory = 4 << 20

// liftAtEOF calls lift once the body has been read to its end.
type liftAtEOF struct {
	io.ReadCloser
	lift func()
	done bool
}

func (l *liftAtEOF) Read(p []byte) (int, error) {
	n, err := l.ReadCloser.Read(p)
	if err != nil && !l.done {
		l.done = true
		l.lift()
	}
	return n, err
}

// errServerBusy answers a large body that found the process's body memory
// full (Config.BodyMemory): transient, and nothing was read.
var errServerBusy = unavailable(ReasonServerBusy, "The server is reading as many large request bodies as its memory allows. Nothing was read or done.",
	"Retry after the Retry-After seconds.").WithRetryAfter(5 * time.Second)

// The 401 and 403 answers (docs/api.md#keys-and-access); ErrMissingKey
// is also the console sign-in's answer to an empty key.
var (
	ErrMissingKey = NewProblem(http.StatusUnauthorized, "unauthorized", ReasonMissingAPIKey,
		"This operation needs an API key in the x-api-key header.")
	errInvalidKey = NewProblem(http.StatusUnauthorized, "unauthorized", ReasonInvalidAPIKey,
		"The API key is not valid: it is unknown, malformed or revoked.")
	errExpiredKey = NewProblem(http.StatusUnauthorized, "unauthorized", ReasonAPIKeyExpired,
		"The API key has expired. Ask for a new key.")
	// errKeyStoreUnavailable uses the one 503 code of docs/metering.md: keys and usage
	// counters share the database, and clients need only one transient
	// code to retry on.
	errKeyStoreUnavailable = unavailable(ReasonRateLimitBackendUnavailable, "The API key could not be checked, so the request was not served. This is transient.",
		"Retry with exponential backoff, starting after the Retry-After seconds.")
)

func missingScopes(missing []auth.Scope) *Error {
	names := auth.ScopeNames(missing)
	hint := "Ask your Eligo administrator for a key that carries " + strings.Join(names, " and ") + "."
	if slices.Contains(missing, auth.ScopeAdminRead) {
		hint = "admin:read is held only by internal operator keys; it cannot be requested."
	}
	return &Error{status: http.StatusForbidden, Detail: Problem{
		Error:              "forbidden",
		ReasonCode:         ReasonDeniedMissingPermission,
		Message:            "The API key lacks the permission this operation needs: " + strings.Join(names, ", ") + ".",
		Action:             "scope." + names[0],
		MissingPermissions: names,
		Hint:               hint,
	}}
}

// authenticate judges the presented key against route. On a keyed route the
// error the key earns is returned and the request stops there. On the open
// surface a key is used only when it is valid and carries the route's
// scopes; otherwise it is ignored ("a key sent there is
// ignored", docs/api.md#keys-and-access), and the error it would have earned is kept in the context for
// RequirePrincipal and presentedKeyRefusal.
func (s *Server) authenticate(ctx context.Context, key string, route Route) (context.Context, *Error) {
	if key == "" {
		if route.Access == Keyed {
			return ctx, ErrMissingKey
		}
		// Anonymous on the open surface: nothing to remember, since
		// RequirePrincipal answers ErrMissingKey when no outcome is kept.
		return ctx, nil
	}
	p, err := s.auth.Authenticate(ctx, key)
	return s.admit(ctx, p, err, route)
}

// admit settles a credential's verdict against route: p is whom the
// credential (a key, or a console session) acts for when err is nil; err
// is why it cannot be used, an auth error or a refusal already in the
// shape docs/api.md#errors gives. It applies authenticate's rules: the refusal stops a
// keyed route and is kept for later on the open surface; a store failure
// is a 503 on both.
func (s *Server) admit(ctx context.Context, p auth.Principal, err error, route Route) (context.Context, *Error) {
	var outcome *Error
	switch {
	case errors.As(err, &outcome):
		// Refused before any key was judged (a console session's
		// cross-site or token refusal): outcome is that refusal.
	case errors.Is(err, auth.ErrInvalidKey):
		outcome = errInvalidKey
	case errors.Is(err, auth.ErrExpiredKey):
		outcome = errExpiredKey
	case errors.Is(err, auth.ErrNoSession):
		outcome = ErrNoSession
	case err != nil:
		// The key store is the database the counters live in: the same
		// transient 503 as metering, on keyed and open routes alike,
		// rather than ignoring a key the caller meant to use.
		if gone := clientGone(ctx); gone != nil {
			return ctx, gone
		}
		Log(ctx).ErrorContext(ctx, "authenticate", "error", err)
		return ctx, errKeyStoreUnavailable
	default:
		if missing := p.Missing(route.Scopes); len(missing) > 0 {
			outcome = missingScopes(missing)
		} else {
			ctx = auth.WithPrincipal(ctx, p)
		}
	}
	if outcome == nil {
		return ctx, nil
	}
	if route.Access == Keyed {
		return ctx, outcome
	}
	return context.WithValue(ctx, keyOutcomeKey{}, outcome), nil
}

// presentedKeyRefusal is the 401 or 403 earned by a key the caller
// presented on the open surface but could not use (unknown, expired,
// revoked, or without the route's scopes); nil when no key was presented
// or the key was used. A lookup that finds nothing public answers with it,
// so the caller learns why their key did not reach their own private
// object, rather than a 404 that suggests the object is missing.
func presentedKeyRefusal(ctx context.Context) *Error {
	e, _ := ctx.Value(keyOutcomeKey{}).(*Error)
	return e
}

// RequirePrincipal is for open-surface handlers whose request needs a key
// after all (a rulebook_id on /decide): it returns the principal, or the
// 401/403 the presented key earned against the route's declared scopes.
func RequirePrincipal(ctx context.Context) (auth.Principal, error) {
	if p, ok := auth.PrincipalFrom(ctx); ok {
		return p, nil
	}
	if e := presentedKeyRefusal(ctx); e != nil {
		return auth.Principal{}, e
	}
	return auth.Principal{}, ErrMissingKey
}

// Caller names whoever a request's work is counted against when a share of
// the process is bounded per caller (bound.Gate.For): the key's tenant,
// id, or, for an anonymous call, "client:" and its address (a tenant id
// has no colon, so the two never meet).
func Caller(ctx context.Context) string {
	if p, keyed := auth.PrincipalFrom(ctx); keyed {
		return p.TenantID
	}
	return "client:" + ClientIP(ctx).String()
}

// ClientIP returns the caller's address: the TCP peer, or, when the peer is
// a trusted proxy, the nearest untrusted address in X-Forwarded-For.
func ClientIP(ctx context.Context) netip.Addr {
	if st := stateFrom(ctx); st != nil {
		return st.clientIP
	}
	return netip.Addr{}
}

// allowedMethods lists the methods that have an operation at r's path, for
// the Allow header of a 405; empty when the path has none.
func (s *Server) allowedMethods(r *http.Request) string {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" {
			allowed = append(allowed, m)
		}
	}
	return strings.Join(allowed, ", ")
}

// After a 413, the connection is closed; a caller may still be sending the
// rest of its body. Closing with those bytes unread makes the kernel reset
// the connection, and a client that writes its whole body before reading
// (Python's http.client, browsers' fetch) then sees the reset, not the
// 413. So the server first sends the 413, then reads and discards up to
// lingerBytes more for up to lingerTime, as nginx's lingering close does,
// without keeping what it reads.
const (
	lingerBytes = 8 << 20
	lingerTime  = 5 * time.Second
)

// lingerAfterRefusal sends the refusal already written to w, then drains
// body within the bounds above; the connection closes when the handler
// returns.
func lingerAfterRefusal(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	// Full duplex: the refusal goes out while the body is still read,
	// rather than net/http closing the connection on the unread body.
	_ = rc.EnableFullDuplex()
	if err := rc.Flush(); err != nil {
		return
	}
	_ = rc.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.CopyN(io.Discard, body, lingerBytes)
}

// tierBodyLimits caps a keyed caller's request bodies by tier: the tiers
// that buy more work may send more of it at once. Each is further capped
// by Config.KeyedBodyLimit. 16 MiB holds the largest source upload (10 MiB)
// with room for a multipart form around it.
var tierBodyLimits = map[auth.Tier]int64{
	auth.TierFree:     16 << 20,
	auth.TierStarter:  16 << 20,
	auth.TierPro:      32 << 20,
	auth.TierInternal: 32 << 20,
}

// keyedBodyLimit is the body cap of a caller on tier.
func (s *Server) keyedBodyLimit(tier auth.Tier) int64 {
	if limit, ok := tierBodyLimits[tier]; ok {
		return min(limit, s.cfg.KeyedBodyLimit)
	}
	return s.cfg.KeyedBodyLimit
}

// errTooManyConnections answers a request on a connection over the caps.
var errTooManyConnections = NewProblem(http.StatusServiceUnavailable, "service_unavailable", ReasonTooManyConnections,
	"The server holds as many connections as it allows (in all, or from your address). Close idle connections and retry.")

// refuseOverflow answers a request that arrived on a connection over the
// caps (connlimit.Overflowed), unless it is a health probe, and closes the
// connection after it. It reports whether it answered.
func refuseOverflow(w http.ResponseWriter, r *http.Request) bool {
	if !connlimit.Overflowed(r.Context()) {
		return false
	}
	w.Header().Set("Connection", "close")
	if r.Method == http.MethodGet && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz") {
		return false
	}
	w.Header().Set("Retry-After", "1")
	WriteError(w, errTooManyConnections)
	return true
}

// cors is the deployment's CORS policy.
func (s *Server) cors() cors.Policy { return cors.Policy{FirstParty: s.cfg.FirstPartyOrigins} }
