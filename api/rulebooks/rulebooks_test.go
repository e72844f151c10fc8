package rulebooks

import (
	"context"
	"encoding/json"
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
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
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
		Register(s, Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
		decide.Register(s, decide.Deps{Catalog: sv.Catalog, Decisions: sv.Decisions, Clock: sv.Clock, Metrics: sv.Metrics}, decide.Config{})
	})
}

// book is a tenant's three-section benefits rulebook under test.
type book struct {
	f             *apitest.Fixture
	key           string
	age, res, inc string
	incomeCutV2   string
	rulebookID    string
	firstRelease  map[string]any
	secondRelease map[string]any
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

// TestRulebookLifecycle walks a rulebook's lifecycle over real HTTP: create
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
	rec := f.RecordOf(t, d.Field(t, "decision_id").(string))
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
	// The promotion says whom the new live cut affects: an income between
	// 2000 and 3000 is now within the limit.
	diff := r.Field(t, "diff_against_live").(map[string]any)
	change := diff["changes"].([]any)[0].(map[string]any)
	if diff["equivalent"] != false || change["kind"] != "not_eligible_to_eligible" {
		t.Fatalf("diff against live: %v", diff)
	}
	if income, _ := change["witness"].(map[string]any)["household.income"].(float64); income <= 2000 || income > 3000 {
		t.Fatalf("the witness income %v is not one the change affects", change["witness"])
	}
	b.secondRelease = r.Field(t, "release").(map[string]any)
	// The same difference between the two releases of the rulebook.
	rd := b.do(t, http.MethodGet, rulebookPath(b.rulebookID, "/diff?against="+b.firstRelease["label"].(string)), "")
	want(t, rd, http.StatusOK, "release diff")
	if ch := rd.Field(t, "changes").([]any)[0].(map[string]any); ch["kind"] != "not_eligible_to_eligible" ||
		rd.Field(t, "against").(map[string]any)["release_id"] != b.firstRelease["release_id"] {
		t.Fatalf("release diff: %s", rd.Raw)
	}
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

// activeBook publishes three sections for tenant and an active rulebook
// slug over them, returning its id and an owner key.
func activeBook(t *testing.T, f *apitest.Fixture, tenant, slug string) (id, key string) {
	t.Helper()
	key = f.Key(t, tenant, []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite, auth.ScopeDecide}, time.Time{})
	f.Publish(t, tenant, tenant+"/age", section("age", "person.age", "int", "person.age >= 18"), false)
	f.Publish(t, tenant, tenant+"/income", section("income", "household.income", "decimal", "household.income <= 2000"), false)
	b := &book{f: f, key: key}
	r := b.do(t, http.MethodPost, "/rulebooks/", `{"name":"Benefits","slug":"`+slug+`","ruleset_refs":[{"section_id":"age"},{"section_id":"income"}]}`)
	want(t, r, http.StatusCreated, "create")
	id = r.Field(t, "rulebook_id").(string)
	want(t, b.do(t, http.MethodPost, rulebookPath(id, "/activate"), ""), http.StatusOK, "activate")
	return id, key
}

