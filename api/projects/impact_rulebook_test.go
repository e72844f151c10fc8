package projects

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// book creates tenant's rulebook slug of the one section snap_income,
// pinned to cut, and activates it; it returns the release's id and label.
func (f *impactFixture) book(t *testing.T, tenant, slug, cut string) (id, label string) {
	t.Helper()
	ctx := context.Background()
	rb, err := f.sv.Publisher.CreateRulebook(ctx, tenant, publish.RulebookDraft{Slug: slug, Actor: "test",
		Refs: &[]publish.RefRequest{{SectionID: "snap_income", PinMode: store.PinPinned, RulesetID: cut}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.sv.Publisher.Activate(ctx, tenant, rb.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return res.Release.ID, res.Release.Label
}

// TestImpactRulebookCandidates: a rulebook's proposed section (its release
// in force with snap_income's member v1 replaced by v2) moves the same
// cases as v2 against v1 does; the release in force, or v1 proposed in v1's
// place, changes nothing; and every malformed or foreign candidate is
// refused with a clear error, another tenant's rulebook or cut as 404.
func TestImpactRulebookCandidates(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	_, body := snapCaseload(120)
	caseload := f.uploaded(t, body)
	release, label := f.book(t, "acme", "acme/book", f.v1)

	rulesets := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": caseload, "candidate": map[string]any{"slug": "acme/snap", "version": "v2"},
		"baseline": map[string]any{"version": "v1"}, "decision_date": "2026-01-15", "examples": 100}))
	wantRefs := transitions(t, obj(t, rulesets["report"]))

	proposed := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": caseload, "decision_date": "2026-01-15", "examples": 100,
		"candidate": map[string]any{"rulebook": "acme/book", "section_id": "snap_income", "ruleset_id": f.v2}}))
	if proposed["state"] != "succeeded" {
		t.Fatalf("run = %v, want succeeded", proposed)
	}
	rb := obj(t, proposed["rulebook"])
	if rb["baseline_release_id"] != release || rb["candidate_release_id"] != release || rb["section_id"] != "snap_income" || rb["section_ruleset_id"] != f.v2 ||
		proposed["baseline_ruleset_id"] != "" || proposed["candidate_ruleset_id"] != nil {
		t.Errorf("run = %v, want the release in force on both sides, snap_income replaced by %s", proposed, f.v2)
	}
	report := obj(t, proposed["report"])
	if got := transitions(t, report); !equalRefs(got, wantRefs) {
		t.Errorf("the proposal's transitions\n%v\nwant, as v2 against v1,\n%v", got, wantRefs)
	}
	criteria := report["criteria"].([]any)
	if len(criteria) == 0 || !strings.HasPrefix(obj(t, criteria[0])["id"].(string), "snap_income.") {
		t.Errorf("criteria = %v, want the section's criteria under its prefix", criteria)
	}
	listed := obj(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/impact", nil).Body)["runs"].([]any)
	if obj(t, listed[0])["run_id"] != proposed["run_id"] || obj(t, obj(t, listed[0])["rulebook"])["section_ruleset_id"] != f.v2 {
		t.Errorf("the list's newest run = %v, want the proposal with its rulebook", listed[0])
	}

	// Candidate equal to baseline: exactly nothing changes.
	for name, cand := range map[string]map[string]any{
		"the release in force, by label": {"rulebook": "acme/book", "release_id": label},
		"the live cut proposed again":    {"rulebook": "acme/book", "section_id": "snap_income", "ruleset_id": f.v1},
	} {
		t.Run(name, func(t *testing.T) {
			run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": caseload, "candidate": cand, "decision_date": "2026-01-15"}))
			report := obj(t, run["report"])
			if c := obj(t, report["changed"]); run["state"] != "succeeded" || c["count"] != float64(0) || c["fewer_than"] != nil {
				t.Errorf("run %v: changed = %v, want exactly 0", run["state"], c)
			}
			for _, x := range report["transitions"].([]any) {
				if tr := obj(t, x); tr["from"] != tr["to"] {
					t.Errorf("transition %v with the same rules on both sides", tr)
				}
			}
			if len(report["criteria"].([]any)) != 0 || len(report["values"].([]any)) != 0 {
				t.Errorf("criteria %v, values %v changed with the same rules", report["criteria"], report["values"])
			}
		})
	}

	// Refusals.
	other := f.Publish(t, "other", "other/snap", []byte(strings.Replace(snapText(t, 2292), `"acme/snap"`, `"other/snap"`, 1)), false).RulesetID
	f.book(t, "other", "other/book", other)
	elsewhere := strings.Replace(snapText(t, 2292), "section snap_income", "section snap_other", 1)
	otherSection := f.Publish(t, "acme", "acme/snap-other", []byte(strings.Replace(elsewhere, `"acme/snap"`, `"acme/snap-other"`, 1)), false).RulesetID
	if _, err := f.sv.Publisher.CreateRulebook(context.Background(), "acme", publish.RulebookDraft{Slug: "acme/unreleased", Actor: "test",
		Refs: &[]publish.RefRequest{{SectionID: "snap_income", PinMode: store.PinPinned, RulesetID: f.v1}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		cand     map[string]any
		baseline map[string]any
		status   int
		says     string
	}{
		{"a ruleset version and a rulebook", map[string]any{"rulebook": "acme/book", "release_id": release, "slug": "acme/snap", "version": "v2"}, nil,
			http.StatusUnprocessableEntity, "not both"},
		{"a baseline beside a rulebook", map[string]any{"rulebook": "acme/book", "release_id": release}, map[string]any{"version": "v1"},
			http.StatusUnprocessableEntity, "leave baseline out"},
		{"a section without its cut", map[string]any{"rulebook": "acme/book", "section_id": "snap_income"}, nil,
			http.StatusUnprocessableEntity, "section_id and ruleset_id together"},
		{"a cut without its section", map[string]any{"rulebook": "acme/book", "ruleset_id": f.v2}, nil,
			http.StatusUnprocessableEntity, "section_id and ruleset_id together"},
		{"a rulebook alone", map[string]any{"rulebook": "acme/book"}, nil, http.StatusUnprocessableEntity, "names release_id"},
		{"an unknown rulebook", map[string]any{"rulebook": "acme/nobook", "release_id": release}, nil, http.StatusNotFound, "not found"},
		{"another tenant's rulebook", map[string]any{"rulebook": "other/book", "section_id": "snap_income", "ruleset_id": other}, nil,
			http.StatusNotFound, "not found"},
		{"an unknown release", map[string]any{"rulebook": "acme/book", "release_id": "no-such-label"}, nil, http.StatusNotFound, "Release"},
		{"a rulebook without a release", map[string]any{"rulebook": "acme/unreleased", "section_id": "snap_income", "ruleset_id": f.v2}, nil,
			http.StatusUnprocessableEntity, "activate it first"},
		{"a section the release does not have", map[string]any{"rulebook": "acme/book", "section_id": "snap_other", "ruleset_id": otherSection}, nil,
			http.StatusNotFound, "Section"},
		{"another tenant's cut", map[string]any{"rulebook": "acme/book", "section_id": "snap_income", "ruleset_id": other}, nil,
			http.StatusNotFound, "not found"},
		{"a cut of another section", map[string]any{"rulebook": "acme/book", "section_id": "snap_income", "ruleset_id": otherSection}, nil,
			http.StatusUnprocessableEntity, "of section snap_other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]any{"caseload_id": caseload, "candidate": tc.cand}
			if tc.baseline != nil {
				req["baseline"] = tc.baseline
			}
			r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact", req)
			if r.Status != tc.status || !strings.Contains(string(r.Raw), tc.says) {
				t.Errorf("%d %s, want %d saying %q", r.Status, r.Raw, tc.status, tc.says)
			}
		})
	}
}

// TestImpactRulebookCandidatePinsTheCut: a proposal may name its cut by a
// reference the tenant's cuts resolve (its slug), and the run records the
// exact cut that reference named when it started, so that every part
// decides that cut even once the slug points at another.
func TestImpactRulebookCandidatePinsTheCut(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	_, body := snapCaseload(20)
	caseload := f.uploaded(t, body)
	f.book(t, "acme", "acme/book", f.v1)
	resolved, err := f.sv.Catalog.Owned(context.Background(), "acme", "acme/snap")
	if err != nil {
		t.Fatal(err)
	}
	run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": caseload, "decision_date": "2026-01-15",
		"candidate": map[string]any{"rulebook": "acme/book", "section_id": "snap_income", "ruleset_id": "acme/snap"}}))
	if got := obj(t, run["rulebook"])["section_ruleset_id"]; got != resolved.ID {
		t.Errorf("section_ruleset_id = %v, want the cut acme/snap named at the start, %s", got, resolved.ID)
	}
}
