package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest/call"
	"github.com/eligo/eligo/api/proxy"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

const firstPartyOrigin = "https://app.eligo.test"

// fixture is a real server over real HTTP on a private database, with
// test-only operations declared the way resource files declare theirs.
type fixture struct {
	url    string
	server *Server
	store  *store.Store
	// calls counts handler invocations of every test operation.
	calls atomic.Int64
}

type echoBody struct {
	Name string `json:"name"`
}

type echoInput struct {
	Body echoBody
}

type callerOutput struct {
	Body struct {
		Tenant    string `json:"tenant"`
		Anonymous bool   `json:"anonymous"`
	}
}

type validateInput struct {
	Body struct {
		Name  string  `json:"name"`
		Count int     `json:"count"`
		Color string  `json:"color" enum:"red,green,blue"`
		Note  *string `json:"note,omitempty"`
	}
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{store: store.New(storetest.New(t))}
	s := newServer(t, Config{FirstPartyOrigins: []string{firstPartyOrigin}, KeyedBodyLimit: 4 << 20, Logger: slog.New(slog.DiscardHandler),
		Metering: metering.Config{Budgets: metering.UniformBudgets(1 << 40)}}, f.store)

	caller := func(ctx context.Context) (*callerOutput, error) {
		f.calls.Add(1)
		out := &callerOutput{}
		p, ok := auth.PrincipalFrom(ctx)
		out.Body.Tenant, out.Body.Anonymous = p.TenantID, !ok
		return out, nil
	}
	Register(s, Route{OperationID: "test-open-post", Method: http.MethodPost, Path: "/test/open",
		Summary: "Open test operation", Description: "Echoes the caller.", Access: Open,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassDecide},
		func(ctx context.Context, _ *echoInput) (*callerOutput, error) { return caller(ctx) })
	Register(s, Route{OperationID: "test-open-get", Method: http.MethodGet, Path: "/test/open",
		Summary: "Open test read", Description: "Echoes the caller.", Access: Open,
		Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: ClassRulesets},
		func(ctx context.Context, _ *struct{}) (*callerOutput, error) { return caller(ctx) })
	Register(s, Route{OperationID: "test-keyed", Method: http.MethodPost, Path: "/test/keyed",
		Summary: "Keyed test operation", Description: "Needs rulesets:write.", Access: Keyed,
		Scopes: []auth.Scope{auth.ScopeRulesetsWrite}, Class: ClassRulesets},
		func(ctx context.Context, _ *echoInput) (*callerOutput, error) { return caller(ctx) })
	Register(s, Route{OperationID: "test-validate", Method: http.MethodPost, Path: "/test/validate",
		Summary: "Validation test operation", Description: "Strict body.", Access: Keyed,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassDecide},
		func(ctx context.Context, _ *validateInput) (*callerOutput, error) { return caller(ctx) })
	Register(s, Route{OperationID: "test-panic", Method: http.MethodGet, Path: "/test/panic",
		Summary: "Panicking operation", Description: "Panics.", Access: Keyed,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassAdmin},
		func(ctx context.Context, _ *struct{}) (*callerOutput, error) { panic("boom: secret-panic-detail") })
	Register(s, Route{OperationID: "test-fail", Method: http.MethodPost, Path: "/test/fail",
		Summary: "Failing operation", Description: "Returns an internal error.", Access: Keyed,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassAdmin},
		func(ctx context.Context, _ *echoInput) (*callerOutput, error) {
			return nil, errors.New("pq: secret-internal-detail")
		})

	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	f.url, f.server = srv.URL+RootPath, s
	return f
}

// testParts builds what New serves with, as a composition root does: the
// key checker, and the meter unless cfg is unmetered.
func testParts(cfg Config, st *store.Store) Parts {
	p := Parts{Auth: auth.NewAuthenticator(st, clock.Or(cfg.Clock).Now, cfg.KeyCacheTTL)}
	if !cfg.Unmetered {
		p.Meter = metering.New(cfg.Metering, st)
	}
	return p
}

