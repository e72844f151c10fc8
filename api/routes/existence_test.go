package routes

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// TestExistenceIsNotTimed: another tenant's private ruleset, a slug that
// does not exist and a misspelt public slug (whose 404 suggests the public
// one) are all 404 and take the same time, so that nobody can tell by
// timing that a private slug exists, nor whether a suggestion was found. It compares the median ratio of
// interleaved calls after a warm-up (it used to be 0.29 ms for the private
// slug, cached whoever owned it, against 0.51 ms for the missing one, read
// from the database every time).
func TestExistenceIsNotTimed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	f.Publish(t, "acme", "acme/secret", apitest.LeaveRules("12"), false)
	f.Publish(t, "acme", "acme/public-leave", apitest.LeaveRules("6"), true)
	key := f.Key(t, "other", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	private, missing := apitest.RulesetPath("acme/secret", "/schema"), apitest.RulesetPath("acme/nosuch", "/schema")
	misspelt := apitest.RulesetPath("acme/public-leav", "/schema")
	headers := apitest.WithKey(key)
	call := func(path string) time.Duration {
		start := time.Now()
		r := f.Do(t, http.MethodGet, path, headers, nil)
		elapsed := time.Since(start)
		if r.Status != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", path, r.Status)
		}
		return elapsed
	}
	for range 20 { // warm-up: connections, caches
		call(private)
		call(missing)
		call(misspelt)
	}
	// Each round times the three 404s back to back, so that a load spike
	// on the machine falls on all three alike, and compares them as
	// pairs: the median of the rounds' ratios. A leak shows in every
	// attempt; load that happens to fall on one kind of call does not, so
	// the check is made up to three times before it fails.
	const n, attempts = 300, 3
	median := func(r []float64) float64 {
		slices.Sort(r)
		return r[len(r)/2]
	}
	apart := func(ratio float64) bool { return ratio > 1.15 || ratio < 1/1.15 }
	var private2missing, misspelt2missing float64
	for range attempts {
		var pm, sm []float64
		for range n {
			p, m, s := call(private), call(missing), call(misspelt)
			pm, sm = append(pm, float64(p)/float64(m)), append(sm, float64(s)/float64(m))
		}
		private2missing, misspelt2missing = median(pm), median(sm)
		if !apart(private2missing) && !apart(misspelt2missing) {
			t.Logf("median ratios to a missing slug: private %.2f, misspelt %.2f", private2missing, misspelt2missing)
			return
		}
	}
	if apart(private2missing) {
		t.Errorf("a 404 for another tenant's private slug takes %.2f times one for a missing slug: the time tells them apart", private2missing)
	}
	if apart(misspelt2missing) {
		t.Errorf("a 404 with a suggestion takes %.2f times one without: the time tells them apart", misspelt2missing)
	}
}
