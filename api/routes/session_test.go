package routes

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/apitest/call"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/clock/clocktest"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// console is a browser's view of one console session on a fixture: the
// cookie the sign-in set and the CSRF token it answered.
type console struct {
	f      *apitest.Fixture
	cookie *http.Cookie
	csrf   string
}

// origin is the fixture's own origin, as its pages are served from.
func origin(f *apitest.Fixture) string { return f.HTTP.URL }

// sessionCall sends method path (api.SessionPath, or an operation's path
// under the API root when it starts with "/api") to f with headers; body,
// when not empty, is JSON.
func sessionCall(t *testing.T, f *apitest.Fixture, method, path string, headers map[string]string, body string) call.Response {
	t.Helper()
	var r *strings.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	if r == nil {
		return call.Do(t, method, origin(f)+path, headers, nil)
	}
	return call.Do(t, method, origin(f)+path, headers, r)
}

// signInOn signs in with key from the console's own page and returns the
// session; it fails the test unless the answer is 204 with a cookie and a
// token.
func signInOn(t *testing.T, f *apitest.Fixture, key string) console {
	t.Helper()
	r := sessionCall(t, f, http.MethodPost, api.SessionPath, map[string]string{"Sec-Fetch-Site": "same-origin"}, `{"api_key": "`+key+`"}`)
	if r.Status != http.StatusNoContent {
		t.Fatalf("sign in = %d %s", r.Status, r.Raw)
	}
	c := sessionCookieOf(t, r.Header)
	csrf := r.Header.Get(api.CSRFHeader)
	if c == nil || c.Value == "" || csrf == "" {
		t.Fatalf("sign in set cookie %v and token %q", c, csrf)
	}
	return console{f: f, cookie: c, csrf: csrf}
}

// sessionCookieOf is the session cookie a response sets, or nil.
func sessionCookieOf(t *testing.T, h http.Header) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if strings.HasSuffix(c.Name, "eligo_session") {
			return c
		}
	}
	return nil
}

// headers are a same-origin fetch's headers carrying the cookie, the
// token unless omitted, and extra.
func (c console) headers(withToken bool, extra map[string]string) map[string]string {
	h := map[string]string{"Cookie": c.cookie.Name + "=" + c.cookie.Value, "Sec-Fetch-Site": "same-origin"}
	if withToken {
		h[api.CSRFHeader] = c.csrf
	}
	for k, v := range extra {
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
	}
	return h
}

// do sends an authenticated console request.
func (c console) do(t *testing.T, method, path, body string) call.Response {
	t.Helper()
	return sessionCall(t, c.f, method, path, c.headers(true, nil), body)
}

// reason is the answer's detail.reason_code, or "" when it has none.
func reason(r call.Response) string {
	m, _ := r.Body.(map[string]any)
	d, _ := m["detail"].(map[string]any)
	s, _ := d["reason_code"].(string)
	return s
}

const projectsPath = api.RootPath + "/projects"

