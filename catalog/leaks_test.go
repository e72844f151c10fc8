package catalog_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/store"
)

// A public rulebook composing a ruleset that cites project artefacts,
// made public before publish refused it, is served to its tenant alone:
// every other reader, keyed or not, gets the not-found of a private one.
func TestRulebookExposingArtefactsServedToItsTenantOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	memo := strings.Replace(string(rules("12")), `url "https://example.org/leave" licence "public-domain"`,
		`artefact "project:p1/source:s1" licence "proprietary"`, 1)
	cut := b.cut(t, "acme", "acme/leave", []byte(memo), false)
	rb, err := b.store.CreateRulebook(ctx, store.Rulebook{ID: store.NewRulebookID(), TenantID: "acme", Slug: "acme/book",
		Name: "Book", Status: store.RulebookDraft,
		Refs: []store.RulebookRef{{SectionID: "leave", PinMode: store.PinLatestActive, LiveRulesetID: cut.RulesetID}}})
	if err != nil {
		t.Fatal(err)
	}
	// Made public behind publish's back, as before the rule.
	rb.Visibility = store.VisibilityPublic
	if _, err := b.store.WriteRulebook(ctx, store.RulebookWrite{TenantID: "acme", RulebookID: rb.ID, Draft: &rb}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []catalog.Viewer{{}, {TenantID: "beta"}} {
		if _, err := b.catalog.Rulebook(ctx, v, rb.ID); !errors.Is(err, catalog.ErrNotFound) {
			t.Errorf("viewer %q reads the leaky rulebook: %v, want ErrNotFound", v.TenantID, err)
		}
	}
	if _, err := b.catalog.Rulebook(ctx, catalog.Viewer{TenantID: "acme"}, "acme/book"); err != nil {
		t.Fatalf("its tenant: %v", err)
	}
}
