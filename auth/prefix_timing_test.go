package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// prefixProbes are a wrong key for a known prefix (the known prefix with
// another key's secret) and a key whose prefix names no key: what a
// guesser presents.
func prefixProbes(t testing.TB, st *store.Store) (known, unknown string) {
	t.Helper()
	text, rec, _, err := auth.IssueKey(context.Background(), st, auth.KeyRequest{
		TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierFree,
	})
	if err != nil {
		t.Fatal(err)
	}
	other, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	secret := other.Text[len("elg_")+len(rec.Prefix)+1:] // a secret may itself hold "_"
	known = "elg_" + rec.Prefix + "_" + secret
	if known == text {
		t.Fatal("drew the same secret twice")
	}
	return known, other.Text
}

// A refusal takes the same work whether or not the prefix names a key: a
// repeated unknown prefix is answered from the cache, as a repeated known
// one is (so even with the database away it is still refused as invalid,
// not as a database failure), and the two paths allocate alike.
func TestUnknownPrefixDoesTheWorkOfAKnownOne(t *testing.T) {
	direct := storetest.New(t)
	proxied, outage := storetest.Proxied(t, direct)
	st := store.New(proxied)
	known, unknown := prefixProbes(t, st)
	a := auth.NewAuthenticator(st, nil, time.Hour)
	ctx := context.Background()
	for _, text := range []string{known, unknown} {
		if _, err := a.Authenticate(ctx, text); !errors.Is(err, auth.ErrInvalidKey) {
			t.Fatalf("first presentation: %v, want invalid", err)
		}
	}
	outage.Cut()
	defer outage.Restore()
	allocs := map[string]float64{}
	for name, text := range map[string]string{"known": known, "unknown": unknown} {
		if _, err := a.Authenticate(ctx, text); !errors.Is(err, auth.ErrInvalidKey) {
			t.Fatalf("%s prefix again, database away: %v, want invalid from the cache", name, err)
		}
		allocs[name] = testing.AllocsPerRun(100, func() { _, _ = a.Authenticate(ctx, text) })
	}
	if allocs["known"] != allocs["unknown"] {
		t.Fatalf("allocations per refusal: known prefix %v, unknown %v", allocs["known"], allocs["unknown"])
	}
}

// BenchmarkRefusalByPrefix measures a refused key whose prefix is known
// against one whose prefix is not, both presented repeatedly (the
// guesser's pattern): the two should cost the same.
func BenchmarkRefusalByPrefix(b *testing.B) {
	st := store.New(storetest.New(b))
	known, unknown := prefixProbes(b, st)
	a := auth.NewAuthenticator(st, nil, time.Hour)
	ctx := context.Background()
	for _, bc := range []struct{ name, text string }{{"known", known}, {"unknown", unknown}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := a.Authenticate(ctx, bc.text); !errors.Is(err, auth.ErrInvalidKey) {
					b.Fatal(err)
				}
			}
		})
	}
}
