package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/usage"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store/storetest"
)

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
	*apitest.Fixture
	server *api.Server
	calls  *atomic.Int64
}

// newMeteredServer serves test operations of the decide, rulesets and
// generate classes, and GET /usage, on pool's database. Several servers may
// share one database, as replicas do.
func newMeteredServer(t testing.TB, cfg api.Config, pool *pgxpool.Pool) *meteredServer {
	t.Helper()
	calls := &atomic.Int64{}
	ok := func() (*okOutput, error) {
		calls.Add(1)
		out := &okOutput{}
		out.Body.OK = true
		return out, nil
	}
	f := apitest.NewOn(t, pool, cfg, func(s *api.Server, _ apitest.Services) {
		api.Register(s, api.Route{OperationID: "test-metered-decide", Method: http.MethodPost, Path: "/test/metered",
			Summary: "Decide-class test operation", Description: "Takes the costly flags.", Access: api.Open,
			Scopes: []auth.Scope{auth.ScopeDecide}, Class: api.ClassDecide},
			func(context.Context, *flagsInput) (*okOutput, error) { return ok() })
		api.Register(s, api.Route{OperationID: "test-metered-read", Method: http.MethodGet, Path: "/test/metered",
			Summary: "Rulesets-class test operation", Description: "A read.", Access: api.Open,
			Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: api.ClassRulesets},
			func(context.Context, *struct{}) (*okOutput, error) { return ok() })
		api.Register(s, api.Route{OperationID: "test-metered-generate", Method: http.MethodPost, Path: "/test/generate",
			Summary: "Generate-class test operation", Description: "Report-only class.", Access: api.Keyed,
			Scopes: []auth.Scope{auth.ScopeProjectsWrite}, Class: api.ClassGenerate},
			func(context.Context, *struct{}) (*okOutput, error) { return ok() })
		usage.Register(s)
	})
	return &meteredServer{Fixture: f, server: f.Server, calls: calls}
}

// TestClientAddressSpoofing: anonymous budgets follow the real client
// address. A forged X-Forwarded-For from an untrusted peer is ignored;
// behind a trusted proxy the right-most untrusted hop is the client, so
// hops a client prepends change nothing.
func TestClientAddressSpoofing(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	cfg := api.Config{Metering: metering.Config{Budgets: apitest.OverrideBudgets(t, "anonymous.rulesets=2")}}
	read := func(s *meteredServer, forwarded string) int {
		headers := map[string]string{}
		if forwarded != "" {
			headers["X-Forwarded-For"] = forwarded
		}
		return s.Do(t, http.MethodGet, "/test/metered", headers, nil).Status
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
	s := newMeteredServer(t, api.Config{Metering: metering.Config{Clock: clock, Budgets: apitest.OverrideBudgets(t, "free.decide=3")}}, pool)
	key := map[string]string{"x-api-key": apitest.TierKey(t, s.Store, auth.TierFree, auth.ScopeDecide)}
	call := func() apitest.Response {
		return s.Do(t, http.MethodPost, "/test/metered", key, strings.NewReader(`{}`))
	}
	start := now
	hour := func(h int) time.Time { return start.Truncate(time.Hour).Add(time.Duration(h) * time.Hour) }

	for i := range 3 {
		r := call()
		if r.Status != 200 {
			t.Fatalf("call %d: %d", i+1, r.Status)
		}
		apitest.CheckRateHeaders(t, r, "decide", 3, int64(2-i), hour(1))
	}
	for h := 5; h <= 23; h++ {
		set(hour(h).Add(59 * time.Minute))
		r := call()
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("hour %d: %d, want 429 while hour 0 is in the window", h, r.Status)
		}
		apitest.CheckRateHeaders(t, r, "decide", 3, 0, hour(h+1))
	}
	set(hour(24))
	r := call()
	if r.Status != 200 {
		t.Fatalf("hour 24: %d %s, want 200 once hour 0 left the window", r.Status, r.Raw)
	}
	apitest.CheckRateHeaders(t, r, "decide", 3, 2, hour(25))
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
	s := newMeteredServer(t, api.Config{Metering: metering.Config{Clock: clock, Budgets: apitest.OverrideBudgets(t, "anonymous.rulesets=3")}}, storetest.New(t))
	read := func(at time.Time) apitest.Response {
		set(at)
		return s.Do(t, http.MethodGet, "/test/metered", nil, nil)
	}
	// Two reads at hour 0, one at hour 2: the budget of 3 is spent.
	for _, h := range []int{0, 0, 2} {
		if r := read(hour(h).Add(10 * time.Minute)); r.Status != 200 {
			t.Fatalf("read at hour %d: %d %s", h, r.Status, r.Raw)
		}
	}
	r := read(hour(5).Add(30 * time.Minute))
	if r.Status != http.StatusTooManyRequests {
		t.Fatalf("read at hour 5: %d %s, want 429", r.Status, r.Raw)
	}
	apitest.CheckRateHeaders(t, r, "rulesets", 3, 0, hour(6))
	// Hour 0's two reads leave at hour 24; one read then fits.
	if got := r.Body.(map[string]any)["retry_after"]; got != float64(hour(24).Unix()) {
		t.Fatalf("retry_after %v, want %d (hour 24)", got, hour(24).Unix())
	}
	if r := read(hour(24).Add(-time.Second)); r.Status != http.StatusTooManyRequests {
		t.Fatalf("a second before retry_after: %d, want 429", r.Status)
	}
	if r := read(hour(24)); r.Status != 200 {
		t.Fatalf("at retry_after: %d %s, want 200", r.Status, r.Raw)
	}
}