// TestConsoleSessionFlow follows a console through sign-in, use and
// sign-out, with the refusals on the way: the session acts as its key
// (scopes, tenant, metering) for same-origin requests that carry the
// token, a key sent beside the cookie wins, and nothing it stores is the
// session id.
func TestConsoleSessionFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	expired := time.Now().Add(-time.Hour)
	writer := f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead, auth.ScopeProjectsWrite}, time.Time{})

	// Sign-in refusals: the API's own 401s for the key, never a 500.
	for _, tc := range []struct {
		name, body string
		status     int
		reason     string
	}{
		{"no key", `{"api_key": ""}`, http.StatusUnauthorized, api.ReasonMissingAPIKey},
		{"unknown key", `{"api_key": "elg_aaaaaaaa_` + strings.Repeat("A", 43) + `"}`, http.StatusUnauthorized, api.ReasonInvalidAPIKey},
		{"malformed key", `{"api_key": "hello"}`, http.StatusUnauthorized, api.ReasonInvalidAPIKey},
		{"expired key", `{"api_key": "` + f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead}, expired) + `"}`, http.StatusUnauthorized, api.ReasonAPIKeyExpired},
		{"not JSON", `api_key=x`, http.StatusUnprocessableEntity, ""},
		{"an extra member", `{"api_key": "x", "remember": true}`, http.StatusUnprocessableEntity, ""},
	} {
		r := sessionCall(t, f, http.MethodPost, api.SessionPath, nil, tc.body)
		if r.Status != tc.status || reason(r) != tc.reason || sessionCookieOf(t, r.Header) != nil {
			t.Errorf("sign in with %s = %d %s, want %d %s and no cookie", tc.name, r.Status, r.Raw, tc.status, tc.reason)
		}
	}
	if r := sessionCall(t, f, http.MethodGet, api.SessionPath, nil, ""); r.Status != http.StatusUnauthorized || reason(r) != api.ReasonMissingAPIKey {
		t.Errorf("GET session, not signed in = %d %s", r.Status, r.Raw)
	}

	c := signInOn(t, f, writer)
	for _, s := range []string{c.cookie.Value, c.csrf} {
		if strings.Contains(writer, s) || strings.Contains(s, writer) {
			t.Fatal("the cookie or token holds the key")
		}
	}
	// The row holds the id's hash and not the id.
	hash := sha256.Sum256([]byte(c.cookie.Value))
	var row string
	if err := f.Pool.QueryRow(ctx, `SELECT row_to_json(s)::text FROM console_sessions s WHERE id_hash = $1`, hash[:]).Scan(&row); err != nil {
		t.Fatalf("no session row under the id's hash: %v", err)
	}
	if strings.Contains(row, c.cookie.Value) || strings.Contains(row, c.csrf) {
		t.Errorf("the session row %s holds the id or the token", row)
	}

	who := sessionCall(t, f, http.MethodGet, api.SessionPath, c.headers(false, nil), "")
	if who.Status != http.StatusOK || who.Field(t, "tenant_id") != "acme" || who.Field(t, "key_prefix") != strings.Split(writer, "_")[1] ||
		who.Field(t, "tier") != "free" || who.Field(t, "key_expires_at") != nil || who.Field(t, "csrf_token") != c.csrf ||
		who.Header.Get(api.CSRFHeader) != c.csrf || len(who.Field(t, "scopes").([]any)) != 2 {
		t.Fatalf("GET session = %d %s", who.Status, who.Raw)
	}
	idle, err1 := time.Parse(time.RFC3339, who.Field(t, "idle_expires_at").(string))
	end, err2 := time.Parse(time.RFC3339, who.Field(t, "expires_at").(string))
	if err1 != nil || err2 != nil || end.Sub(idle) != auth.SessionLifetime-auth.SessionIdle {
		t.Errorf("GET session times: idle end %s, end %s", idle, end)
	}

	// Authoring through the session: written and listed as the key's
	// tenant, counted against the key.
	if r := c.do(t, http.MethodPost, projectsPath+"/", `{"name": "FMLA", "section_id": "fmla_employee", "source_text": "", "test_cases": []}`); r.Status != http.StatusCreated {
		t.Fatalf("create a project through the session = %d %s", r.Status, r.Raw)
	}
	viaSession := c.do(t, http.MethodGet, projectsPath, "")
	if viaSession.Status != http.StatusOK || len(viaSession.Body.([]any)) != 1 {
		t.Fatalf("list projects through the session = %d %s", viaSession.Status, viaSession.Raw)
	}
	viaKey := sessionCall(t, f, http.MethodGet, projectsPath, apitest.WithKey(writer), "")
	if viaKey.Raw != viaSession.Raw {
		t.Errorf("the key lists %s, the session %s", viaKey.Raw, viaSession.Raw)
	}
	// One budget: each call, by session or by key, takes one from it.
	remaining := func(r call.Response) int {
		n, err := strconv.Atoi(r.Header.Get("X-RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("X-RateLimit-Remaining: %v", err)
		}
		return n
	}
	if limit := viaSession.Header.Get("X-RateLimit-Limit"); limit == "" || limit != viaKey.Header.Get("X-RateLimit-Limit") {
		t.Errorf("limits: session %q, key %q", limit, viaKey.Header.Get("X-RateLimit-Limit"))
	}
	if again := c.do(t, http.MethodGet, projectsPath, ""); remaining(viaKey) != remaining(viaSession)-1 || remaining(again) != remaining(viaKey)-1 {
		t.Errorf("remaining: session %d, then key %d, then session %d: the session is not counted as the key",
			remaining(viaSession), remaining(viaKey), remaining(again))
	}

	// Refused: without the token, from another origin, or with a key
	// that does not work (the key wins over the cookie).
	for _, tc := range []struct {
		name    string
		headers map[string]string
		status  int
		reason  string
	}{
		{"no token", c.headers(false, nil), http.StatusForbidden, api.ReasonCSRFTokenInvalid},
		{"a wrong token", c.headers(true, map[string]string{api.CSRFHeader: "x" + c.csrf}), http.StatusForbidden, api.ReasonCSRFTokenInvalid},
		{"cross-site", c.headers(true, map[string]string{"Sec-Fetch-Site": "cross-site"}), http.StatusForbidden, api.ReasonCrossSiteRequest},
		{"same-site", c.headers(true, map[string]string{"Sec-Fetch-Site": "same-site"}), http.StatusForbidden, api.ReasonCrossSiteRequest},
		{"another Origin, no Sec-Fetch-Site", c.headers(true, map[string]string{"Sec-Fetch-Site": "", "Origin": "https://elsewhere.example"}), http.StatusForbidden, api.ReasonCrossSiteRequest},
		{"a revoked key beside the cookie", c.headers(true, map[string]string{"x-api-key": "elg_aaaaaaaa_" + strings.Repeat("A", 43)}), http.StatusUnauthorized, api.ReasonInvalidAPIKey},
		{"own Origin, no Sec-Fetch-Site", c.headers(true, map[string]string{"Sec-Fetch-Site": "", "Origin": origin(f)}), http.StatusOK, ""},
		{"neither (not a browser)", c.headers(true, map[string]string{"Sec-Fetch-Site": ""}), http.StatusOK, ""},
	} {
		r := sessionCall(t, f, http.MethodGet, projectsPath, tc.headers, "")
		if r.Status != tc.status || reason(r) != tc.reason {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Raw, tc.status, tc.reason)
		}
		if tc.reason == api.ReasonCrossSiteRequest && !strings.Contains(r.Raw, "x-api-key") {
			t.Errorf("%s: the refusal does not say what to do instead: %s", tc.name, r.Raw)
		}
	}
	if r := sessionCall(t, f, http.MethodPost, api.SessionPath, map[string]string{"Sec-Fetch-Site": "cross-site"}, `{"api_key": "`+writer+`"}`); r.Status != http.StatusForbidden || sessionCookieOf(t, r.Header) != nil {
		t.Errorf("a cross-site sign-in = %d %s", r.Status, r.Raw)
	}
	// Signing in again from the same browser replaces its session.
	replaced := signInOn(t, f, writer)
	again := sessionCall(t, f, http.MethodPost, api.SessionPath, replaced.headers(false, nil), `{"api_key": "`+writer+`"}`)
	if again.Status != http.StatusNoContent {
		t.Fatalf("sign in again = %d %s", again.Status, again.Raw)
	}
	if r := replaced.do(t, http.MethodGet, projectsPath, ""); r.Status != http.StatusUnauthorized {
		t.Errorf("the replaced session still works: %d", r.Status)
	}

	// A session acts with its key's scopes and no more.
	reader := signInOn(t, f, f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead}, time.Time{}))
	if r := reader.do(t, http.MethodPost, projectsPath+"/", `{"name": "x", "section_id": "x", "source_text": "", "test_cases": []}`); r.Status != http.StatusForbidden || reason(r) != api.ReasonDeniedMissingPermission {
		t.Errorf("a write through a read-only session = %d %s", r.Status, r.Raw)
	}

	// Sign-out needs the token, deletes the row and clears the cookie;
	// the cookie then authenticates nothing.
	if r := sessionCall(t, f, http.MethodDelete, api.SessionPath, c.headers(false, nil), ""); r.Status != http.StatusForbidden || reason(r) != api.ReasonCSRFTokenInvalid {
		t.Errorf("sign out without the token = %d %s", r.Status, r.Raw)
	}
	out := sessionCall(t, f, http.MethodDelete, api.SessionPath, c.headers(true, nil), "")
	if cleared := sessionCookieOf(t, out.Header); out.Status != http.StatusNoContent || cleared == nil || cleared.MaxAge >= 0 || cleared.Value != "" {
		t.Errorf("sign out = %d, cookie %v", out.Status, cleared)
	}
	var rows int
	if err := f.Pool.QueryRow(ctx, `SELECT count(*) FROM console_sessions WHERE id_hash = $1`, hash[:]).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("after sign-out %d rows (%v)", rows, err)
	}
	if r := c.do(t, http.MethodGet, projectsPath, ""); r.Status != http.StatusUnauthorized || reason(r) != api.ReasonMissingAPIKey {
		t.Errorf("a call after sign-out = %d %s", r.Status, r.Raw)
	}
	if r := sessionCall(t, f, http.MethodGet, api.SessionPath, c.headers(true, nil), ""); r.Status != http.StatusUnauthorized {
		t.Errorf("GET session after sign-out = %d %s", r.Status, r.Raw)
	}
}

