package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// generousMetering gives every tier and class a budget no test reaches, for
// fixtures whose tests are about something else.
func generousMetering() metering.Config {
	b := metering.Budgets{}
	for _, tier := range metering.Tiers() {
		b[tier] = map[metering.Class]int64{}
		for _, c := range metering.Classes {
			b[tier][c.Class] = 1 << 40
		}
	}
	return metering.Config{Budgets: b, BackendTimeout: testBackendTimeout}
}

// testBackendTimeout replaces the meter's 2 s bound on each counter query
// in tests: on a loaded CI machine a query can wait that long for a
// connection, and a 503 there would be the machine's, not the code's. An
// outage (a closed pool) still fails at once.
const testBackendTimeout = 30 * time.Second

// overrideBudgets returns the spec's budgets with spec applied.
func overrideBudgets(t testing.TB, spec string) metering.Budgets {
	t.Helper()
	b, err := metering.DefaultBudgets().Override(spec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flagsInput accepts a /decide body with the costly flags, so the
// anonymous cost rules can be exercised without a published ruleset.
type flagsInput struct {
	Body struct {
		FieldValues         map[string]any `json:"field_values,omitempty"`
		NoCache             bool           `json:"no_cache,omitempty"`
		IncludeTrace        bool           `json:"include_trace,omitempty"`
		IncludeExplanation  bool           `json:"include_explanation,omitempty"`
		IncludeGraphOverlay bool           `json:"include_graph_overlay,omitempty"`
	}
}

type okOutput struct {
	Body struct {
		OK bool `json:"ok"`
	}
}

// meteredServer is one api.Server with its own meter on its own listener.
type meteredServer struct {
	*fixture
	server *Server
	calls  *atomic.Int64
}

// newMeteredServer serves test operations of the decide, rulesets and
// generate classes on pool's database. Several servers may share one
// database, as replicas do.
func newMeteredServer(t testing.TB, cfg Config, pool *pgxpool.Pool) *meteredServer {
	t.Helper()
	cfg.Logger = slog.New(slog.DiscardHandler)
	if cfg.Metering.BackendTimeout == 0 {
		cfg.Metering.BackendTimeout = testBackendTimeout
	}
	st := store.New(pool)
	s := New(cfg, st)
	s.open = append(append([]Endpoint{}, OpenSurface...),
		Endpoint{http.MethodPost, "/test/metered"}, Endpoint{http.MethodGet, "/test/metered"})
	calls := &atomic.Int64{}
	ok := func() (*okOutput, error) {
		calls.Add(1)
		out := &okOutput{}
		out.Body.OK = true
		return out, nil
	}
	Register(s, Route{OperationID: "test-metered-decide", Method: http.MethodPost, Path: "/test/metered",
		Summary: "Decide-class test operation", Description: "Takes the costly flags.", Access: Open,
		Scopes: []auth.Scope{auth.ScopeDecide}, Class: ClassDecide},
		func(context.Context, *flagsInput) (*okOutput, error) { return ok() })
	Register(s, Route{OperationID: "test-metered-read", Method: http.MethodGet, Path: "/test/metered",
		Summary: "Rulesets-class test operation", Description: "A read.", Access: Open,
		Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: ClassRulesets},
		func(context.Context, *struct{}) (*okOutput, error) { return ok() })
	Register(s, Route{OperationID: "test-metered-generate", Method: http.MethodPost, Path: "/test/generate",
		Summary: "Generate-class test operation", Description: "Report-only class.", Access: Keyed,
		Scopes: []auth.Scope{auth.ScopeProjectsWrite}, Class: ClassGenerate},
		func(context.Context, *struct{}) (*okOutput, error) { return ok() })
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Close(ctx)
	})
	return &meteredServer{fixture: &fixture{url: srv.URL + RootPath, store: st}, server: s, calls: calls}
}

