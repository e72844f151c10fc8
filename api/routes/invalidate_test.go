package routes

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/store"
)

// A notification this build cannot act on precisely (a kind a newer
// writer sends, or a payload it cannot read) drops every cache: a key
// revoked behind the listener's back is refused once such a notification
// arrives, although its row was cached for an hour.
func TestListenDropsEverythingOnANoticeItCannotRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, api.Config{KeyCacheTTL: time.Hour})
	listening := make(chan struct{}, 1)
	listenCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Listen(listenCtx, f.Server, f.Services,
			store.ListenConfig{Logger: slog.New(onInfo{listening})})
	}()
	t.Cleanup(func() { stop(); <-done })
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		t.Fatal("the listener did not connect")
	}
	keys := f.Server.Authenticator()

	for _, payload := range []string{`{"k":"release","id":"r1"}`, `not json`} {
		text, rec, _, err := auth.IssueKey(ctx, f.Store, auth.KeyRequest{TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierFree})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := keys.Authenticate(ctx, text); err != nil {
			t.Fatal(err)
		}
		// Revoked without a notification: the cached row still answers.
		if _, err := f.Pool.Exec(ctx, `UPDATE api_keys SET revoked_at = now() WHERE id = $1`, rec.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := keys.Authenticate(ctx, text); err != nil {
			t.Fatalf("premise: the cached row answers until invalidated, got %v", err)
		}
		if _, err := f.Pool.Exec(ctx, `SELECT pg_notify($1, $2)`, store.InvalidationChannel, payload); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			_, err := keys.Authenticate(ctx, text)
			if errors.Is(err, auth.ErrInvalidKey) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("payload %s: the revoked key still answers after 30s (%v)", payload, err)
			}
		}
	}
}

// onInfo is a slog handler that signals each INFO line (the listener
// logs one once it listens and has dropped the caches) and drops the
// rest.
type onInfo struct{ lines chan<- struct{} }

func (h onInfo) Enabled(context.Context, slog.Level) bool { return true }
func (h onInfo) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo {
		select {
		case h.lines <- struct{}{}:
		default:
		}
	}
	return nil
}
func (h onInfo) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onInfo) WithGroup(string) slog.Handler      { return h }