// TestConsoleSessionExpiry turns the server's clock: a session idle for
// auth.SessionIdle ends, a session kept busy ends auth.SessionLifetime
// after sign-in, and a key that expires ends its session.
func TestConsoleSessionExpiry(t *testing.T) {
	t.Parallel()
	dial := clocktest.NewDial(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	f := newFixture(t, api.Config{Clock: dial, Metering: apitest.GenerousMetering()})
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead}, time.Time{})
	works := func(c console) bool {
		t.Helper()
		r := c.do(t, http.MethodGet, projectsPath, "")
		if r.Status != http.StatusOK && (r.Status != http.StatusUnauthorized || reason(r) != api.ReasonMissingAPIKey) {
			t.Fatalf("a console call = %d %s", r.Status, r.Raw)
		}
		return r.Status == http.StatusOK
	}

	idle := signInOn(t, f, key)
	dial.Advance(auth.SessionIdle - 2*time.Minute)
	if !works(idle) {
		t.Fatal("the session ended before it was idle for long")
	}
	dial.Advance(auth.SessionIdle - 2*time.Minute)
	if !works(idle) {
		t.Fatal("use did not keep the session from idling out")
	}
	dial.Advance(auth.SessionIdle)
	if works(idle) {
		t.Fatal("a session idle for auth.SessionIdle still works")
	}

	busy := signInOn(t, f, key)
	step := auth.SessionIdle - 5*time.Minute
	elapsed := time.Duration(0)
	for ; elapsed+step < auth.SessionLifetime; elapsed += step {
		dial.Advance(step)
		if !works(busy) {
			t.Fatalf("a busy session ended %s after sign-in", elapsed+step)
		}
	}
	dial.Advance(auth.SessionLifetime - elapsed)
	if works(busy) {
		t.Fatal("a busy session still works auth.SessionLifetime after sign-in")
	}

	expiring := signInOn(t, f, f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead}, dial.Now().Add(10*time.Minute)))
	if !works(expiring) {
		t.Fatal("a session of a key that expires later does not work")
	}
	dial.Advance(10 * time.Minute)
	if r := expiring.do(t, http.MethodGet, projectsPath, ""); r.Status != http.StatusUnauthorized || reason(r) != api.ReasonAPIKeyExpired {
		t.Fatalf("the session of an expired key = %d %s", r.Status, r.Raw)
	}
}

