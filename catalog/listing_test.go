package catalog_test

import (
	"context"
	"errors"
	"testing"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/plan"
	"github.com/eligo/eligo/store"
)

// TestListRulesetsIsTheViewersCatalogue: a listing shows the viewer what
// resolving would: public cuts to everyone, private ones to their tenant
// only, the newest cut of each slug.
func TestListRulesetsIsTheViewersCatalogue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	b.cut(t, "acme", "acme/leave", rules("12"), true)
	newest := b.cut(t, "acme", "acme/leave", rules("13"), true)
	private := b.cut(t, "acme", "acme/secret", rules("6"), false)
	slugs := func(v catalog.Viewer) map[string]string {
		rows, err := b.catalog.ListRulesets(ctx, v, store.RulesetQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows {
			if !catalog.Listable(r) {
				t.Errorf("a cut written by the publisher is not listable: %+v", r)
			}
			out[r.Slug] = r.ID
		}
		return out
	}
	if got := slugs(catalog.Viewer{}); len(got) != 1 || got["acme/leave"] != newest.RulesetID {
		t.Errorf("anonymous listing %v, want only acme/leave at %s", got, newest.RulesetID)
	}
	if got := slugs(catalog.Viewer{TenantID: "other"}); len(got) != 1 {
		t.Errorf("another tenant's listing %v shows a private cut", got)
	}
	if got := slugs(catalog.Viewer{TenantID: "acme"}); len(got) != 2 || got["acme/secret"] != private.RulesetID {
		t.Errorf("the owner's listing %v, want both slugs", got)
	}
}

// TestListable: a damaged row is not shown.
func TestListable(t *testing.T) {
	t.Parallel()
	sound := store.Cut{Slug: "acme/leave", Version: 1, Visibility: store.VisibilityPublic,
		ContentDigest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	cases := map[string]func(c *store.Cut){
		"sound":          func(*store.Cut) {},
		"bad slug":       func(c *store.Cut) { c.Slug = "Not A Slug" },
		"version zero":   func(c *store.Cut) { c.Version = 0 },
		"short digest":   func(c *store.Cut) { c.ContentDigest = "sha256:abc" },
		"odd visibility": func(c *store.Cut) { c.Visibility = "unlisted" },
	}
	for name, change := range cases {
		c := sound
		change(&c)
		if got, want := catalog.Listable(c), name == "sound"; got != want {
			t.Errorf("%s: Listable = %v, want %v", name, got, want)
		}
	}
}

// TestPreparedRulesetCarriesItsSolverState: the prepared cut plans its
// next question and explains a failure, and two resolutions of the same
// content share one explainer.
func TestPreparedRulesetCarriesItsSolverState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	res := b.cut(t, "acme", "acme/leave", rules("12"), true)
	rs, err := b.catalog.Ruleset(ctx, catalog.Viewer{}, res.RulesetID)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := rs.Rules.Convert([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	result := rs.Rules.Evaluate(inputs, engine.Options{})
	pl, err := rs.Plan(ctx, inputs, result, plan.InquiryContext{})
	if err != nil || pl.NextQuestion == nil || pl.NextQuestion.FieldID != "employment.months" {
		t.Fatalf("plan = %+v, %v; want employment.months next", pl, err)
	}
	again, err := b.catalog.Ruleset(ctx, catalog.Viewer{}, "acme/leave")
	if err != nil {
		t.Fatal(err)
	}
	if rs.Explainer() != again.Explainer() {
		t.Error("two resolutions of one content prepared two explainers")
	}
}

// TestPlanNeedsThePlannerHandedIn: the catalog plans with the planner its
// builder hands in (Config.Planner) and builds none of its own: one built
// without a planner resolves and loads as ever, and its Plan says why it
// cannot plan.
func TestPlanNeedsThePlannerHandedIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	res := b.cut(t, "acme", "acme/leave", rules("12"), true)
	bare := catalog.New(b.store, catalog.Config{})
	t.Cleanup(bare.Close)
	rs, err := bare.Ruleset(ctx, catalog.Viewer{}, res.RulesetID)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := rs.Rules.Convert([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if pl, err := rs.Plan(ctx, inputs, rs.Rules.Evaluate(inputs, engine.Options{}), plan.InquiryContext{}); !errors.Is(err, catalog.ErrNoPlanner) {
		t.Fatalf("plan without a planner = %+v, %v; want ErrNoPlanner", pl, err)
	}
}