// TestRulebookTenantIsolation: every rulebook route answers another
// tenant's private rulebook with the same 404 as an unknown one, and an
// anonymous caller gets 401 on every keyed route and on a rulebook_id
// decision.
func TestRulebookTenantIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, _ := activeBook(t, f, "acme", "acme/benefits")
	other := f.Key(t, "beta", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite, auth.ScopeDecide}, time.Time{})
	routes := []struct{ method, path, body string }{
		{http.MethodGet, "/rulebooks/%s", ""},
		{http.MethodPatch, "/rulebooks/%s", `{"name":"Mine"}`},
		{http.MethodPost, "/rulebooks/%s/fields", `{"fields":{"person.age":{"weight":3}}}`},
		{http.MethodGet, "/rulebooks/%s/schema", ""},
		{http.MethodGet, "/rulebooks/%s/explain", ""},
		{http.MethodGet, "/rulebooks/%s/graph", ""},
		{http.MethodPost, "/rulebooks/%s/activate", ""},
		{http.MethodPost, "/rulebooks/%s/archive", ""},
		{http.MethodPatch, "/rulebooks/%s/visibility", `{"visibility":"public"}`},
		{http.MethodPost, "/rulebooks/%s/rulesets/income/promote-to-live", `{"ruleset_id":"income:20260101-000000000000"}`},
	}
	for _, ref := range []string{id, "acme/benefits", "acme/none"} {
		for _, rt := range routes {
			path := fmt.Sprintf(rt.path, url.PathEscape(ref))
			var body *strings.Reader
			if rt.body != "" {
				body = strings.NewReader(rt.body)
			}
			do := func(key string) apitest.Response {
				if body == nil {
					return f.Do(t, rt.method, path, apitest.WithKey(key), nil)
				}
				body.Seek(0, 0)
				return f.Do(t, rt.method, path, apitest.WithKey(key), body)
			}
			if r := do(other); r.Status != http.StatusNotFound {
				t.Errorf("another tenant: %s %s = %d %s", rt.method, path, r.Status, r.Raw)
			} else if _, isString := r.Field(t, "detail").(string); !isString {
				t.Errorf("another tenant: %s %s: detail is not a string: %s", rt.method, path, r.Raw)
			}
			if r := do(""); r.Status != http.StatusUnauthorized || reason(r) != api.ReasonMissingAPIKey {
				t.Errorf("anonymous: %s %s = %d %s", rt.method, path, r.Status, r.Raw)
			}
		}
	}
	d := f.Decide(t, other, `{"rulebook_id":"`+id+`","field_values":{}}`)
	if d.Status != http.StatusNotFound {
		t.Errorf("another tenant's decision: %d %s", d.Status, d.Raw)
	}
	if d := f.Decide(t, "", `{"rulebook_id":"`+id+`","field_values":{}}`); d.Status != http.StatusUnauthorized {
		t.Errorf("anonymous decision: %d %s", d.Status, d.Raw)
	}
	// A release of another rulebook is 404 with no content.
	otherID, otherKey := activeBook(t, f, "beta", "beta/benefits")
	theirs := f.Do(t, http.MethodGet, rulebookPath(otherID, ""), apitest.WithKey(otherKey), nil).Field(t, "release").(map[string]any)
	owner := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	for _, rel := range []string{theirs["release_id"].(string), theirs["label"].(string)} {
		d := f.Decide(t, owner, `{"rulebook_id":"`+id+`","release_id":"`+rel+`","field_values":{}}`)
		if _, isString := d.Field(t, "detail").(string); d.Status != http.StatusNotFound || !isString {
			t.Errorf("another rulebook's release %s: %d %s", rel, d.Status, d.Raw)
		}
	}
	// The anonymous catalogue lists public, active rulebooks only.
	list := f.Do(t, http.MethodGet, "/rulebooks/", nil, nil)
	if list.Status != http.StatusOK || len(list.Body.([]any)) != 0 {
		t.Fatalf("anonymous catalogue before anything is public: %d %s", list.Status, list.Raw)
	}
	b := &book{f: f, key: otherKey}
	want(t, b.do(t, http.MethodPatch, rulebookPath(otherID, "/visibility"), `{"visibility":"public"}`), http.StatusOK, "make public")
	list = f.Do(t, http.MethodGet, "/rulebooks/", nil, nil)
	if len(list.Body.([]any)) != 1 || list.Body.([]any)[0].(map[string]any)["slug"] != "beta/benefits" {
		t.Fatalf("anonymous catalogue: %s", list.Raw)
	}
	// A public rulebook is read and evaluated by other tenants' keys.
	if d := f.Decide(t, owner, `{"rulebook_id":"beta/benefits","field_values":{"person.age":20,"household.income":100}}`); d.Status != http.StatusOK || d.Field(t, "decision") != "eligible" {
		t.Errorf("another tenant's public rulebook: %d %s", d.Status, d.Raw)
	}
	// The keyed list is the tenant's own, whatever its state.
	mine := f.Do(t, http.MethodGet, "/rulebooks/", apitest.WithKey(other), nil)
	if len(mine.Body.([]any)) != 1 || mine.Body.([]any)[0].(map[string]any)["rulebook_id"] != otherID {
		t.Fatalf("keyed list: %s", mine.Raw)
	}
	if entry := mine.Body.([]any)[0].(map[string]any); len(entry["ruleset_refs"].([]any)) != 2 || entry["release"] == nil {
		t.Fatalf("a listed rulebook lacks its references or release: %v", entry)
	}
}

