package projects

import (
	"net/http"
	"strings"
	"testing"
)

// A publish of rules whose effective period has ended answers 201 with
// warnings saying so (before today, and before the period of the version
// live under the slug), and the review's effective_period check warns the
// same; rules with a current period publish with no warnings.
func TestPublishWarnsOfEndedPeriod(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	withPeriod := func(effective string) string {
		return strings.Replace(grantRules, "section grant\n", "section grant\neffective "+effective+"\n", 1)
	}
	codes := func(body any) []string {
		var out []string
		for _, w := range list(t, obj(t, body)["warnings"]) {
			w := obj(t, w)
			if !strings.Contains(w["message"].(string), "effective period") {
				t.Errorf("warning %v does not say what it is about", w)
			}
			out = append(out, w["code"].(string))
		}
		return out
	}
	tests := []struct {
		name, effective string
		want            []string
		review          string
	}{
		{"open-ended, current", "2021-01-01", nil, "pass"},
		{"ended, before the live version", "2020-01-01 until 2020-12-31", []string{"period_ended", "period_before_live"}, "warn"},
	}
	for _, tt := range tests {
		want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": withPeriod(tt.effective)}), http.StatusOK)
		r := g.do(t, http.MethodPost, "/review", nil)
		want(t, r, http.StatusOK)
		var status string
		var evidence []any
		for _, c := range list(t, obj(t, r.Body)["checks"]) {
			if c := obj(t, c); c["id"] == "effective_period" {
				status, evidence = c["status"].(string), list(t, c["evidence"])
			}
		}
		if status != tt.review || tt.review == "warn" && !strings.Contains(r.Raw, "period_before_live: ") {
			t.Errorf("%s: effective_period %s %v, want %s", tt.name, status, evidence, tt.review)
		}
		r = g.do(t, http.MethodPost, "/publish", map[string]any{"slug": "acme/grant"})
		want(t, r, http.StatusCreated)
		if got := codes(r.Body); strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: publish warnings %v, want %v: %s", tt.name, got, tt.want, r.Raw)
		}
	}
}
