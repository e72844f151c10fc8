package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/store/storetest"
	"github.com/eligo/eligo/worker"
)

func TestParseServeConfig(t *testing.T) {
	t.Setenv("ELIGO_ADDR", "0.0.0.0:9000")
	t.Setenv("ELIGO_FIRST_PARTY_ORIGINS", "https://app.example, https://admin.example/")
	t.Setenv("ELIGO_TRUSTED_PROXIES", "10.0.0.0/8,fd00::/8")
	t.Setenv("ELIGO_KEYED_BODY_LIMIT", "")
	t.Setenv("ELIGO_SHUTDOWN_TIMEOUT", "3s")
	t.Setenv("ELIGO_DRAIN_DELAY", "4s")
	t.Setenv("ELIGO_GOGC", "")
	t.Setenv("GOGC", "")
	cfg, err := parseServeConfig([]string{"--addr", "127.0.0.1:9999"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:9999" {
		t.Errorf("flag should override env: addr %q", cfg.Addr)
	}
	if got := strings.Join(cfg.API.API.FirstPartyOrigins, " "); got != "https://app.example https://admin.example" {
		t.Errorf("origins %q", got)
	}
	if len(cfg.API.API.TrustedProxies) != 2 || cfg.API.API.TrustedProxies[1] != netip.MustParsePrefix("fd00::/8") {
		t.Errorf("proxies %v", cfg.API.API.TrustedProxies)
	}
	if cfg.API.API.KeyedBodyLimit != 32<<20 || cfg.ShutdownTimeout != 3*time.Second || cfg.DrainDelay != 4*time.Second {
		t.Errorf("limit %d timeout %v drain %v", cfg.API.API.KeyedBodyLimit, cfg.ShutdownTimeout, cfg.DrainDelay)
	}
	for _, bad := range []string{"-1s", "soon"} {
		if _, err := parseServeConfig([]string{"--drain-delay", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), "--drain-delay") {
			t.Errorf("--drain-delay %s: %v", bad, err)
		}
	}
	if cfg.API.DecisionLog.Buffered || cfg.Conns.Max != 4096 || cfg.Conns.PerClient != 256 {
		t.Errorf("defaults: buffered records %v, connection caps %d and %d", cfg.API.DecisionLog.Buffered, cfg.Conns.Max, cfg.Conns.PerClient)
	}
	if cfg.API.DecisionLog.Spool.Dir != defaultSpoolDir || !cfg.SpoolFallback || cfg.API.DecisionLog.Spool.Fsync || cfg.API.DecisionLog.Spool.MaxBytes != 1<<30 {
		t.Errorf("decision log defaults: spool %+v, fallback %v", cfg.API.DecisionLog.Spool, cfg.SpoolFallback)
	}
	for _, tc := range []struct {
		args     []string
		spool    string
		buffered bool
	}{
		{[]string{"--decision-log-mode", "spool", "--decision-spool", "/var/lib/eligo/spool", "--decision-spool-fsync"}, "/var/lib/eligo/spool", false},
		{[]string{"--decision-log-mode", "database"}, "", false},
		{[]string{"--decision-log-mode", "buffered"}, "", true},
	} {
		got, err := parseServeConfig(tc.args, io.Discard)
		if err != nil || got.API.DecisionLog.Spool.Dir != tc.spool || got.API.DecisionLog.Buffered != tc.buffered || got.SpoolFallback {
			t.Errorf("%v: spool %q, buffered %v, fallback %v, %v", tc.args, got.API.DecisionLog.Spool.Dir, got.API.DecisionLog.Buffered, got.SpoolFallback, err)
		}
	}
	if cfg.DecisionRetention != (worker.Retention{}) {
		t.Errorf("default decision retention %v, want every record kept", cfg.DecisionRetention)
	}
	t.Setenv("ELIGO_DECISION_RETENTION", "400d")
	for args, want := range map[string]worker.Retention{"": {Days: 400}, "--decision-retention=13mo": {Months: 13}, "--decision-retention=0": {}} {
		got, err := parseServeConfig(strings.Fields(args), io.Discard)
		if err != nil || got.DecisionRetention != want {
			t.Errorf("%q with ELIGO_DECISION_RETENTION=400d: retention %v, %v; want %v", args, got.DecisionRetention, err, want)
		}
	}
	t.Setenv("ELIGO_DECISION_RETENTION", "")
	if small, err := parseServeConfig([]string{"--impact-small-count", "25"}, io.Discard); err != nil || small.API.Impact.SmallCount != 25 || cfg.API.Impact.SmallCount != 10 {
		t.Errorf("impact small count: default %d, --impact-small-count 25 gives %d, %v", cfg.API.Impact.SmallCount, small.API.Impact.SmallCount, err)
	}
	if cfg.GCPercent != defaultGCPercent {
		t.Errorf("default gogc %d, want %d", cfg.GCPercent, defaultGCPercent)
	}
	t.Setenv("GOGC", "150")
	if fromGo, err := parseServeConfig(nil, io.Discard); err != nil || fromGo.GCPercent != 150 {
		t.Errorf("Go's GOGC should be the fallback: %d, %v", fromGo.GCPercent, err)
	}
	if gcOff, err := parseServeConfig([]string{"--gogc", "off"}, io.Discard); err != nil || gcOff.GCPercent != -1 {
		t.Errorf("--gogc off: %d, %v", gcOff.GCPercent, err)
	}
	if cfg.API.API.KeyCacheTTL != 10*time.Second || cfg.API.Decide.CacheTTL != 10*time.Minute || !cfg.Worker {
		t.Errorf("defaults: key cache %v, decision cache %v, worker %v", cfg.API.API.KeyCacheTTL, cfg.API.Decide.CacheTTL, cfg.Worker)
	}

	// 0 turns each cache off; the decision cache says so with a negative
	// TTL, because api.Config's zero value means the default.
	off, err := parseServeConfig([]string{"--key-cache-ttl", "0", "--decision-cache-ttl", "0", "--worker=false"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if off.API.API.KeyCacheTTL != 0 || off.API.Decide.CacheTTL >= 0 || off.Worker {
		t.Errorf("off: key cache %v, decision cache %v, worker %v", off.API.API.KeyCacheTTL, off.API.Decide.CacheTTL, off.Worker)
	}

	for _, bad := range [][]string{
		{"--trusted-proxies", "10.0.0.1"},
		{"--keyed-body-limit", "1000"},
		{"--shutdown-timeout", "soon"},
		{"--key-cache-ttl", "-1s"},
		{"--decision-cache-ttl", "11m"},
		{"--decision-cache-ttl", "soon"},
		{"--gogc", "lots"},
		{"--gogc", "-5"},
		{"--decision-records", "durable"}, // the removed spelling of --decision-log-mode
		{"--decision-log-mode", "disk"},
		{"--decision-log-mode", "spool", "--decision-spool", ""},
		{"--decision-spool-max-bytes", "1000"},
		{"--max-connections", "0"},
		{"--body-timeout", "-1s"},
		{"--decision-retention", "1y"},
		{"--decision-retention", "30"},
		{"--impact-small-count", "9"}, // raised, never lowered
		{"--impact-small-count", "some"},
	} {
		if _, err := parseServeConfig(bad, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}

	// The removed environment spelling is refused, not ignored: ignoring
	// it would move a deployment that asked for database mode to the spool.
	t.Setenv("ELIGO_DECISION_RECORDS", "durable")
	if _, err := parseServeConfig(nil, io.Discard); err == nil || !strings.Contains(err.Error(), "ELIGO_DECISION_LOG_MODE") {
		t.Errorf("ELIGO_DECISION_RECORDS=durable: %v, want a refusal naming ELIGO_DECISION_LOG_MODE", err)
	}
}

func TestServeAnswersThenShutsDownOnCancel(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewEmpty(t).Config().ConnString()
	srv := startServe(t, "--database-url", dbURL)
	base := strings.TrimSuffix(srv.root, "/api/v1/public")
	res, err := srv.client.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var ready struct {
		DecisionLog struct {
			Mode  string `json:"mode"`
			State string `json:"state"`
			Spool *struct {
				Bytes int64 `json:"bytes"`
			} `json:"spool"`
		} `json:"decision_log"`
	}
	err = json.NewDecoder(res.Body).Decode(&ready)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("readyz: %d", res.StatusCode)
	}
	// The spool is the default decision log, and /readyz shows its state
	// and lag.
	if err != nil || ready.DecisionLog.Mode != "spool" || ready.DecisionLog.State != "ok" || ready.DecisionLog.Spool == nil {
		t.Errorf("readyz decision_log: %+v (%v)", ready.DecisionLog, err)
	}
	// stop fails unless serve returned cleanly, which it does only once
	// its listener is closed and in-flight requests are done. (Probing the
	// freed port afterwards would be unsound: any listener may get it.)
	srv.stop(t)
}

// With --drain-delay, a SIGTERM first turns /readyz to 503 "draining"
// while the server goes on answering every other request on its open
// connections, so that a load balancer's health check takes it out before
// its connections close; then it shuts down as without the delay.
func TestServeDrainsBeforeShuttingDown(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewEmpty(t).Config().ConnString()
	srv := startServe(t, "--database-url", dbURL, "--drain-delay", "10s")
	base := strings.TrimSuffix(srv.root, "/api/v1/public")
	get := func(path string) (int, string) {
		res, err := srv.client.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(raw)
	}
	if code, body := get("/readyz"); code != http.StatusOK || !strings.Contains(body, `"status":"ready"`) {
		t.Fatalf("before the signal, readyz: %d %s", code, body)
	}
	srv.cancel()
	// The drain lasts ten seconds, ample for the probes below: readyz
	// turns to draining, and the API still answers.
	var code int
	var body string
	for range 200 {
		if code, body = get("/readyz"); code == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"status":"draining"`) {
		t.Fatalf("after the signal, readyz: %d %s", code, body)
	}
	if code, body := get("/healthz"); code != http.StatusOK {
		t.Errorf("healthz while draining: %d %s", code, body)
	}
	if code, body := get("/api/v1/public/rulesets"); code != http.StatusOK {
		t.Errorf("the catalogue while draining: %d %s", code, body)
	}
	select {
	case err := <-srv.done:
		t.Fatalf("serve returned during the drain: %v", err)
	default:
	}
	// Then it shuts down cleanly.
	srv.client.CloseIdleConnections()
	select {
	case err := <-srv.done:
		if err != nil {
			t.Fatalf("serve returned %v after the drain", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("serve did not stop after the drain")
	}
}
