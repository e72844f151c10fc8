package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// createAndRelease creates tenant's draft rulebook under slug and
// publishes its first release within caps.
func createAndRelease(ctx context.Context, st *store.Store, tenant, slug string, caps store.NamespaceCaps) error {
	rb, err := st.CreateRulebook(ctx, newBook(tenant, slug))
	if err != nil {
		return err
	}
	_, err = st.WriteRulebook(ctx, store.RulebookWrite{TenantID: tenant, RulebookID: rb.ID, NamespaceCaps: caps,
		Release: &store.ReleaseDraft{Title: slug, ContentIdentity: fmt.Sprintf("sha256:%064x", 1), Content: []byte(`{"sections":[]}`),
			AllocateLabel: func(func(string) bool) (string, error) { return "first-label", nil }}})
	return err
}

// keyOf gives tenant a key of tier, revoked when asked.
func keyOf(t *testing.T, st *store.Store, tenant, tier string, revoked bool) {
	t.Helper()
	ctx := context.Background()
	prefix := fmt.Sprintf("%-8.8s", tenant+tier+"xxxxxxxx")
	if _, _, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: tenant, Prefix: prefix, Hash: []byte(fmt.Sprintf("%-32.32s", prefix)),
		Scopes: []string{"decide"}, Tier: tier}); err != nil {
		t.Fatal(err)
	}
	if revoked {
		if _, err := st.RevokeAPIKey(ctx, prefix); err != nil {
			t.Fatal(err)
		}
	}
}

// An empty draft claims nothing: another tenant may still publish under
// its namespace, and the draft's own first release is then refused. The
// first release of a draft under a free namespace claims it.
func TestDraftClaimsNoNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	if _, err := st.CreateRulebook(ctx, newBook("squatter", "usa/benefit")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.NamespaceOwner(ctx, "usa"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an empty draft claimed its namespace: %v", err)
	}
	if _, err := st.PublishRuleset(ctx, cut("agency", "usa/snap", 1, store.VisibilityPublic)); err != nil {
		t.Fatalf("the agency publishes under the draft's namespace: %v", err)
	}
	rb, err := st.RulebookByRef(ctx, "usa/benefit")
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.WriteRulebook(ctx, store.RulebookWrite{TenantID: "squatter", RulebookID: rb.ID,
		Release: &store.ReleaseDraft{Title: "x", ContentIdentity: "sha256:" + fmt.Sprintf("%064x", 9), Content: []byte(`{}`),
			AllocateLabel: func(func(string) bool) (string, error) { return "some-label", nil }}})
	if !errors.Is(err, store.ErrNamespaceOwned) {
		t.Fatalf("the draft's first release under the agency's namespace: %v, want ErrNamespaceOwned", err)
	}
	if err := createAndRelease(ctx, st, "gamma", "gamma/book", store.NamespaceCaps{}); err != nil {
		t.Fatal(err)
	}
	if owner, err := st.NamespaceOwner(ctx, "gamma"); err != nil || owner != "gamma" {
		t.Fatalf("a first release claims its namespace: owner %q, %v", owner, err)
	}
}

