package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// createKey stores a key for tenant under prefix and returns it.
func createKey(t *testing.T, st *store.Store, tenant, prefix string) store.APIKey {
	t.Helper()
	hash := sha256.Sum256([]byte(prefix))
	key, _, err := st.CreateAPIKey(context.Background(), store.NewAPIKey{
		TenantID: tenant, Prefix: prefix, Hash: hash[:], Scopes: []string{"decide"}, Tier: "free",
	})
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// auditKinds lists tenant's audit event kinds, oldest first.
func auditKinds(t *testing.T, st *store.Store, tenant string) []string {
	t.Helper()
	events, err := st.AuditEvents(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]string, len(events))
	for i, e := range events {
		kinds[i] = e.Kind
	}
	return kinds
}

func TestRevokeAPIKeyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	createKey(t, st, "acme", "aaaa1111")

	first, err := st.RevokeAPIKey(ctx, "aaaa1111")
	if err != nil || first.RevokedAt == nil {
		t.Fatalf("first revoke: %+v, %v", first, err)
	}
	again, err := st.RevokeAPIKey(ctx, "aaaa1111")
	if !errors.Is(err, store.ErrAlreadyRevoked) {
		t.Fatalf("second revoke: err = %v, want ErrAlreadyRevoked", err)
	}
	if again.Prefix != "aaaa1111" || again.TenantID != "acme" || again.RevokedAt == nil || !again.RevokedAt.Equal(*first.RevokedAt) {
		t.Fatalf("second revoke returned %+v, want the key with its first revocation time %s", again, first.RevokedAt)
	}
	if kinds := auditKinds(t, st, "acme"); len(kinds) != 2 || kinds[1] != "api_key_revoked" {
		t.Fatalf("audit kinds %v, want one api_key_created and one api_key_revoked", kinds)
	}

	if _, err := st.RevokeAPIKey(ctx, "zzzz9999"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke of an unknown prefix: %v, want ErrNotFound", err)
	}
}

// TestRevokeAPIKeyConcurrently revokes one key from several goroutines at
// once: exactly one of them revokes it and one event is written.
func TestRevokeAPIKeyConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	createKey(t, st, "acme", "bbbb2222")

	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = st.RevokeAPIKey(ctx, "bbbb2222") })
	}
	wg.Wait()
	revoked := 0
	for _, err := range errs {
		switch {
		case err == nil:
			revoked++
		case !errors.Is(err, store.ErrAlreadyRevoked):
			t.Fatalf("concurrent revoke: %v", err)
		}
	}
	if revoked != 1 {
		t.Fatalf("%d of %d concurrent revocations succeeded, want 1", revoked, n)
	}
	if kinds := auditKinds(t, st, "acme"); len(kinds) != 2 {
		t.Fatalf("audit kinds %v, want one created and one revoked", kinds)
	}
}

// TestRecordPublishRefusal writes refusals for an existing tenant (the event
// is the tenant's) and for one never created (the event belongs to no tenant
// and no tenant is created); both name the tenant in their detail.
func TestRecordPublishRefusal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	createKey(t, st, "acme", "cccc3333")

	for _, tenant := range []string{"acme", "newcomer"} {
		if err := st.RecordPublishRefusal(ctx, tenant, map[string]any{"reason": "cases_failed"}); err != nil {
			t.Fatalf("refusal for %s: %v", tenant, err)
		}
	}
	events, err := st.AuditEvents(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.Kind != "publish_refused" || !detailHas(t, last.Detail, "tenant_id", "acme") || !detailHas(t, last.Detail, "reason", "cases_failed") {
		t.Fatalf("acme's last event %s %s", last.Kind, last.Detail)
	}

	var orphan []byte
	if err := pool.QueryRow(ctx, `SELECT detail FROM audit_events WHERE tenant_id IS NULL AND kind = 'publish_refused'`).Scan(&orphan); err != nil {
		t.Fatalf("refusal of the unknown tenant: %v", err)
	}
	if !detailHas(t, orphan, "tenant_id", "newcomer") {
		t.Fatalf("orphan refusal detail %s does not name the tenant", orphan)
	}
	if exists := tenantExists(t, pool, "newcomer"); exists {
		t.Fatal("a refusal created its tenant")
	}
}

func detailHas(t *testing.T, detail []byte, key, want string) bool {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(detail, &d); err != nil {
		t.Fatalf("detail %s: %v", detail, err)
	}
	return d[key] == want
}

func tenantExists(t *testing.T, pool *pgxpool.Pool, id string) bool {
	t.Helper()
	var exists bool
	if err := pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1)`, id).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	return exists
}