// TestReportOnlyGenerate: over its ceiling, generate is served and
// recorded.
func TestReportOnlyGenerate(t *testing.T) {
	t.Parallel()
	s := newMeteredServer(t, api.Config{Metering: metering.Config{Budgets: apitest.OverrideBudgets(t, "free.generate=2")}}, storetest.New(t))
	key := apitest.TierKey(t, s.Store, auth.TierFree, auth.ScopeProjectsWrite)
	for i := 1; i <= 4; i++ {
		r := s.Do(t, http.MethodPost, "/test/generate", map[string]string{"x-api-key": key}, nil)
		if r.Status != 200 {
			t.Fatalf("generate %d: %d %s", i, r.Status, r.Raw)
		}
		apitest.CheckRateHeaders(t, r, "generate", 2, int64(max(0, 2-i)), time.Time{})
	}
	u := s.Do(t, http.MethodGet, "/usage", map[string]string{"x-api-key": key}, nil)
	for _, c := range u.Body.(map[string]any)["classes"].([]any) {
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
	s := newMeteredServer(t, api.Config{}, storetest.New(t))
	key := map[string]string{"x-api-key": apitest.TierKey(t, s.Store, auth.TierStarter, auth.ScopeRulesetsRead)}
	if r := s.Do(t, http.MethodGet, "/test/metered", key, nil); r.Status != 200 {
		t.Fatalf("read: %d", r.Status)
	}
	base := strings.TrimSuffix(s.URL, api.RootPath)
	for range 3 {
		for _, path := range []string{base + "/healthz", base + "/readyz", s.URL + "/openapi.json"} {
			res, err := http.Get(path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", path, res.StatusCode)
			}
			apitest.NoRateHeaders(t, path, res.Header)
		}
	}
	var last apitest.Response
	for range 3 {
		last = s.Do(t, http.MethodGet, "/usage", key, nil)
		if last.Status != 200 {
			t.Fatalf("usage: %d %s", last.Status, last.Raw)
		}
		apitest.NoRateHeaders(t, "/usage", last.Header)
	}
	body := last.Body.(map[string]any)
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
	if r := s.Do(t, http.MethodGet, "/usage", nil, nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("usage without a key: %d", r.Status)
	}
}

// TestMeteringBackendUnavailable: with the counter store gone and no
// outage share (metering.Config.OutageFraction negative), a metered
// request is refused with 503 rate_limit_backend_unavailable, never served
// unmetered. (TestMeteringOutageShare covers the default share.)
func TestMeteringBackendUnavailable(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	s := newMeteredServer(t, api.Config{KeyCacheTTL: time.Hour, Metering: metering.Config{OutageFraction: -1}}, pool)
	key := map[string]string{"x-api-key": apitest.TierKey(t, s.Store, auth.TierFree, auth.ScopeDecide)}
	// A key first presented during the outage cannot be checked at all.
	unchecked := map[string]string{"x-api-key": apitest.TierKey(t, s.Store, auth.TierFree, auth.ScopeDecide)}
	if r := s.Do(t, http.MethodGet, "/test/metered", nil, nil); r.Status != 200 {
		t.Fatalf("before the outage: %d", r.Status)
	}
	if r := s.Do(t, http.MethodGet, "/usage", key, nil); r.Status != 200 {
		t.Fatalf("usage before the outage: %d", r.Status)
	}
	pool.Close()
	s.CloseErrorExpected = true // its last counts have nowhere to go
	before := s.calls.Load()
	r := s.Do(t, http.MethodPost, "/test/metered", nil, strings.NewReader(`{}`))
	want := `{"detail":{"error":"service_unavailable","reason_code":"rate_limit_backend_unavailable",
		"message":"Usage could not be checked, so the request was not served. This is transient.",
		"hint":"Retry with exponential backoff, starting after the Retry-After seconds."}}`
	if r.Status != http.StatusServiceUnavailable || !reflect.DeepEqual(r.Body, apitest.JSONValue(t, want)) || r.Header.Get("Retry-After") == "" {
		t.Fatalf("during the outage: %d %v %s", r.Status, r.Header, r.Raw)
	}
	if s.calls.Load() != before {
		t.Fatal("handler reached without metering")
	}
	// The key is cached, so /usage reaches the counters and reports the
	// same.
	r = s.Do(t, http.MethodGet, "/usage", key, nil)
	if r.Status != http.StatusServiceUnavailable || !reflect.DeepEqual(r.Body, apitest.JSONValue(t, want)) || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("usage during the outage: %d %v %s", r.Status, r.Header, r.Raw)
	}
	// An uncached key gets the same transient 503 (not an opaque 500), on
	// a keyed route and on the open surface alike.
	wantKey := `{"detail":{"error":"service_unavailable","reason_code":"rate_limit_backend_unavailable",
		"message":"The API key could not be checked, so the request was not served. This is transient.",
		"hint":"Retry with exponential backoff, starting after the Retry-After seconds."}}`
	for _, path := range []string{"/usage", "/test/metered"} {
		r = s.Do(t, http.MethodGet, path, unchecked, nil)
		if r.Status != http.StatusServiceUnavailable || !reflect.DeepEqual(r.Body, apitest.JSONValue(t, wantKey)) || r.Header.Get("Retry-After") != "1" {
			t.Fatalf("%s with an uncached key during the outage: %d %v %s", path, r.Status, r.Header, r.Raw)
		}
	}
	if s.calls.Load() != before {
		t.Fatal("handler reached during the outage")
	}
}

