package store_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// TestConsoleSessionLifecycle: a session is found by its hash with its
// key's prefix and times, its last-seen time moves only when older than
// the resolution, sign-out deletes it once, and one whose key is deleted
// goes with it.
func TestConsoleSessionLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	key := createKey(t, st, "acme", "sess0001")
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	hash := sha256.Sum256([]byte("session one"))
	if err := st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: hash[:], TenantID: "acme", APIKeyID: key.ID,
		CreatedAt: at, ExpiresAt: at.Add(12 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	got, err := st.ConsoleSession(ctx, hash[:])
	if err != nil {
		t.Fatal(err)
	}
	if got.TenantID != "acme" || got.APIKeyID != key.ID || got.KeyPrefix != "sess0001" ||
		!got.CreatedAt.Equal(at) || !got.LastSeenAt.Equal(at) || !got.ExpiresAt.Equal(at.Add(12*time.Hour)) {
		t.Fatalf("session = %+v", got)
	}

	for _, step := range []struct {
		name     string
		at       time.Time
		wantSeen time.Time
	}{
		{"within the resolution: unchanged", at.Add(30 * time.Second), at},
		{"after it: moved", at.Add(90 * time.Second), at.Add(90 * time.Second)},
		{"an earlier time never moves it back", at, at.Add(90 * time.Second)},
	} {
		if err := st.TouchConsoleSession(ctx, hash[:], step.at, time.Minute); err != nil {
			t.Fatal(err)
		}
		got, err := st.ConsoleSession(ctx, hash[:])
		if err != nil {
			t.Fatal(err)
		}
		if !got.LastSeenAt.Equal(step.wantSeen) {
			t.Errorf("%s: last seen %s, want %s", step.name, got.LastSeenAt, step.wantSeen)
		}
	}

	if deleted, err := st.DeleteConsoleSession(ctx, hash[:]); err != nil || !deleted {
		t.Fatalf("sign-out: deleted %v, %v", deleted, err)
	}
	if deleted, err := st.DeleteConsoleSession(ctx, hash[:]); err != nil || deleted {
		t.Fatalf("second sign-out: deleted %v, %v", deleted, err)
	}
	if _, err := st.ConsoleSession(ctx, hash[:]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("signed-out session: %v, want ErrNotFound", err)
	}

	// A session of a key that is deleted is deleted with it; a session
	// for a key that does not exist is never stored.
	if err := st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: hash[:], TenantID: "acme", APIKeyID: key.ID,
		CreatedAt: at, ExpiresAt: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM api_keys WHERE id = $1`, key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ConsoleSession(ctx, hash[:]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session of a deleted key: %v, want ErrNotFound", err)
	}
	err = st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: hash[:], TenantID: "acme", APIKeyID: key.ID,
		CreatedAt: at, ExpiresAt: at.Add(time.Hour)})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session for a deleted key: %v, want ErrNotFound", err)
	}
}

// TestDeleteEndedConsoleSessions: the prune deletes exactly the sessions
// that have ended: idle since the cutoff, past their lifetime, or opened
// with a key since revoked or expired.
func TestDeleteEndedConsoleSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	idle := 30 * time.Minute
	live := createKey(t, st, "acme", "live0001")
	revoked := createKey(t, st, "acme", "revk0001")
	if _, err := st.RevokeAPIKey(ctx, revoked.Prefix); err != nil {
		t.Fatal(err)
	}
	expired := createKey(t, st, "acme", "expd0001")
	if _, err := st.Pool().Exec(ctx, `UPDATE api_keys SET expires_at = $1 WHERE id = $2`, now.Add(-time.Second), expired.ID); err != nil {
		t.Fatal(err)
	}
	sessions := []struct {
		name      string
		key       store.APIKey
		lastSeen  time.Time
		expiresAt time.Time
		ended     bool
	}{
		{"live", live, now.Add(-time.Minute), now.Add(time.Hour), false},
		{"idle a moment short of the cutoff", live, now.Add(-idle + time.Second), now.Add(time.Hour), false},
		{"idle since the cutoff", live, now.Add(-idle), now.Add(time.Hour), true},
		{"past its lifetime", live, now.Add(-time.Minute), now, true},
		{"key revoked", revoked, now.Add(-time.Minute), now.Add(time.Hour), true},
		{"key expired", expired, now.Add(-time.Minute), now.Add(time.Hour), true},
	}
	hashOf := func(name string) []byte { h := sha256.Sum256([]byte(name)); return h[:] }
	for _, s := range sessions {
		if err := st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: hashOf(s.name), TenantID: "acme", APIKeyID: s.key.ID,
			CreatedAt: s.lastSeen, ExpiresAt: s.expiresAt}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := st.DeleteEndedConsoleSessions(ctx, now, now.Add(-idle))
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("deleted %d sessions, want 4", n)
	}
	for _, s := range sessions {
		_, err := st.ConsoleSession(ctx, hashOf(s.name))
		if gone := errors.Is(err, store.ErrNotFound); gone != s.ended {
			t.Errorf("%s: deleted = %v (%v), want %v", s.name, gone, err, s.ended)
		}
	}
}

// A key keeps at most MaxPerKey sessions: each new one past it deletes the
// least recently used, and another key's sessions are untouched.
func TestConsoleSessionsPerKeyAreCapped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	key := createKey(t, st, "acme", "capped01")
	other := createKey(t, st, "acme", "capped02")
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	hashOf := func(i int) []byte { h := sha256.Sum256([]byte{byte(i)}); return h[:] }
	const maxPerKey = 3
	otherHash := sha256.Sum256([]byte("other key's"))
	if err := st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: otherHash[:], TenantID: "acme", APIKeyID: other.ID,
		CreatedAt: at, ExpiresAt: at.Add(12 * time.Hour), MaxPerKey: maxPerKey}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		created := at.Add(time.Duration(i) * time.Minute)
		if err := st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: hashOf(i), TenantID: "acme", APIKeyID: key.ID,
			CreatedAt: created, ExpiresAt: created.Add(12 * time.Hour), MaxPerKey: maxPerKey}); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			// The first session is used after the second was opened: it
			// is then the more recently used of the two, and stays.
			if err := st.TouchConsoleSession(ctx, hashOf(0), at.Add(150*time.Minute), time.Minute); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, want := range map[int]bool{0: true, 1: false, 7: false, 8: true, 9: true} {
		_, err := st.ConsoleSession(ctx, hashOf(i))
		if live := err == nil; live != want {
			t.Errorf("session %d live = %v (%v), want %v", i, live, err, want)
		}
	}
	if _, err := st.ConsoleSession(ctx, otherHash[:]); err != nil {
		t.Errorf("another key's session: %v", err)
	}
	if err := st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: hashOf(99), TenantID: "acme", APIKeyID: 1 << 40,
		CreatedAt: at, ExpiresAt: at.Add(time.Hour), MaxPerKey: maxPerKey}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a session of no key: %v, want ErrNotFound", err)
	}
}
