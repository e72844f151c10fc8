package rulebooks

import (
	"net/http"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
)

// Promoting a candidate over a public live cut keeps the section public:
// the prior cut is archived by the promotion, so the candidate takes its
// visibility, and an anonymous caller still decides by the slug, now on
// the candidate. A candidate citing project artefacts can never be public,
// so its promotion over a public cut is refused, and nothing changes.
func TestPromoteKeepsAPublicSectionPublic(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite, auth.ScopeDecide}, time.Time{})
	f.Publish(t, "acme", "acme/age", section("age", "person.age", "int", "person.age >= 18"), true)
	live := f.Publish(t, "acme", "acme/income", section("income", "household.income", "decimal", "household.income <= 2000"), true).RulesetID
	b := &book{f: f, key: key}
	r := b.do(t, http.MethodPost, "/rulebooks/", `{"name":"Benefits","slug":"acme/benefits","ruleset_refs":[{"section_id":"age"},{"section_id":"income"}]}`)
	want(t, r, http.StatusCreated, "create")
	id := r.Field(t, "rulebook_id").(string)
	want(t, b.do(t, http.MethodPost, rulebookPath(id, "/activate"), ""), http.StatusOK, "activate")
	path := rulebookPath(id, "/rulesets/income/promote-to-live")
	anonymous := func(name string, wantID string) {
		t.Helper()
		d := f.Decide(t, "", `{"ruleset_id":"acme/income","field_values":{"household.income":2500}}`)
		if d.Status != http.StatusOK || d.Field(t, "ruleset_id") != wantID {
			t.Fatalf("%s: anonymous decision by slug %d %s, want 200 on %s", name, d.Status, d.Raw, wantID)
		}
	}
	anonymous("before", live)

	artefacts := []byte(`section income
source memo "Internal memo" artefact "project:p1/source:s1" licence "proprietary"
field household.income decimal weight 1
group rule all "The rule" {
  criterion holds "The condition holds" {
    household.income <= 2600
    cite memo "the condition"
  }
}
`)
	private := f.Publish(t, "acme", "acme/income-next", artefacts, false).RulesetID
	r = b.do(t, http.MethodPost, path, `{"ruleset_id":"`+private+`"}`)
	if r.Status != http.StatusUnprocessableEntity || reason(r) != api.ReasonArtefactPublicVisibility {
		t.Fatalf("promoting artefact-citing rules over a public cut: %d %s", r.Status, r.Raw)
	}
	anonymous("after a refused promotion", live)

	candidate := f.Publish(t, "acme", "acme/income", section("income", "household.income", "decimal", "household.income <= 3000"), false).RulesetID
	want(t, b.do(t, http.MethodPost, path, `{"ruleset_id":"`+candidate+`"}`), http.StatusOK, "promote")
	anonymous("after the promotion", candidate)
}
