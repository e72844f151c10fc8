package rulesets

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// Two published versions of a slug: the diff names who is affected, with
// a witness; a version against itself is equivalent; another tenant's
// private ruleset is not found, on either side.
func TestDiffOverHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	v1 := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), false)
	v2 := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("13"), false)
	other := f.Publish(t, "globex", "globex/leave", apitest.LeaveRules("6"), false)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	diff := func(id, against string) apitest.Response {
		return f.Do(t, http.MethodGet, "/rulesets/"+url.PathEscape(id)+"/diff?against="+url.QueryEscape(against), apitest.WithKey(key), nil)
	}
	r := diff(v2.RulesetID, v1.RulesetID)
	if r.Status != http.StatusOK {
		t.Fatalf("diff: %s", r.Raw)
	}
	body := r.Body.(map[string]any)
	changes := body["changes"].([]any)
	first := changes[0].(map[string]any)
	if body["equivalent"] != false || first["kind"] != "eligible_to_not_eligible" || first["witness"].(map[string]any)["employment.months"] != float64(12) ||
		body["ruleset_id"] != v2.RulesetID || body["against"] != v1.RulesetID {
		t.Fatalf("diff v1 -> v2: %s", r.Raw)
	}
	crit := first["criteria"].([]any)[0].(map[string]any)
	if crit["criterion_id"] != "tenure" || crit["old_status"] != "satisfied" || crit["new_status"] != "not_satisfied" {
		t.Fatalf("criteria: %v", crit)
	}
	if r := diff("acme/leave", v2.RulesetID); r.Status != 200 || r.Body.(map[string]any)["equivalent"] != true {
		t.Fatalf("the slug against its own cut: %s", r.Raw)
	}
	for _, pair := range [][2]string{{other.RulesetID, v1.RulesetID}, {v1.RulesetID, other.RulesetID}} {
		if r := diff(pair[0], pair[1]); r.Status != http.StatusNotFound {
			t.Errorf("another tenant's ruleset in a diff: %s", r.Raw)
		}
	}
	if r := f.Do(t, http.MethodGet, "/rulesets/"+v1.RulesetID+"/diff?against="+v1.RulesetID, nil, nil); r.Status != http.StatusUnauthorized {
		t.Errorf("an anonymous diff: %s", r.Raw)
	}
	if r := f.Do(t, http.MethodGet, "/rulesets/"+v1.RulesetID+"/diff", apitest.WithKey(key), nil); r.Status != 422 {
		t.Errorf("a diff without against: %s", r.Raw)
	}
}
