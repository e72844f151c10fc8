package rulesets

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// TestRulesetCatalogueOwn: own=true keeps the caller's tenant's own
// rulesets, public and private, and drops other tenants' public ones (a
// rulebook can compose only its tenant's); an anonymous caller has none.
func TestRulesetCatalogueOwn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/public", apitest.LeaveRules("1"), true)
	f.Publish(t, "acme", "acme/private", apitest.LeaveRules("2"), false)
	f.Publish(t, "globex", "globex/public", apitest.LeaveRules("3"), true)
	f.Publish(t, "globex", "globex/private", apitest.LeaveRules("4"), false)
	acme := apitest.WithKey(f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{}))
	for _, tc := range []struct {
		name, query string
		headers     map[string]string
		want        []string
	}{
		{"a key, all it may see", "", acme, []string{"acme/private", "acme/public", "globex/public"}},
		{"a key, its own", "?own=true", acme, []string{"acme/private", "acme/public"}},
		{"a key, own=false", "?own=false", acme, []string{"acme/private", "acme/public", "globex/public"}},
		{"own with a filter", "?own=true&q=private", acme, []string{"acme/private"}},
		{"anonymous, own", "?own=true", nil, []string{}},
	} {
		r := f.Do(t, http.MethodGet, "/rulesets"+tc.query, tc.headers, nil)
		if r.Status != http.StatusOK || !slices.Equal(slugsOf(t, r), tc.want) {
			t.Errorf("%s: %d %s, want %v", tc.name, r.Status, r.Raw, tc.want)
		}
	}
}
