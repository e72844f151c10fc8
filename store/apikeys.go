package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrDuplicatePrefix is returned by CreateAPIKey when another key already
// holds the public prefix; the caller draws a new key and tries again.
var ErrDuplicatePrefix = errors.New("api key prefix already in use")

// ErrAlreadyRevoked is returned by RevokeAPIKey, together with the key as
// stored, when the key was revoked before: nothing changes and no second
// api_key_revoked event is written.
var ErrAlreadyRevoked = errors.New("api key already revoked")

// APIKey is one stored API key. It never holds the key itself: only the
// SHA-256 of the full key text and the public prefix.
type APIKey struct {
	// ID is the database identity of the key.
	ID int64
	// TenantID is the tenant the key acts for.
	TenantID string
	// Name is a free label chosen at creation ("ci", "demo"); may be empty.
	Name string
	// Prefix is the public part of the key, shown in listings and used to
	// find the row when a key is presented.
	Prefix string
	// Hash is the SHA-256 of the full key text (32 bytes).
	Hash []byte
	// Scopes are the permissions the key carries, spelled as in docs/api.md#keys-and-access.
	Scopes []string
	// Tier is free, starter, pro or internal; it selects metering budgets.
	Tier string
	// ExpiresAt is when the key stops working; nil means never.
	ExpiresAt *time.Time
	// RevokedAt is when the key was revoked; nil while it is live.
	RevokedAt *time.Time
	// CreatedAt is when the key was issued.
	CreatedAt time.Time
	// LastUsedAt is when the key last authenticated a request, to the
	// minute (see TouchAPIKey); nil if it never has.
	LastUsedAt *time.Time
}

// NewAPIKey is what CreateAPIKey needs to store a key. auth.IssueKey fills
// it from a freshly drawn key; the key text itself is never passed here.
type NewAPIKey struct {
	// TenantID is the tenant the key acts for; CreateAPIKey creates the
	// tenant if it does not exist yet.
	TenantID string
	// Name is a free label for listings; may be empty.
	Name string
	// Prefix is the public part of the key; it must be unique, else
	// CreateAPIKey returns ErrDuplicatePrefix.
	Prefix string
	// Hash is the SHA-256 of the full key text (32 bytes).
	Hash []byte
	// Scopes are the permissions granted, spelled as in docs/api.md#keys-and-access.
	Scopes []string
	// Tier is free, starter, pro or internal.
	Tier string
	// ExpiresAt is when the key stops working; nil means never.
	ExpiresAt *time.Time
}

const apiKeyColumns = `id, tenant_id, name, prefix, key_hash, scopes, tier, expires_at, revoked_at, created_at, last_used_at`

func scanAPIKey(row pgx.Row) (APIKey, error) {
	var k APIKey
	err := row.Scan(&k.ID, &k.TenantID, &k.Name, &k.Prefix, &k.Hash, &k.Scopes, &k.Tier,
		&k.ExpiresAt, &k.RevokedAt, &k.CreatedAt, &k.LastUsedAt)
	return k, err
}

const (
	sqlEnsureTenant = `INSERT INTO tenants (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`

	sqlInsertAPIKey = `
INSERT INTO api_keys (tenant_id, name, prefix, key_hash, scopes, tier, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING ` + apiKeyColumns
)

// CreateAPIKey stores a new key, creating its tenant first when the tenant is
// new, and records an api_key_created audit event, all in one transaction.
// tenantCreated reports whether the tenant was new.
func (s *Store) CreateAPIKey(ctx context.Context, k NewAPIKey) (key APIKey, tenantCreated bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlEnsureTenant, k.TenantID)
		if err != nil {
			return fmt.Errorf("ensure tenant: %w", err)
		}
		tenantCreated = tag.RowsAffected() == 1
		key, err = scanAPIKey(tx.QueryRow(ctx, sqlInsertAPIKey,
			k.TenantID, k.Name, k.Prefix, k.Hash, k.Scopes, k.Tier, k.ExpiresAt))
		if isUniqueViolation(err, "api_keys_prefix_key") {
			return ErrDuplicatePrefix
		}
		if err != nil {
			return fmt.Errorf("insert key: %w", err)
		}
		return insertAuditEvent(ctx, tx, k.TenantID, "api_key_created", map[string]any{
			"prefix": key.Prefix, "name": key.Name, "scopes": key.Scopes, "tier": key.Tier,
		})
	})
	if err != nil {
		return APIKey{}, false, fmt.Errorf("create api key for tenant %q: %w", k.TenantID, err)
	}
	return key, tenantCreated, nil
}

const sqlAPIKeyByPrefix = `SELECT ` + apiKeyColumns + ` FROM api_keys WHERE prefix = $1`

// APIKeyByPrefix finds a key by its public prefix, revoked or not; the caller
// compares hashes and judges revocation and expiry. ErrNotFound when absent.
func (s *Store) APIKeyByPrefix(ctx context.Context, prefix string) (APIKey, error) {
	k, err := scanAPIKey(s.pool.QueryRow(ctx, sqlAPIKeyByPrefix, prefix))
	if errors.Is(err, pgx.ErrNoRows) {
		return APIKey{}, ErrNotFound
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("api key by prefix: %w", err)
	}
	return k, nil
}

