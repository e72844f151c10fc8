package rulebooks

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/decide"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/auth"
)

// section is a one-criterion ruleset of section id over field, cut
// with condition.
func section(id, field, typ, condition string) []byte {
	return fmt.Appendf(nil, `section %s
source law "Test law" url "https://example.test/%s" licence "public-domain"
field %s %s weight 1
  question "What is %s?"
group rule all "The rule" {
  criterion holds "The condition holds" {
    %s
    cite law "the condition"
  }
}
`, id, id, field, typ, field, condition)
}

// newFixture serves the rulebooks, /decide and the ruleset reads.
func newFixture(t testing.TB) *apitest.Fixture {
	t.Helper()
	return apitest.New(t, api.Config{Metering: apitest.GenerousMetering()}, func(s *api.Server, sv apitest.Services) {
		Register(s, Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Store: sv.Store})
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Store: sv.Store})
		decide.Register(s, decide.Deps{Catalog: sv.Catalog, Store: sv.Store}, decide.Config{})
	})
}

// book is a tenant's three-section benefits rulebook under test.
type book struct {
	f              *apitest.Fixture
	key            string
	age, res, inc  string
	incomeCutV2    string
	rulebookID     string
	firstRelease   map[string]any
	secondRelease  map[string]any
	allScopesOwner []auth.Scope
}

func rulebookPath(ref, rest string) string { return "/rulebooks/" + url.PathEscape(ref) + rest }

func (b *book) do(t *testing.T, method, path, body string) apitest.Response {
	t.Helper()
	var reader *strings.Reader
	if body != "" {
		reader = strings.NewReader(body)
	}
	if reader == nil {
		return b.f.Do(t, method, path, apitest.WithKey(b.key), nil)
	}
	return b.f.Do(t, method, path, apitest.WithKey(b.key), reader)
}

func want(t *testing.T, r apitest.Response, status int, what string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: %d %s, want %d", what, r.Status, r.Raw, status)
	}
}

func reason(r apitest.Response) any {
	d, _ := r.Body.(map[string]any)["detail"].(map[string]any)
	return d["reason_code"]
}

