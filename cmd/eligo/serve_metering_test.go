package main

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

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
	var servers []*testServe
	for range 2 {
		servers = append(servers, startServe(t, "--database-url", dbURL, "--budgets", "free.rulesets=40"))
	}

	var accepted, refused atomic.Int64
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 20 {
				srv := servers[(g+i)%2]
				req, _ := http.NewRequest(http.MethodGet, srv.root+"/rulesets", nil)
				req.Header.Set("x-api-key", key)
				res, err := srv.client.Do(req)
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
	for _, srv := range servers {
		srv.stop(t)
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
