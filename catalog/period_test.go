package catalog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine/value"
)

// dated is leaveRules with an effective period.
func dated(threshold, period string) []byte {
	return []byte(strings.Replace(string(rules(threshold)), "\nsource law", "\neffective "+period+"\n\nsource law", 1))
}

// TestRulesetOnResolvesTheCutInForce: a slug resolves to the cut in force
// on the decision date, a concrete id pins its cut, and the cached answer
// for a date follows a publication as soon as the catalog is told of it
// (by invalidation, not at the end of its TTL).
func TestRulesetOnResolvesTheCutInForce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	cat := b.untold(t)
	acme := catalog.Viewer{TenantID: "acme"}
	on := func(y, m, d int) string {
		t.Helper()
		rs, err := cat.RulesetOn(ctx, acme, "acme/leave", value.DateOrdinal(y, m, d))
		if err != nil {
			t.Fatal(err)
		}
		return rs.ID
	}

	y2025 := b.cut(t, "acme", "acme/leave", dated("12", "2025-01-01 until 2025-12-31"), false)
	y2026 := b.cut(t, "acme", "acme/leave", dated("13", "2026-01-01 until 2026-12-31"), false)
	// Publication tells every process (here, the catalog under test).
	cat.InvalidateRuleset(y2026.RulesetID, "acme/leave")
	for _, tc := range []struct {
		y, m, d int
		want    string
	}{
		{2025, 6, 1, y2025.RulesetID},
		{2025, 12, 31, y2025.RulesetID},
		{2026, 1, 1, y2026.RulesetID},
		{2025, 6, 1, y2025.RulesetID}, // again, from the cache
		// In force nowhere: the slug's own cut, which then warns.
		{2027, 1, 1, y2026.RulesetID},
	} {
		if got := on(tc.y, tc.m, tc.d); got != tc.want {
			t.Errorf("%d-%02d-%02d: %s, want %s", tc.y, tc.m, tc.d, got, tc.want)
		}
	}
	pinned, err := cat.RulesetOn(ctx, acme, y2025.RulesetID, value.DateOrdinal(2026, 6, 1))
	if err != nil || pinned.ID != y2025.RulesetID {
		t.Errorf("a concrete id resolved to %v, %v", pinned, err)
	}

	// A correction of 2025 published later: until this catalog hears of
	// it the cached answer stands (the TTL is an hour); told, it resolves
	// 2025 dates to the correction.
	fixed := b.cut(t, "acme", "acme/leave", dated("11", "2025-01-01 until 2025-12-31"), false)
	if got := on(2025, 6, 1); got != y2025.RulesetID {
		t.Errorf("premise: before the invalidation the cached %s stands, got %s", y2025.RulesetID, got)
	}
	cat.InvalidateRuleset(fixed.RulesetID, "acme/leave")
	if got := on(2025, 6, 1); got != fixed.RulesetID {
		t.Errorf("after the correction: %s, want %s", got, fixed.RulesetID)
	}
}

// BenchmarkRulesetOn resolves a slug as of a date in an older cut's
// period: "cached" from the cache of cuts in force, "invalidated" with an
// invalidation before each call, so that every call queries the store, as
// every call did before that cache.
func BenchmarkRulesetOn(b *testing.B) {
	ctx := context.Background()
	bu := setup(b)
	cat := bu.untold(b)
	acme := catalog.Viewer{TenantID: "acme"}
	bu.cut(b, "acme", "acme/leave", dated("12", "2025-01-01 until 2025-12-31"), false)
	latest := bu.cut(b, "acme", "acme/leave", dated("13", "2026-01-01 until 2026-12-31"), false)
	older := value.DateOrdinal(2025, 6, 1)
	for _, invalidate := range []bool{false, true} {
		name := "cached"
		if invalidate {
			name = "invalidated"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if invalidate {
					// Drops the cuts in force, not the slug's own cut,
					// which RulesetOn resolves first either way.
					cat.InvalidateRuleset(latest.RulesetID, "unrelated/slug")
				}
				if _, err := cat.RulesetOn(ctx, acme, "acme/leave", older); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