// tierKey issues a key of tier carrying scopes.
func tierKey(t testing.TB, st *store.Store, tier auth.Tier, scopes ...auth.Scope) string {
	t.Helper()
	text, _, _, err := auth.IssueKey(context.Background(), st, auth.KeyRequest{TenantID: "acme", Scopes: scopes, Tier: tier})
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// checkRateHeaders asserts the four X-RateLimit-* headers; reset is the
// expected X-RateLimit-Reset, or zero for "the next hourly boundary now".
func checkRateHeaders(t testing.TB, r response, class string, limit, remaining int64, reset time.Time) {
	t.Helper()
	h := r.header
	gotReset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		t.Fatalf("X-RateLimit-Reset %q: %v", h.Get("X-RateLimit-Reset"), err)
	}
	resetOK := gotReset == reset.Unix()
	if reset.IsZero() {
		// The hour may turn between the request and this check.
		now := time.Now()
		resetOK = gotReset == metering.NextReset(now).Unix() || gotReset == metering.NextReset(now.Add(-time.Minute)).Unix()
	}
	if h.Get("X-RateLimit-Class") != class || h.Get("X-RateLimit-Limit") != strconv.FormatInt(limit, 10) ||
		h.Get("X-RateLimit-Remaining") != strconv.FormatInt(remaining, 10) || !resetOK {
		t.Fatalf("status %d: rate-limit headers class=%q limit=%q remaining=%q reset=%q, want %s %d %d (reset %v)",
			r.status, h.Get("X-RateLimit-Class"), h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"),
			h.Get("X-RateLimit-Reset"), class, limit, remaining, reset)
	}
}

func noRateHeaders(t testing.TB, what string, h http.Header) {
	t.Helper()
	for name := range h {
		if strings.HasPrefix(name, "X-Ratelimit-") {
			t.Fatalf("%s carries %s: it must not be metered", what, name)
		}
	}
}

// TestFreeKeyDailyQuotaOnDecide is the issue's definition of done on the
// real /decide: a new free key is served 500 decisions, each with the
// rate-limit headers, and refused the 501st with the spec's body and
// headers; /usage then shows the count.
func TestFreeKeyDailyQuotaOnDecide(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	f.publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	key := tierKey(t, f.store, auth.TierFree, auth.ScopeDecide)
	body := `{"ruleset_id":"acme/all-types","field_values":{"a.count":3},"include_trace":true,"include_explanation":true}`
	for i := 1; i <= 500; i++ {
		r := f.decide(t, key, body)
		if r.status != http.StatusOK {
			t.Fatalf("decision %d: %d %s", i, r.status, r.raw)
		}
		// A key pays one per decision whatever the flags.
		checkRateHeaders(t, r, "decide", 500, int64(500-i), time.Time{})
	}
	r := f.decide(t, key, body)
	want := `{"detail":{"error":"too_many_requests","reason_code":"daily_quota_exceeded",
		"message":"The key has used its rolling 24-hour budget of 500 decide requests.",
		"hint":"Usage falls as hourly buckets leave the 24-hour window (see X-RateLimit-Reset); GET /usage shows every class. A higher tier is set through support."}}`
	if r.status != http.StatusTooManyRequests || !reflect.DeepEqual(r.body, jsonValue(t, want)) {
		t.Fatalf("decision 501: %d %s", r.status, r.raw)
	}
	if r.header.Get("Retry-After") != "86400" {
		t.Fatalf("decision 501: Retry-After %q, want 86400", r.header.Get("Retry-After"))
	}
	checkRateHeaders(t, r, "decide", 500, 0, time.Time{})

	u := f.do(t, http.MethodGet, "/usage", map[string]string{"x-api-key": key}, nil)
	if u.status != http.StatusOK {
		t.Fatalf("usage: %d %s", u.status, u.raw)
	}
	noRateHeaders(t, "/usage", u.header)
	usage := u.body.(map[string]any)
	decide := usage["classes"].([]any)[0].(map[string]any)
	if usage["tier"] != "free" || decide["class"] != "decide" || decide["used"] != 500.0 || decide["remaining"] != 0.0 || decide["budget"] != 500.0 {
		t.Fatalf("usage: %s", u.raw)
	}
	rolling := usage["rolling"].(map[string]any)
	if rolling["7d"].(map[string]any)["decide"] != 500.0 || rolling["30d"].(map[string]any)["decide"] != 500.0 {
		t.Fatalf("usage rolling totals: %s", u.raw)
	}
}

