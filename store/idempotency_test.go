package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestIdempotencyClaims: one claim per tenant, operation and key; a claim
// whose request never answered is taken over by a retry of the same
// request once it is stale, never by another request; an answered claim
// is replayed, and a released one claimed afresh.
func TestIdempotencyClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	k := store.IdempotencyKey{TenantID: "acme", Operation: "create-project", Key: "k1"}
	claim := func(hash string, stale time.Duration) (bool, store.IdempotentAnswer) {
		t.Helper()
		ok, a, err := st.ClaimIdempotency(ctx, k, hash, stale)
		if err != nil {
			t.Fatal(err)
		}
		return ok, a
	}
	if ok, _ := claim("h1", time.Hour); !ok {
		t.Fatal("a new key was not claimed")
	}
	if ok, a := claim("h1", time.Hour); ok || a.Status != 0 || a.RequestHash != "h1" {
		t.Errorf("a running claim was claimed again: %v %+v", ok, a)
	}
	if ok, _ := claim("h2", 0); ok {
		t.Error("another request took over a stale claim")
	}
	if ok, _ := claim("h1", 0); !ok {
		t.Error("a retry did not take over its stale claim")
	}
	if ok, _, err := st.ClaimIdempotency(ctx, store.IdempotencyKey{TenantID: "beta", Operation: "create-project", Key: "k1"}, "h1", time.Hour); err != nil || !ok {
		t.Errorf("another tenant's key was not its own: %v %v", ok, err)
	}
	if err := st.FinishIdempotency(ctx, k, store.IdempotentAnswer{Status: 201, ContentType: "application/json", Body: []byte(`{"id":1}`)}); err != nil {
		t.Fatal(err)
	}
	if ok, a := claim("h1", 0); ok || a.Status != 201 || string(a.Body) != `{"id":1}` {
		t.Errorf("an answered claim: %v %+v", ok, a)
	}
	k2 := store.IdempotencyKey{TenantID: "acme", Operation: "create-project", Key: "k2"}
	if ok, _, err := st.ClaimIdempotency(ctx, k2, "h", time.Hour); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := st.ReleaseIdempotency(ctx, k2); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := st.ClaimIdempotency(ctx, k2, "other", time.Hour); err != nil || !ok {
		t.Errorf("a released key was not free: %v %v", ok, err)
	}
}