// TestRulebookLifecycle walks the lifecycle over real HTTP: create
// empty, add references, activate, decide, publish a new cut (testing: no
// change), promote, decide by the old release's id and label (frozen) and
// by the current one, composition_pinned, member unresolved (draft
// unchanged), label reuse on identical content.
func TestRulebookLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := &book{f: f, key: f.Key(t, "acme", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite, auth.ScopeDecide, auth.ScopeRulesetsRead}, time.Time{})}
	b.age = f.Publish(t, "acme", "acme/age", section("age", "person.age", "int", "person.age >= 18"), false).RulesetID
	b.res = f.Publish(t, "acme", "acme/residence", section("residence", "person.resident", "bool", "person.resident"), false).RulesetID
	b.inc = f.Publish(t, "acme", "acme/income", section("income", "household.income", "decimal", "household.income <= 2000"), false).RulesetID

	r := b.do(t, http.MethodPost, "/rulebooks/", `{"name":"Benefits","slug":"acme/benefits","domain":"welfare"}`)
	want(t, r, http.StatusCreated, "create empty")
	if r.Field(t, "status") != "draft" || len(r.Field(t, "ruleset_refs").([]any)) != 0 || r.Field(t, "release") != nil {
		t.Fatalf("empty draft: %s", r.Raw)
	}
	b.rulebookID = r.Field(t, "rulebook_id").(string)

	r = b.do(t, http.MethodPatch, rulebookPath("acme/benefits", ""), `{"ruleset_refs":[{"section_id":"age"},{"section_id":"residence"},{"section_id":"income"}],
		"outcome_logic":{"op":"and","args":[{"section":"A"},{"section":"B"},{"section":"C"}]}}`)
	want(t, r, http.StatusOK, "add references")
	refs := r.Field(t, "ruleset_refs").([]any)
	if len(refs) != 3 || refs[2].(map[string]any)["ruleset_id"] != b.inc || refs[2].(map[string]any)["letter"] != "C" {
		t.Fatalf("references: %s", r.Raw)
	}

	// Before the first release /decide serves the live composition.
	answers := `{"person.age":30,"person.resident":true,"household.income":2500}`
	d := b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"acme/benefits","field_values":`+answers+`}`)
	want(t, d, http.StatusOK, "decide on the live composition")
	if d.Field(t, "decision") != "not_eligible" || d.Field(t, "release") != nil || d.Field(t, "ruleset_version") != "unknown" {
		t.Fatalf("live decision: %s", d.Raw)
	}

	r = b.do(t, http.MethodPost, rulebookPath(b.rulebookID, "/activate"), "")
	want(t, r, http.StatusOK, "activate")
	b.firstRelease = r.Field(t, "release").(map[string]any)
	if r.Field(t, "status") != "active" || b.firstRelease["version"] != float64(1) {
		t.Fatalf("activate: %s", r.Raw)
	}
	again := b.do(t, http.MethodPost, rulebookPath(b.rulebookID, "/activate"), "")
	want(t, again, http.StatusOK, "activate again")
	if !reflect.DeepEqual(again.Field(t, "release"), b.firstRelease) {
		t.Fatalf("activating identical content made a new release: %v, first %v", again.Field(t, "release"), b.firstRelease)
	}

	d = b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"`+b.rulebookID+`","field_values":`+answers+`,"include_choice_context":true}`)
	want(t, d, http.StatusOK, "decide")
	if d.Field(t, "decision") != "not_eligible" || d.Field(t, "rulebook_id") != b.rulebookID || d.Field(t, "ruleset_version") != "v1" ||
		d.Field(t, "content_digest") != b.firstRelease["content_identity"] || d.Field(t, "release").(map[string]any)["label"] != b.firstRelease["label"] {
		t.Fatalf("decision envelope: %s", d.Raw)
	}
	sections := d.Field(t, "section_results").([]any)
	if len(sections) != 3 || sections[2].(map[string]any)["decision"] != "not_eligible" || sections[0].(map[string]any)["decision"] != "eligible" {
		t.Fatalf("section_results: %v", sections)
	}
	if memberships := d.Field(t, "choice_context").(map[string]any)["field_sections"].(map[string]any); memberships["household.income"] != "income" {
		t.Fatalf("choice_context: %v", d.Field(t, "choice_context"))
	}
	rec := f.WaitForRecord(t, d.Field(t, "decision_id").(string))
	if rec.RulebookID != b.rulebookID || rec.ReleaseID != b.firstRelease["release_id"] {
		t.Fatalf("record names rulebook %q release %q", rec.RulebookID, rec.ReleaseID)
	}

	// A new cut of the income section is a candidate: nothing changes.
	b.incomeCutV2 = f.Publish(t, "acme", "acme/income", section("income", "household.income", "decimal", "household.income <= 3000"), false).RulesetID
	d = b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"acme/benefits","field_values":`+answers+`}`)
	if d.Field(t, "decision") != "not_eligible" {
		t.Fatalf("a candidate changed the rulebook before promotion: %s", d.Raw)
	}

	r = b.do(t, http.MethodPost, rulebookPath(b.rulebookID, "/rulesets/income/promote-to-live"), `{"ruleset_id":"`+b.incomeCutV2+`"}`)
	want(t, r, http.StatusOK, "promote")
	if r.Field(t, "presence_polarity_advisories") != nil {
		t.Fatalf("advisories: %s", r.Raw)
	}
	b.secondRelease = r.Field(t, "release").(map[string]any)
	promoted := r.Field(t, "rulebook").(map[string]any)
	if b.secondRelease["version"] != float64(2) || promoted["pinned"] != true {
		t.Fatalf("promotion: %s", r.Raw)
	}
	for _, ref := range promoted["ruleset_refs"].([]any) {
		if ref.(map[string]any)["pin_mode"] != "pinned" {
			t.Fatalf("a reference stayed floating after promotion: %v", ref)
		}
	}
	prior, err := f.Store.RulesetByRef(context.Background(), b.inc)
	if err != nil || prior.Status != "archived" {
		t.Fatalf("the prior live cut is %q, %v; want archived", prior.Status, err)
	}

	for _, release := range []string{b.firstRelease["release_id"].(string), b.firstRelease["label"].(string)} {
		d = b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"acme/benefits","release_id":"`+release+`","field_values":`+answers+`}`)
		want(t, d, http.StatusOK, "decide by old release "+release)
		if d.Field(t, "decision") != "not_eligible" || d.Field(t, "ruleset_version") != "v1" {
			t.Fatalf("release %s is not frozen: %s", release, d.Raw)
		}
	}
	d = b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"acme/benefits","field_values":`+answers+`}`)
	if d.Field(t, "decision") != "eligible" || d.Field(t, "ruleset_version") != "v2" {
		t.Fatalf("current release after promotion: %s", d.Raw)
	}

	// The family is pinned now.
	r = b.do(t, http.MethodPatch, rulebookPath(b.rulebookID, ""), `{"ruleset_refs":[{"section_id":"age"}]}`)
	want(t, r, http.StatusUnprocessableEntity, "floating reference in a pinned family")
	if reason(r) != api.ReasonCompositionPinned {
		t.Fatalf("pinned family: %s", r.Raw)
	}
	// A member that does not resolve leaves the draft unchanged.
	before := b.do(t, http.MethodGet, rulebookPath(b.rulebookID, ""), "")
	r = b.do(t, http.MethodPatch, rulebookPath(b.rulebookID, ""), `{"ruleset_refs":[{"section_id":"age","pin_mode":"pinned","ruleset_id":"age:20260101-000000000000"}]}`)
	want(t, r, http.StatusUnprocessableEntity, "member unresolved")
	if reason(r) != api.ReasonReleaseMemberUnresolved || !strings.Contains(r.Raw, "age:20260101-000000000000") {
		t.Fatalf("member unresolved: %s", r.Raw)
	}
	after := b.do(t, http.MethodGet, rulebookPath(b.rulebookID, ""), "")
	if !reflect.DeepEqual(before.Field(t, "ruleset_refs"), after.Field(t, "ruleset_refs")) {
		t.Fatalf("a refused edit changed the draft: %v then %v", before.Field(t, "ruleset_refs"), after.Field(t, "ruleset_refs"))
	}

	// An edit of a published family publishes; going back to identical
	// content reuses its release and label.
	r = b.do(t, http.MethodPatch, rulebookPath(b.rulebookID, ""), `{"outcome_logic":{"op":"or","args":[{"section":"A"},{"section":"C"}]}}`)
	want(t, r, http.StatusOK, "edit the outcome")
	third := r.Field(t, "release").(map[string]any)
	if third["version"] != float64(3) {
		t.Fatalf("edit of a published family: %s", r.Raw)
	}
	r = b.do(t, http.MethodPatch, rulebookPath(b.rulebookID, ""), `{"outcome_logic":null}`)
	want(t, r, http.StatusOK, "restore the outcome")
	if !reflect.DeepEqual(r.Field(t, "release"), b.secondRelease) {
		t.Fatalf("identical content did not reuse its release: %v, want %v", r.Field(t, "release"), b.secondRelease)
	}

	// The reads.
	s := b.do(t, http.MethodGet, rulebookPath("acme/benefits", "/schema?release_id="+b.firstRelease["label"].(string)), "")
	want(t, s, http.StatusOK, "schema")
	if len(s.Field(t, "fields").([]any)) != 3 || !reflect.DeepEqual(s.Field(t, "sections"), []any{"age", "residence", "income"}) ||
		s.Field(t, "release").(map[string]any)["version"] != float64(1) || s.Field(t, "engine_version") == "" {
		t.Fatalf("schema: %s", s.Raw)
	}
	e := b.do(t, http.MethodGet, rulebookPath(b.rulebookID, "/explain"), "")
	want(t, e, http.StatusOK, "explain")
	if len(e.Field(t, "sections").([]any)) != 3 {
		t.Fatalf("explain: %s", e.Raw)
	}
	for _, path := range []string{rulebookPath(b.rulebookID, "/graph"), "/rulebooks/acme/benefits/graph"} {
		g := b.do(t, http.MethodGet, path, "")
		want(t, g, http.StatusOK, "graph "+path)
		graph := g.Field(t, "graph").(map[string]any)
		if !reflect.DeepEqual(graph["sections"], []any{"acme/age", "acme/residence", "acme/income"}) {
			t.Fatalf("graph sections: %v", graph["sections"])
		}
		for _, n := range graph["nodes"].([]any) {
			if id := n.(map[string]any)["id"].(string); id != "outcome" && !strings.HasPrefix(id, "acme/") {
				t.Fatalf("graph node %s is not prefixed with its section slug", id)
			}
		}
	}
}
