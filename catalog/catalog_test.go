package catalog_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/plan"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// leaveRules is a one-criterion ruleset; THRESHOLD makes other content.
const leaveRules = `ruleset "acme/leave"
section leave

source law "Leave Act" url "https://example.org/leave" licence "public-domain"

field employment.months int weight 1

group service all "Service" {
  criterion tenure "Enough months" {
    employment.months >= THRESHOLD
    cite law "twelve months"
  }
}
`

func rules(threshold string) []byte {
	return []byte(strings.Replace(leaveRules, "THRESHOLD", threshold, 1))
}

// bundle is a catalog and a publisher over a fresh database.
type bundle struct {
	pool    *pgxpool.Pool
	store   *store.Store
	catalog *catalog.Catalog
	publish *publish.Publisher
}

func setup(t testing.TB) *bundle {
	t.Helper()
	pool := storetest.New(t)
	st := store.New(pool)
	planner := plan.NewPlanner(plan.DefaultCacheSize)
	t.Cleanup(planner.Close)
	cat := catalog.New(st, catalog.Config{Planner: planner})
	t.Cleanup(cat.Close)
	return &bundle{pool: pool, store: st, catalog: cat, publish: publish.New(st, cat, publish.Config{})}
}

// untold is a second catalog over b's store whose references stay cached
// for an hour: b's publisher does not tell it of changes, so only an
// Invalidate call (what another process's change triggers) refreshes it.
func (b *bundle) untold(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat := catalog.New(b.store, catalog.Config{RefTTL: time.Hour})
	t.Cleanup(cat.Close)
	return cat
}

