package catalog_test

import (
	"context"
	"errors"
	"testing"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/store"
)

// A change written by another process (here: straight to the store, so
// this catalog is not told) stays unseen while the reference is cached;
// the change's invalidation drops the cached resolution at once.
func TestInvalidateDropsCachedResolutions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	cat := b.untold(t)
	anonymous := catalog.Viewer{}

	private := b.cut(t, "acme", "acme/private", rules("12"), true)
	archived := b.cut(t, "acme", "acme/archived", rules("13"), true)
	rb, err := b.store.CreateRulebook(ctx, store.Rulebook{ID: store.NewRulebookID(), TenantID: "acme", Slug: "acme/book",
		Name: "Book", Status: store.RulebookDraft,
		Refs: []store.RulebookRef{{SectionID: "leave", PinMode: store.PinLatestActive, LiveRulesetID: private.RulesetID}}})
	if err != nil {
		t.Fatal(err)
	}
	// A rulebook is created private; make it public.
	setVisibility := func(visibility string) {
		t.Helper()
		if _, err := b.store.WriteRulebook(ctx, store.RulebookWrite{TenantID: "acme", RulebookID: rb.ID,
			Draft: &store.Rulebook{Name: rb.Name, Visibility: visibility, Status: rb.Status, Refs: rb.Refs}}); err != nil {
			t.Fatal(err)
		}
	}
	setVisibility(store.VisibilityPublic)
	resolves := func() (slugs, book error) {
		_, errA := cat.Row(ctx, anonymous, "acme/private")
		_, errB := cat.Row(ctx, anonymous, "acme/archived")
		_, book = cat.Rulebook(ctx, anonymous, "acme/book")
		return errors.Join(errA, errB), book
	}
	if slugs, book := resolves(); slugs != nil || book != nil {
		t.Fatalf("before the changes: %v, %v", slugs, book)
	}

	if _, err := b.store.SetRulesetVisibility(ctx, "acme", private.RulesetID, store.VisibilityPrivate); err != nil {
		t.Fatal(err)
	}
	if _, err := b.store.ArchiveRuleset(ctx, "acme", archived.RulesetID); err != nil {
		t.Fatal(err)
	}
	setVisibility(store.VisibilityPrivate)
	if slugs, book := resolves(); slugs != nil || book != nil {
		t.Fatalf("premise: cached resolutions outlive the changes, got %v, %v", slugs, book)
	}

	cat.InvalidateRuleset(private.RulesetID, "acme/private")
	if _, err := cat.Row(ctx, anonymous, "acme/private"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("private cut after InvalidateRuleset: %v, want ErrNotFound", err)
	}
	if _, err := cat.Row(ctx, anonymous, "acme/archived"); err != nil {
		t.Fatalf("another cut's invalidation dropped the archived slug's entry: %v", err)
	}
	cat.InvalidateRulebook(rb.ID, "acme/book")
	if _, err := cat.Rulebook(ctx, anonymous, "acme/book"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("private rulebook after InvalidateRulebook: %v, want ErrNotFound", err)
	}
	cat.InvalidateAll()
	if _, err := cat.Row(ctx, anonymous, "acme/archived"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("archived slug after InvalidateAll: %v, want ErrNotFound", err)
	}
}