// newServer builds an API server that is closed when the test ends, so its
// record writers and usage flusher stop before the test's database goes.
func newServer(t testing.TB, cfg Config, st *store.Store) *Server {
	t.Helper()
	s := New(cfg, st, testParts(cfg, st))
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("close server: %v", err)
		}
	})
	return s
}

// key issues a key for tenant with scopes; expires, when non-zero, is its
// expiry.
func (f *fixture) key(t testing.TB, tenant string, scopes []auth.Scope, expires time.Time) string {
	t.Helper()
	req := auth.KeyRequest{TenantID: tenant, Scopes: scopes, Tier: auth.TierFree}
	if !expires.IsZero() {
		req.ExpiresAt = &expires
	}
	text, _, _, err := auth.IssueKey(context.Background(), f.store, req)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// response is one decoded answer.
type response = call.Response

func (f *fixture) do(t testing.TB, method, path string, headers map[string]string, body io.Reader) response {
	t.Helper()
	return call.Do(t, method, f.url+path, headers, body)
}

func TestAuthMatrix(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	withScope := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsWrite}, time.Time{})
	withoutScope := f.key(t, "acme", []auth.Scope{auth.ScopeDecide, auth.ScopeRulesetsRead}, time.Time{})
	expired := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsWrite}, time.Now().Add(-time.Hour))
	revoked := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsWrite}, time.Time{})
	prefix, err := auth.NormalizePrefix(revoked)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.RevokeAPIKey(ctx, prefix); err != nil {
		t.Fatal(err)
	}
	unknown := "elg_zzzzzzzz_" + strings.Repeat("A", 43)

	cases := []struct {
		name   string
		key    string
		status int
		body   string
	}{
		{"no key", "", 401, `{"detail":{"error":"unauthorized","reason_code":"missing_api_key","message":"This operation needs an API key in the x-api-key header."}}`},
		{"unknown key", unknown, 401, `{"detail":{"error":"unauthorized","reason_code":"invalid_api_key","message":"The API key is not valid: it is unknown, malformed or revoked."}}`},
		{"malformed key", "not-a-key", 401, `{"detail":{"error":"unauthorized","reason_code":"invalid_api_key","message":"The API key is not valid: it is unknown, malformed or revoked."}}`},
		{"revoked key", revoked, 401, `{"detail":{"error":"unauthorized","reason_code":"invalid_api_key","message":"The API key is not valid: it is unknown, malformed or revoked."}}`},
		{"expired key", expired, 401, `{"detail":{"error":"unauthorized","reason_code":"api_key_expired","message":"The API key has expired. Ask for a new key."}}`},
		{"key without the scope", withoutScope, 403, `{"detail":{"error":"forbidden","reason_code":"denied_missing_permission","message":"The API key lacks the permission this operation needs: rulesets:write.","action":"scope.rulesets:write","missing_permissions":["rulesets:write"],"hint":"Ask your Eligo administrator for a key that carries rulesets:write."}}`},
		{"key with the scope", withScope, 200, `{"tenant":"acme","anonymous":false}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := f.calls.Load()
			headers := map[string]string{}
			if c.key != "" {
				headers["x-api-key"] = c.key
			}
			r := f.do(t, http.MethodPost, "/test/keyed", headers, strings.NewReader(`{"name":"x"}`))
			if r.Status != c.status || !reflect.DeepEqual(r.Body, call.JSONValue(t, c.body)) {
				t.Fatalf("got %d %s\nwant %d %s", r.Status, r.Raw, c.status, c.body)
			}
			// RFC 9110 requires a 401 to name its authentication scheme.
			if got := r.Header.Get("WWW-Authenticate"); (c.status == 401) != (got == `ApiKey header="x-api-key"`) {
				t.Fatalf("status %d with WWW-Authenticate %q", c.status, got)
			}
			reached := f.calls.Load() - before
			if (c.status == 200) != (reached == 1) {
				t.Fatalf("handler reached %d times for status %d", reached, c.status)
			}
		})
	}
}

func TestOpenSurfaceIgnoresUnusableKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	decideKey := f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	readKey := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	expired := f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Now().Add(-time.Minute))
	cases := []struct {
		name string
		key  string
		want string
	}{
		{"anonymous", "", `{"tenant":"","anonymous":true}`},
		{"garbage key is ignored", "garbage", `{"tenant":"","anonymous":true}`},
		{"expired key is ignored", expired, `{"tenant":"","anonymous":true}`},
		{"key without the route's scope is ignored", readKey, `{"tenant":"","anonymous":true}`},
		{"key with the route's scope is used", decideKey, `{"tenant":"acme","anonymous":false}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.do(t, http.MethodPost, "/test/open", map[string]string{"x-api-key": c.key}, strings.NewReader(`{"name":"x"}`))
			if r.Status != 200 || !reflect.DeepEqual(r.Body, call.JSONValue(t, c.want)) {
				t.Fatalf("got %d %s, want 200 %s", r.Status, r.Raw, c.want)
			}
		})
	}
}