// TestRulebookValidation: outcome trees, hints, overlays and references
// that are refused, with the bodies of docs/api.md#errors.
func TestRulebookValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, key := activeBook(t, f, "acme", "acme/benefits")
	b := &book{f: f, key: key}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		loc                      []any
		reason                   string
	}{
		{"bare string", http.MethodPatch, "", `{"outcome_logic":"A AND B"}`, 422, []any{"body", "outcome_logic"}, ""},
		{"expr wrapper", http.MethodPatch, "", `{"outcome_logic":{"expr":"A AND B"}}`, 422, []any{"body", "outcome_logic"}, ""},
		{"letter with no section", http.MethodPatch, "", `{"outcome_logic":{"op":"or","args":[{"section":"A"},{"section":"D"}]}}`, 422, []any{"body", "outcome_logic", "args", float64(1), "section"}, ""},
		{"not with two args", http.MethodPatch, "", `{"outcome_logic":{"op":"not","args":[{"section":"A"},{"section":"B"}]}}`, 422, []any{"body", "outcome_logic", "args"}, ""},
		{"unknown hint", http.MethodPatch, "", `{"robot_hints":{"greeting":"hi"}}`, 422, []any{"body", "robot_hints", "greeting"}, ""},
		{"pinned without id", http.MethodPatch, "", `{"ruleset_refs":[{"section_id":"age","pin_mode":"pinned"}]}`, 422, []any{"body", "ruleset_refs", float64(0), "ruleset_id"}, ""},
		{"unknown section", http.MethodPatch, "", `{"ruleset_refs":[{"section_id":"nothing"}]}`, 422, nil, api.ReasonReleaseMemberUnresolved},
		{"unknown overlay field", http.MethodPost, "/fields", `{"fields":{"person.shoe_size":{"weight":2}}}`, 422, []any{"body", "fields"}, ""},
		{"bad slug", http.MethodPost, "create", `{"name":"X","slug":"Acme/Bad"}`, 422, nil, api.ReasonInvalidSlugFormat},
		{"reserved slug", http.MethodPost, "create", `{"name":"X","slug":"eligo/x"}`, 403, nil, api.ReasonReservedNamespace},
		{"taken slug", http.MethodPost, "create", `{"name":"X","slug":"acme/benefits"}`, 409, nil, api.ReasonSlugConflict},
	} {
		path := rulebookPath(id, tc.path)
		if tc.path == "create" {
			path = "/rulebooks/"
		}
		r := b.do(t, tc.method, path, tc.body)
		if r.Status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, r.Status, r.Raw, tc.status)
			continue
		}
		if tc.reason != "" {
			if reason(r) != tc.reason {
				t.Errorf("%s: %s, want reason %s", tc.name, r.Raw, tc.reason)
			}
			continue
		}
		items, ok := r.Field(t, "detail").([]any)
		if !ok || len(items) == 0 || !reflect.DeepEqual(items[0].(map[string]any)["loc"], tc.loc) {
			t.Errorf("%s: %s, want a validation item at %v", tc.name, r.Raw, tc.loc)
		}
	}
	r := b.do(t, http.MethodPatch, rulebookPath(id, ""), `{"robot_hints":{"greeting":"hi"}}`)
	if !strings.Contains(r.Raw, "general_context") || !strings.Contains(r.Raw, "section_transition") {
		t.Errorf("unknown hint does not list the allowed set: %s", r.Raw)
	}
	// The overlay applies in the schema.
	r = b.do(t, http.MethodPost, rulebookPath(id, "/fields"), `{"fields":{"person.age":{"question":"How old are you?","weight":7}}}`)
	want(t, r, http.StatusOK, "overlay")
	s := b.do(t, http.MethodGet, rulebookPath(id, "/schema"), "")
	field := s.Field(t, "fields").([]any)[0].(map[string]any)
	if field["question"] != "How old are you?" || field["weight"] != float64(7) {
		t.Errorf("overlay not applied: %v", field)
	}
}

