package rulebooks

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// The confidential parts of an artefact citation: its quote and the
// project and source ids of the file it cites.
var artefactSecrets = []string{"twelve months", "prj_CONFIDENTIAL", "src_CONFIDENTIAL", "project:p1"}

// leaks fails the test when r carries any of artefactSecrets.
func leaks(t *testing.T, what string, r apitest.Response) {
	t.Helper()
	for _, s := range artefactSecrets {
		if strings.Contains(r.Raw, s) {
			t.Errorf("%s shows %q to another tenant: %d %.300s", what, s, r.Status, r.Raw)
		}
	}
}

// A rulebook whose member cites a project artefact cannot be made public,
// so other tenants never read the citation through its explain or a
// /decide explanation; one made public before the rule is served to its
// tenant alone.
func TestArtefactCitationsNeverReachOtherTenants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	owner := &book{f: f, key: f.Key(t, "acme", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite, auth.ScopeDecide}, time.Time{})}
	other := &book{f: f, key: f.Key(t, "beta", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite, auth.ScopeDecide}, time.Time{})}
	if _, err := f.Publisher.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "memo.rules", Source: []byte(apitest.ArtefactRules),
		Slug: "acme/internal", Actor: "test", Sources: map[string][]byte{"memo": []byte("Staff need twelve months of service.")},
		SourceDetails: map[string]store.SourceCheck{"memo": {ArtefactProjectID: "prj_CONFIDENTIAL0001", ArtefactSourceID: "src_CONFIDENTIAL0001"}}}); err != nil {
		t.Fatal(err)
	}
	f.Publish(t, "acme", "acme/age", section("age", "person.age", "int", "person.age >= 18"), false)
	create := func(slug, refs string) string {
		t.Helper()
		r := owner.do(t, http.MethodPost, "/rulebooks/", `{"name":"Book","slug":"`+slug+`","ruleset_refs":`+refs+`}`)
		want(t, r, http.StatusCreated, "create "+slug)
		id := r.Field(t, "rulebook_id").(string)
		want(t, owner.do(t, http.MethodPost, rulebookPath(id, "/activate"), ""), http.StatusOK, "activate "+slug)
		return id
	}
	both := `[{"section_id":"internal_leave"},{"section_id":"age"}]`
	decision := `{"field_values":{"employment.months":13,"person.age":30},"include_explanation":true,"include_trace":true,"rulebook_id":"`
	internal := create("acme/internal-book", both)

	// The owner sees the citation: the secrets are there to leak.
	if r := owner.do(t, http.MethodGet, rulebookPath(internal, "/explain"), ""); !strings.Contains(r.Raw, "twelve months") || !strings.Contains(r.Raw, "prj_CONFIDENTIAL") {
		t.Fatalf("the owner's explain: %s", r.Raw)
	}
	r := owner.do(t, http.MethodPatch, rulebookPath(internal, "/visibility"), `{"visibility":"public"}`)
	if r.Status != http.StatusUnprocessableEntity || reason(r) != api.ReasonArtefactPublicVisibility {
		t.Fatalf("making it public: %d %s", r.Status, r.Raw)
	}
	for _, ref := range []string{internal, "acme/internal-book"} {
		r := other.do(t, http.MethodGet, rulebookPath(ref, "/explain"), "")
		want(t, r, http.StatusNotFound, "another tenant's explain")
		leaks(t, "explain", r)
		r = other.do(t, http.MethodPost, "/decide", decision+ref+`"}`)
		want(t, r, http.StatusNotFound, "another tenant's decision")
		leaks(t, "decide", r)
	}

	// A public rulebook does not take such a member in.
	open := create("acme/open-book", `[{"section_id":"age"}]`)
	want(t, owner.do(t, http.MethodPatch, rulebookPath(open, "/visibility"), `{"visibility":"public"}`), http.StatusOK, "a clean rulebook made public")
	r = owner.do(t, http.MethodPatch, rulebookPath(open, ""), `{"ruleset_refs":`+both+`}`)
	if r.Status != http.StatusUnprocessableEntity || reason(r) != api.ReasonArtefactPublicVisibility {
		t.Fatalf("adding the member to a public rulebook: %d %s", r.Status, r.Raw)
	}
	r = other.do(t, http.MethodGet, rulebookPath(open, "/explain"), "")
	want(t, r, http.StatusOK, "another tenant reads the clean public rulebook")
	leaks(t, "explain", r)
	r = other.do(t, http.MethodPost, "/decide", decision+open+`"}`)
	want(t, r, http.StatusOK, "another tenant decides on the clean public rulebook")
	leaks(t, "decide", r)

	// Public from before the rule: served to its tenant alone.
	legacy := create("acme/legacy-book", both)
	if _, err := f.Pool.Exec(ctx, `UPDATE rulebooks SET visibility = 'public' WHERE id = $1`, legacy); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/explain", "/schema", "/graph"} {
		r := other.do(t, http.MethodGet, rulebookPath(legacy, path), "")
		want(t, r, http.StatusNotFound, "another tenant reads the legacy rulebook's "+path)
		leaks(t, path, r)
	}
	r = other.do(t, http.MethodPost, "/decide", decision+legacy+`"}`)
	want(t, r, http.StatusNotFound, "another tenant decides on the legacy rulebook")
	leaks(t, "decide", r)
	want(t, owner.do(t, http.MethodGet, rulebookPath(legacy, "/explain"), ""), http.StatusOK, "its tenant reads it")
}

// Another tenant's namespace is 403 namespace_owned on rulebook creation,
// the same answer for a taken private slug and a free one.
func TestRulebookNamespaceOwned(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	activeBook(t, f, "acme", "acme/benefits")
	other := &book{f: f, key: f.Key(t, "beta", []auth.Scope{auth.ScopeRulebooksWrite}, time.Time{})}
	var answers []string
	for _, slug := range []string{"acme/benefits", "acme/unused", "acme"} {
		r := other.do(t, http.MethodPost, "/rulebooks/", `{"name":"Squat","slug":"`+slug+`"}`)
		if r.Status != http.StatusForbidden || reason(r) != api.ReasonNamespaceOwned {
			t.Fatalf("beta creates %s: %d %s", slug, r.Status, r.Raw)
		}
		answers = append(answers, r.Raw)
	}
	if answers[0] != answers[1] || answers[1] != answers[2] || strings.Contains(answers[0], "benefits") {
		t.Fatalf("the answers tell a taken slug from a free one: %q", answers)
	}
	want(t, other.do(t, http.MethodPost, "/rulebooks/", `{"name":"Own","slug":"beta/benefits"}`), http.StatusCreated, "beta in its own namespace")
}
