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
)

// The squatting probe over HTTP: a free-tier tenant cannot take a reserved
// namespace, its empty drafts claim nothing, and its rulebooks' first
// releases claim namespaces only up to its tier's cap; every refusal is in
// the error shape of docs/api.md#errors.
func TestNamespaceSquatting(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	squatter := &book{f: f, key: f.Key(t, "squatter", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite}, time.Time{})}
	agency := &book{f: f, key: f.Key(t, "agency", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite}, time.Time{})}
	refused := func(r apitest.Response, status int, code, mentions string) {
		t.Helper()
		d, _ := r.Body.(map[string]any)["detail"].(map[string]any)
		if r.Status != status || d["reason_code"] != code || d["error"] == "" || !strings.Contains(d["message"].(string), mentions) {
			t.Fatalf("want %d %s mentioning %q, got %d %s", status, code, mentions, r.Status, r.Raw)
		}
	}
	for _, ns := range []string{"usa", "gov", "uk", "us", "federal", "irs", "ssa", "hmrc", "medicaid", "snap"} {
		refused(squatter.do(t, http.MethodPost, "/rulebooks/", `{"name":"US Federal Benefit","slug":"`+ns+`/benefit"}`),
			http.StatusForbidden, api.ReasonReservedNamespace, `"`+ns+`"`)
	}

	// Empty drafts claim nothing: another tenant still creates and
	// publishes under the same namespace.
	want(t, squatter.do(t, http.MethodPost, "/rulebooks/", `{"name":"Squat","slug":"county/benefit"}`), http.StatusCreated, "an empty draft")
	f.Publish(t, "agency", "county/age", section("age", "person.age", "int", "person.age >= 18"), false)
	r := agency.do(t, http.MethodPost, "/rulebooks/", `{"name":"County","slug":"county/help","ruleset_refs":[{"section_id":"age"}]}`)
	want(t, r, http.StatusCreated, "the agency's draft beside the squatter's")
	want(t, agency.do(t, http.MethodPost, rulebookPath(r.Field(t, "rulebook_id").(string), "/activate"), ""), http.StatusOK, "the agency's release claims county")
	refused(squatter.do(t, http.MethodPost, "/rulebooks/", `{"name":"Squat","slug":"county/more"}`),
		http.StatusForbidden, api.ReasonNamespaceOwned, `"county"`)

	// The cap: a free tenant owns three namespaces; the fourth release
	// that would claim one is refused and leaves the draft a draft.
	f.Publish(t, "squatter", "squatter/age", section("age", "person.age", "int", "person.age >= 18"), false)
	for i, ns := range []string{"alpha", "beta", "gamma"} {
		r := squatter.do(t, http.MethodPost, "/rulebooks/", `{"name":"B","slug":"`+ns+`/b","ruleset_refs":[{"section_id":"age"}]}`)
		want(t, r, http.StatusCreated, "draft in "+ns)
		activate := squatter.do(t, http.MethodPost, rulebookPath(r.Field(t, "rulebook_id").(string), "/activate"), "")
		if i < 2 {
			want(t, activate, http.StatusOK, "release claiming "+ns)
			continue
		}
		refused(activate, http.StatusUnprocessableEntity, api.ReasonNamespaceLimit, "owns 3, while its free tier allows 3")
		got := squatter.do(t, http.MethodGet, rulebookPath(ns+"/b", ""), "")
		if got.Field(t, "status") != "draft" || got.Field(t, "release") != nil {
			t.Fatalf("a refused release changed the draft: %s", got.Raw)
		}
	}
}

// namespace_verified: false until an operator verifies the namespace for
// the rulebook's tenant, on the rulebook and on the public ruleset
// catalogue alike.
func TestNamespaceVerifiedOnTheWire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, key := activeBook(t, f, "agency", "agency/benefits")
	f.Publish(t, "agency", "agency/public", section("pub", "person.age", "int", "person.age >= 21"), true)
	b := &book{f: f, key: key}
	verified := func() (rulebook, ruleset any) {
		t.Helper()
		rulebook = b.do(t, http.MethodGet, rulebookPath(id, ""), "").Field(t, "namespace_verified")
		list := f.Do(t, http.MethodGet, "/rulesets?namespace=agency", nil, nil)
		entries, _ := list.Body.([]any)
		if list.Status != http.StatusOK || len(entries) != 1 {
			t.Fatalf("the public catalogue: %d %s", list.Status, list.Raw)
		}
		return rulebook, entries[0].(map[string]any)["namespace_verified"]
	}
	if rb, rs := verified(); rb != false || rs != false {
		t.Fatalf("before verification: rulebook %v, ruleset %v; want false", rb, rs)
	}
	if _, err := f.Store.VerifyNamespace(ctx, "agency", "operator", true); err != nil {
		t.Fatal(err)
	}
	// The operator's command notifies every serving process, whose
	// listener drops its caches (api/routes/invalidate.go); this server
	// has none, so drop them as it would.
	f.Catalog.InvalidateAll()
	if rb, rs := verified(); rb != true || rs != true {
		t.Fatalf("after verification: rulebook %v, ruleset %v; want true", rb, rs)
	}
}
