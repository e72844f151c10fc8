package main

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/metrics/metricstest"
	"github.com/eligo/eligo/store/storetest"
)

// TestChangesReachTheOtherServerAtOnce runs two `eligo serve` on one
// database, as two replicas behind a load balancer, with key and
// reference caches that would keep a row for ten minutes. A ruleset made
// private, a ruleset archived and a rulebook made private through one
// server, and a key revoked with `eligo keys revoke`, are refused by the
// other (which had each cached) long before any cache could expire: only
// the notification sent with each change can explain it.
func TestChangesReachTheOtherServerAtOnce(t *testing.T) {
	t.Parallel()
	dbURL := storetest.New(t).Config().ConnString()
	rules := filepath.Join("..", "..", "casebank", "us-fmla-employee", "us-fmla-employee.rules")
	for _, slug := range []string{"demo/fmla", "demo/fmla-archived"} {
		if code, out, errOut := eligo(t, "publish", "--database-url", dbURL, "--tenant", "demo", rules,
			"--public", "--slug", slug); code != 0 {
			t.Fatalf("publish %s exited %d: %q %q", slug, code, out, errOut)
		}
	}
	code, key, errOut := eligo(t, "keys", "create", "--database-url", dbURL, "--tenant", "demo", "--name", "replicas",
		"--tier", "internal", "--scopes", "decide,rulesets:write,rulebooks:write")
	if code != 0 {
		t.Fatalf("keys create exited %d: %q", code, errOut)
	}
	key = strings.TrimSpace(key)
	code, otherKey, errOut := eligo(t, "keys", "create", "--database-url", dbURL, "--tenant", "other", "--name", "reader",
		"--tier", "internal", "--scopes", "decide")
	if code != 0 {
		t.Fatalf("keys create exited %d: %q", code, errOut)
	}
	otherKey = strings.TrimSpace(otherKey)

	const ttl = "10m"
	args := []string{"--database-url", dbURL, "--worker=false", "--key-cache-ttl", ttl, "--ref-cache-ttl", ttl,
		"--budgets", "anonymous.decide=1000000", "--metrics-addr", "127.0.0.1:0"}
	a, b := startServe(t, args...), startServe(t, args...)
	defer a.stop(t)
	defer b.stop(t)

	// Both servers cache the key, and each ruleset's slug.
	for _, srv := range []*testServe{a, b} {
		for _, slug := range []string{"demo/fmla", "demo/fmla-archived"} {
			if got := srv.decide(t, key, slug); got != http.StatusOK {
				t.Fatalf("keyed decide on %s: %d", slug, got)
			}
			if got := srv.decide(t, "", slug); got != http.StatusOK {
				t.Fatalf("anonymous decide on %s: %d", slug, got)
			}
		}
	}

	// Made private through a: anonymous callers of b no longer find it.
	invalidationsBefore := metricstest.Sum(t, metricstest.Scrape(t, b.metrics), "eligo_catalog_invalidations_total", nil)
	if got := a.send(t, http.MethodPatch, "/rulesets/"+url.PathEscape("demo/fmla")+"/visibility", key,
		`{"visibility":"private"}`); got != http.StatusOK {
		t.Fatalf("make private: %d", got)
	}
	waitFor(t, "b to refuse the ruleset made private", func() bool { return b.decide(t, "", "demo/fmla") == http.StatusNotFound })
	// b counted the notification that made it drop the ruleset.
	if after := metricstest.Sum(t, metricstest.Scrape(t, b.metrics), "eligo_catalog_invalidations_total", nil); after <= invalidationsBefore {
		t.Errorf("b's eligo_catalog_invalidations_total stayed at %v after the change through a", after)
	}
	if got := b.decide(t, key, "demo/fmla"); got != http.StatusOK {
		t.Fatalf("the owner's decide on its private ruleset through b: %d", got)
	}

	// Archived through a: b no longer resolves its slug.
	if got := a.send(t, http.MethodPost, "/rulesets/"+url.PathEscape("demo/fmla-archived")+"/archive", key, ""); got != http.StatusOK {
		t.Fatalf("archive: %d", got)
	}
	waitFor(t, "b to refuse the archived slug", func() bool { return b.decide(t, key, "demo/fmla-archived") == http.StatusNotFound })

	// A public rulebook made private through a: another tenant's
	// decisions on b no longer find it.
	book := "/rulebooks/" + url.PathEscape("demo/book")
	for _, step := range []struct{ method, path, body string }{
		{http.MethodPost, "/rulebooks/", `{"name":"Book","slug":"demo/book","ruleset_refs":[{"section_id":"fmla_employee"}]}`},
		{http.MethodPost, book + "/activate", ""},
		{http.MethodPatch, book + "/visibility", `{"visibility":"public"}`},
	} {
		if got := a.send(t, step.method, step.path, key, step.body); got != http.StatusOK && got != http.StatusCreated {
			t.Fatalf("%s %s: %d", step.method, step.path, got)
		}
	}
	decideBook := `{"rulebook_id":"demo/book","field_values":{}}`
	if got := b.send(t, http.MethodPost, "/decide", otherKey, decideBook); got != http.StatusOK {
		t.Fatalf("another tenant's decide on the public rulebook: %d", got)
	}
	if got := a.send(t, http.MethodPatch, book+"/visibility", key, `{"visibility":"private"}`); got != http.StatusOK {
		t.Fatalf("make the rulebook private: %d", got)
	}
	waitFor(t, "b to refuse the rulebook made private", func() bool {
		return b.send(t, http.MethodPost, "/decide", otherKey, decideBook) == http.StatusNotFound
	})

	// Revoked from the command line: both servers refuse the key.
	prefix, _, err := auth.ParseKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := eligo(t, "keys", "revoke", "--database-url", dbURL, prefix); code != 0 {
		t.Fatalf("keys revoke exited %d: %q %q", code, out, errOut)
	}
	for name, srv := range map[string]*testServe{"a": a, "b": b} {
		waitFor(t, name+" to refuse the revoked key", func() bool { return srv.decide(t, key, "demo/fmla") == http.StatusUnauthorized })
	}
}

// --ref-cache-ttl sets how long the catalog reuses a resolved reference:
// the backstop should a notification be lost.
func TestParseServeRefCacheTTL(t *testing.T) {
	t.Parallel()
	def, err := parseServeConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	set, err := parseServeConfig([]string{"--ref-cache-ttl", "10m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if def.API.Catalog.RefTTL != catalog.DefaultRefTTL || set.API.Catalog.RefTTL != 10*time.Minute {
		t.Fatalf("reference cache TTL: default %v, set %v", def.API.Catalog.RefTTL, set.API.Catalog.RefTTL)
	}
	for _, bad := range []string{"0", "-1s", "soon"} {
		if _, err := parseServeConfig([]string{"--ref-cache-ttl", bad}, io.Discard); err == nil {
			t.Errorf("--ref-cache-ttl %s accepted", bad)
		}
	}
}

// waitFor polls cond until it holds and logs how long that took. It
// fails the test unless cond holds within a minute: far beyond a
// notification's delivery, far short of the ten-minute cache TTL that
// would otherwise explain the change.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > time.Minute {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
}

// decide posts a minimal /decide for slug with key (none when empty) and
// returns the status.
func (s *testServe) decide(t *testing.T, key, slug string) int {
	t.Helper()
	return s.send(t, http.MethodPost, "/decide", key, `{"ruleset_id":"`+slug+`","field_values":{}}`)
}

// send makes one request with key (none when empty) and returns the
// status.
func (s *testServe) send(t *testing.T, method, path, key, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, s.root+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
