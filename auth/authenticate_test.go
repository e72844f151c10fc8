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

// issue stores a fresh decide key for tenant acme and returns its text and
// prefix.
func issue(t *testing.T, st *store.Store) (text, prefix string) {
	t.Helper()
	text, rec, _, err := auth.IssueKey(context.Background(), st, auth.KeyRequest{
		TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierFree,
	})
	if err != nil {
		t.Fatal(err)
	}
	return text, rec.Prefix
}

func TestAuthenticateRecordsLastUse(t *testing.T) {
	ctx := context.Background()
	st := store.New(storetest.New(t))
	text, prefix := issue(t, st)

	before, err := st.APIKeyByPrefix(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if before.LastUsedAt != nil {
		t.Fatalf("a new key has last_used_at %v, want none", before.LastUsedAt)
	}
	if _, err := auth.NewAuthenticator(st, nil, 0).Authenticate(ctx, text); err != nil {
		t.Fatal(err)
	}
	after, err := st.APIKeyByPrefix(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if after.LastUsedAt == nil || time.Since(*after.LastUsedAt) > time.Hour {
		t.Fatalf("after use last_used_at = %v, want about now", after.LastUsedAt)
	}
}

// TestRevocationAndKeyCache pins the documented trade: without a cache a
// revocation is seen at once; with one, only after the TTL or when the
// key's row is invalidated.
func TestRevocationAndKeyCache(t *testing.T) {
	ctx := context.Background()
	st := store.New(storetest.New(t))
	text, prefix := issue(t, st)
	uncached := auth.NewAuthenticator(st, nil, 0)
	cached := auth.NewAuthenticator(st, nil, time.Hour)
	for _, a := range []*auth.Authenticator{uncached, cached} {
		if _, err := a.Authenticate(ctx, text); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.RevokeAPIKey(ctx, prefix); err != nil {
		t.Fatal(err)
	}
	if _, err := uncached.Authenticate(ctx, text); !errors.Is(err, auth.ErrInvalidKey) {
		t.Fatalf("uncached authenticator after revocation: err = %v, want ErrInvalidKey", err)
	}
	if _, err := cached.Authenticate(ctx, text); err != nil {
		t.Fatalf("cached authenticator within its TTL: err = %v, want the cached key accepted", err)
	}
	if _, err := auth.NewAuthenticator(st, nil, time.Hour).Authenticate(ctx, text); !errors.Is(err, auth.ErrInvalidKey) {
		t.Fatalf("fresh cached authenticator after revocation: err = %v, want ErrInvalidKey", err)
	}
	// The revocation's notification (InvalidateKey), or a listener's
	// reconnection (InvalidateKeys), ends the trade at once.
	cached.InvalidateKey("zzzzzzzz")
	if _, err := cached.Authenticate(ctx, text); err != nil {
		t.Fatalf("after invalidating another key: err = %v, want the cached key accepted", err)
	}
	cached.InvalidateKey(prefix)
	if _, err := cached.Authenticate(ctx, text); !errors.Is(err, auth.ErrInvalidKey) {
		t.Fatalf("cached authenticator after InvalidateKey: err = %v, want ErrInvalidKey", err)
	}
	other, otherPrefix := issue(t, st)
	if _, err := cached.Authenticate(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RevokeAPIKey(ctx, otherPrefix); err != nil {
		t.Fatal(err)
	}
	cached.InvalidateKeys()
	if _, err := cached.Authenticate(ctx, other); !errors.Is(err, auth.ErrInvalidKey) {
		t.Fatalf("cached authenticator after InvalidateKeys: err = %v, want ErrInvalidKey", err)
	}
}

// TestKeysSeenRecentlyThroughAnOutage: with the database cut away (and
// the key cache expired), a key whose row was read recently is still
// judged on that row; a key revoked before the outage stays refused,
// whether its revoked row was read or its notification dropped it; a key
// never seen, or checked without a cache, cannot be checked.
func TestKeysSeenRecentlyThroughAnOutage(t *testing.T) {
	ctx := context.Background()
	direct := storetest.New(t)
	proxied, outage := storetest.Proxied(t, direct)
	admin := store.New(direct)
	seen, _ := issue(t, admin)
	revoked, revokedPrefix := issue(t, admin)
	notified, notifiedPrefix := issue(t, admin)
	unseen, _ := issue(t, admin)
	a := auth.NewAuthenticator(store.New(proxied), nil, time.Millisecond)
	uncached := auth.NewAuthenticator(store.New(proxied), nil, 0)
	for _, text := range []string{seen, revoked, notified} {
		if _, err := a.Authenticate(ctx, text); err != nil {
			t.Fatal(err)
		}
	}
	for _, prefix := range []string{revokedPrefix, notifiedPrefix} {
		if _, err := admin.RevokeAPIKey(ctx, prefix); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(5 * time.Millisecond) // past the key cache's TTL
	if _, err := a.Authenticate(ctx, revoked); !errors.Is(err, auth.ErrInvalidKey) {
		t.Fatalf("revoked key before the outage: %v", err)
	}
	a.InvalidateKey(notifiedPrefix) // its revocation's notification

	outage.Cut()
	time.Sleep(5 * time.Millisecond)
	if p, err := a.Authenticate(ctx, seen); err != nil || p.TenantID != "acme" {
		t.Errorf("key seen recently, during the outage: %+v %v, want accepted", p, err)
	}
	if _, err := a.Authenticate(ctx, revoked); !errors.Is(err, auth.ErrInvalidKey) {
		t.Errorf("key revoked before the outage: %v, want ErrInvalidKey", err)
	}
	for name, text := range map[string]string{"notified revocation": notified, "never seen": unseen} {
		if _, err := a.Authenticate(ctx, text); err == nil || errors.Is(err, auth.ErrInvalidKey) {
			t.Errorf("%s during the outage: %v, want the database's error", name, err)
		}
	}
	if _, err := uncached.Authenticate(ctx, seen); err == nil {
		t.Error("an authenticator without a cache accepted a key it cannot read")
	}
	outage.Restore()
	if _, err := a.Authenticate(ctx, notified); !errors.Is(err, auth.ErrInvalidKey) {
		t.Errorf("notified revocation after the outage: %v, want ErrInvalidKey", err)
	}
}

// BenchmarkAuthenticate compares reading the key row from PostgreSQL on
// every request with the short-lived key-row cache.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	st := store.New(storetest.New(b))
	text, _, _, err := auth.IssueKey(ctx, st, auth.KeyRequest{TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierFree})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		ttl  time.Duration
	}{{"uncached", 0}, {"cached", time.Minute}} {
		b.Run(bc.name, func(b *testing.B) {
			a := auth.NewAuthenticator(st, nil, bc.ttl)
			for b.Loop() {
				if _, err := a.Authenticate(ctx, text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
