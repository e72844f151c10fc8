package routes

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// TestJSONBodiesNeedAJSONContentType: the two operations that read their
// body raw refuse a body sent as text or as a form with 415, as huma does
// for every other operation, keyed and anonymous alike; JSON media types
// (with parameters, or +json) and an absent Content-Type are read.
func TestJSONBodiesNeedAJSONContentType(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide, auth.ScopeRulesetsRead}, time.Time{})
	leave := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true).RulesetID
	decide := `{"ruleset_id":"acme/leave","field_values":{}}`
	explain := `{"field_values":{},"expected_outcome":"eligible"}`
	for _, c := range []struct {
		contentType string
		want        int
	}{
		{"text/plain", http.StatusUnsupportedMediaType},
		{"application/x-www-form-urlencoded", http.StatusUnsupportedMediaType},
		{"multipart/form-data; boundary=x", http.StatusUnsupportedMediaType},
		{"application/json; charset=utf-8", http.StatusOK},
		{"application/problem+json", http.StatusOK},
		{"", http.StatusOK},
	} {
		for _, k := range []string{"", key} {
			headers := map[string]string{}
			if c.contentType != "" {
				headers["Content-Type"] = c.contentType
			}
			if k != "" {
				headers["X-Api-Key"] = k
			}
			for path, body := range map[string]string{"/decide": decide, apitest.RulesetPath(leave, "/explain-failure"): explain} {
				r := f.Do(t, http.MethodPost, path, headers, strings.NewReader(body))
				if r.Status != c.want {
					t.Errorf("%s as %q (keyed %v): %d %s, want %d", path, c.contentType, k != "", r.Status, r.Raw, c.want)
				}
				if c.want == http.StatusUnsupportedMediaType && !strings.Contains(r.Raw, api.ReasonUnsupportedMediaType) {
					t.Errorf("%s as %q: %s, want reason %s", path, c.contentType, r.Raw, api.ReasonUnsupportedMediaType)
				}
			}
		}
	}
}

// TestValidationNeverEchoesFieldValues: a 422 about a body with answers in
// it (a missing expected_outcome, an unknown member) names the problem
// without sending the answers back.
func TestValidationNeverEchoesFieldValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	leave := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true).RulesetID
	const secret = "applicant-secret-answer"
	for path, body := range map[string]string{
		apitest.RulesetPath(leave, "/explain-failure"): `{"field_values":{"employee.note":"` + secret + `"}}`,
		"/decide": `{"ruleset_id":"acme/leave","field_values":{"employee.note":"` + secret + `"},"nope":1}`,
	} {
		r := f.Do(t, http.MethodPost, path, map[string]string{"Content-Type": "application/json"}, strings.NewReader(body))
		if r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s, want 422", path, r.Status, r.Raw)
		}
		if strings.Contains(r.Raw, secret) {
			t.Errorf("%s: the 422 echoes the answers: %s", path, r.Raw)
		}
	}
}

// TestBodyCapsByTier: a keyed body over its tier's cap is refused with 413
// before it is read, while a tier with a larger cap reads the same body
// (here into a 422 about its content).
func TestBodyCapsByTier(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	free := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	pro := apitest.TierKey(t, f.Store, auth.TierPro, auth.ScopeDecide)
	body := `{"ruleset_id":"` + strings.Repeat("x", 17<<20) + `"}`
	for key, want := range map[string]int{free: http.StatusRequestEntityTooLarge, pro: http.StatusUnprocessableEntity} {
		r := f.Do(t, http.MethodPost, "/decide", map[string]string{"Content-Type": "application/json", "X-Api-Key": key}, strings.NewReader(body))
		if r.Status != want {
			t.Errorf("a 17 MiB body: %d %.200s, want %d", r.Status, r.Raw, want)
		}
	}
}
