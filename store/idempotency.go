package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// IdempotencyRetention is how long an Idempotency-Key and its answer are
// kept for retries: a day, as the API documents. The hourly prune job
// deletes older ones.
const IdempotencyRetention = 24 * time.Hour

// IdempotencyKey names one claim: the tenant's Idempotency-Key on one
// operation.
type IdempotencyKey struct {
	// TenantID scopes the key: tenants never see each other's claims.
	TenantID string
	// Operation is the operation's id ("upload-project-sources").
	Operation string
	// Key is the caller's Idempotency-Key header.
	Key string
}

// IdempotentAnswer is a stored claim: the first request's hash and, once it
// was answered, its answer.
type IdempotentAnswer struct {
	// RequestHash identifies the first request (its path and body).
	RequestHash string
	// Status is the first request's HTTP status; 0 while it still runs.
	Status int
	// ContentType and Body are the answer as it was sent.
	ContentType string
	Body        []byte
}

// sqlClaimIdempotency takes the key, or takes over a claim whose request
// has run for longer than $5 without an answer (its process died); the
// database's clock times both.
const sqlClaimIdempotency = `
INSERT INTO idempotency_keys (tenant_id, operation, key, request_hash)
VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant_id, operation, key) DO UPDATE SET created_at = now()
WHERE idempotency_keys.status = 0 AND idempotency_keys.created_at < now() - $5::interval
  AND idempotency_keys.request_hash = EXCLUDED.request_hash
RETURNING true`

const sqlIdempotentAnswer = `
SELECT request_hash, status, content_type, COALESCE(body, ''::bytea)
FROM idempotency_keys WHERE tenant_id = $1 AND operation = $2 AND key = $3`

// ClaimIdempotency claims k for a request whose hash is requestHash. It
// returns claimed true when this request is to do the work: the key is
// new, or an earlier request with the same hash claimed it more than
// staleAfter ago and never answered. Otherwise it returns the stored claim,
// which the caller answers from (replay, still running, or reused for
// another request).
func (s *Store) ClaimIdempotency(ctx context.Context, k IdempotencyKey, requestHash string, staleAfter time.Duration) (claimed bool, stored IdempotentAnswer, err error) {
	err = s.pool.QueryRow(ctx, sqlClaimIdempotency, k.TenantID, k.Operation, k.Key, requestHash, staleAfter).Scan(&claimed)
	switch {
	case err == nil:
		return true, IdempotentAnswer{}, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return false, stored, fmt.Errorf("claim idempotency key: %w", err)
	}
	err = s.pool.QueryRow(ctx, sqlIdempotentAnswer, k.TenantID, k.Operation, k.Key).
		Scan(&stored.RequestHash, &stored.Status, &stored.ContentType, &stored.Body)
	if errors.Is(err, pgx.ErrNoRows) {
		// Pruned between the two statements: claim again.
		return s.ClaimIdempotency(ctx, k, requestHash, staleAfter)
	}
	if err != nil {
		return false, stored, fmt.Errorf("read idempotency key: %w", err)
	}
	return false, stored, nil
}

// FinishIdempotency stores the answer of the request that claimed k, so
// that retries get it, and a.RequestHash when set: the hash of a request
// whose body streamed, known only once it was read.
func (s *Store) FinishIdempotency(ctx context.Context, k IdempotencyKey, a IdempotentAnswer) error {
	_, err := s.pool.Exec(ctx, `UPDATE idempotency_keys SET status = $4, content_type = $5, body = $6, request_hash = coalesce(nullif($7, ''), request_hash)
WHERE tenant_id = $1 AND operation = $2 AND key = $3 AND status = 0`, k.TenantID, k.Operation, k.Key, a.Status, a.ContentType, a.Body, a.RequestHash)
	if err != nil {
		return fmt.Errorf("store idempotent answer: %w", err)
	}
	return nil
}

// ReleaseIdempotency drops the claim of a request that failed in a way a
// retry may succeed (a 5xx, a refusal to come back later), so that the
// retry does the work.
func (s *Store) ReleaseIdempotency(ctx context.Context, k IdempotencyKey) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE tenant_id = $1 AND operation = $2 AND key = $3 AND status = 0`,
		k.TenantID, k.Operation, k.Key)
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// DeleteIdempotencyBefore deletes the claims made before cutoff, and
// returns how many.
func (s *Store) DeleteIdempotencyBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune idempotency keys: %w", err)
	}
	return tag.RowsAffected(), nil
}
