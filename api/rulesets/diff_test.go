package rulesets

import (
	"net/http"
	"net/url"
	"strings"
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

// A yearly update between published cuts: the diff says which threshold
// moved and by how much, and its witness is one the rules take (inside the
// field's range); an answer outside the range is a field error of an
// undetermined decision, HTTP 200.
func TestDiffThresholdsAndRangesOverHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	ranged := func(months string) []byte {
		text := string(apitest.LeaveRules(months))
		at := strings.Index(text, "field employment.months int")
		end := at + strings.IndexByte(text[at:], '\n')
		return []byte(text[:end] + "\n  range 0.." + text[end:])
	}
	v1 := f.Publish(t, "acme", "acme/ranged-leave", ranged("12"), true)
	v2 := f.Publish(t, "acme", "acme/ranged-leave", ranged("13"), true)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	r := f.Do(t, http.MethodGet, "/rulesets/"+url.PathEscape(v2.RulesetID)+"/diff?against="+url.QueryEscape(v1.RulesetID), apitest.WithKey(key), nil)
	if r.Status != http.StatusOK {
		t.Fatalf("diff: %s", r.Raw)
	}
	body := r.Body.(map[string]any)
	moved, _ := body["threshold_changes"].([]any)
	if len(moved) != 1 || moved[0].(map[string]any)["message"] != "criterion tenure: threshold changed from 12 to 13 (employment.months >=)" ||
		body["periods_set_aside"] != false {
		t.Fatalf("threshold_changes: %s", r.Raw)
	}
	for _, c := range body["changes"].([]any) {
		if m, ok := c.(map[string]any)["witness"].(map[string]any)["employment.months"].(float64); ok && m < 0 {
			t.Errorf("a witness outside the range: %s", r.Raw)
		}
	}
	status, decided := apitest.PostExact(t, f, "/decide", `{"ruleset_id": "`+v2.RulesetID+`", "field_values": {"employment.months": -1}}`)
	errs, _ := decided["field_errors"].([]any)
	if status != http.StatusOK || decided["decision"] != "undetermined" || len(errs) != 1 ||
		errs[0].(map[string]any)["field"] != "employment.months" ||
		errs[0].(map[string]any)["message"] != "-1 is outside the range the rules allow for this field: at least 0" {
		t.Fatalf("/decide with an answer outside the range: %d %v", status, decided)
	}
}
