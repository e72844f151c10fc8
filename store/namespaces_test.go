package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/eligo/eligo/migrations"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// newBook is a draft rulebook of tenant under slug, with no references.
func newBook(tenant, slug string) store.Rulebook {
	return store.Rulebook{ID: store.NewRulebookID(), TenantID: tenant, Slug: slug, Name: slug, Status: store.RulebookDraft}
}

// The first tenant to publish under a namespace owns it: another tenant is
// refused under it, with the same error whether or not the slug exists,
// for ruleset publishes and rulebook creations alike.
func TestNamespaceOwnership(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	if _, err := st.PublishRuleset(ctx, cut("acme", "acme/secret", 1, store.VisibilityPrivate)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRulebook(ctx, newBook("acme", "acme/book")); err != nil {
		t.Fatal(err)
	}
	if owner, err := st.NamespaceOwner(ctx, "acme"); err != nil || owner != "acme" {
		t.Fatalf("owner of acme: %q, %v", owner, err)
	}
	// Taken and free slugs of acme's namespace answer alike.
	for _, slug := range []string{"acme/secret", "acme/book", "acme/free", "acme", "acme/secret/deeper"} {
		if _, err := st.PublishRuleset(ctx, cut("beta", slug, 2, store.VisibilityPublic)); !errors.Is(err, store.ErrNamespaceOwned) {
			t.Errorf("beta publishes %s: %v, want ErrNamespaceOwned", slug, err)
		}
		if _, err := st.CreateRulebook(ctx, newBook("beta", slug)); !errors.Is(err, store.ErrNamespaceOwned) {
			t.Errorf("beta creates rulebook %s: %v, want ErrNamespaceOwned", slug, err)
		}
	}
	// The owner keeps publishing under it; a rulebook slug it already
	// uses is a conflict of its own.
	if _, err := st.PublishRuleset(ctx, cut("acme", "acme/free", 3, store.VisibilityPublic)); err != nil {
		t.Fatalf("owner publishes: %v", err)
	}
	if _, err := st.CreateRulebook(ctx, newBook("acme", "acme/book")); !errors.Is(err, store.ErrSlugConflict) {
		t.Fatalf("owner reuses its rulebook slug: %v", err)
	}
	// A refused publish claims nothing and leaves no tenant row behind.
	if _, err := st.NamespaceOwner(ctx, "gamma"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unclaimed namespace: %v", err)
	}
	if _, err := st.PublishRuleset(ctx, cut("beta", "beta/own", 4, store.VisibilityPublic)); err != nil {
		t.Fatalf("beta publishes in its own namespace: %v", err)
	}
}

// A slug another tenant held under a namespace before namespaces were
// owned stays its own: it may republish it, but add nothing beside it,
// and the namespace's owner gets slug_conflict for that one slug.
func TestNamespaceKeepsEarlierSlugs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	if _, err := st.PublishRuleset(ctx, cut("beta", "shared/old", 1, store.VisibilityPublic)); err != nil {
		t.Fatal(err)
	}
	// As the backfill leaves it when acme's slugs there were earlier.
	if _, err := pool.Exec(ctx, `INSERT INTO tenants (id) VALUES ('acme'); UPDATE slug_namespaces SET tenant_id = 'acme' WHERE namespace = 'shared'`); err != nil {
		t.Fatal(err)
	}
	if res, err := st.PublishRuleset(ctx, cut("beta", "shared/old", 2, store.VisibilityPublic)); err != nil || res.Ruleset.Version != 2 {
		t.Fatalf("beta republishes its earlier slug: %+v, %v", res, err)
	}
	if _, err := st.PublishRuleset(ctx, cut("beta", "shared/new", 3, store.VisibilityPublic)); !errors.Is(err, store.ErrNamespaceOwned) {
		t.Fatalf("beta adds a slug: %v", err)
	}
	if _, err := st.PublishRuleset(ctx, cut("acme", "shared/old", 4, store.VisibilityPublic)); !errors.Is(err, store.ErrSlugConflict) {
		t.Fatalf("the owner publishes beta's slug: %v", err)
	}
	if _, err := st.PublishRuleset(ctx, cut("acme", "shared/new", 5, store.VisibilityPublic)); err != nil {
		t.Fatalf("the owner publishes a new slug: %v", err)
	}
}