func TestRequirePrincipalReturnsTheErrorTheKeyEarned(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	readKey := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	s := newServer(t, Config{Logger: slog.New(slog.DiscardHandler)}, f.store)
	route := Route{Access: Open, Scopes: []auth.Scope{auth.ScopeDecide}}
	cases := []struct {
		key    string
		status int
		reason string
	}{
		{"", 401, "missing_api_key"},
		{"garbage", 401, "invalid_api_key"},
		{readKey, 403, "denied_missing_permission"},
	}
	for _, c := range cases {
		ctx, problem := s.authenticate(context.Background(), c.key, route)
		if problem != nil {
			t.Fatalf("open route refused key %q: %v", c.key, problem)
		}
		_, err := RequirePrincipal(ctx)
		var e *Error
		if !errors.As(err, &e) || e.status != c.status || e.Detail.(Problem).ReasonCode != c.reason {
			t.Errorf("key %q: RequirePrincipal gave %v, want %d %s", c.key, err, c.status, c.reason)
		}
	}
}

func TestValidationErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := map[string]string{"x-api-key": f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})}
	cases := []struct {
		name string
		body string
		want string
	}{
		{"undefined top-level key",
			`{"name":"a","count":1,"color":"red","colour":"blue"}`,
			`[{"type":"extra_forbidden","loc":["body","colour"],"msg":"Extra inputs are not permitted; did you mean \"color\"?","input":"blue"}]`},
		{"missing required field",
			`{"name":"a","color":"red"}`,
			`[{"type":"missing","loc":["body","count"],"msg":"Field required","input":{"name":"a","color":"red"}}]`},
		{"wrong type, integer",
			`{"name":"a","count":"three","color":"red"}`,
			`[{"type":"int_type","loc":["body","count"],"msg":"Input should be a valid integer","input":"three"}]`},
		{"wrong type, string",
			`{"name":7,"count":1,"color":"red"}`,
			`[{"type":"string_type","loc":["body","name"],"msg":"Input should be a valid string","input":7}]`},
		{"unknown enum value",
			`{"name":"a","count":1,"color":"mauve"}`,
			`[{"type":"enum","loc":["body","color"],"msg":"Input should be 'red', 'green' or 'blue'","input":"mauve"}]`},
		{"malformed JSON",
			`{"name": "a",`,
			`[{"type":"json_invalid","loc":["body"],"msg":"JSON decode error","input":{}}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := f.calls.Load()
			r := f.do(t, http.MethodPost, "/test/validate", key, strings.NewReader(c.body))
			want := map[string]any{"detail": call.JSONValue(t, c.want)}
			if r.Status != 422 || !reflect.DeepEqual(r.Body, want) {
				t.Fatalf("got %d %s\nwant 422 {\"detail\":%s}", r.Status, r.Raw, c.want)
			}
			if f.calls.Load() != before {
				t.Fatal("handler reached with an invalid body")
			}
		})
	}
	r := f.do(t, http.MethodPost, "/test/validate", key, strings.NewReader(`{"name":"a","count":1,"color":"green"}`))
	if r.Status != 200 {
		t.Fatalf("valid body: got %d %s", r.Status, r.Raw)
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	preflight := func(path, method, origin string) response {
		return f.do(t, http.MethodOptions, path, map[string]string{
			"Origin": origin, "Access-Control-Request-Method": method,
			"Access-Control-Request-Headers": "content-type,x-api-key",
		}, nil)
	}
	t.Run("open surface preflight from any origin", func(t *testing.T) {
		for _, origin := range []string{"https://anywhere.example", firstPartyOrigin} {
			r := preflight("/test/open", http.MethodPost, origin)
			h := r.Header
			if r.Status != 204 || h.Get("Access-Control-Allow-Origin") != "*" ||
				h.Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS" ||
				h.Get("Access-Control-Allow-Headers") != "Content-Type, X-API-Key" {
				t.Fatalf("origin %s: got %d %v", origin, r.Status, h)
			}
			if _, ok := h["Access-Control-Allow-Credentials"]; ok {
				t.Fatalf("origin %s: open surface preflight carries Allow-Credentials", origin)
			}
		}
	})
	t.Run("authoring preflight from a foreign origin", func(t *testing.T) {
		r := preflight("/test/keyed", http.MethodPost, "https://evil.example")
		for name := range r.Header {
			if strings.HasPrefix(name, "Access-Control-Allow-") {
				t.Fatalf("foreign origin granted %s: %v", name, r.Header)
			}
		}
	})
	t.Run("authoring preflight from a first-party origin", func(t *testing.T) {
		r := preflight("/test/keyed", http.MethodPost, firstPartyOrigin)
		h := r.Header
		if r.Status != 204 || h.Get("Access-Control-Allow-Origin") != firstPartyOrigin ||
			h.Get("Access-Control-Allow-Credentials") != "true" ||
			!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
			t.Fatalf("got %d %v", r.Status, h)
		}
	})
	t.Run("preflight is classified by the requested method", func(t *testing.T) {
		// /rulebooks/ is open for GET only; POST there is authoring.
		s := newServer(t, Config{FirstPartyOrigins: []string{firstPartyOrigin}, Logger: slog.New(slog.DiscardHandler)}, f.store)
		s.routes["GET "+RootPath+"/rulebooks/"] = Route{Method: http.MethodGet, Path: "/rulebooks/", Access: Open}
		s.routes["POST "+RootPath+"/rulebooks/"] = Route{Method: http.MethodPost, Path: "/rulebooks/", Access: Keyed}
		s.mux.HandleFunc("GET "+RootPath+"/rulebooks/", func(http.ResponseWriter, *http.Request) {})
		s.mux.HandleFunc("POST "+RootPath+"/rulebooks/", func(http.ResponseWriter, *http.Request) {})
		srv := httptest.NewServer(s.Handler())
		defer srv.Close()
		for method, wantOrigin := range map[string]string{"GET": "*", "POST": ""} {
			req, _ := http.NewRequest(http.MethodOptions, srv.URL+RootPath+"/rulebooks/", nil)
			req.Header.Set("Origin", "https://anywhere.example")
			req.Header.Set("Access-Control-Request-Method", method)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if got := res.Header.Get("Access-Control-Allow-Origin"); got != wantOrigin {
				t.Errorf("preflight for %s: Allow-Origin %q, want %q", method, got, wantOrigin)
			}
		}
	})
	t.Run("without an Origin", func(t *testing.T) {
		// The open surface's grant is the same for every origin, so it is
		// sent regardless; a keyed route's answer varies with the Origin
		// and says so, so that a shared cache never serves one origin's
		// answer to another.
		open := f.do(t, http.MethodGet, "/test/open", nil, nil)
		if open.Status != 200 || open.Header.Get("Access-Control-Allow-Origin") != "*" || open.Header.Get("Vary") != "" {
			t.Fatalf("open route: %d %v", open.Status, open.Header)
		}
		keyed := f.do(t, http.MethodPost, "/test/keyed", nil, strings.NewReader(`{"name":"x"}`))
		if keyed.Header.Get("Vary") != "Origin" || keyed.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("keyed route: %d %v", keyed.Status, keyed.Header)
		}
	})
	t.Run("no Allow-Credentials on open surface responses", func(t *testing.T) {
		decideKey := f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
		for _, origin := range []string{"https://anywhere.example", firstPartyOrigin} {
			for _, key := range []string{"", decideKey} {
				for _, method := range []string{http.MethodGet, http.MethodPost} {
					var body io.Reader
					if method == http.MethodPost {
						body = strings.NewReader(`{"name":"x"}`)
					}
					r := f.do(t, method, "/test/open", map[string]string{"Origin": origin, "x-api-key": key}, body)
					if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
						t.Fatalf("%s from %s: got %d %v", method, origin, r.Status, r.Header)
					}
					if _, ok := r.Header["Access-Control-Allow-Credentials"]; ok {
						t.Fatalf("%s from %s: Allow-Credentials on the open surface", method, origin)
					}
				}
			}
		}
	})
}

func TestAnonymousBodyCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	overCap := func() []byte {
		b := bytes.Repeat([]byte(" "), AnonymousBodyLimit+1)
		copy(b, `{"name":"x"}`)
		return b
	}
	for _, chunked := range []bool{false, true} {
		before := f.calls.Load()
		var body io.Reader = bytes.NewReader(overCap())
		if chunked {
			// Hiding the length makes the client send the body chunked.
			body = io.MultiReader(body)
		}
		r := f.do(t, http.MethodPost, "/test/open", nil, body)
		if r.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked=%v: got %d %s, want 413", chunked, r.Status, r.Raw)
		}
		if d, ok := r.Body.(map[string]any)["detail"].(map[string]any); !ok || d["reason_code"] != "body_too_large" {
			t.Fatalf("chunked=%v: body %s", chunked, r.Raw)
		}
		if f.calls.Load() != before {
			t.Fatalf("chunked=%v: handler reached with an over-cap body", chunked)
		}
	}
	// At the cap exactly, the body is read and parsed.
	exact := bytes.Repeat([]byte(" "), AnonymousBodyLimit)
	copy(exact, `{"name":"x"}`)
	if r := f.do(t, http.MethodPost, "/test/open", nil, bytes.NewReader(exact)); r.Status != 200 {
		t.Fatalf("body of exactly the cap: got %d %s", r.Status, r.Raw)
	}
	// A keyed caller gets the larger cap.
	key := f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	if r := f.do(t, http.MethodPost, "/test/open", map[string]string{"x-api-key": key}, bytes.NewReader(overCap())); r.Status != 200 {
		t.Fatalf("keyed body over the anonymous cap: got %d %s", r.Status, r.Raw)
	}
}

func TestInternalErrorsAreOpaque(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := map[string]string{"x-api-key": f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})}
	want := `{"detail":{"error":"internal_error","reason_code":"internal_error","message":"The server could not complete the request. Quote the X-Request-Id response header when reporting it."}}`
	for name, r := range map[string]response{
		"panic": f.do(t, http.MethodGet, "/test/panic", key, nil),
		"error": f.do(t, http.MethodPost, "/test/fail", key, strings.NewReader(`{"name":"echo-me-not"}`)),
	} {
		if r.Status != 500 || !reflect.DeepEqual(r.Body, call.JSONValue(t, want)) {
			t.Errorf("%s: got %d %s", name, r.Status, r.Raw)
		}
		for _, leak := range []string{"secret", "echo-me-not", "goroutine", ".go:"} {
			if strings.Contains(r.Raw, leak) {
				t.Errorf("%s: response leaks %q: %s", name, leak, r.Raw)
			}
		}
		if r.Header.Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", name)
		}
	}
}

// TestRequestID: a caller's X-Request-Id names the request (in the log
// and the answer) only when it comes from a trusted proxy and is short and
// made of safe characters; any other caller's is replaced by a drawn id,
// so that no client can choose what its requests are logged as.
func TestRequestID(t *testing.T) {
	t.Parallel()
	st := store.New(storetest.New(t))
	loopback := proxy.Trusted{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	servers := map[bool]string{}
	for _, trusted := range []bool{false, true} {
		cfg := Config{Logger: slog.New(slog.DiscardHandler)}
		if trusted {
			cfg.TrustedProxies = loopback
		}
		srv := httptest.NewServer(newServer(t, cfg, st).Handler())
		t.Cleanup(srv.Close)
		servers[trusted] = srv.URL
	}
	cases := []struct {
		incoming string
		trusted  bool
		kept     bool
	}{
		{"abc-123.DEF_4", true, true},
		{"abc-123.DEF_4", false, false},
		{"has space", true, false},
		{strings.Repeat("x", 65), true, false},
		{"", true, false},
		{"", false, false},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodGet, servers[c.trusted]+"/healthz", nil)
		if c.incoming != "" {
			req.Header.Set("X-Request-Id", c.incoming)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := res.Header.Get("X-Request-Id")
		if got == "" || (got == c.incoming) != c.kept || (!c.kept && !strings.HasPrefix(got, "req_")) {
			t.Errorf("incoming %q from a trusted proxy %v: response id %q, want it kept %v", c.incoming, c.trusted, got, c.kept)
		}
	}
}

// TestEveryAnswerIsNosniff: every answer, JSON or not, success, refusal or
// failure, tells the browser not to guess its type.
func TestEveryAnswerIsNosniff(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	base := strings.TrimSuffix(f.url, RootPath)
	cases := []struct {
		name, method, url string
		headers           map[string]string
		body              string
		status            int
	}{
		{"open read", http.MethodGet, f.url + "/test/open", nil, "", 200},
		{"open write", http.MethodPost, f.url + "/test/open", map[string]string{"Content-Type": "application/json"}, `{"name":"a"}`, 200},
		{"missing key", http.MethodPost, f.url + "/test/keyed", map[string]string{"Content-Type": "application/json"}, `{}`, 401},
		{"validation", http.MethodPost, f.url + "/test/validate", map[string]string{"x-api-key": key, "Content-Type": "application/json"}, `{"name":1}`, 422},
		{"not found", http.MethodGet, f.url + "/no/such/thing", nil, "", 404},
		{"wrong method", http.MethodDelete, f.url + "/test/open", nil, "", 405},
		{"invented method", "BREW", f.url + "/test/open", nil, "", 405},
		{"preflight", http.MethodOptions, f.url + "/test/open", map[string]string{"Origin": "https://else.example", "Access-Control-Request-Method": "POST"}, "", 204},
		{"too large", http.MethodPost, f.url + "/test/open", map[string]string{"Content-Type": "application/json"}, strings.Repeat(" ", AnonymousBodyLimit+1), 413},
		{"panic", http.MethodGet, f.url + "/test/panic", map[string]string{"x-api-key": key}, "", 500},
		{"healthz", http.MethodGet, base + "/healthz", nil, "", 200},
		{"readyz", http.MethodGet, base + "/readyz", nil, "", 200},
	}
	for _, c := range cases {
		r := call.Send(t, c.method, c.url, c.headers, strings.NewReader(c.body))
		if r.Status != c.status || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d with X-Content-Type-Options %q, want %d with nosniff", c.name, r.Status, r.Header.Get("X-Content-Type-Options"), c.status)
		}
	}
}

func TestUnknownPathOrMethodIsJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do(t, http.MethodGet, "/no/such/thing", nil, nil)
	if r.Status != 404 || !reflect.DeepEqual(r.Body, call.JSONValue(t, `{"detail":"Not Found"}`)) {
		t.Fatalf("got %d %s", r.Status, r.Raw)
	}
	r = f.do(t, http.MethodDelete, "/test/open", nil, nil)
	want := `{"detail":{"error":"method_not_allowed","reason_code":"method_not_allowed",
		"message":"This path does not accept DELETE; the Allow header lists the methods it does."}}`
	if r.Status != 405 || r.Header.Get("Allow") != "GET, POST" || !reflect.DeepEqual(r.Body, call.JSONValue(t, want)) {
		t.Fatalf("wrong method: got %d %v %s", r.Status, r.Header, r.Raw)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base := strings.TrimSuffix(f.url, RootPath)
	for path, want := range map[string]string{"/healthz": `{"status":"ok"}`, "/readyz": `{"status":"ready"}`} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !reflect.DeepEqual(call.JSONValue(t, string(raw)), call.JSONValue(t, want)) {
			t.Errorf("%s: got %d %s", path, res.StatusCode, raw)
		}
	}
}
