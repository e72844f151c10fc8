package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Every process caches some rows it reads (API keys, the cuts and
// rulebooks references resolve to) for a short time. A write that changes
// what such a row means for a caller (a key revoked, a cut made private,
// archived or replaced under its slug, a rulebook changed or promoted)
// sends a notification on InvalidationChannel in its own transaction, so
// that PostgreSQL delivers it to every listening process exactly when the
// change commits, and not at all when it rolls back. Each process listens
// on one dedicated connection (ListenInvalidations) and drops what the
// notification names; the caches' TTLs remain as a backstop.

// InvalidationChannel is the PostgreSQL notification channel cache
// invalidations are sent on.
const InvalidationChannel = "eligo_invalidate"

// Kinds of Invalidation.
const (
	// InvalidateKey names an API key by its public prefix.
	InvalidateKey = "key"
	// InvalidateRuleset names a cut by its concrete ruleset_id and the
	// slug it was published under.
	InvalidateRuleset = "ruleset"
	// InvalidateRulebook names a rulebook by its id and slug.
	InvalidateRulebook = "rulebook"
	// InvalidateAnswerLogging names an answer logging setting: the
	// tenant as ID, "<kind>:<slug>" as Slug.
	InvalidateAnswerLogging = "answer_logging"
)

// Invalidation is the payload of one notification: what changed, by
// public identifiers only (a key's prefix is listed and logged anyway;
// never its secret or hash). It is JSON, a few hundred bytes at most,
// well inside PostgreSQL's 8000-byte payload limit.
type Invalidation struct {
	// Kind is InvalidateKey, InvalidateRuleset, InvalidateRulebook or
	// InvalidateAnswerLogging. A
	// listener that does not know the kind (a newer writer) drops
	// everything it caches.
	Kind string `json:"k"`
	// ID is the key's prefix, the cut's ruleset_id, the rulebook's id or
	// the setting's tenant.
	ID string `json:"id"`
	// Slug is the slug of the cut or rulebook; empty for a key.
	Slug string `json:"slug,omitempty"`
}

// sqlNotify sends one notification; it is delivered when the transaction
// it runs in commits.
const sqlNotify = `SELECT pg_notify($1, $2)`

// notify queues inv on InvalidationChannel inside tx, so listeners learn
// of the change exactly when it commits.
func notify(ctx context.Context, tx execer, inv Invalidation) error {
	payload, err := json.Marshal(inv)
	if err != nil {
		return fmt.Errorf("notify %s %s: %w", inv.Kind, inv.ID, err)
	}
	if _, err := tx.Exec(ctx, sqlNotify, InvalidationChannel, string(payload)); err != nil {
		return fmt.Errorf("notify %s %s: %w", inv.Kind, inv.ID, err)
	}
	return nil
}

// InvalidationHandler is what ListenInvalidations reports to: the
// process's caches. Its methods are called from the listener's goroutine,
// one at a time, and should return quickly.
type InvalidationHandler interface {
	// Invalidate drops the cached copies of what inv names.
	Invalidate(inv Invalidation)
	// InvalidateAll drops every cached row that may have changed. It is
	// called each time the listener (re)connects, since notifications
	// sent while no connection listened are lost, and for a payload the
	// listener cannot read.
	InvalidateAll()
}

// ListenConfig tunes ListenInvalidations; the zero value is the
// production setting.
type ListenConfig struct {
	// Logger receives a line per lost connection and reconnection;
	// slog.Default() when nil.
	Logger *slog.Logger
	// MinBackoff is the wait before reconnecting after a lost
	// connection, doubled after each failed attempt up to MaxBackoff;
	// defaults 100ms and 5s.
	MinBackoff, MaxBackoff time.Duration
	// PingInterval is how long the listener waits for a notification
	// before it checks that its connection still answers, so that a
	// connection silently cut off (a dead peer, a dropped route) is
	// noticed and replaced; default 30s.
	PingInterval time.Duration
}

// listenPingTimeout bounds the check of a quiet listener's connection.
const listenPingTimeout = 10 * time.Second

// ListenApplicationName is the application_name of the listener's
// connection, which names it in pg_stat_activity.
const ListenApplicationName = "eligo_invalidate"

// ListenInvalidations listens on InvalidationChannel over one dedicated
// connection (outside the pool, whose connections it would otherwise hold
// for good) and reports each notification to h, until ctx ends. A lost
// connection is reopened after a backoff, and each time the listener
// (re)connects it calls h.InvalidateAll first. It needs a session of its
// own: a pooler in transaction mode between the process and PostgreSQL
// would lose the LISTEN.
func (s *Store) ListenInvalidations(ctx context.Context, h InvalidationHandler, cfg ListenConfig) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(5*time.Second, cfg.MinBackoff)
	}
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 30 * time.Second
	}
	connCfg := s.pool.Config().ConnConfig
	if connCfg.RuntimeParams == nil {
		connCfg.RuntimeParams = map[string]string{}
	}
	connCfg.RuntimeParams["application_name"] = ListenApplicationName
	backoff := cfg.MinBackoff
	for {
		listened, err := listen(ctx, connCfg, h, cfg)
		if ctx.Err() != nil {
			return
		}
		if listened {
			backoff = cfg.MinBackoff
		}
		cfg.Logger.Warn("cache invalidation listener lost its connection; reconnecting",
			"err", err, "retry_in", backoff.String())
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if !listened {
			backoff = min(2*backoff, cfg.MaxBackoff)
		}
	}
}

// sqlListen subscribes the listener's session to InvalidationChannel.
const sqlListen = `LISTEN ` + InvalidationChannel

// listen runs one connection: connect, LISTEN, drop every cache, then
// report notifications until the connection fails or ctx ends. listened
// reports whether the LISTEN took effect.
func listen(ctx context.Context, connCfg *pgx.ConnConfig, h InvalidationHandler, cfg ListenConfig) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, connCfg)
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, sqlListen); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	h.InvalidateAll()
	cfg.Logger.Info("listening for cache invalidations", "channel", InvalidationChannel)
	for {
		waitCtx, cancel := context.WithTimeout(ctx, cfg.PingInterval)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return true, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			// Quiet for a while: make sure the connection still answers.
			pingCtx, cancel := context.WithTimeout(ctx, listenPingTimeout)
			err = conn.Ping(pingCtx)
			cancel()
			if err != nil {
				return true, fmt.Errorf("ping: %w", err)
			}
			continue
		case err != nil:
			return true, fmt.Errorf("wait for notification: %w", err)
		}
		var inv Invalidation
		if err := json.Unmarshal([]byte(n.Payload), &inv); err != nil || inv.Kind == "" {
			cfg.Logger.Warn("unreadable cache invalidation; dropping every cached row", "payload_bytes", len(n.Payload))
			h.InvalidateAll()
			continue
		}
		h.Invalidate(inv)
	}
}
