package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"
	"time"

	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/metrics/metricstest"
)

// TestEachFamilyMoves: every method counts in its family, with its labels,
// and the page passes promtool's lint.
func TestEachFamilyMoves(t *testing.T) {
	t.Parallel()
	m := metrics.New()
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
	m := metrics.New()
	for _, status := range []int{200, 201, 204, 404, 422, 429, 500, 503, 0, 999} {
		m.Request("r", "GET", status, time.Millisecond)
	}
	for class, want := range map[string]float64{"2xx": 3, "4xx": 3, "5xx": 2, "other": 2} {
		if got := metricstest.Sum(t, m.Gatherer(), "eligo_http_requests_total", map[string]string{"code": class}); got != want {
			t.Errorf("%s = %v, want %v", class, got, want)
		}
	}
}
