package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eligo/eligo/api/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// startServe runs `eligo serve` with args on a free port and returns its
// base URL and a channel that yields serve's result once ctx ends.
func startServe(t *testing.T, ctx context.Context, args ...string) (string, <-chan error) {
	t.Helper()
	out, outWriter := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, append([]string{"--addr", "127.0.0.1:0", "--shutdown-timeout", "5s"}, args...), outWriter, io.Discard)
		outWriter.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v (serve: %v)", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return strings.TrimSpace(strings.TrimPrefix(line, "eligo serving on ")), done
}

// TestTwoServesShareOneBudget runs two `eligo serve` instances, each with
// its own pool and meter, on one database with a budget override, and sends
// one key's requests to both: the accepted count lies between the budget
// and the budget plus one server's slack, and after shutdown the database
// holds exactly the accepted count.
func TestTwoServesShareOneBudget(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	st := store.New(pool)
	key, _, _, err := auth.IssueKey(context.Background(), st, auth.KeyRequest{TenantID: "acme", Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Tier: auth.TierFree})
	if err != nil {
		t.Fatal(err)
	}
	const budget = 40
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var bases []string
	var dones []<-chan error
	for range 2 {
		base, done := startServe(t, ctx, "--database-url", dbURL, "--budgets", "free.rulesets=40")
		bases, dones = append(bases, base), append(dones, done)
	}

	var accepted, refused atomic.Int64
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 20 {
				req, _ := http.NewRequest(http.MethodGet, bases[(g+i)%2]+"/rulesets", nil)
				req.Header.Set("x-api-key", key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				switch res.StatusCode {
				case http.StatusOK:
					accepted.Add(1)
				case http.StatusTooManyRequests:
					refused.Add(1)
				default:
					t.Errorf("status %d", res.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	cancel()
	for _, done := range dones {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not stop")
		}
	}

	keys, err := st.ListAPIKeys(context.Background(), "acme")
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v %v", keys, err)
	}
	w := metering.WindowEnding(time.Now(), metering.WindowHours)
	stored, err := st.UsageSum(context.Background(), metering.KeySubject(keys[0].ID), string(metering.ClassRulesets), w.First, w.Last)
	if err != nil {
		t.Fatal(err)
	}
	slack := metering.New(metering.Config{}, nil).Slack(budget)
	t.Logf("120 requests, budget %d: accepted %d, refused %d, stored %d (slack %d)", budget, accepted.Load(), refused.Load(), stored, slack)
	if stored != accepted.Load() || accepted.Load() < budget || accepted.Load() > budget+slack || accepted.Load()+refused.Load() != 120 {
		t.Fatalf("accepted %d, refused %d, stored %d: want stored = accepted, between %d and %d", accepted.Load(), refused.Load(), stored, budget, budget+slack)
	}
}