// TestConsoleSessionEndsWithItsKeyEverywhere: two servers share one
// database, as replicas do, each caching key rows for an hour and
// listening for invalidations. A session opened on one works on both;
// once its key is revoked (as `eligo keys revoke` does), its next call
// is refused on both, without waiting for the cache.
func TestConsoleSessionEndsWithItsKeyEverywhere(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	cfg := api.Config{KeyCacheTTL: time.Hour, Metering: apitest.GenerousMetering()}
	replicas := []*apitest.Fixture{apitest.NewOn(t, pool, cfg, mountAll), apitest.NewOn(t, pool, cfg, mountAll)}
	for _, f := range replicas {
		listening := make(chan struct{}, 1)
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			Listen(ctx, f.Server, f.Services, store.ListenConfig{Logger: slog.New(onInfo{listening})})
		}()
		t.Cleanup(func() { stop(); <-done })
		select {
		case <-listening:
		case <-time.After(30 * time.Second):
			t.Fatal("a listener did not connect")
		}
	}
	key := replicas[0].Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead}, time.Time{})
	c := signInOn(t, replicas[0], key)
	for i, f := range replicas {
		c.f = f
		if r := c.do(t, http.MethodGet, projectsPath, ""); r.Status != http.StatusOK {
			t.Fatalf("replica %d before the revocation: %d %s", i, r.Status, r.Raw)
		}
	}
	if _, err := replicas[0].Store.RevokeAPIKey(context.Background(), strings.Split(key, "_")[1]); err != nil {
		t.Fatal(err)
	}
	// The other replica first: it learns of the revocation only through
	// its listener. Notifications take milliseconds; 30s is for a loaded
	// machine, far below the hour the row is cached for.
	for _, i := range []int{1, 0} {
		c.f = replicas[i]
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			r := c.do(t, http.MethodGet, projectsPath, "")
			if r.Status == http.StatusUnauthorized {
				break
			}
			if r.Status != http.StatusOK || time.Now().After(deadline) {
				t.Fatalf("replica %d after the revocation: %d %s", i, r.Status, r.Raw)
			}
		}
	}
}

