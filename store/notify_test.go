package store_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// everything is what a recorder reports for InvalidateAll.
var everything = store.Invalidation{Kind: "*"}

// recorder is an InvalidationHandler that reports each call on a channel.
type recorder chan store.Invalidation

func (r recorder) Invalidate(inv store.Invalidation) { r <- inv }
func (r recorder) InvalidateAll()                    { r <- everything }

// next is the next call the listener made, failing the test when none
// comes within a generous time.
func (r recorder) next(t *testing.T) store.Invalidation {
	t.Helper()
	select {
	case inv := <-r:
		return inv
	case <-time.After(30 * time.Second):
		t.Fatal("no invalidation within 30s")
		return store.Invalidation{}
	}
}

// expect fails the test unless the next calls are want, in order.
func (r recorder) expect(t *testing.T, want ...store.Invalidation) {
	t.Helper()
	for _, w := range want {
		if got := r.next(t); got != w {
			t.Fatalf("invalidation %+v, want %+v", got, w)
		}
	}
}

// listenTo runs st's invalidation listener until the test ends and
// returns what it reports, after its first (re)connection.
func listenTo(t *testing.T, st *store.Store) recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rec := make(recorder, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A short ping interval makes the listener stop waiting and check
		// its connection many times over, which must lose nothing.
		st.ListenInvalidations(ctx, rec, store.ListenConfig{Logger: slog.New(slog.DiscardHandler),
			MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, PingInterval: 5 * time.Millisecond})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("listener did not stop after its context ended")
		}
	})
	rec.expect(t, everything)
	return rec
}

// Each write that changes what a cached row means notifies, in its own
// transaction: a revocation, a publish (the slug moves), a visibility
// change, an archive, a rulebook's creation and write (with the cuts it
// archives). A write that changes nothing or rolls back sends nothing.
func TestWritesNotifyInvalidations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	rec := listenTo(t, st)
	raw := rawListener(t, pool)

	createKey(t, st, "acme", "k1k1k1k1")
	if _, err := st.RevokeAPIKey(ctx, "k1k1k1k1"); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, store.Invalidation{Kind: store.InvalidateKey, ID: "k1k1k1k1"})
	// The payload names the key by its public prefix and nothing else.
	if n := raw.next(t); n != `{"k":"key","id":"k1k1k1k1"}` {
		t.Fatalf("payload %s", n)
	}
	if _, err := st.RevokeAPIKey(ctx, "k1k1k1k1"); !errors.Is(err, store.ErrAlreadyRevoked) {
		t.Fatalf("second revocation: %v", err)
	}

	first, err := st.PublishRuleset(ctx, cut("acme", "acme/leave", 1, store.VisibilityPublic))
	if err != nil {
		t.Fatal(err)
	}
	cutOne := store.Invalidation{Kind: store.InvalidateRuleset, ID: first.Ruleset.ID, Slug: "acme/leave"}
	rec.expect(t, cutOne)
	if _, err := st.SetRulesetVisibility(ctx, "beta", first.Ruleset.ID, store.VisibilityPrivate); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant's cut: %v", err)
	}
	if _, err := st.SetRulesetVisibility(ctx, "acme", first.Ruleset.ID, store.VisibilityPrivate); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, cutOne)
	second, err := st.PublishRuleset(ctx, cut("acme", "acme/leave", 2, store.VisibilityPublic))
	if err != nil {
		t.Fatal(err)
	}
	cutTwo := store.Invalidation{Kind: store.InvalidateRuleset, ID: second.Ruleset.ID, Slug: "acme/leave"}
	rec.expect(t, cutTwo)
	if _, err := st.ArchiveRuleset(ctx, "acme", first.Ruleset.ID); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, cutOne)

	rb, err := st.CreateRulebook(ctx, store.Rulebook{ID: store.NewRulebookID(), TenantID: "acme", Slug: "acme/book",
		Name: "Book", Status: store.RulebookDraft,
		Refs: []store.RulebookRef{{SectionID: "leave", PinMode: store.PinLatestActive, LiveRulesetID: second.Ruleset.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	book := store.Invalidation{Kind: store.InvalidateRulebook, ID: rb.ID, Slug: "acme/book"}
	rec.expect(t, book)
	// A promotion's write archives the prior cut; one already archived
	// changes nothing and is not named.
	if _, err := st.WriteRulebook(ctx, store.RulebookWrite{TenantID: "acme", RulebookID: rb.ID,
		ArchiveRulesets: []string{second.Ruleset.ID, first.Ruleset.ID}}); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, cutTwo, book)
	// A refused write rolls its notification back with it.
	refused := errors.New("refused")
	if _, err := st.WriteRulebook(ctx, store.RulebookWrite{TenantID: "acme", RulebookID: rb.ID,
		Check: func(store.Rulebook) error { return refused }}); !errors.Is(err, refused) {
		t.Fatalf("refused write: %v", err)
	}

	// Nothing else was sent: the next call is the next write's.
	createKey(t, st, "acme", "k2k2k2k2")
	if _, err := st.RevokeAPIKey(ctx, "k2k2k2k2"); err != nil {
		t.Fatal(err)
	}
	rec.expect(t, store.Invalidation{Kind: store.InvalidateKey, ID: "k2k2k2k2"})
}

// A listener whose connection is cut reconnects by itself, drops every
// cache (it may have missed notifications meanwhile), and goes on
// reporting.
func TestListenerReconnectsAfterLosingItsConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	rec := listenTo(t, st)

	for round := range 2 {
		var killed int
		if err := pool.QueryRow(ctx, `
SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
WHERE application_name = $1 AND datname = current_database()) k`, store.ListenApplicationName).Scan(&killed); err != nil {
			t.Fatal(err)
		}
		if killed != 1 {
			t.Fatalf("round %d: %d listener connections terminated, want 1", round, killed)
		}
		rec.expect(t, everything)
		prefix := []string{"r0r0r0r0", "r1r1r1r1"}[round]
		createKey(t, st, "acme", prefix)
		if _, err := st.RevokeAPIKey(ctx, prefix); err != nil {
			t.Fatal(err)
		}
		rec.expect(t, store.Invalidation{Kind: store.InvalidateKey, ID: prefix})
	}
}

// rawPayloads is a plain LISTEN on the invalidation channel, to read the
// payloads as sent.
type rawPayloads struct{ conn *pgx.Conn }

func rawListener(t *testing.T, pool *pgxpool.Pool) rawPayloads {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "LISTEN "+store.InvalidationChannel); err != nil {
		t.Fatal(err)
	}
	return rawPayloads{conn}
}

// next is the next payload, failing the test when none comes in time.
func (r rawPayloads) next(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := r.conn.WaitForNotification(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n.Payload
}
