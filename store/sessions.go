package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ConsoleSession is one signed-in console (see migrations
// 0013_console_sessions.sql). It never holds the session id itself: only
// its SHA-256, as api_keys holds only the hash of a key. The session acts
// as its API key; package auth judges the key on every request.
type ConsoleSession struct {
	// IDHash is the SHA-256 of the session id the cookie carries.
	IDHash []byte
	// TenantID is the tenant of the key the session was opened with.
	TenantID string
	// APIKeyID is the key the session acts as.
	APIKeyID int64
	// KeyPrefix is that key's public prefix, read with the session, by
	// which the authenticator finds (and caches) the key's row.
	KeyPrefix string
	// CreatedAt is when the session was opened; LastSeenAt when it last
	// authenticated a request, to the resolution its writer chose (see
	// TouchConsoleSession); ExpiresAt is when it ends however busy it is.
	CreatedAt, LastSeenAt, ExpiresAt time.Time
}

// NewConsoleSession is what CreateConsoleSession stores. Times come from
// the caller's clock, so that expiry is judged by one clock.
type NewConsoleSession struct {
	// IDHash is the SHA-256 of the session id (32 bytes).
	IDHash []byte
	// TenantID and APIKeyID name the key the session acts as.
	TenantID string
	APIKeyID int64
	// CreatedAt is now; ExpiresAt is the session's absolute end.
	CreatedAt, ExpiresAt time.Time
	// MaxPerKey, when positive, is how many sessions the key may have:
	// past it, the key's least recently used sessions are deleted, so
	// that signing in in a loop cannot pile up rows.
	MaxPerKey int
}

const (
	// sqlLockKeyForSession serialises the sign-ins of one key, so that
	// two at once cannot both keep the key's sessions at MaxPerKey.
	sqlLockKeyForSession    = `SELECT 1 FROM api_keys WHERE id = $1 FOR NO KEY UPDATE`
	sqlInsertConsoleSession = `
INSERT INTO console_sessions (id_hash, tenant_id, api_key_id, created_at, last_seen_at, expires_at)
VALUES ($1, $2, $3, $4, $4, $5)`
	sqlTrimConsoleSessions = `
DELETE FROM console_sessions WHERE id_hash IN (
    SELECT id_hash FROM console_sessions WHERE api_key_id = $1
    ORDER BY last_seen_at DESC, created_at DESC, id_hash OFFSET $2)`
)

// CreateConsoleSession stores a new session, and, with n.MaxPerKey,
// deletes the key's least recently used sessions past it, in one
// transaction. A key deleted meanwhile is ErrNotFound.
func (s *Store) CreateConsoleSession(ctx context.Context, n NewConsoleSession) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if n.MaxPerKey > 0 {
			var one int
			if err := tx.QueryRow(ctx, sqlLockKeyForSession, n.APIKeyID).Scan(&one); errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("key %d: %w", n.APIKeyID, ErrNotFound)
			} else if err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, sqlInsertConsoleSession, n.IDHash, n.TenantID, n.APIKeyID, n.CreatedAt, n.ExpiresAt)
		if isForeignKeyViolation(err) {
			return fmt.Errorf("key %d: %w", n.APIKeyID, ErrNotFound)
		}
		if err != nil || n.MaxPerKey <= 0 {
			return err
		}
		_, err = tx.Exec(ctx, sqlTrimConsoleSessions, n.APIKeyID, n.MaxPerKey)
		return err
	})
	if err != nil {
		return fmt.Errorf("create console session: %w", err)
	}
	return nil
}

const sqlConsoleSession = `
SELECT s.id_hash, s.tenant_id, s.api_key_id, k.prefix, s.created_at, s.last_seen_at, s.expires_at
FROM console_sessions s JOIN api_keys k ON k.id = s.api_key_id
WHERE s.id_hash = $1`

// ConsoleSession returns the session whose id hashes to idHash, whatever
// its age: the caller judges expiry. ErrNotFound when there is none.
func (s *Store) ConsoleSession(ctx context.Context, idHash []byte) (ConsoleSession, error) {
	var c ConsoleSession
	err := s.pool.QueryRow(ctx, sqlConsoleSession, idHash).
		Scan(&c.IDHash, &c.TenantID, &c.APIKeyID, &c.KeyPrefix, &c.CreatedAt, &c.LastSeenAt, &c.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return ConsoleSession{}, ErrNotFound
	}
	if err != nil {
		return ConsoleSession{}, fmt.Errorf("console session: %w", err)
	}
	return c, nil
}

const sqlTouchConsoleSession = `
UPDATE console_sessions SET last_seen_at = $2::timestamptz
WHERE id_hash = $1 AND last_seen_at <= $2::timestamptz - make_interval(secs => $3)`

// TouchConsoleSession records that the session was used at at, unless it
// was recorded as used less than resolution before: a busy console costs
// one write per resolution rather than one per request.
func (s *Store) TouchConsoleSession(ctx context.Context, idHash []byte, at time.Time, resolution time.Duration) error {
	if _, err := s.pool.Exec(ctx, sqlTouchConsoleSession, idHash, at, resolution.Seconds()); err != nil {
		return fmt.Errorf("touch console session: %w", err)
	}
	return nil
}

// DeleteConsoleSession deletes the session whose id hashes to idHash (a
// sign-out, or a session found ended), and reports whether there was one.
func (s *Store) DeleteConsoleSession(ctx context.Context, idHash []byte) (bool, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM console_sessions WHERE id_hash = $1`, idHash)
	if err != nil {
		return false, fmt.Errorf("delete console session: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

const sqlDeleteEndedConsoleSessions = `
DELETE FROM console_sessions s
WHERE s.expires_at <= $1 OR s.last_seen_at <= $2
   OR EXISTS (SELECT 1 FROM api_keys k WHERE k.id = s.api_key_id AND (k.revoked_at IS NOT NULL OR k.expires_at <= $1))`

// DeleteEndedConsoleSessions deletes the sessions that have ended by now:
// past their absolute end, idle since idleCutoff or before, or opened with
// a key since revoked or expired. It returns how many; the hourly prune
// job calls it.
func (s *Store) DeleteEndedConsoleSessions(ctx context.Context, now, idleCutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, sqlDeleteEndedConsoleSessions, now, idleCutoff)
	if err != nil {
		return 0, fmt.Errorf("prune console sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}
