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
// timing that a private slug exists, nor whether a suggestion was found. It compares the medians of
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
	const n = 300
	var privateTimes, missingTimes, misspeltTimes []time.Duration
	for range n {
		privateTimes = append(privateTimes, call(private))
		missingTimes = append(missingTimes, call(missing))
		misspeltTimes = append(misspeltTimes, call(misspelt))
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	p, m := median(privateTimes), median(missingTimes)
	if ratio := float64(m) / float64(p); ratio > 1.15 || ratio < 1/1.15 {
		t.Errorf("median 404 for another tenant's private slug %v, for a missing slug %v (ratio %.2f): the time tells them apart", p, m, ratio)
	}
	if s := median(misspeltTimes); float64(s)/float64(m) > 1.15 || float64(s)/float64(m) < 1/1.15 {
		t.Errorf("median 404 with a suggestion %v, without %v: the time tells them apart", s, m)
	}
	t.Logf("medians: private %v, missing %v, misspelt %v", p, m, median(misspeltTimes))
}