// LastUsedResolution is how stale api_keys.last_used_at may get: TouchAPIKey
// writes only when the stored time is older than this, so a busy key costs
// one write a minute rather than one per request.
const LastUsedResolution = time.Minute

const sqlTouchAPIKey = `
UPDATE api_keys SET last_used_at = now()
WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`

// TouchAPIKey records that key id was just used, unless it was recorded as
// used less than LastUsedResolution ago.
func (s *Store) TouchAPIKey(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, sqlTouchAPIKey, id, LastUsedResolution.Seconds()); err != nil {
		return fmt.Errorf("touch api key: %w", err)
	}
	return nil
}

const sqlListAPIKeys = `
SELECT ` + apiKeyColumns + ` FROM api_keys
WHERE $1 = '' OR tenant_id = $1
ORDER BY tenant_id, created_at, id`

// ListAPIKeys returns the keys of tenantID, or of every tenant when tenantID
// is empty, oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, tenantID string) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, sqlListAPIKeys, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (APIKey, error) { return scanAPIKey(row) })
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return keys, nil
}

const sqlRevokeAPIKey = `
UPDATE api_keys SET revoked_at = now()
WHERE prefix = $1 AND revoked_at IS NULL
RETURNING ` + apiKeyColumns

// RevokeAPIKey marks the key with this prefix revoked and records an
// api_key_revoked audit event, in one transaction. ErrNotFound when no key
// has the prefix. A key revoked before keeps its first revocation time and
// gets no second event: RevokeAPIKey returns it as stored with an error
// wrapping ErrAlreadyRevoked. Concurrent revocations of one key write one
// event between them, since the update waits on the row lock and then finds
// the key revoked. The revocation notifies every listening process (see
// InvalidationChannel), which drops the key from its cache at once.
func (s *Store) RevokeAPIKey(ctx context.Context, prefix string) (APIKey, error) {
	var key APIKey
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		key, err = scanAPIKey(tx.QueryRow(ctx, sqlRevokeAPIKey, prefix))
		if errors.Is(err, pgx.ErrNoRows) {
			key, err = scanAPIKey(tx.QueryRow(ctx, sqlAPIKeyByPrefix, prefix))
			if errors.Is(err, pgx.ErrNoRows) {
				return ErrNotFound
			}
			if err != nil {
				return err
			}
			return ErrAlreadyRevoked
		}
		if err != nil {
			return err
		}
		if err := notify(ctx, tx, Invalidation{Kind: InvalidateKey, ID: key.Prefix}); err != nil {
			return err
		}
		return insertAuditEvent(ctx, tx, key.TenantID, "api_key_revoked", map[string]any{"prefix": key.Prefix})
	})
	if errors.Is(err, ErrAlreadyRevoked) {
		return key, fmt.Errorf("revoke api key %q: %w", prefix, err)
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("revoke api key %q: %w", prefix, err)
	}
	return key, nil
}

// AuditEvent is one row of the server-side audit trail: who did what to
// keys and rulesets, kept for support and never shown to other tenants.
type AuditEvent struct {
	// ID is the database identity; it grows with insertion order.
	ID int64
	// TenantID is the tenant the event belongs to; empty for an event that
	// belongs to no tenant (a refused publish by a tenant not yet created).
	TenantID string
	// Kind names what happened, e.g. api_key_created, ruleset_published.
	Kind string
	// Detail is the event's JSON object; its keys depend on Kind.
	Detail json.RawMessage
	// CreatedAt is when the event was written (the transaction's start).
	CreatedAt time.Time
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// sqlInsertAuditEvent attaches the event to its tenant only if the tenant
// exists, so that an event about a tenant that was never created (a refused
// first publish) is still written, belonging to no tenant.
const sqlInsertAuditEvent = `
INSERT INTO audit_events (tenant_id, kind, detail)
VALUES ((SELECT id FROM tenants WHERE id = $1), $2, $3)`

// insertAuditEvent writes one audit event of kind for tenantID, with detail
// encoded as JSON, on db: a transaction when the event must commit or roll
// back with the change it records, the pool otherwise. It is the only
// writer of audit_events. When tenantID names no tenant the event belongs to
// no tenant, and detail should name it.
func insertAuditEvent(ctx context.Context, db execer, tenantID, kind string, detail any) error {
	body, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("audit event %s: encode detail: %w", kind, err)
	}
	if _, err := db.Exec(ctx, sqlInsertAuditEvent, tenantID, kind, body); err != nil {
		return fmt.Errorf("audit event %s: %w", kind, err)
	}
	return nil
}

const sqlAuditEvents = `
SELECT id, COALESCE(tenant_id, ''), kind, detail, created_at FROM audit_events
WHERE tenant_id = $1 ORDER BY id`

// AuditEvents returns tenantID's audit events, oldest first.
func (s *Store) AuditEvents(ctx context.Context, tenantID string) ([]AuditEvent, error) {
	rows, err := s.pool.Query(ctx, sqlAuditEvents, tenantID)
	if err != nil {
		return nil, fmt.Errorf("audit events: %w", err)
	}
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditEvent, error) {
		var e AuditEvent
		err := row.Scan(&e.ID, &e.TenantID, &e.Kind, &e.Detail, &e.CreatedAt)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("audit events: %w", err)
	}
	return events, nil
}
