package main

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/eligo/eligo/store/storetest"
)

// scrape reads the metrics page of s and parses it.
func scrape(t *testing.T, s *testServe) (string, map[string]*families) {
	t.Helper()
	res, err := s.client.Get(s.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %v", res.StatusCode, err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse the scrape: %v", err)
	}
	out := map[string]*families{}
	for name, f := range parsed {
		fam := &families{series: len(f.GetMetric())}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
			fam.samples = append(fam.samples, sample{labels, v})
		}
		out[name] = fam
	}
	return string(raw), out
}

// families is one metric family of a scrape: its series' labels and values.
type families struct {
	series  int
	samples []sample
}

type sample struct {
	labels map[string]string
	value  float64
}

// sum adds the values of the family's series whose labels include want.
func (f *families) sum(want map[string]string) float64 {
	if f == nil {
		return 0
	}
	total := 0.0
	for _, s := range f.samples {
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
			}
		}
		if match {
			total += s.value
		}
	}
	return total
}

// TestMetrics runs `eligo serve --metrics-addr` and checks that the page is
// valid by promtool's lint, that each family moves when its event happens,
// and that a thousand distinct slugs and keys add no series.
func TestMetrics(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	dir := filepath.Join("..", "..", "casebank", "us-fmla-employee")
	if code, out, errOut := eligo(t, "publish", "--database-url", dbURL, "--tenant", "demo",
		filepath.Join(dir, "us-fmla-employee.rules"), "--public", "--slug", "demo/fmla"); code != 0 {
		t.Fatalf("publish exited %d: %q %q", code, out, errOut)
	}
	code, key, errOut := eligo(t, "keys", "create", "--database-url", dbURL, "--tenant", "demo", "--name", "metrics",
		"--tier", "starter", "--scopes", "decide,rulesets:read")
	if code != 0 {
		t.Fatalf("keys create exited %d: %q", code, errOut)
	}
	key = strings.TrimSpace(key)
	srv := startServe(t, "--database-url", dbURL, "--metrics-addr", "127.0.0.1:0")
	defer srv.stop(t)
	if srv.metrics == "" {
		t.Fatal("serve printed no metrics address")
	}
	if strings.HasPrefix(srv.metrics, strings.TrimSuffix(srv.root, "/api/v1/public")) {
		t.Fatalf("metrics on the public listener: %s", srv.metrics)
	}
	// The public port does not serve them.
	if res, err := srv.client.Get(strings.TrimSuffix(srv.root, "/api/v1/public") + "/metrics"); err != nil {
		t.Fatal(err)
	} else if res.Body.Close(); res.StatusCode == http.StatusOK {
		t.Fatal("the public port serves /metrics")
	}

	do := func(method, path, key, body string) int {
		req, err := http.NewRequest(method, srv.root+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		res, err := srv.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	decide := `{"ruleset_id": "demo/fmla", "field_values": {}}`
	for range 2 { // the second is answered from the decision cache
		if status := do(http.MethodPost, "/decide", key, decide); status != http.StatusOK {
			t.Fatalf("decide: %d", status)
		}
	}
	_, before := scrape(t, srv)
	seriesBefore := 0
	for _, f := range before {
		seriesBefore += f.series
	}

	checks := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"eligo_http_requests_total", map[string]string{"route": "decide", "method": "POST", "code": "2xx"}, 2},
		{"eligo_http_request_duration_seconds", map[string]string{"route": "decide"}, 2},
		{"eligo_decisions_total", map[string]string{"kind": "ruleset", "cache": "miss", "outcome": "undetermined"}, 1},
		{"eligo_decisions_total", map[string]string{"kind": "ruleset", "cache": "hit"}, 1},
		{"eligo_decision_evaluation_seconds", nil, 1},
		{"eligo_decision_planning_seconds", nil, 1},
		{"eligo_metering_requests_total", map[string]string{"class": "decide", "tier": "starter", "result": "admitted"}, 2},
		{"eligo_cache_lookups_total", map[string]string{"cache": "references"}, 2},
		{"eligo_cache_lookups_total", map[string]string{"cache": "content", "result": "miss"}, 1},
		{"eligo_db_pool_acquires_total", nil, 1},
		{"eligo_decision_log_records_total", map[string]string{"event": "written"}, 2},
		{"go_goroutines", nil, 1},
		{"process_resident_memory_bytes", nil, 1},
	}
	for _, c := range checks {
		if got := before[c.family].sum(c.labels); got < c.want {
			t.Errorf("%s%v = %v, want at least %v", c.family, c.labels, got, c.want)
		}
	}

	// The spool ships the two records to the table within moments.
	waitFor(t, "the spool to ship both records", func() bool {
		_, now := scrape(t, srv)
		return now["eligo_decision_log_shipped_total"].sum(nil) >= 2
	})
	if _, ok := before["eligo_decision_log_spool_bytes"]; !ok {
		t.Error("no eligo_decision_log_spool_bytes: the spool's lag is not exported")
	}
	if _, ok := before["eligo_decision_log_oldest_unshipped_seconds"]; !ok {
		t.Error("no eligo_decision_log_oldest_unshipped_seconds")
	}

	// A thousand unknown slugs and a thousand unknown keys: counted, and
	// in no new series.
	for i := range 1000 {
		do(http.MethodGet, "/rulesets/demo%2Fnothing-"+strconv.Itoa(i)+"/schema", "", "")
		do(http.MethodGet, "/rulesets", "elg_"+strconv.Itoa(10_000_000+i)+"_nokey", "")
	}
	text, after := scrape(t, srv)
	if got := after["eligo_http_requests_total"].sum(map[string]string{"route": "get-ruleset-schema", "code": "4xx"}); got < 1000 {
		t.Errorf("404s counted %v, want 1000", got)
	}
	seriesAfter := 0
	for _, f := range after {
		seriesAfter += f.series
	}
	// The 404s and 401s add a few series (a route id and a status class
	// each), never one per slug or key.
	if seriesAfter-seriesBefore > 20 {
		t.Errorf("2,000 distinct slugs and keys added %d series", seriesAfter-seriesBefore)
	}
	for _, banned := range []string{"nothing-", "nokey", "demo/fmla"} {
		if strings.Contains(text, banned) {
			t.Errorf("a label carries caller input %q", banned)
		}
	}

	// promtool's lint: names, units, help text.
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "eligo_") && !strings.Contains(l, "_bucket") {
			t.Log(l)
		}
	}
	lint := exec.Command("promtool", "check", "metrics")
	lint.Stdin = strings.NewReader(text)
	if out, err := lint.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestMetricsFamiliesExistAtStart: a server that has answered nothing yet
