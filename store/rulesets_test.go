package store_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// cut is a minimal RulesetCut; n makes a distinct content digest.
func cut(tenant, slug string, n int, visibility string) store.RulesetCut {
	return store.RulesetCut{
		TenantID: tenant, Slug: slug, SectionID: "leave", Name: "Leave " + slug, Description: "About leave",
		RuleCount: 2, ContentDigest: fmt.Sprintf("sha256:%064x", n), SourceText: "section leave\n",
		SourceDigest: fmt.Sprintf("sha256:%064x", 0), CompiledIR: []byte(`{}`), IRVersion: 1,
		EngineVersion: "eligo-core@0.0.0", Visibility: visibility,
		PublishedAt: time.Date(2026, 1, 15, 23, 30, 0, 0, time.FixedZone("", -3*3600)),
	}
}

func TestRulesetID(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 15, 23, 30, 0, 0, time.FixedZone("", -3*3600)) // 2026-01-16 UTC
	id := store.RulesetID("leave", at, "acme/leave", "sha256:00")
	if !regexp.MustCompile(`^leave:20260116-[0-9a-f]{12}$`).MatchString(id) {
		t.Fatalf("id %q", id)
	}
	if other := store.RulesetID("leave", at, "beta/leave", "sha256:00"); other == id {
		t.Fatal("two slugs with the same content share an id")
	}
	if !store.IsConcreteRulesetID(id) || store.IsConcreteRulesetID("acme/leave") {
		t.Fatal("IsConcreteRulesetID")
	}
}

// Concurrent publishes of distinct contents to one slug queue behind the
// slug lock: each gets its own version, 1..n with none repeated, and the
// pointer ends on one of them.
func TestConcurrentPublishesGetDistinctVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	const n = 8
	versions := make([]int, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			res, err := st.PublishRuleset(ctx, cut("acme", "acme/leave", i, store.VisibilityPublic))
			if err != nil {
				errs <- err
				return
			}
			versions[i] = res.Ruleset.Version
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	slices.Sort(versions)
	for i, v := range versions {
		if v != i+1 {
			t.Fatalf("versions %v, want 1..%d", versions, n)
		}
	}
	row, err := st.RulesetByRef(ctx, "acme/leave")
	if err != nil || row.Version < 1 || row.Version > n {
		t.Fatalf("pointer = %+v, %v", row, err)
	}
	if _, err := st.PublishRuleset(ctx, cut("beta", "acme/leave", 99, store.VisibilityPublic)); !errors.Is(err, store.ErrNamespaceOwned) {
		t.Fatalf("other tenant: %v", err)
	}
}

func TestListRulesetsVisibilityAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	for i, c := range []store.RulesetCut{
		cut("acme", "acme/public", 1, store.VisibilityPublic),
		cut("acme", "acme/private", 2, store.VisibilityPrivate),
		cut("beta", "beta/public", 3, store.VisibilityPublic),
		cut("beta", "beta/private", 4, store.VisibilityPrivate),
		cut("beta", "beta/archived", 5, store.VisibilityPublic),
	} {
		if _, err := st.PublishRuleset(ctx, c); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	archived, err := st.RulesetByRef(ctx, "beta/archived")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ArchiveRuleset(ctx, "acme", archived.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant archived it: %v", err)
	}
	if _, err := st.ArchiveRuleset(ctx, "beta", archived.ID); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		q    store.RulesetQuery
		want []string
	}{
		{"anonymous", store.RulesetQuery{}, []string{"acme/public", "beta/public"}},
		{"acme", store.RulesetQuery{ViewerTenant: "acme"}, []string{"acme/private", "acme/public", "beta/public"}},
		{"beta namespace", store.RulesetQuery{ViewerTenant: "beta", Namespace: "beta"}, []string{"beta/private", "beta/public"}},
		{"namespace is not a string prefix", store.RulesetQuery{Namespace: "bet"}, []string{}},
		{"text in the name, any case", store.RulesetQuery{Text: "LEAVE ACME"}, []string{"acme/public"}},
		{"after", store.RulesetQuery{AfterSlug: "acme/public"}, []string{"beta/public"}},
		{"limit", store.RulesetQuery{Limit: 1}, []string{"acme/public"}},
	} {
		q := tc.q
		if q.Limit == 0 {
			q.Limit = 10
		}
		rows, err := st.ListRulesets(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, r := range rows {
			got = append(got, r.Slug)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
