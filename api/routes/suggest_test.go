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

// TestNotFoundSuggestsWhatTheCallerMaySee: a 404 for a misspelt slug names
// the nearest slug the caller may see, and never another tenant's private
// one (nor the owner's private one to an anonymous caller).
func TestNotFoundSuggestsWhatTheCallerMaySee(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	f.Publish(t, "acme", "acme/parental-leave", apitest.LeaveRules("12"), true)
	f.Publish(t, "acme", "acme/secret-leave", apitest.LeaveRules("6"), false)
	owner := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead, auth.ScopeRulebooksWrite, auth.ScopeRulebooksRead}, time.Time{})
	other := f.Key(t, "other", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	cases := []struct {
		name, key, ref, want string
	}{
		{"a public slug, misspelt, anonymously", "", "acme/parental-leav", `Did you mean "acme/parental-leave"?`},
		{"a public slug in other case", other, "acme/Parental-Leave", `Did you mean "acme/parental-leave"?`},
		{"the owner's private slug, to the owner", owner, "acme/secret-leav", `Did you mean "acme/secret-leave"?`},
		{"another tenant's private slug", other, "acme/secret-leav", ""},
		{"a private slug, anonymously", "", "acme/secret-leav", ""},
		{"nothing close", "", "zzz/nothing-like-it", ""},
	}
	for _, c := range cases {
		r := f.Do(t, http.MethodGet, apitest.RulesetPath(c.ref, "/schema"), apitest.WithKey(c.key), nil)
		detail, _ := r.Body.(map[string]any)["detail"].(string)
		if r.Status != http.StatusNotFound {
			t.Fatalf("%s: %d %s", c.name, r.Status, r.Raw)
		}
		if c.want == "" && strings.Contains(detail, "Did you mean") || c.want != "" && !strings.HasSuffix(detail, c.want) {
			t.Errorf("%s: detail %q, want suggestion %q", c.name, detail, c.want)
		}
		if strings.Contains(detail, `Did you mean "acme/secret`) && c.key != owner {
			t.Errorf("%s: the detail names a private slug: %q", c.name, detail)
		}
	}

	// Rulebooks: the caller's own, by slug.
	create := f.Do(t, http.MethodPost, "/rulebooks/", apitest.WithKey(owner), strings.NewReader(
		`{"name":"Leave","slug":"acme/leave-book","ruleset_refs":[{"section_id":"leave"}],"outcome_logic":{"section":"A"}}`))
	if create.Status != http.StatusCreated {
		t.Fatalf("create rulebook: %d %s", create.Status, create.Raw)
	}
	r := f.Do(t, http.MethodGet, "/rulebooks/acme%2Fleave-bok", apitest.WithKey(owner), nil)
	if detail, _ := r.Body.(map[string]any)["detail"].(string); r.Status != http.StatusNotFound || !strings.HasSuffix(detail, `Did you mean "acme/leave-book"?`) {
		t.Errorf("rulebook 404: %d %q", r.Status, detail)
	}
}

// TestMisspeltMemberSuggestsTheDeclaredOne: a body member the operation
// does not declare is refused as before (extra_forbidden), and the item
// says which declared member was probably meant, on an operation huma
// reads and on one that reads its own body (/decide).
func TestMisspeltMemberSuggestsTheDeclaredOne(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)
	key := f.Key(t, "acme", auth.AllScopes, time.Time{})
	cases := []struct {
		name, path, body, member, want string
	}{
		{"decide", "/decide", `{"ruleset_id":"acme/leave","field_values":{},"include_explaination":true}`, "include_explaination", "include_explanation"},
		{"create-project", "/projects/", `{"name":"Leave","sectoin_id":"leave"}`, "sectoin_id", "section_id"},
		{"nothing close", "/decide", `{"ruleset_id":"acme/leave","field_values":{},"zzzzzzzz":1}`, "zzzzzzzz", ""},
	}
	for _, c := range cases {
		r := f.Do(t, http.MethodPost, c.path, apitest.WithKey(key), strings.NewReader(c.body))
		if r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d %s", c.name, r.Status, r.Raw)
		}
		found := false
		for _, it := range r.Body.(map[string]any)["detail"].([]any) {
			item := it.(map[string]any)
			loc := item["loc"].([]any)
			if item["type"] != "extra_forbidden" || len(loc) != 2 || loc[1] != c.member {
				continue
			}
			found = true
			msg := item["msg"].(string)
			if !strings.HasPrefix(msg, "Extra inputs are not permitted") {
				t.Errorf("%s: msg %q lost pydantic's wording", c.name, msg)
			}
			if c.want == "" && strings.Contains(msg, "did you mean") || c.want != "" && !strings.HasSuffix(msg, `did you mean "`+c.want+`"?`) {
				t.Errorf("%s: msg %q, want suggestion %q", c.name, msg, c.want)
			}
		}
		if !found {
			t.Errorf("%s: no extra_forbidden item for %s: %s", c.name, c.member, r.Raw)
		}
	}
}