// already exposes every labelled family at zero for its known label sets
// (outcomes, decision kinds, metering classes and tiers, caches, log
// events, job kinds and states, models and generation outcomes), so that
// rate() and alerts over them see a series from the first scrape.
func TestMetricsFamiliesExistAtStart(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--database-url", storetest.New(t).Config().ConnString(), "--metrics-addr", "127.0.0.1:0")
	defer srv.stop(t)
	_, fresh := scrape(t, srv)
	for _, c := range []struct {
		family string
		labels map[string]string
	}{
		{"eligo_decisions_total", map[string]string{"outcome": "not_eligible", "kind": "rulebook", "cache": "hit"}},
		{"eligo_decisions_total", map[string]string{"outcome": "eligible", "kind": "ruleset", "cache": "miss"}},
		{"eligo_metering_requests_total", map[string]string{"class": "decide", "tier": "anonymous", "result": "refused"}},
		{"eligo_metering_requests_total", map[string]string{"class": "generate", "tier": "internal", "result": "admitted"}},
		{"eligo_cache_lookups_total", map[string]string{"cache": "rulebooks", "result": "miss"}},
		{"eligo_decision_log_records_total", map[string]string{"event": "backlogged"}},
		{"eligo_jobs_total", map[string]string{"kind": "generate", "state": "failed"}},
		{"eligo_jobs_total", map[string]string{"kind": "decision_partitions", "state": "cancelled"}},
		{"eligo_generations_total", map[string]string{"model": "gpt-4.1", "outcome": "failing_tests"}},
		{"eligo_generation_rounds_total", map[string]string{"model": "gpt-4.1"}},
		{"eligo_generation_tokens_total", map[string]string{"model": "gpt-4.1"}},
	} {
		if !fresh[c.family].has(c.labels) {
			t.Errorf("a fresh server has no %s%v", c.family, c.labels)
		}
	}
}