func (b *bundle) cut(t testing.TB, tenant, slug string, src []byte, public bool) publish.RulesetResult {
	t.Helper()
	res, err := b.publish.Ruleset(context.Background(), publish.RulesetRequest{
		TenantID: tenant, Filename: "leave.rules", Source: src, Slug: slug, Visibility: publish.VisibilityOf(public), Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// decide evaluates months against r.
func decide(t testing.TB, r *engine.Ruleset, months string) engine.Outcome {
	t.Helper()
	in, err := r.Convert([]byte(`{"employment.months":` + months + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return r.Evaluate(in, engine.Options{}).Outcome
}

// TestStoredIRIsTheContent: a cut is loaded from its stored IR, never from
// its source text. A cut whose source would compile differently today (here
// its source says 13 months while its IR, written when it was cut, says 12)
// loads with its original digest and decides by its IR; a cut whose IR was
// edited, or is of an IR version this engine does not read, is ErrCorrupt,
// the latter with a message naming the version.
func TestStoredIRIsTheContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	tenant := catalog.Viewer{TenantID: "acme"}

	drifted := b.cut(t, "acme", "acme/drifted", rules("12"), false)
	newer := rules("13")
	if _, err := b.pool.Exec(ctx, `UPDATE rulesets SET source_text = $1, source_digest = $2 WHERE id = $3`,
		string(newer), catalog.SourceDigest(newer), drifted.RulesetID); err != nil {
		t.Fatal(err)
	}
	fresh, _, err := engine.Compile("leave.rules", newer)
	if err != nil || fresh.ContentDigest() == drifted.ContentDigest {
		t.Fatalf("premise: today's compile of the stored source must differ: %v", err)
	}
	rs, err := b.catalog.Ruleset(ctx, tenant, drifted.RulesetID)
	if err != nil {
		t.Fatalf("a cut whose source compiles differently today: %v", err)
	}
	if rs.ContentDigest != drifted.ContentDigest || rs.Rules.ContentDigest() != drifted.ContentDigest {
		t.Fatalf("loaded digest %s (rules %s), want the original %s", rs.ContentDigest, rs.Rules.ContentDigest(), drifted.ContentDigest)
	}
	if got := decide(t, rs.Rules, "12"); got != engine.Eligible {
		t.Fatalf("12 months = %s, want eligible as the stored IR says", got)
	}
	if _, text, err := b.catalog.Source(ctx, tenant, drifted.RulesetID); err != nil || text != string(newer) {
		t.Fatalf("source export = %q, %v", text, err)
	}

	// Each tampered cut has content of its own: loaded content is cached
	// by digest, and these digests must not have been loaded before.
	for i, tc := range []struct {
		name, tamper, message string
	}{
		{"edited IR", `UPDATE rulesets SET compiled_ir = jsonb_set(compiled_ir, '{groups,0,title}', '"Other"') WHERE id = $1`, "hashes to"},
		{"unknown IR version", `UPDATE rulesets SET ir_version = 7 WHERE id = $1`, "version 7"},
		{"IR of another shape", `UPDATE rulesets SET compiled_ir = '{"fields": 1}' WHERE id = $1`, "missing required member"},
	} {
		res := b.cut(t, "acme", "acme/"+strings.ToLower(strings.ReplaceAll(tc.name, " ", "-")), rules(strconv.Itoa(20+i)), false)
		if _, err := b.pool.Exec(ctx, tc.tamper, res.RulesetID); err != nil {
			t.Fatal(err)
		}
		_, err := b.catalog.Ruleset(ctx, tenant, res.RulesetID)
		if !errors.Is(err, catalog.ErrCorrupt) || !strings.Contains(err.Error(), tc.message) {
			t.Errorf("%s: error %v, want ErrCorrupt saying %q", tc.name, err, tc.message)
		}
		if _, _, err := b.catalog.Source(ctx, tenant, res.RulesetID); !errors.Is(err, catalog.ErrCorrupt) {
			t.Errorf("%s: source export error %v, want ErrCorrupt", tc.name, err)
		}
	}
}

// TestVisibilityAndArchive: who sees what, and what an archived cut still
// resolves by.
func TestVisibilityAndArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	public := b.cut(t, "acme", "acme/public", rules("12"), true)
	private := b.cut(t, "acme", "acme/private", rules("12"), false)
	anonymous, owner, other := catalog.Viewer{}, catalog.Viewer{TenantID: "acme"}, catalog.Viewer{TenantID: "beta"}
	for _, tc := range []struct {
		viewer catalog.Viewer
		ref    string
		found  bool
	}{
		{anonymous, "acme/public", true}, {anonymous, public.RulesetID, true},
		{anonymous, "acme/private", false}, {anonymous, private.RulesetID, false},
		{owner, "acme/private", true}, {owner, private.RulesetID, true},
		{other, "acme/private", false}, {other, private.RulesetID, false}, {other, "acme/public", true},
		{owner, "acme/none", false}, {owner, "leave:20260101-000000000000", false},
	} {
		_, err := b.catalog.Ruleset(ctx, tc.viewer, tc.ref)
		if tc.found != (err == nil) || (!tc.found && !errors.Is(err, catalog.ErrNotFound)) {
			t.Errorf("viewer %q, %s: error %v, want found=%v", tc.viewer.TenantID, tc.ref, err, tc.found)
		}
	}
	if _, err := b.publish.Archive(ctx, "beta", "acme/public"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("another tenant archived: %v", err)
	}
	if _, err := b.publish.Archive(ctx, "acme", "acme/public"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.catalog.Ruleset(ctx, anonymous, "acme/public"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("archived slug resolved: %v", err)
	}
	if _, err := b.catalog.Ruleset(ctx, anonymous, public.RulesetID); err != nil {
		t.Errorf("archived cut's id, for replay: %v", err)
	}
}

// TestSeesRepublishAfterForget: within the reference TTL a process may
// serve a slug's previous cut, consistently; Forget makes it see the new
// one; a concrete id keeps naming its own content, loaded once.
func TestSeesRepublishAfterForget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	viewer := catalog.Viewer{}
	first := b.cut(t, "acme", "acme/leave", rules("12"), true)
	got, err := b.catalog.Ruleset(ctx, viewer, "acme/leave")
	if err != nil || got.ID != first.RulesetID || got.Label != "v1" || got.Rules.ContentDigest() != first.ContentDigest {
		t.Fatalf("resolve = %+v, %v", got, err)
	}
	second := b.cut(t, "acme", "acme/leave", rules("13"), true)
	got, err = b.catalog.Ruleset(ctx, viewer, "acme/leave")
	if err != nil || (got.ID == first.RulesetID) != (got.Rules.ContentDigest() == first.ContentDigest) {
		t.Fatalf("resolve during TTL = %+v, %v", got, err)
	}
	row, err := b.store.RulesetByRef(ctx, "acme/leave")
	if err != nil {
		t.Fatal(err)
	}
	b.catalog.Forget(row)
	got, err = b.catalog.Ruleset(ctx, viewer, "acme/leave")
	if err != nil || got.ID != second.RulesetID || got.Label != "v2" || got.Rules.ContentDigest() != second.ContentDigest {
		t.Fatalf("resolve after Forget = %+v, %v", got, err)
	}
	old, err := b.catalog.Ruleset(ctx, viewer, first.RulesetID)
	if err != nil || old.Rules.ContentDigest() != first.ContentDigest || old.Label != "v1" {
		t.Fatalf("resolve old id = %+v, %v", old, err)
	}
	again, _ := b.catalog.Ruleset(ctx, viewer, first.RulesetID)
	if again.Rules != old.Rules {
		t.Error("the loaded ruleset was not reused")
	}
}

// BenchmarkResolveRuleset measures the per-decision cost of resolving a
// slug and a concrete id once the caches are warm: what /decide pays
// before it evaluates.
func BenchmarkResolveRuleset(b *testing.B) {
	bu := setup(b)
	res := bu.cut(b, "bench", "bench/leave", rules("12"), true)
	ctx := context.Background()
	for _, ref := range []struct{ name, ref string }{{"slug", "bench/leave"}, {"id", res.RulesetID}} {
		b.Run(ref.name, func(b *testing.B) {
			if _, err := bu.catalog.Ruleset(ctx, catalog.Viewer{}, ref.ref); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := bu.catalog.Ruleset(ctx, catalog.Viewer{}, ref.ref); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
