package catalog_test

import (
	"context"
	"testing"

	"github.com/eligo/eligo/store"
)

// TestAnswerLoggingCached: the setting /decide reads is served from the
// catalog's cache, off included, without reading the database again
// within the TTL (a row changed behind its back is not seen), and an
// invalidation of the setting (what another process's write sends) makes
// the next read see the change.
func TestAnswerLoggingCached(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	cat := b.untold(t)
	if _, err := b.pool.Exec(ctx, `INSERT INTO tenants (id) VALUES ('acme')`); err != nil {
		t.Fatal(err)
	}
	read := func() store.AnswerLogging {
		t.Helper()
		a, err := cat.AnswerLogging(ctx, "acme", store.KindRuleset, "acme/snap")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if read().On() {
		t.Fatal("on before any setting")
	}
	put, err := b.store.PutAnswerLogging(ctx, store.AnswerLogging{TenantID: "acme", Kind: store.KindRuleset, Slug: "acme/snap",
		Masked: []string{"b.c", "a.b"}, RetentionDays: 30})
	if err != nil {
		t.Fatal(err)
	}
	if read().On() {
		t.Error("the cached off state was not kept: the database was read again within the TTL")
	}
	cat.InvalidateAnswerLogging("acme", store.KindRuleset+":acme/snap")
	if got := read(); got.Version != put.Version || len(got.Masked) != 2 || got.Masked[0] != "a.b" || got.RetentionDays != 30 {
		t.Errorf("after the invalidation: %+v, want %+v", got, put)
	}
	if a, err := cat.AnswerLogging(ctx, "acme", store.KindRulebook, "acme/snap"); err != nil || a.On() {
		t.Errorf("the rulebook of the same slug: %+v, %v, want off", a, err)
	}
	if err := b.store.DeleteAnswerLogging(ctx, "acme", store.KindRuleset, "acme/snap"); err != nil {
		t.Fatal(err)
	}
	if !read().On() {
		t.Error("the cached setting was not kept: the database was read again within the TTL")
	}
	cat.InvalidateAll()
	if read().On() {
		t.Error("on after the delete and a full invalidation")
	}
}

// BenchmarkAnswerLoggingCached is what /decide adds to a keyed decision
// when answer logging is off: the cached setting's lookup.
func BenchmarkAnswerLoggingCached(b *testing.B) {
	ctx := context.Background()
	cat := setup(b).untold(b)
	if _, err := cat.AnswerLogging(ctx, "acme", store.KindRuleset, "acme/snap"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if a, err := cat.AnswerLogging(ctx, "acme", store.KindRuleset, "acme/snap"); err != nil || a.On() {
			b.Fatal(a, err)
		}
	}
}
