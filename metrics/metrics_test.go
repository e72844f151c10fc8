package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/metrics/metricstest"
)

// labels are the label sets the tests build their metrics with.
var labels = metrics.Labels{MeteringClasses: []string{"decide", "rulesets"}, Tiers: []string{"anonymous", "pro"},
	JobKinds: []string{"prune_usage", "generate"}, Models: []string{"gpt-4.1"}}

// TestEachFamilyMoves: every method counts in its family, with its labels,
// and the page passes promtool's lint.
func TestEachFamilyMoves(t *testing.T) {
	t.Parallel()
	m := metrics.New(labels)
	m.Request("decide", "POST", 503, 3*time.Millisecond)
	m.Decision("eligible", "rulebook", true)
	m.Evaluated(time.Microsecond)
	m.Planned(time.Microsecond)
	m.Metered("decide", "anonymous", false)
	m.CacheLookup(metrics.CacheContent, true)
	m.Invalidated()
	m.LogRecords(metrics.LogWritten, 3)
	m.LogRecords(metrics.LogRefused, 0)
	m.JobEnded("prune_usage", "completed")
	m.GenerationRound("gpt-4.1")
	m.GenerationTokens("gpt-4.1", 120)
	m.GenerationEnded("gpt-4.1", "accepted")
	m.WatchDecisionLog(func() metrics.DecisionLogLag {
		return metrics.DecisionLogLag{Bytes: 4096, OldestSeconds: 1.5, Shipped: 7}
	})
	g := m.Gatherer()
	cases := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"eligo_http_requests_total", map[string]string{"route": "decide", "method": "POST", "code": "5xx"}, 1},
		{"eligo_http_request_duration_seconds", map[string]string{"route": "decide"}, 1},
		{"eligo_decisions_total", map[string]string{"outcome": "eligible", "kind": "rulebook", "cache": "hit"}, 1},
		{"eligo_decision_evaluation_seconds", nil, 1},
		{"eligo_decision_planning_seconds", nil, 1},
		{"eligo_metering_requests_total", map[string]string{"class": "decide", "tier": "anonymous", "result": "refused"}, 1},
		{"eligo_cache_lookups_total", map[string]string{"cache": "content", "result": "hit"}, 1},
		{"eligo_catalog_invalidations_total", nil, 1},
		{"eligo_decision_log_records_total", map[string]string{"event": "written"}, 3},
		{"eligo_decision_log_records_total", map[string]string{"event": "refused"}, 0},
		{"eligo_jobs_total", map[string]string{"kind": "prune_usage", "state": "completed"}, 1},
		{"eligo_generation_rounds_total", map[string]string{"model": "gpt-4.1"}, 1},
		{"eligo_generation_tokens_total", map[string]string{"model": "gpt-4.1"}, 120},
		{"eligo_generations_total", map[string]string{"model": "gpt-4.1", "outcome": "accepted"}, 1},
		{"eligo_decision_log_spool_bytes", nil, 4096},
		{"eligo_decision_log_oldest_unshipped_seconds", nil, 1.5},
		{"eligo_decision_log_shipped_total", nil, 7},
	}
	for _, c := range cases {
		if got := metricstest.Sum(t, g, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lint := exec.Command("promtool", "check", "metrics")
	lint.Stdin = res.Body
	if out, err := lint.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestNilCountsNothing: a component built without metrics calls them
// freely.
func TestNilCountsNothing(t *testing.T) {
	t.Parallel()
	var m *metrics.Metrics
	m.Request("decide", "POST", 200, time.Millisecond)
	m.Decision("eligible", "ruleset", false)
	m.Metered("decide", "pro", true)
	m.CacheLookup(metrics.CacheReferences, false)
	m.Invalidated()
	m.LogRecords(metrics.LogWritten, 1)
	m.JobEnded("x", "completed")
	m.GenerationRound("m")
	m.GenerationTokens("m", 1)
	m.GenerationEnded("m", "failed")
	m.Register(nil)
}

// TestStatusClass: statuses are counted by class, never by code.
func TestStatusClass(t *testing.T) {
	t.Parallel()
	m := metrics.New(labels)
	for _, status := range []int{200, 201, 204, 404, 422, 429, 500, 503, 0, 999} {
		m.Request("r", "GET", status, time.Millisecond)
	}
	for class, want := range map[string]float64{"2xx": 3, "4xx": 3, "5xx": 2, "other": 2} {
		if got := metricstest.Sum(t, m.Gatherer(), "eligo_http_requests_total", map[string]string{"code": class}); got != want {
			t.Errorf("%s = %v, want %v", class, got, want)
		}
	}
}

// TestLabelsStayInTheirSets: whatever a counting component passes, each
// label takes a value of its fixed set or "other", and the series of
// known values exist, at zero, before anything is counted.
func TestLabelsStayInTheirSets(t *testing.T) {
	t.Parallel()
	m := metrics.New(labels)
	g := m.Gatherer()
	type series struct {
		family string
		labels map[string]string
	}
	// At zero from the start: every combination of the known sets.
	for _, s := range []series{
		{"eligo_decisions_total", map[string]string{"outcome": "not_eligible", "kind": "rulebook", "cache": "miss"}},
		{"eligo_metering_requests_total", map[string]string{"class": "rulesets", "tier": "pro", "result": "refused"}},
		{"eligo_cache_lookups_total", map[string]string{"cache": "rulebooks", "result": "hit"}},
		{"eligo_decision_log_records_total", map[string]string{"event": "backlogged"}},
		{"eligo_jobs_total", map[string]string{"kind": "generate", "state": "snoozed"}},
		{"eligo_generation_rounds_total", map[string]string{"model": "gpt-4.1"}},
		{"eligo_generation_tokens_total", map[string]string{"model": "gpt-4.1"}},
		{"eligo_generations_total", map[string]string{"model": "gpt-4.1", "outcome": "cancelled"}},
	} {
		if n := metricstest.Series(t, g, s.family, s.labels); n != 1 {
			t.Errorf("%s%v: %d series before any event, want 1", s.family, s.labels, n)
		}
	}

	huge := strings.Repeat("M", 16<<10)
	for i := range 100 {
		odd := "x" + strconv.Itoa(i)
		m.Request("decide", odd, 200, time.Millisecond)
		m.Request("decide", huge+odd, 200, time.Millisecond)
		m.Decision(odd, odd, false)
		m.Metered(odd, odd, true)
		m.CacheLookup(odd, true)
		m.LogRecords(odd, 1)
		m.JobEnded(odd, odd)
		m.GenerationRound(odd)
		m.GenerationTokens(odd, 1)
		m.GenerationEnded(odd, odd)
	}
	m.Request("decide", "POST", 200, time.Millisecond)
	for _, c := range []struct {
		series
		want float64
	}{
		{series{"eligo_http_requests_total", map[string]string{"method": "other"}}, 200},
		{series{"eligo_http_request_duration_seconds", map[string]string{"method": "other"}}, 200},
		{series{"eligo_http_requests_total", map[string]string{"method": "POST"}}, 1},
		{series{"eligo_decisions_total", map[string]string{"outcome": "other", "kind": "other"}}, 100},
		{series{"eligo_metering_requests_total", map[string]string{"class": "other", "tier": "other"}}, 100},
		{series{"eligo_cache_lookups_total", map[string]string{"cache": "other"}}, 100},
		{series{"eligo_decision_log_records_total", map[string]string{"event": "other"}}, 100},
		{series{"eligo_jobs_total", map[string]string{"kind": "other", "state": "other"}}, 100},
		{series{"eligo_generation_rounds_total", map[string]string{"model": "other"}}, 100},
		{series{"eligo_generation_tokens_total", map[string]string{"model": "other"}}, 100},
		{series{"eligo_generations_total", map[string]string{"model": "other", "outcome": "other"}}, 100},
	} {
		if got := metricstest.Sum(t, g, c.family, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, got, c.want)
		}
		// One series for all the invented values together.
		if n := metricstest.Series(t, g, c.family, c.labels); n != 1 {
			t.Errorf("%s%v: %d series, want 1", c.family, c.labels, n)
		}
	}
}
