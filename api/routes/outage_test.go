package routes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestDecideAnswersThroughADatabaseOutage serves the whole interface in
// spool mode over a database reached through a TCP proxy, cuts the proxy
// (every connection dropped, none accepted) while /decide runs from eight
// connections, and finds every decision answered 200 during the outage:
// by slug, by a released rulebook and by a live one, all resolved before
// the outage (the reference cache's TTL is a millisecond, so each is
// served as it was resolved recently, not as a fresh entry), with a key
// seen before the outage (checked on its recent row) and metered within
// the outage share of its budget, the record going to the spool. /readyz says the log's database is
// unavailable with records spooled; once the proxy is back and the server
// closed, every answered decision is in the table, and the usage counted
// during the outage too.
func TestDecideAnswersThroughADatabaseOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	direct := storetest.New(t)
	proxied, outage := storetest.Proxied(t, direct)

	quiet := slog.New(slog.DiscardHandler)
	cfg := Config{Config: wiring.Config{
		API:         api.Config{Logger: quiet, KeyCacheTTL: time.Millisecond},
		Catalog:     catalog.Config{RefTTL: time.Millisecond},
		DecisionLog: decisionlog.Config{Spool: decisionlog.SpoolConfig{Dir: t.TempDir(), ShipInterval: 20 * time.Millisecond}},
	}}
	sv, err := wiring.NewServices(store.New(proxied), cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	s := NewWith(cfg, sv)
	srv := httptest.NewServer(s.Handler())
	closed := false
	t.Cleanup(func() {
		if !closed { // the test failed: bring the database back, then stop
			// A reference no cache holds needs the database: a transient 503 to
			// retry, never a 500.
			unknown, _ := http.NewRequest(http.MethodPost, srv.URL+api.RootPath+"/decide",
				strings.NewReader(`{"ruleset_id":"acme/never-resolved","field_values":{}}`))
			unknown.Header.Set("Content-Type", "application/json")
			if res, err := srv.Client().Do(unknown); err != nil {
				t.Fatal(err)
			} else {
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(raw), api.ReasonDatabaseUnavailable) || res.Header.Get("Retry-After") == "" {
					t.Errorf("an uncached reference during the outage: %d %s", res.StatusCode, raw)
				}
			}

			outage.Restore()
			srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = s.Close(ctx)
		}
	})
	if _, err := sv.Publisher.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "leave.rules",
		Source: apitest.LeaveRules("12"), Slug: "acme/leave", Visibility: publish.VisibilityOf(true), Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	// Two rulebooks over it: one released, one decided live.
	book := publish.RulebookDraft{Slug: "acme/released", Refs: &[]publish.RefRequest{{SectionID: "leave", PinMode: store.PinLatestActive}}, Actor: "test"}
	if rb, err := sv.Publisher.CreateRulebook(ctx, "acme", book); err != nil {
		t.Fatal(err)
	} else if _, err := sv.Publisher.Activate(ctx, "acme", rb.ID, "test"); err != nil {
		t.Fatal(err)
	}
	book.Slug = "acme/live"
	if _, err := sv.Publisher.CreateRulebook(ctx, "acme", book); err != nil {
		t.Fatal(err)
	}
	targets := []string{`"ruleset_id":"acme/leave"`, `"rulebook_id":"acme/released"`, `"rulebook_id":"acme/live"`}
	// An internal key: its outage share (5% of 100,000,000) covers the
	// load. Its row is read before the outage, as a busy key's is.
	key := apitest.TierKey(t, store.New(direct), auth.TierInternal, auth.ScopeDecide)
	decide := func(client *http.Client, i int) (status int, body, id string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+api.RootPath+"/decide", strings.NewReader(
			fmt.Sprintf(`{%s,"field_values":{"employment.months":%d}}`, targets[i%len(targets)], i%40)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", key)
		res, err := client.Do(req)
		if err != nil {
			return 0, err.Error(), ""
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var env struct {
			DecisionID string `json:"decision_id"`
		}
		_ = json.Unmarshal(raw, &env)
		return res.StatusCode, string(raw), env.DecisionID
	}
	var answered []string
	for i := range 40 { // resolve and load the targets, and fill the decision cache for half the inputs
		if status, body, id := decide(srv.Client(), i); status != http.StatusOK {
			t.Fatalf("before the outage: %d %s", status, body)
		} else {
			answered = append(answered, id)
		}
	}

	outage.Cut()
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	for w := range 8 {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}}
			for i := range 60 {
				status, body, id := decide(client, w*60+i)
				mu.Lock()
				if status == http.StatusOK {
					answered = append(answered, id)
				} else {
					failures = append(failures, fmt.Sprintf("%d %s", status, body))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d decisions during the outage failed, e.g. %s", len(failures), 480, failures[0])
	}
	// /readyz stays 200, "degraded", so that a load balancer keeps
	// sending decisions here.
	var ready struct {
		Status      string             `json:"status"`
		DecisionLog decisionlog.Status `json:"decision_log"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := srv.Client().Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&ready)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("/readyz during the outage: %d", res.StatusCode)
		}
		if err == nil && ready.DecisionLog.State == "database_unavailable" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz during the outage: %+v, %v", ready, err)
		}
	}
	if ready.Status != "degraded" || ready.DecisionLog.Mode != decisionlog.ModeSpool || ready.DecisionLog.Spool == nil ||
		ready.DecisionLog.Spool.Bytes == 0 || ready.DecisionLog.Spool.OldestAgeSeconds <= 0 {
		t.Errorf("/readyz during the outage: %+v %+v", ready, ready.DecisionLog.Spool)
	}

	outage.Restore()
	srv.Close()
	closing, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	closed = true
	if err := s.Close(closing); err != nil {
		t.Fatal(err)
	}
	missing, err := store.New(direct).MissingDecisionIDs(ctx, answered)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d decisions answered 200 are not in the table after the outage, e.g. %s", len(missing), len(answered), missing[0])
	}
	var counted int64
	if err := direct.QueryRow(ctx, `SELECT coalesce(sum(count), 0) FROM usage_buckets WHERE class = 'decide'`).Scan(&counted); err != nil {
		t.Fatal(err)
	}
	if counted != int64(len(answered)) {
		t.Errorf("%d decide units counted, want the %d decisions answered", counted, len(answered))
	}
}