// TestConsoleSessionCookie: the cookie is HttpOnly, SameSite=Strict, for
// Path=/, and Secure (with the __Host- prefix) exactly when the sign-in
// came over TLS, directly or through a trusted proxy that says so; a
// caller's own X-Forwarded-Proto is not believed.
func TestConsoleSessionCookie(t *testing.T) {
	t.Parallel()
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	cases := []struct {
		name       string
		trusted    []netip.Prefix
		tls        bool
		proto      string
		wantSecure bool
	}{
		{"plain HTTP", nil, false, "", false},
		{"TLS", nil, true, "", true},
		{"a caller's X-Forwarded-Proto", nil, false, "https", false},
		{"a trusted proxy's X-Forwarded-Proto: https", loopback, false, "https", true},
		{"a trusted proxy's X-Forwarded-Proto: http", loopback, false, "http", false},
		{"a trusted proxy's last hop says https", loopback, false, "http, https", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := api.Config{TrustedProxies: tc.trusted, Metering: apitest.GenerousMetering()}
			f := newFixture(t, cfg)
			key := f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead}, time.Time{})
			base, client := f.HTTP.URL, http.DefaultClient
			if tc.tls {
				srv := httptest.NewTLSServer(f.Server.Handler())
				t.Cleanup(srv.Close)
				base, client = srv.URL, srv.Client()
			}
			send := func(method, path string, header http.Header, body string) *http.Response {
				t.Helper()
				req, err := http.NewRequest(method, base+path, strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header = header
				res, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				return res
			}
			h := http.Header{"Content-Type": {"application/json"}, "Sec-Fetch-Site": {"same-origin"}}
			if tc.proto != "" {
				h.Set("X-Forwarded-Proto", tc.proto)
			}
			res := send(http.MethodPost, api.SessionPath, h, `{"api_key": "`+key+`"}`)
			c := sessionCookieOf(t, res.Header)
			if res.StatusCode != http.StatusNoContent || c == nil {
				t.Fatalf("sign in = %d, cookie %v", res.StatusCode, c)
			}
			wantName := "eligo_session"
			if tc.wantSecure {
				wantName = "__Host-eligo_session"
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure != tc.wantSecure || c.Name != wantName ||
				c.Domain != "" || c.MaxAge != int(auth.SessionLifetime/time.Second) {
				t.Errorf("cookie %s", c.String())
			}
			// The cookie works where it was set, with the page's origin.
			h.Set("Cookie", c.Name+"="+c.Value)
			h.Set(api.CSRFHeader, res.Header.Get(api.CSRFHeader))
			h.Del("Sec-Fetch-Site")
			scheme := "http://"
			if tc.wantSecure {
				scheme = "https://"
			}
			h.Set("Origin", scheme+strings.SplitN(base, "://", 2)[1])
			if res := send(http.MethodGet, projectsPath, h, ""); res.StatusCode != http.StatusOK {
				t.Errorf("a call with the cookie from origin %s = %d", h.Get("Origin"), res.StatusCode)
			}
		})
	}
}

