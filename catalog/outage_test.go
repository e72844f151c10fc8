package catalog_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestReferencesResolvedRecentlyThroughAnOutage: with the database cut
// away and the reference cache's TTL long past, every reference resolved
// recently still resolves as it was read (a slug, a concrete id, a slug
// as of a date in an older cut's period, a released rulebook, a live one,
// and a remembered miss); one never resolved, or whose invalidation
// arrived before the outage, needs the database and gets its error. Once
// the database is back, an invalidation wins over what was served through
// the outage.
func TestReferencesResolvedRecentlyThroughAnOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	proxied, outage := storetest.Proxied(t, b.pool)
	cat := catalog.New(store.New(proxied), catalog.Config{RefTTL: time.Millisecond})
	t.Cleanup(cat.Close)
	acme := catalog.Viewer{TenantID: "acme"}

	y2025 := b.cut(t, "acme", "acme/leave", dated("12", "2025-01-01 until 2025-12-31"), false)
	y2026 := b.cut(t, "acme", "acme/leave", dated("13", "2026-01-01 until 2026-12-31"), false)
	notified := b.cut(t, "acme", "acme/notified", rules("14"), false)
	member := b.cut(t, "acme", "acme/member", rules("15"), false)
	draft := publish.RulebookDraft{Slug: "acme/live", Refs: &[]publish.RefRequest{{SectionID: "leave", PinMode: store.PinLatestActive}}, Actor: "test"}
	live, err := b.publish.CreateRulebook(ctx, "acme", draft)
	if err != nil {
		t.Fatal(err)
	}
	draft.Slug = "acme/released"
	released, err := b.publish.CreateRulebook(ctx, "acme", draft)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.publish.Activate(ctx, "acme", released.ID, "test"); err != nil {
		t.Fatal(err)
	}

	// Each resolution, and the cut (or composition) it must give.
	resolutions := []struct {
		name    string
		resolve func() (string, error)
		want    string
	}{
		{"slug", func() (string, error) {
			rs, err := cat.Ruleset(ctx, acme, "acme/leave")
			return digest(rs), err
		}, y2026.ContentDigest},
		{"id", func() (string, error) {
			rs, err := cat.Ruleset(ctx, acme, y2025.RulesetID)
			return digest(rs), err
		}, y2025.ContentDigest},
		{"slug on a date in an older period", func() (string, error) {
			rs, err := cat.RulesetOn(ctx, acme, "acme/leave", value.DateOrdinal(2025, 6, 1))
			return digest(rs), err
		}, y2025.ContentDigest},
		{"released rulebook", func() (string, error) { return book(ctx, cat, acme, "acme/released") }, member.ContentDigest},
		{"live rulebook", func() (string, error) { return book(ctx, cat, acme, live.ID) }, member.ContentDigest},
		{"remembered miss", func() (string, error) {
			_, err := cat.Row(ctx, acme, "acme/never-published")
			if errors.Is(err, catalog.ErrNotFound) {
				return "not found", nil
			}
			return "", err
		}, "not found"},
	}
	check := func(when string) {
		t.Helper()
		for _, r := range resolutions {
			if got, err := r.resolve(); err != nil || got != r.want {
				t.Errorf("%s, %s: %q %v, want %q", when, r.name, got, err, r.want)
			}
		}
	}
	check("before the outage")
	if _, err := cat.Row(ctx, acme, "acme/notified"); err != nil {
		t.Fatal(err)
	}
	cat.InvalidateRuleset(notified.RulesetID, "acme/notified") // a change's notification

	outage.Cut()
	time.Sleep(5 * time.Millisecond) // past the reference cache's TTL
	check("during the outage")
	for name, ref := range map[string]string{"notified before the outage": "acme/notified", "never resolved": "acme/unseen"} {
		if _, err := cat.Row(ctx, acme, ref); !store.Unavailable(err) {
			t.Errorf("%s, during the outage: %v, want the database's error", name, err)
		}
	}

	outage.Restore()
	if _, err := b.store.ArchiveRuleset(ctx, "acme", y2026.RulesetID); err != nil {
		t.Fatal(err)
	}
	cat.InvalidateRuleset(y2026.RulesetID, "acme/leave")
	if _, err := cat.Row(ctx, acme, "acme/leave"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("archived slug after its invalidation: %v, want ErrNotFound", err)
	}
}

// digest is the content digest of rs, empty when nil.
func digest(rs *catalog.PreparedRuleset) string {
	if rs == nil {
		return ""
	}
	return rs.ContentDigest
}

// book resolves and prepares rulebook ref for v, giving its first
// member's content digest.
func book(ctx context.Context, cat *catalog.Catalog, v catalog.Viewer, ref string) (string, error) {
	rb, err := cat.Rulebook(ctx, v, ref)
	if err != nil {
		return "", err
	}
	p, err := cat.PrepareRulebook(ctx, rb, "")
	if err != nil {
		return "", err
	}
	return p.Members[0].ContentDigest, nil
}