// A tenant owns at most its tier's cap of namespaces; its tier is the
// dearest of its live keys, the cheapest without one. Publishing under a
// namespace it owns, or into a slug, is never refused by the cap.
func TestNamespaceCap(t *testing.T) {
	t.Parallel()
	caps := store.NamespaceCaps{Tiers: []string{"free", "starter", "pro", "internal"}, Max: map[string]int{"free": 2, "starter": 3}}
	for _, tc := range []struct {
		name  string
		keys  func(t *testing.T, st *store.Store, tenant string)
		tier  string
		limit int // 0: no cap within the five tried
	}{
		{"no key", func(*testing.T, *store.Store, string) {}, "free", 2},
		{"free key", func(t *testing.T, st *store.Store, tenant string) { keyOf(t, st, tenant, "free", false) }, "free", 2},
		{"starter beside free", func(t *testing.T, st *store.Store, tenant string) {
			keyOf(t, st, tenant, "free", false)
			keyOf(t, st, tenant, "starter", false)
		}, "starter", 3},
		{"revoked starter", func(t *testing.T, st *store.Store, tenant string) { keyOf(t, st, tenant, "starter", true) }, "free", 2},
		{"internal", func(t *testing.T, st *store.Store, tenant string) { keyOf(t, st, tenant, "internal", false) }, "internal", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := store.New(storetest.New(t))
			tc.keys(t, st, "acme")
			for i := range 5 {
				c := cut("acme", fmt.Sprintf("ns%d/leave", i), i, store.VisibilityPublic)
				c.NamespaceCaps = caps
				var err error
				if i%2 == 0 {
					_, err = st.PublishRuleset(ctx, c)
				} else {
					err = createAndRelease(ctx, st, "acme", c.Slug, caps)
				}
				var limit *store.NamespaceLimitError
				switch {
				case tc.limit == 0 || i < tc.limit:
					if err != nil {
						t.Fatalf("namespace %d of %d allowed: %v", i+1, tc.limit, err)
					}
				case !errors.As(err, &limit) || !errors.Is(err, store.ErrNamespaceLimit):
					t.Fatalf("namespace %d past the cap of %d: %v, want ErrNamespaceLimit", i+1, tc.limit, err)
				case limit.Tier != tc.tier || limit.Owned != tc.limit || limit.Limit != tc.limit:
					t.Fatalf("refusal figures %+v, want tier %s, %d of %d", limit, tc.tier, tc.limit, tc.limit)
				}
			}
			// Past the cap, a new slug in a namespace it owns still publishes.
			c := cut("acme", "ns0/another", 7, store.VisibilityPublic)
			c.NamespaceCaps = caps
			if _, err := st.PublishRuleset(ctx, c); err != nil {
				t.Fatalf("a new slug in an owned namespace: %v", err)
			}
			owned, err := st.Namespaces(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			if want := max(tc.limit, 0); tc.limit != 0 && len(owned) != want {
				t.Fatalf("owns %d namespaces, want %d: a refused claim must leave nothing", len(owned), want)
			}
		})
	}
}