// has reports whether the family has a series with exactly labels.
func (f *families) has(labels map[string]string) bool {
	if f == nil {
		return false
	}
	for _, s := range f.samples {
		if maps.Equal(s.labels, labels) {
			return true
		}
	}
	return false
}

// TestMetricsLabelsStayBounded sends what an attacker would to grow the
// scrape: hundreds of invented methods (some of 16 KB), invented paths,
// preflights asking for invented methods, unknown keys, origins, request
// ids and forwarded addresses, all anonymous. No label of any family may
// carry any of it: the series stay within their fixed sets and the page
// keeps its size.
func TestMetricsLabelsStayBounded(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--database-url", storetest.New(t).Config().ConnString(), "--metrics-addr", "127.0.0.1:0")
	defer srv.stop(t)
	// One of each ordinary request first, so that the series they add are
	// in the baseline.
	send := func(method, path string, headers map[string]string) {
		req, err := http.NewRequest(method, srv.root+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		res, err := srv.client.Do(req)
		if err != nil {
			t.Fatalf("%.40s %s: %v", method, path, err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions, "BREW"} {
		send(m, "/rulesets", nil)
		send(m, "/no/such/path", nil)
	}
	baseText, base := scrape(t, srv)
	baseSeries := 0
	for _, f := range base {
		baseSeries += f.series
	}

	const marker = "zqxj"
	for i := range 400 {
		method := marker + strconv.Itoa(i)
		if i%4 == 0 {
			method += strings.Repeat("X", 16<<10)
		}
		send(method, "/rulesets", nil)
		send(method, "/"+marker+strconv.Itoa(i), nil)
		send(http.MethodGet, "/"+marker+"/"+strconv.Itoa(i), map[string]string{
			"X-Api-Key": "elg_" + marker + strconv.Itoa(i) + "_nokey", "Origin": "https://" + marker + strconv.Itoa(i) + ".example",
			"X-Request-Id": marker + strconv.Itoa(i), "X-Forwarded-For": "10.9." + strconv.Itoa(i%250) + ".1",
		})
		send(http.MethodOptions, "/decide", map[string]string{
			"Origin": "https://" + marker + ".example", "Access-Control-Request-Method": marker + strconv.Itoa(i),
		})
	}
	text, after := scrape(t, srv)
	afterSeries := 0
	for _, f := range after {
		afterSeries += f.series
	}
	t.Logf("series %d -> %d; scrape %d -> %d bytes", baseSeries, afterSeries, len(baseText), len(text))
	if strings.Contains(text, marker) {
		i := strings.Index(text, marker)
		t.Errorf("a label carries caller input: ...%.200s", text[max(0, i-100):])
	}
	// Methods outside the known set count as one value, "other", and
	// the preflights and 404s as routes already seen: a few series at
	// most, never one per request.
	if afterSeries-baseSeries > 10 {
		t.Errorf("1,600 invented requests added %d series (from %d)", afterSeries-baseSeries, baseSeries)
	}
	if len(text) > len(baseText)+32<<10 {
		t.Errorf("the scrape grew from %d to %d bytes", len(baseText), len(text))
	}
}