// Tenants racing for a fresh namespace, by a ruleset publish or a
// rulebook's first release: exactly one wins it, every other is refused,
// none is let in beside it.
func TestConcurrentClaimsHaveOneOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	tenants := []string{"t0", "t1", "t2", "t3", "t4", "t5"}
	errs := make([]error, len(tenants))
	var wg sync.WaitGroup
	for i, tenant := range tenants {
		wg.Go(func() {
			if i%2 == 0 {
				_, errs[i] = st.PublishRuleset(ctx, cut(tenant, "fresh/"+tenant, i, store.VisibilityPublic))
			} else {
				errs[i] = createAndRelease(ctx, st, tenant, "fresh/"+tenant, store.NamespaceCaps{})
			}
		})
	}
	wg.Wait()
	owner, err := st.NamespaceOwner(ctx, "fresh")
	if err != nil {
		t.Fatal(err)
	}
	for i, tenant := range tenants {
		switch {
		case tenant == owner && errs[i] != nil:
			t.Errorf("the owner %s was refused: %v", tenant, errs[i])
		case tenant != owner && !errors.Is(errs[i], store.ErrNamespaceOwned):
			t.Errorf("%s beside the owner %s: %v, want ErrNamespaceOwned", tenant, owner, errs[i])
		}
	}
}

// The migration gives each namespace in use to the tenant with its
// earliest slug, ruleset or rulebook.
func TestNamespaceBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.NewEmpty(t)
	all, err := store.LoadMigrations(migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	before := fstest.MapFS{}
	for _, m := range all {
		if m.Version < 11 {
			before[m.Name] = &fstest.MapFile{Data: []byte(m.SQL)}
		}
	}
	if _, err := store.Migrate(ctx, pool, before); err != nil {
		t.Fatal(err)
	}
	// Before ownership two tenants share each namespace; the rows are
	// written as the code before it wrote them.
	const insertCut = `INSERT INTO rulesets (id, tenant_id, slug, version, section_id, name, rule_count, content_digest,
    source_text, compiled_ir, visibility, ir_version, engine_version, source_digest, created_at)
VALUES ($1, $2, $3, 1, 'leave', 'Leave', 1, 'sha256:' || repeat('0', 64), '', '{}', 'public', 1, 'eligo-core@0.0.0',
    'sha256:' || repeat('0', 64), $4)`
	for i, c := range []struct{ tenant, slug, when string }{
		{"acme", "mixed/a", "2026-01-02"}, {"beta", "mixed/b", "2026-01-01"},
		{"acme", "solo/a", "2026-01-05"}, {"beta", "booked/b", "2026-01-03"},
	} {
		id := fmt.Sprintf("leave:20260101-%012d", i)
		if _, err := pool.Exec(ctx, `INSERT INTO tenants (id) VALUES ($1) ON CONFLICT DO NOTHING`, c.tenant); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, insertCut, id, c.tenant, c.slug, c.when); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO rulebooks (id, tenant_id, slug, name, created_at)
VALUES ('rb_AAAAAAAAAAAAAAAA', 'acme', 'booked/a', 'Book', '2025-12-31')`); err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	for _, step := range []struct {
		upTo  int
		owner map[string]string
	}{
		// 0011 gives each namespace to its earliest slug's tenant.
		{14, map[string]string{"mixed": "beta", "solo": "acme", "booked": "acme"}},
		// 0015 releases those held only by a draft that never published.
		{0, map[string]string{"mixed": "beta", "solo": "acme", "booked": ""}},
	} {
		upTo := fstest.MapFS{}
		for _, m := range all {
			if step.upTo == 0 || m.Version <= step.upTo {
				upTo[m.Name] = &fstest.MapFile{Data: []byte(m.SQL)}
			}
		}
		if _, err := store.Migrate(ctx, pool, upTo); err != nil {
			t.Fatal(err)
		}
		for ns, want := range step.owner {
			owner, err := st.NamespaceOwner(ctx, ns)
			if want == "" && !errors.Is(err, store.ErrNotFound) || want != "" && (err != nil || owner != want) {
				t.Errorf("after migrations up to %d, namespace %s: owner %q, %v; want %q", step.upTo, ns, owner, err, want)
			}
		}
	}
}