// TestAnonymousDecideCostUnits: on the real /decide an anonymous caller
// pays 11 units for trace plus explanation against 250 a day, and the
// limiter answers the spec's anonymous shape with the rate-limit headers.
func TestAnonymousDecideCostUnits(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	f.publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	body := `{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true,"include_explanation":true}`
	start := time.Now()
	for i := int64(1); i <= 22; i++ {
		r := f.decide(t, "", body)
		if r.status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, r.status, r.raw)
		}
		checkRateHeaders(t, r, "decide", 250, 250-11*i, time.Time{})
	}
	r := f.decide(t, "", body)
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("call 23 (253 units > 250): %d %s", r.status, r.raw)
	}
	checkRateHeaders(t, r, "decide", 250, 8, time.Time{})
	// Every unit was spent this hour (or, if the hour turned meanwhile, in
	// this hour and the one before): the request fits again once they leave
	// the window, 24 hours on, not at the next hourly boundary.
	got := r.body.(map[string]any)
	retryAfter, _ := got["retry_after"].(float64)
	dayLater := func(t time.Time) float64 { return float64(metering.HourOf(t).Add(24 * time.Hour).Unix()) }
	if len(got) != 2 || got["error"] != "rate_limit_exceeded" || (retryAfter != dayLater(start) && retryAfter != dayLater(time.Now())) {
		t.Fatalf("anonymous 429 body %s, want retry_after %d", r.raw, int64(dayLater(start)))
	}
	// The 8 units left still buy a plain decision.
	r = f.decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{}}`)
	if r.status != http.StatusOK {
		t.Fatalf("plain call with 8 units left: %d %s", r.status, r.raw)
	}
	checkRateHeaders(t, r, "decide", 250, 7, time.Time{})
}

// TestDecideNullMembers: an optional member sent as null is accepted and
// leaves the member as it was, in the decoder and in metering alike, so a
// flag followed by a null gets the flag and pays for it.
func TestDecideNullMembers(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	f.publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	r := f.decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{"a.count":1},"rulebook_id":null,"release_id":null,`+
		`"include_trace":null,"include_explanation":null,"include_graph_overlay":null,"include_choice_context":null,`+
		`"include_timing":null,"no_cache":null,"inquiry_context":null,"caller_ref":null}`)
	if r.status != http.StatusOK || field(t, r, "trace") != nil {
		t.Fatalf("every optional member null: %d %s", r.status, r.raw)
	}
	checkRateHeaders(t, r, "decide", 250, 249, time.Time{})
	r = f.decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{"a.count":1},"include_trace":true,"include_trace":null}`)
	if r.status != http.StatusOK || field(t, r, "trace") == nil {
		t.Fatalf("include_trace true then null: %d %s", r.status, r.raw)
	}
	checkRateHeaders(t, r, "decide", 250, 249-6, time.Time{})
}

// TestAnonymousCostEveryFlagCombination sends every combination of the four
// costly flags from its own client address and reads the cost off
// X-RateLimit-Remaining.
func TestAnonymousCostEveryFlagCombination(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	s := newMeteredServer(t, Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}, pool)
	names := []string{"no_cache", "include_trace", "include_explanation", "include_graph_overlay"}
	for mask := range 16 {
		var members []string
		for bit, name := range names {
			if mask&(1<<bit) != 0 {
				members = append(members, `"`+name+`":true`)
			} else if mask%3 == 0 {
				members = append(members, `"`+name+`":false`)
			}
		}
		set := strings.Count(fmt.Sprintf("%b", mask), "1")
		client := fmt.Sprintf("198.51.100.%d", mask+1)
		r := s.do(t, http.MethodPost, "/test/metered", map[string]string{"X-Forwarded-For": client},
			strings.NewReader(`{"field_values":{},`+strings.Join(members, ",")+"}"))
		if r.status != http.StatusOK {
			t.Fatalf("flags %v: %d %s", members, r.status, r.raw)
		}
		checkRateHeaders(t, r, "decide", 250, int64(250-1-5*set), time.Time{})
	}
	// A repeated member counts by its last occurrence, as the decoder reads
	// it: a leading false cannot hide a flag.
	r := s.do(t, http.MethodPost, "/test/metered", map[string]string{"X-Forwarded-For": "198.51.100.200"},
		strings.NewReader(`{"field_values":{},"include_trace":false,"include_trace":true}`))
	if r.status != http.StatusOK {
		t.Fatalf("duplicate member: %d %s", r.status, r.raw)
	}
	checkRateHeaders(t, r, "decide", 250, 244, time.Time{})
}

// TestAnonymousRefusedDecideCostsPlainUnit: a /decide body the reader
// refuses is priced at the plain unit whatever flags it carries, and is
// refused before anything is evaluated, so it buys nothing dearer.
func TestAnonymousRefusedDecideCostsPlainUnit(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	f.publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	remaining := int64(250)
	for _, body := range []string{
		`{"ruleset_id":"acme/all-types","field_values":5,"include_trace":true,"include_explanation":true,"no_cache":true}`,
		`{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true,"include_graph_overlay":"yes"}`,
		`{"ruleset_id":"acme/all-types","include_trace":true,"include_explanation":true}`,
		`{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true,"unknown":1}`,
		`{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true`,
	} {
		r := f.decide(t, "", body)
		remaining--
		if r.status != http.StatusUnprocessableEntity && r.status != http.StatusBadRequest {
			t.Fatalf("%s: %d %s, want a refusal", body, r.status, r.raw)
		}
		checkRateHeaders(t, r, "decide", 250, remaining, time.Time{})
	}
}

// TestClientAddressSpoofing: anonymous budgets follow the real client
// address. A forged X-Forwarded-For from an untrusted peer is ignored;
// behind a trusted proxy the right-most untrusted hop is the client, so
// hops a client prepends change nothing.
func TestClientAddressSpoofing(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	cfg := Config{Metering: metering.Config{Budgets: overrideBudgets(t, "anonymous.rulesets=2")}}
	read := func(s *meteredServer, forwarded string) int {
		headers := map[string]string{}
		if forwarded != "" {
			headers["X-Forwarded-For"] = forwarded
		}
		return s.do(t, http.MethodGet, "/test/metered", headers, nil).status
	}

	direct := newMeteredServer(t, cfg, pool)
	for i, forwarded := range []string{"", "203.0.113.1"} {
		if got := read(direct, forwarded); got != 200 {
			t.Fatalf("direct call %d: %d", i+1, got)
		}
	}
	for _, forged := range []string{"", "203.0.113.2", "203.0.113.3, 198.51.100.9", "10.0.0.1"} {
		if got := read(direct, forged); got != http.StatusTooManyRequests {
			t.Errorf("untrusted peer with X-Forwarded-For %q: %d, want 429 (the peer address is the client)", forged, got)
		}
	}

	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}
	proxied := newMeteredServer(t, cfg, pool)
	for i := range 2 {
		if got := read(proxied, "192.0.2.50"); got != 200 {
			t.Fatalf("proxied call %d: %d", i+1, got)
		}
	}
	cases := []struct {
		forwarded string
		want      int
	}{
		{"192.0.2.50", 429},                    // the same client again
		{"6.6.6.6, 192.0.2.50", 429},           // a hop the client prepended
		{"6.6.6.6, 192.0.2.50, 10.1.2.3", 429}, // behind a second trusted proxy
		{"192.0.2.51", 200},                    // another client
		{"192.0.2.50, 192.0.2.52", 200},        // the right-most untrusted hop is another client
	}
	for _, c := range cases {
		if got := read(proxied, c.forwarded); got != c.want {
			t.Errorf("trusted proxy, X-Forwarded-For %q: %d, want %d", c.forwarded, got, c.want)
		}
	}
}

// TestWindowHeadersWithClock walks a keyed budget across the 24-hour
// window with an injected clock: refused while the first hour's calls are
// in the window, served again the hour they leave it; the reset header
// always names the next hourly boundary.
func TestWindowHeadersWithClock(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 5, 4, 9, 15, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	set := func(t time.Time) { mu.Lock(); defer mu.Unlock(); now = t }
	pool := storetest.New(t)
	s := newMeteredServer(t, Config{Metering: metering.Config{Clock: clock, Budgets: overrideBudgets(t, "free.decide=3")}}, pool)
	key := map[string]string{"x-api-key": tierKey(t, s.store, auth.TierFree, auth.ScopeDecide)}
	call := func() response { return s.do(t, http.MethodPost, "/test/metered", key, strings.NewReader(`{}`)) }
	start := now
	hour := func(h int) time.Time { return start.Truncate(time.Hour).Add(time.Duration(h) * time.Hour) }

	for i := range 3 {
		r := call()
		if r.status != 200 {
			t.Fatalf("call %d: %d", i+1, r.status)
		}
		checkRateHeaders(t, r, "decide", 3, int64(2-i), hour(1))
	}
	for h := 5; h <= 23; h++ {
		set(hour(h).Add(59 * time.Minute))
		r := call()
		if r.status != http.StatusTooManyRequests {
			t.Fatalf("hour %d: %d, want 429 while hour 0 is in the window", h, r.status)
		}
		checkRateHeaders(t, r, "decide", 3, 0, hour(h+1))
	}
	set(hour(24))
	r := call()
	if r.status != 200 {
		t.Fatalf("hour 24: %d %s, want 200 once hour 0 left the window", r.status, r.raw)
	}
	checkRateHeaders(t, r, "decide", 3, 2, hour(25))
}

// TestAnonymousRetryAfterWithClock: the anonymous 429's retry_after is the
// boundary at which enough old usage leaves the window for the refused
// request, while X-RateLimit-Reset stays the next hourly boundary; a
// retry at retry_after is served.
func TestAnonymousRetryAfterWithClock(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 5, 4, 9, 15, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	set := func(t time.Time) { mu.Lock(); defer mu.Unlock(); now = t }
	hour := func(h int) time.Time {
		return time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour)
	}
	s := newMeteredServer(t, Config{Metering: metering.Config{Clock: clock, Budgets: overrideBudgets(t, "anonymous.rulesets=3")}}, storetest.New(t))
	read := func(at time.Time) response {
		set(at)
		return s.do(t, http.MethodGet, "/test/metered", nil, nil)
	}
	// Two reads at hour 0, one at hour 2: the budget of 3 is spent.
	for _, h := range []int{0, 0, 2} {
		if r := read(hour(h).Add(10 * time.Minute)); r.status != 200 {
			t.Fatalf("read at hour %d: %d %s", h, r.status, r.raw)
		}
	}
	r := read(hour(5).Add(30 * time.Minute))
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("read at hour 5: %d %s, want 429", r.status, r.raw)
	}
	checkRateHeaders(t, r, "rulesets", 3, 0, hour(6))
	// Hour 0's two reads leave at hour 24; one read then fits.
	if got := r.body.(map[string]any)["retry_after"]; got != float64(hour(24).Unix()) {
		t.Fatalf("retry_after %v, want %d (hour 24)", got, hour(24).Unix())
	}
	if r := read(hour(24).Add(-time.Second)); r.status != http.StatusTooManyRequests {
		t.Fatalf("a second before retry_after: %d, want 429", r.status)
	}
	if r := read(hour(24)); r.status != 200 {
		t.Fatalf("at retry_after: %d %s, want 200", r.status, r.raw)
	}
}

// TestReportOnlyGenerate: over its ceiling, generate is served and
// recorded.
func TestReportOnlyGenerate(t *testing.T) {
	t.Parallel()
	s := newMeteredServer(t, Config{Metering: metering.Config{Budgets: overrideBudgets(t, "free.generate=2")}}, storetest.New(t))
	key := tierKey(t, s.store, auth.TierFree, auth.ScopeProjectsWrite)
	for i := 1; i <= 4; i++ {
		r := s.do(t, http.MethodPost, "/test/generate", map[string]string{"x-api-key": key}, nil)
		if r.status != 200 {
			t.Fatalf("generate %d: %d %s", i, r.status, r.raw)
		}
		checkRateHeaders(t, r, "generate", 2, int64(max(0, 2-i)), time.Time{})
	}
	u := s.do(t, http.MethodGet, "/usage", map[string]string{"x-api-key": key}, nil)
	for _, c := range u.body.(map[string]any)["classes"].([]any) {
		c := c.(map[string]any)
		if c["class"] == "generate" && (c["used"] != 4.0 || c["enforced"] != false || c["remaining"] != 0.0) {
			t.Fatalf("usage of generate: %v", c)
		}
	}
}

// TestUnmeteredEndpoints: /usage, the health probes and the OpenAPI
// documents carry no rate-limit headers and change no count; /usage
// lists all six classes.
func TestUnmeteredEndpoints(t *testing.T) {
	t.Parallel()
	s := newMeteredServer(t, Config{}, storetest.New(t))
	key := map[string]string{"x-api-key": tierKey(t, s.store, auth.TierStarter, auth.ScopeRulesetsRead)}
	if r := s.do(t, http.MethodGet, "/test/metered", key, nil); r.status != 200 {
		t.Fatalf("read: %d", r.status)
	}
	base := strings.TrimSuffix(s.url, RootPath)
	for range 3 {
		for _, path := range []string{base + "/healthz", base + "/readyz", s.url + "/openapi.json"} {
			res, err := http.Get(path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", path, res.StatusCode)
			}
			noRateHeaders(t, path, res.Header)
		}
	}
	var last response
	for range 3 {
		last = s.do(t, http.MethodGet, "/usage", key, nil)
		if last.status != 200 {
			t.Fatalf("usage: %d %s", last.status, last.raw)
		}
		noRateHeaders(t, "/usage", last.header)
	}
	body := last.body.(map[string]any)
	var classes []string
	for _, c := range body["classes"].([]any) {
		c := c.(map[string]any)
		classes = append(classes, c["class"].(string))
		wantUsed := map[string]float64{"rulesets": 1}[c["class"].(string)]
		if c["used"] != wantUsed {
			t.Errorf("%s used %v, want %v", c["class"], c["used"], wantUsed)
		}
	}
	if want := []string{"decide", "rulesets", "rulebooks", "projects", "generate", "admin"}; !reflect.DeepEqual(classes, want) {
		t.Fatalf("classes %v, want %v", classes, want)
	}
	if body["tier"] != "starter" {
		t.Fatalf("tier %v", body["tier"])
	}
	if r := s.do(t, http.MethodGet, "/usage", nil, nil); r.status != http.StatusUnauthorized {
		t.Fatalf("usage without a key: %d", r.status)
	}
}

// TestMeteringBackendUnavailable: with the counter store gone, a metered
// request is refused with 503 rate_limit_backend_unavailable, never served
// unmetered.
func TestMeteringBackendUnavailable(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	s := newMeteredServer(t, Config{KeyCacheTTL: time.Hour}, pool)
	key := map[string]string{"x-api-key": tierKey(t, s.store, auth.TierFree, auth.ScopeDecide)}
	// A key first presented during the outage cannot be checked at all.
	unchecked := map[string]string{"x-api-key": tierKey(t, s.store, auth.TierFree, auth.ScopeDecide)}
	if r := s.do(t, http.MethodGet, "/test/metered", nil, nil); r.status != 200 {
		t.Fatalf("before the outage: %d", r.status)
	}
	if r := s.do(t, http.MethodGet, "/usage", key, nil); r.status != 200 {
		t.Fatalf("usage before the outage: %d", r.status)
	}
	pool.Close()
	before := s.calls.Load()
	r := s.do(t, http.MethodPost, "/test/metered", nil, strings.NewReader(`{}`))
	want := `{"detail":{"error":"service_unavailable","reason_code":"rate_limit_backend_unavailable",
		"message":"Usage could not be checked, so the request was not served. This is transient.",
		"hint":"Retry with exponential backoff, starting after the Retry-After seconds."}}`
	if r.status != http.StatusServiceUnavailable || !reflect.DeepEqual(r.body, jsonValue(t, want)) || r.header.Get("Retry-After") == "" {
		t.Fatalf("during the outage: %d %v %s", r.status, r.header, r.raw)
	}
	if s.calls.Load() != before {
		t.Fatal("handler reached without metering")
	}
	// The key is cached, so /usage reaches the counters and reports the
	// same.
	r = s.do(t, http.MethodGet, "/usage", key, nil)
	if r.status != http.StatusServiceUnavailable || !reflect.DeepEqual(r.body, jsonValue(t, want)) || r.header.Get("Retry-After") != "1" {
		t.Fatalf("usage during the outage: %d %v %s", r.status, r.header, r.raw)
	}
	// An uncached key gets the same transient 503 (not an opaque 500), on
	// a keyed route and on the open surface alike.
	wantKey := `{"detail":{"error":"service_unavailable","reason_code":"rate_limit_backend_unavailable",
		"message":"The API key could not be checked, so the request was not served. This is transient.",
		"hint":"Retry with exponential backoff, starting after the Retry-After seconds."}}`
	for _, path := range []string{"/usage", "/test/metered"} {
		r = s.do(t, http.MethodGet, path, unchecked, nil)
		if r.status != http.StatusServiceUnavailable || !reflect.DeepEqual(r.body, jsonValue(t, wantKey)) || r.header.Get("Retry-After") != "1" {
			t.Fatalf("%s with an uncached key during the outage: %d %v %s", path, r.status, r.header, r.raw)
		}
	}
	if s.calls.Load() != before {
		t.Fatal("handler reached during the outage")
	}
}

// TestTwoServersOneDatabase: N goroutines × M requests for one key spread
// over two servers (two meters, two pools, two listeners) on one database.
// Under the budget the stored total is exactly N×M; over it the accepted
// count lies between the budget and the budget plus one server's slack.
func TestTwoServersOneDatabase(t *testing.T) {
	t.Parallel()
	const goroutines, perGoroutine = 8, 60
	for _, budget := range []int64{100_000, 150} {
		t.Run(fmt.Sprintf("budget %d", budget), func(t *testing.T) {
			t.Parallel()
			first := storetest.New(t)
			second, err := pgxpool.New(context.Background(), first.Config().ConnString())
			if err != nil {
				t.Fatal(err)
			}
			defer second.Close()
			cfg := Config{KeyCacheTTL: time.Minute, Metering: metering.Config{
				Budgets:        overrideBudgets(t, fmt.Sprintf("pro.decide=%d", budget)),
				WindowCacheTTL: time.Hour, // only the slack forces reads
			}}
			servers := []*meteredServer{newMeteredServer(t, cfg, first), newMeteredServer(t, cfg, second)}
			key := map[string]string{"x-api-key": tierKey(t, servers[0].store, auth.TierPro, auth.ScopeDecide)}
			var accepted, refused atomic.Int64
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range perGoroutine {
						r := servers[(g+i)%2].do(t, http.MethodPost, "/test/metered", key, strings.NewReader(`{}`))
						switch r.status {
						case 200:
							accepted.Add(1)
						case http.StatusTooManyRequests:
							refused.Add(1)
						default:
							t.Errorf("status %d %s", r.status, r.raw)
						}
					}
				})
			}
			wg.Wait()
			for _, s := range servers {
				if err := s.server.meter.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			w := metering.WindowEnding(time.Now(), metering.WindowHours)
			st := servers[0].store
			keys, err := st.ListAPIKeys(context.Background(), "acme")
			if err != nil || len(keys) != 1 {
				t.Fatalf("keys %v %v", keys, err)
			}
			stored, err := st.UsageSum(context.Background(), metering.KeySubject(keys[0].ID), "decide", w.First, w.Last)
			if err != nil {
				t.Fatal(err)
			}
			total := int64(goroutines * perGoroutine)
			slack := servers[0].server.meter.Slack(budget)
			t.Logf("%d requests, budget %d: accepted %d, refused %d, stored %d (slack %d)", total, budget, accepted.Load(), refused.Load(), stored, slack)
			switch {
			case stored != accepted.Load() || accepted.Load()+refused.Load() != total:
				t.Fatalf("stored %d, accepted %d, refused %d of %d", stored, accepted.Load(), refused.Load(), total)
			case budget >= total && stored != total:
				t.Fatalf("stored %d under the budget, want exactly %d", stored, total)
			case budget < total && (stored < budget || stored > budget+slack):
				t.Fatalf("accepted %d with budget %d, want between the budget and budget + %d", stored, budget, slack)
			}
		})
	}
}

// TestLimitsInOpenAPI: the class table, the budgets in force and both 429
// shapes are in the OpenAPI description; every operation names its class.
func TestLimitsInOpenAPI(t *testing.T) {
	t.Parallel()
	s := newMeteredServer(t, Config{Metering: metering.Config{Budgets: overrideBudgets(t, "pro.generate=77")}}, storetest.New(t))
	r := s.do(t, http.MethodGet, "/openapi.json", nil, nil)
	doc := r.body.(map[string]any)
	desc := doc["info"].(map[string]any)["description"].(string)
	for _, want := range []string{"## Limits", "| `generate` | report-only |", "| pro | 100000 | 5000 | 5000 | 500 | 77 | 1000 |",
		"daily_quota_exceeded", "rate_limit_exceeded", "rate_limit_backend_unavailable", "Retry-After: 86400",
		"retry_after being the first hourly boundary at which the same request would be admitted"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	for _, c := range metering.Classes {
		if !strings.Contains(desc, "| `"+string(c.Class)+"` |") {
			t.Errorf("description lacks class %s", c.Class)
		}
	}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			class, _ := op.(map[string]any)["x-eligo-metering-class"].(string)
			if !metering.Class(class).Known() && !(path == "/usage" && class == string(metering.Unmetered)) {
				t.Errorf("%s %s: metering class %q", method, path, class)
			}
		}
	}
}
