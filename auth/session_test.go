package auth_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// hand is a clock a test moves by hand.
type hand struct{ at time.Time }

func (h *hand) now() time.Time          { return h.at }
func (h *hand) advance(d time.Duration) { h.at = h.at.Add(d) }
func sessionHash(id string) []byte      { s := sha256.Sum256([]byte(id)); return s[:] }
func newHand() *hand                    { return &hand{at: time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)} }
func signIn(t *testing.T, a *auth.Authenticator, key string) (string, auth.Session) {
	t.Helper()
	id, s, err := a.SignIn(context.Background(), key, "ip:192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	return id, s
}

// TestSessionEnds walks sessions through time: each step moves the clock
// and resolves the session, which must still act as its key or have
// ended with the given error. Idle time slides with use; the lifetime
// does not; the key's own expiry ends the session too.
func TestSessionEnds(t *testing.T) {
	t.Parallel()
	type step struct {
		after   time.Duration
		wantErr error
	}
	cases := []struct {
		name      string
		keyExpiry time.Duration // 0: the key never expires
		steps     []step
	}{
		{"idle just short of the limit, twice over", 0, []step{
			{auth.SessionIdle - time.Minute, nil}, {auth.SessionIdle - time.Minute, nil}}},
		{"idle for the limit", 0, []step{
			{time.Minute, nil}, {auth.SessionIdle, auth.ErrNoSession}, {0, auth.ErrNoSession}}},
		{"busy until the lifetime", 0, append(
			repeat(step{20 * time.Minute, nil}, int(auth.SessionLifetime/(20*time.Minute))-1),
			step{20 * time.Minute, auth.ErrNoSession})},
		{"the key expires first", 45 * time.Minute, []step{
			{20 * time.Minute, nil}, {20 * time.Minute, nil}, {5 * time.Minute, auth.ErrExpiredKey}, {0, auth.ErrNoSession}}},
	}
	st := store.New(storetest.New(t))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			clk := newHand()
			a := auth.NewAuthenticator(st, clk.now, 0)
			req := auth.KeyRequest{TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierPro}
			if c.keyExpiry > 0 {
				at := clk.at.Add(c.keyExpiry)
				req.ExpiresAt = &at
			}
			key, rec, _, err := auth.IssueKey(ctx, st, req)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := signIn(t, a, key)
			for i, s := range c.steps {
				clk.advance(s.after)
				got, err := a.ResolveSession(ctx, id)
				if !errors.Is(err, s.wantErr) {
					t.Fatalf("step %d (+%s): err = %v, want %v", i, s.after, err, s.wantErr)
				}
				if err == nil && (got.Principal.KeyID != rec.ID || got.Principal.Tier != auth.TierPro || got.Principal.TenantID != "acme") {
					t.Fatalf("step %d: principal %+v, want key %d's", i, got.Principal, rec.ID)
				}
			}
			// An ended session's row is gone.
			if _, err := st.ConsoleSession(ctx, sessionHash(id)); c.steps[len(c.steps)-1].wantErr != nil && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("ended session's row: %v, want it deleted", err)
			}
		})
	}
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestSessionStoresNoSecret: the row holds the SHA-256 of the session id
// and nothing that is the id or the CSRF token; the token is neither the
// id nor its stored hash, and differs per session.
func TestSessionStoresNoSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	a := auth.NewAuthenticator(st, newHand().now, 0)
	key, _ := issue(t, st)
	id, s := signIn(t, a, key)
	other, _ := signIn(t, a, key)
	var row string
	if err := st.Pool().QueryRow(ctx, `SELECT row_to_json(s)::text FROM console_sessions s WHERE id_hash = $1`, sessionHash(id)).Scan(&row); err != nil {
		t.Fatalf("no row under the id's hash: %v", err)
	}
	for _, secret := range []string{id, s.CSRFToken, key} {
		if strings.Contains(row, secret) {
			t.Errorf("the stored row %s holds a secret", row)
		}
	}
	if s.CSRFToken == id || s.CSRFToken == auth.CSRFToken(other) || s.CSRFToken != auth.CSRFToken(id) {
		t.Errorf("CSRF token %q: want one derived from, and unlike, the id", s.CSRFToken)
	}
}

// TestSessionRefusals: a bad key opens no session, a malformed or unknown
// id names none, a signed-out session is gone, and a revoked key ends its
// sessions as soon as the key's cached row is invalidated.
func TestSessionRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	a := auth.NewAuthenticator(st, newHand().now, time.Hour)
	key, prefix := issue(t, st)

	tampered := key[:len(key)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(key, "A")]
	for _, bad := range []string{"elg_nope", tampered} {
		if _, _, err := a.SignIn(ctx, bad, "ip:192.0.2.1"); !errors.Is(err, auth.ErrInvalidKey) {
			t.Errorf("sign in with %q: %v, want ErrInvalidKey", bad, err)
		}
	}
	var rows int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM console_sessions`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("refused sign-ins left %d rows (%v)", rows, err)
	}
	for _, id := range []string{"", "short", strings.Repeat("A", 43)} {
		if _, err := a.ResolveSession(ctx, id); !errors.Is(err, auth.ErrNoSession) {
			t.Errorf("resolve %q: %v, want ErrNoSession", id, err)
		}
	}

	out, _ := signIn(t, a, key)
	if err := a.SignOut(ctx, out); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ResolveSession(ctx, out); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("signed-out session: %v, want ErrNoSession", err)
	}

	id, _ := signIn(t, a, key)
	if _, err := a.ResolveSession(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RevokeAPIKey(ctx, prefix); err != nil {
		t.Fatal(err)
	}
	// The key's row is cached for an hour; the revocation's notification
	// (here delivered by hand) drops it.
	if _, err := a.ResolveSession(ctx, id); err != nil {
		t.Fatalf("premise: the cached row answers until invalidated, got %v", err)
	}
	a.InvalidateKey(prefix)
	if _, err := a.ResolveSession(ctx, id); !errors.Is(err, auth.ErrInvalidKey) {
		t.Errorf("session of a revoked key: %v, want ErrInvalidKey", err)
	}
	if _, err := a.ResolveSession(ctx, id); !errors.Is(err, auth.ErrNoSession) {
		t.Errorf("session of a revoked key, again: %v, want ErrNoSession (ended)", err)
	}
}

// TestSessionSeenResolution: a session's last-seen time is written at
// most once per auth.SessionSeenResolution.
func TestSessionSeenResolution(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	clk := newHand()
	a := auth.NewAuthenticator(st, clk.now, 0)
	key, _ := issue(t, st)
	id, _ := signIn(t, a, key)
	start := clk.at
	for _, s := range []struct {
		after    time.Duration
		wantSeen time.Time
	}{
		{auth.SessionSeenResolution / 2, start},
		{auth.SessionSeenResolution / 2, start.Add(auth.SessionSeenResolution)},
		{time.Second, start.Add(auth.SessionSeenResolution)},
	} {
		clk.advance(s.after)
		got, err := a.ResolveSession(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		row, err := st.ConsoleSession(ctx, sessionHash(id))
		if err != nil {
			t.Fatal(err)
		}
		if !row.LastSeenAt.Equal(s.wantSeen) || !got.IdleExpiresAt.Equal(s.wantSeen.Add(auth.SessionIdle)) {
			t.Errorf("at %s: last seen %s, idle end %s; want %s", clk.at, row.LastSeenAt, got.IdleExpiresAt, s.wantSeen)
		}
	}
}