// TestRulebookReleaseFailures: a head naming a release the server does not
// hold is 422 rulebook_release_missing, never the latest instead; a
// release whose frozen content fails its identity check is 422
// rulebook_release_corrupt.
func TestRulebookReleaseFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	id, key := activeBook(t, f, "acme", "acme/benefits")
	if _, err := f.Pool.Exec(ctx, `UPDATE rulebooks SET current_release_id = gen_random_uuid() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	d := f.Decide(t, key, `{"rulebook_id":"`+id+`","field_values":{}}`)
	if d.Status != http.StatusUnprocessableEntity || reason(d) != api.ReasonRulebookReleaseMissing {
		t.Fatalf("missing head: %d %s", d.Status, d.Raw)
	}
	id2, _ := activeBook(t, f, "beta", "beta/benefits")
	for _, q := range []string{
		`ALTER TABLE rulebook_releases DISABLE TRIGGER rulebook_releases_immutable`,
		`UPDATE rulebook_releases SET content = jsonb_set(content, '{sections,0,content_digest}', '"sha256:0000000000000000000000000000000000000000000000000000000000000000"') WHERE rulebook_id = '` + id2 + `'`,
		`ALTER TABLE rulebook_releases ENABLE TRIGGER rulebook_releases_immutable`,
	} {
		if _, err := f.Pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	betaKey := f.Key(t, "beta", []auth.Scope{auth.ScopeDecide}, time.Time{})
	d = f.Decide(t, betaKey, `{"rulebook_id":"`+id2+`","field_values":{}}`)
	if d.Status != http.StatusUnprocessableEntity || reason(d) != api.ReasonRulebookReleaseCorrupt {
		t.Fatalf("corrupt release: %d %s", d.Status, d.Raw)
	}
	// Releases are immutable in the database itself.
	if _, err := f.Pool.Exec(ctx, `UPDATE rulebook_releases SET title = 'x'`); err == nil {
		t.Fatal("a release was updated")
	}
	if _, err := f.Pool.Exec(ctx, `DELETE FROM rulebook_releases`); err == nil {
		t.Fatal("a release was deleted")
	}
}

// TestPromotePresencePolarityGate: a candidate whose unanswered-field
// default is more favourable than an answer is refused with the field,
// criterion and witness; force_unsafe is for internal keys only, and an
// internal key's forced promotion writes its audit event.
func TestPromotePresencePolarityGate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, key := activeBook(t, f, "acme", "acme/benefits")
	lenient := f.Publish(t, "acme", "acme/income", section("income", "household.income", "decimal", "household.income ?? 0 <= 2000"), false).RulesetID
	b := &book{f: f, key: key}
	path := rulebookPath(id, "/rulesets/income/promote-to-live")
	r := b.do(t, http.MethodPost, path, `{"ruleset_id":"`+lenient+`"}`)
	if r.Status != http.StatusUnprocessableEntity || reason(r) != api.ReasonNonConservativePresenceOp {
		t.Fatalf("non-conservative candidate: %d %s", r.Status, r.Raw)
	}
	detail := r.Field(t, "detail").(map[string]any)
	if detail["field"] != "household.income" || detail["witness"] == nil || detail["criterion"] == nil {
		t.Fatalf("gate detail: %v", detail)
	}
	r = b.do(t, http.MethodPost, path, `{"ruleset_id":"`+lenient+`","force_unsafe":true}`)
	if r.Status != http.StatusForbidden || reason(r) != reasonForceForbidden {
		t.Fatalf("force_unsafe by a free key: %d %s", r.Status, r.Raw)
	}
	internal := &book{f: f, key: apitest.TierKey(t, f.Store, auth.TierInternal, auth.ScopeRulebooksWrite)}
	r = internal.do(t, http.MethodPost, path, `{"ruleset_id":"`+lenient+`","force_unsafe":true}`)
	want(t, r, http.StatusOK, "forced promotion by an internal key")
	if advisories, _ := r.Field(t, "presence_polarity_advisories").([]any); len(advisories) == 0 {
		t.Fatalf("forced promotion without advisories: %s", r.Raw)
	}
	var events int
	if err := f.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_events WHERE kind = 'promote_force_bypass_presence_polarity'
		AND detail->>'rulebook_id' = $1 AND detail->>'ruleset_id' = $2`, id, lenient).Scan(&events); err != nil || events != 1 {
		t.Fatalf("audit events %d, %v", events, err)
	}
	// Wrong section and unknown section.
	r = b.do(t, http.MethodPost, rulebookPath(id, "/rulesets/age/promote-to-live"), `{"ruleset_id":"`+lenient+`"}`)
	if r.Status != http.StatusUnprocessableEntity {
		t.Errorf("candidate of another section: %d %s", r.Status, r.Raw)
	}
	r = b.do(t, http.MethodPost, rulebookPath(id, "/rulesets/housing/promote-to-live"), `{"ruleset_id":"`+lenient+`"}`)
	if r.Status != http.StatusNotFound {
		t.Errorf("a section the rulebook does not reference: %d %s", r.Status, r.Raw)
	}
}