// TestMeteringOutageShare: with the counter store gone, a metered
// request is still served within the process's outage share of the
// budget (5% of the anonymous 250: 13 units), then refused with 503
// rate_limit_backend_unavailable; the counts are kept in memory for when
// the store returns (package metering's TestOutageShare).
func TestMeteringOutageShare(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	s := newMeteredServer(t, api.Config{}, pool)
	if r := s.Do(t, http.MethodPost, "/test/metered", nil, strings.NewReader(`{}`)); r.Status != 200 {
		t.Fatalf("before the outage: %d", r.Status)
	}
	pool.Close()
	s.CloseErrorExpected = true // its last counts have nowhere to go
	served := 0
	for range 30 {
		r := s.Do(t, http.MethodPost, "/test/metered", nil, strings.NewReader(`{}`))
		if r.Status == http.StatusOK {
			served++
			continue
		}
		if r.Status != http.StatusServiceUnavailable || !strings.Contains(string(r.Raw), "rate_limit_backend_unavailable") {
			t.Fatalf("during the outage: %d %s", r.Status, r.Raw)
		}
		break
	}
	// The share, and before it at most what the last read still allows
	// within the 1% slack (2 more units) if it is under a second old.
	if served < 13 || served > 15 {
		t.Errorf("served %d metered requests during the outage, want the outage share of 13 (and up to 2 of slack)", served)
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
			cfg := api.Config{KeyCacheTTL: time.Minute, Metering: metering.Config{
				Budgets:        apitest.OverrideBudgets(t, fmt.Sprintf("pro.decide=%d", budget)),
				WindowCacheTTL: time.Hour, // only the slack forces reads
			}}
			servers := []*meteredServer{newMeteredServer(t, cfg, first), newMeteredServer(t, cfg, second)}
			key := map[string]string{"x-api-key": apitest.TierKey(t, servers[0].Store, auth.TierPro, auth.ScopeDecide)}
			var accepted, refused atomic.Int64
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range perGoroutine {
						r := servers[(g+i)%2].Do(t, http.MethodPost, "/test/metered", key, strings.NewReader(`{}`))
						switch r.Status {
						case 200:
							accepted.Add(1)
						case http.StatusTooManyRequests:
							refused.Add(1)
						default:
							t.Errorf("status %d %s", r.Status, r.Raw)
						}
					}
				})
			}
			wg.Wait()
			for _, s := range servers {
				if err := s.server.Meter().Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			w := metering.WindowEnding(time.Now(), metering.WindowHours)
			st := servers[0].Store
			keys, err := st.ListAPIKeys(context.Background(), "acme")
			if err != nil || len(keys) != 1 {
				t.Fatalf("keys %v %v", keys, err)
			}
			stored, err := st.UsageSum(context.Background(), metering.KeySubject(keys[0].ID), "decide", w.First, w.Last)
			if err != nil {
				t.Fatal(err)
			}
			total := int64(goroutines * perGoroutine)
			slack := servers[0].server.Meter().Slack(budget)
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
	s := newMeteredServer(t, api.Config{Metering: metering.Config{Budgets: apitest.OverrideBudgets(t, "pro.generate=77")}}, storetest.New(t))
	r := s.Do(t, http.MethodGet, "/openapi.json", nil, nil)
	doc := r.Body.(map[string]any)
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
			unmetered := path == "/usage" || path == "/projects/{project_id}/draft/check" || path == "/projects/{project_id}/draft/complete"
			if !metering.Class(class).Known() && !(unmetered && class == string(metering.Unmetered)) {
				t.Errorf("%s %s: metering class %q", method, path, class)
			}
		}
	}
}