// Concurrent claims of one tenant are counted one after the other: no
// more than the cap get through together.
func TestNamespaceCapUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	caps := store.NamespaceCaps{Tiers: []string{"free"}, Max: map[string]int{"free": 2}}
	if _, err := st.PublishRuleset(ctx, cut("acme", "acme/first", 0, store.VisibilityPrivate)); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 6)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			c := cut("acme", fmt.Sprintf("race%d/leave", i), i+1, store.VisibilityPrivate)
			c.NamespaceCaps = caps
			_, errs[i] = st.PublishRuleset(ctx, c)
		})
	}
	wg.Wait()
	passed := 0
	for _, err := range errs {
		switch {
		case err == nil:
			passed++
		case !errors.Is(err, store.ErrNamespaceLimit):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if passed != 1 {
		t.Fatalf("%d concurrent claims got through beside one owned namespace under a cap of 2, want 1", passed)
	}
}

// The operator's changes: verify marks the owner's content verified; a
// transfer hands the namespace over unverified (withdrawing the former
// owner's public content when asked); a release frees it. Each writes its
// audit events; a change of nothing is ErrNotFound or ErrNoTenant.
func TestNamespaceOperatorChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	if _, err := st.PublishRuleset(ctx, cut("squatter", "usa/benefit", 1, store.VisibilityPublic)); err != nil {
		t.Fatal(err)
	}
	if err := createAndRelease(ctx, st, "squatter", "usa/book", store.NamespaceCaps{}); err != nil {
		t.Fatal(err)
	}
	book, err := st.RulebookByRef(ctx, "usa/book")
	if err != nil {
		t.Fatal(err)
	}
	book.Visibility = store.VisibilityPublic
	if _, err := st.WriteRulebook(ctx, store.RulebookWrite{TenantID: "squatter", RulebookID: book.ID, Draft: &book}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PublishRuleset(ctx, cut("agency", "agency/x", 2, store.VisibilityPrivate)); err != nil {
		t.Fatal(err)
	}
	verified := func(slug string) bool {
		t.Helper()
		r, err := st.RulesetByRef(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		return r.NamespaceVerified
	}

	rec, err := st.VerifyNamespace(ctx, "usa", "alice", true)
	if err != nil || rec.VerifiedAt == nil || rec.VerifiedBy != "alice" || rec.TenantID != "squatter" {
		t.Fatalf("verify: %+v, %v", rec, err)
	}
	if !verified("usa/benefit") {
		t.Fatal("a cut under a verified namespace of its tenant must show namespace_verified")
	}
	if _, err := st.VerifyNamespace(ctx, "usa", "alice", false); err != nil || verified("usa/benefit") {
		t.Fatalf("unverify: %v, verified %v", err, verified("usa/benefit"))
	}

	changed, err := st.TransferNamespace(ctx, "usa", "agency", "alice", true)
	if err != nil || changed.Before.TenantID != "squatter" || changed.Withdrawn != 2 {
		t.Fatalf("transfer: %+v, %v; want from squatter with its cut and rulebook withdrawn", changed, err)
	}
	if owner, _ := st.NamespaceOwner(ctx, "usa"); owner != "agency" {
		t.Fatalf("owner after the transfer: %q", owner)
	}
	if r, _ := st.RulesetByRef(ctx, "usa/benefit"); r.Visibility != store.VisibilityPrivate {
		t.Fatalf("the squatter's cut stayed %s", r.Visibility)
	}
	if b, _ := st.RulebookByRef(ctx, "usa/book"); b.Visibility != store.VisibilityPrivate {
		t.Fatalf("the squatter's rulebook stayed %s", b.Visibility)
	}
	if _, err := st.VerifyNamespace(ctx, "usa", "alice", true); err != nil {
		t.Fatal(err)
	}
	// Verified for the agency, not for the squatter's leftover slug.
	if verified("usa/benefit") {
		t.Fatal("the former owner's cut must not show the new owner's verification")
	}
	if _, err := st.PublishRuleset(ctx, cut("agency", "usa/snap", 3, store.VisibilityPublic)); err != nil || !verified("usa/snap") {
		t.Fatalf("the agency publishes under its verified namespace: %v", err)
	}
	// A transfer always leaves the namespace unverified.
	if _, err := st.TransferNamespace(ctx, "usa", "squatter", "bob", false); err != nil {
		t.Fatal(err)
	}
	if rec, _ := st.NamespaceRecordOf(ctx, "usa"); rec.VerifiedAt != nil || rec.VerifiedBy != "" {
		t.Fatalf("a transferred namespace kept its verification: %+v", rec)
	}
	if _, err := st.ReleaseNamespace(ctx, "usa", "bob", false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.NamespaceOwner(ctx, "usa"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("released namespace: %v", err)
	}

	for name, err := range map[string]error{
		"release of nobody's":  second(st.ReleaseNamespace(ctx, "usa", "bob", false)),
		"verify of nobody's":   second(st.VerifyNamespace(ctx, "usa", "bob", true)),
		"transfer to nobody":   second(st.TransferNamespace(ctx, "agency", "nobody", "bob", false)),
		"transfer of nobody's": second(st.TransferNamespace(ctx, "fresh", "agency", "bob", false)),
	} {
		want := store.ErrNotFound
		switch name {
		case "transfer to nobody":
			want = store.ErrNoTenant
		case "transfer of nobody's":
			want = nil // an operator may assign a namespace nobody owns
		}
		if !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}

	// The audit trail, per tenant.
	for tenant, want := range map[string][]string{
		"squatter": {"namespace_verified", "namespace_unverified", "namespace_transferred", "namespace_transferred", "namespace_released"},
		"agency":   {"namespace_transferred", "namespace_verified", "namespace_transferred", "namespace_transferred"},
	} {
		events, err := st.AuditEvents(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events {
			var d struct {
				Namespace string `json:"namespace"`
				Actor     string `json:"actor"`
			}
			if err := json.Unmarshal(e.Detail, &d); err != nil {
				t.Fatal(err)
			}
			if d.Namespace != "" {
				got = append(got, e.Kind)
				if d.Actor == "" {
					t.Errorf("%s event %s names no actor", tenant, e.Kind)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s's namespace events %v, want %v", tenant, got, want)
		}
	}
	if _, err := st.NamespaceRecordOf(ctx, "fresh"); err != nil {
		t.Fatalf("the assigned namespace: %v", err)
	}
}

// second is the error of a two-result call.
func second[T any](_ T, err error) error { return err }