// TestConsoleSignInLimits: past its failed sign-ins an address is refused
// with 429 sign_in_rate_limited and a Retry-After before any key is
// looked at (a good key too), another address is not; a key prefix named
// too often is refused alike; and however often a key signs in, it keeps
// at most auth.MaxSessionsPerKey sessions.
func TestConsoleSignInLimits(t *testing.T) {
	t.Parallel()
	dial := clocktest.NewDial(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	f := newFixture(t, api.Config{Clock: dial, Metering: apitest.GenerousMetering(),
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeProjectsRead}, time.Time{})
	signIn := func(from, key string) call.Response {
		t.Helper()
		return sessionCall(t, f, http.MethodPost, api.SessionPath,
			map[string]string{"Sec-Fetch-Site": "same-origin", "X-Forwarded-For": from}, `{"api_key": "`+key+`"}`)
	}
	limited := func(what string, r call.Response, maxWait time.Duration) {
		t.Helper()
		retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if r.Status != http.StatusTooManyRequests || reason(r) != api.ReasonSignInRateLimited || err != nil ||
			retry < 1 || time.Duration(retry)*time.Second > maxWait || sessionCookieOf(t, r.Header) != nil ||
			!strings.Contains(r.Raw, "Try again in "+strconv.Itoa(retry)+" seconds") {
			t.Fatalf("%s: %d %s (Retry-After %q)", what, r.Status, r.Raw, r.Header.Get("Retry-After"))
		}
	}

	for i := range auth.SignInFailuresPerAddress {
		if r := signIn("198.51.100.7", "elg_nope"+strconv.Itoa(i)); r.Status != http.StatusUnauthorized {
			t.Fatalf("failed sign-in %d: %d %s", i, r.Status, r.Raw)
		}
	}
	perFailure := auth.SignInWindow / auth.SignInFailuresPerAddress
	limited("an address past its failures, with a good key", signIn("198.51.100.7", key), perFailure)
	if r := signIn("198.51.100.8", key); r.Status != http.StatusNoContent {
		t.Fatalf("another address: %d %s", r.Status, r.Raw)
	}
	dial.Advance(perFailure)
	if r := signIn("198.51.100.7", key); r.Status != http.StatusNoContent {
		t.Fatalf("the address after its wait: %d %s", r.Status, r.Raw)
	}

	// A prefix: every sign-in naming it counts, from whatever address.
	dial.Advance(auth.SignInWindow)
	for i := range auth.SignInAttemptsPerPrefix {
		if r := signIn("203.0.113."+strconv.Itoa(i%200), key); r.Status != http.StatusNoContent {
			t.Fatalf("sign-in %d: %d %s", i, r.Status, r.Raw)
		}
	}
	perAttempt := auth.SignInWindow / auth.SignInAttemptsPerPrefix
	limited("a prefix named too often", signIn("192.0.2.50", key), perAttempt)
	wrong := key[:len("elg_12345678_")] + strings.Repeat("A", 43) // the prefix, another secret
	limited("a wrong secret for that prefix", signIn("192.0.2.51", wrong), perAttempt)

	// Sessions: one sign-in per refill, until past the cap.
	for range auth.MaxSessionsPerKey {
		dial.Advance(perAttempt)
		if r := signIn("192.0.2.52", key); r.Status != http.StatusNoContent {
			t.Fatalf("paced sign-in: %d %s", r.Status, r.Raw)
		}
	}
	var rows int
	if err := f.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM console_sessions`).Scan(&rows); err != nil ||
		rows != auth.MaxSessionsPerKey {
		t.Fatalf("%d live sessions (%v), want auth.MaxSessionsPerKey = %d", rows, err, auth.MaxSessionsPerKey)
	}
}