// TestPromoteRunsTheCandidatesTests: a candidate whose stored test cases
// fail is refused at the candidate_tests gate, naming the failures.
func TestPromoteRunsTheCandidatesTests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, key := activeBook(t, f, "acme", "acme/benefits")
	res, err := f.Publisher.Ruleset(context.Background(), publishRequest("acme", section("income", "household.income", "decimal", "household.income <= 10")))
	if err != nil {
		t.Fatal(err)
	}
	b := &book{f: f, key: key}
	r := b.do(t, http.MethodPost, rulebookPath(id, "/rulesets/income/promote-to-live"), `{"ruleset_id":"`+res.RulesetID+`"}`)
	if r.Status != http.StatusUnprocessableEntity || reason(r) != "candidate_tests" || !strings.Contains(r.Raw, "1500 is eligible") {
		t.Fatalf("failing candidate: %d %s", r.Status, r.Raw)
	}
}

// publishRequest publishes src for tenant forced past one failing case,
// which promotion then runs again.
func publishRequest(tenant string, src []byte) publish.RulesetRequest {
	var cases []engine.Case
	_ = json.Unmarshal([]byte(`[{"name":"1500 is eligible","field_values":{"household.income":1500},"expected_outcome":"eligible"}]`), &cases)
	return publish.RulesetRequest{TenantID: tenant, Filename: "income.rules", Source: src, Slug: tenant + "/income",
		Cases: cases, ForceUnsafe: true, Actor: "test"}
}

// TestReferencesThatNameNothing: a reference no object could have (NUL,
// invalid UTF-8, absurd length) is simply not found, on the ruleset reads,
// the rulebook routes and /decide, never a database error; a catalogue
// query that is not valid text is 422.
func TestReferencesThatNameNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id, key := activeBook(t, f, "acme", "acme/benefits")
	for _, ref := range []string{"acme%00x", "acme%FFx", "acme%2Fbenefits%00"} {
		for _, path := range []string{"/rulebooks/" + ref, "/rulebooks/" + ref + "/schema"} {
			if r := f.Do(t, http.MethodGet, path, apitest.WithKey(key), nil); r.Status != http.StatusNotFound {
				t.Errorf("GET %s: %d %s", path, r.Status, r.Raw)
			}
		}
		if r := f.Do(t, http.MethodGet, "/rulesets/"+ref+"/schema", nil, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET /rulesets/%s/schema: %d %s", ref, r.Status, r.Raw)
		}
	}
	// An absurdly long one is refused by the path's declared bound.
	if r := f.Do(t, http.MethodGet, "/rulebooks/"+strings.Repeat("a", 400), apitest.WithKey(key), nil); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("long reference: %d %s", r.Status, r.Raw)
	}
	for _, body := range []string{
		`{"rulebook_id":"acme\u0000x","field_values":{}}`,
		`{"ruleset_id":"acme\u0000x","field_values":{}}`,
		`{"rulebook_id":"` + id + `","release_id":"label\u0000x","field_values":{}}`,
	} {
		if r := f.Decide(t, key, body); r.Status != http.StatusNotFound {
			t.Errorf("decide %s: %d %s", body, r.Status, r.Raw)
		}
	}
	if r := f.Do(t, http.MethodGet, "/rulesets?q=%FF%00", nil, nil); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("catalogue query that is not text: %d %s", r.Status, r.Raw)
	}
}
