package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The operator's side of namespaces (`eligo namespaces`): list who owns
// what, release a namespace, transfer it to another tenant, verify it.
// Each change is one transaction with its audit events and a notification
// that makes every process drop its cached rulesets and rulebooks, whose
// namespace_verified it may change (see
// docs/limits.md#slug-namespaces).

// NamespaceRecord is one owned namespace as an operator sees it.
type NamespaceRecord struct {
	// Namespace is the part of a slug before its first "/".
	Namespace string
	// TenantID owns it.
	TenantID string
	// ClaimedAt is when it was claimed or last transferred.
	ClaimedAt time.Time
	// VerifiedAt is when an operator verified it for its owner; nil when
	// it is not verified.
	VerifiedAt *time.Time
	// VerifiedBy says who verified it (the operator's --actor).
	VerifiedBy string
	// Slugs counts the owner's ruleset slugs and rulebooks under it.
	Slugs int
}

// NamespaceChanged is what ReleaseNamespace or TransferNamespace did.
type NamespaceChanged struct {
	// Before is the namespace as it was; TenantID empty when no tenant
	// owned it.
	Before NamespaceRecord
	// Withdrawn counts the former owner's public rulesets (cuts) and
	// rulebooks made private.
	Withdrawn int
}

// InvalidateNamespace names a namespace whose owner or verification
// changed: listeners drop every cached ruleset and rulebook, since any of
// them may show namespace_verified. Operators change namespaces rarely.
const InvalidateNamespace = "namespace"

const (
	sqlNamespaceRecords = `
SELECT n.namespace, n.tenant_id, n.claimed_at, n.verified_at, coalesce(n.verified_by, ''),
    (SELECT count(*) FROM ruleset_slugs s WHERE s.tenant_id = n.tenant_id AND split_part(s.slug, '/', 1) = n.namespace)
  + (SELECT count(*) FROM rulebooks b WHERE b.tenant_id = n.tenant_id AND split_part(b.slug, '/', 1) = n.namespace)
FROM slug_namespaces n
WHERE ($1 = '' OR n.tenant_id = $1) AND ($2 = '' OR n.namespace = $2)
ORDER BY n.namespace`
	sqlLockNamespace = `
SELECT tenant_id, claimed_at, verified_at, coalesce(verified_by, '') FROM slug_namespaces WHERE namespace = $1 FOR UPDATE`
	sqlTenantExists    = `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1)`
	sqlDeleteNamespace = `DELETE FROM slug_namespaces WHERE namespace = $1`
	sqlAssignNamespace = `
INSERT INTO slug_namespaces (namespace, tenant_id) VALUES ($1, $2)
ON CONFLICT (namespace) DO UPDATE SET tenant_id = excluded.tenant_id, claimed_at = now(), verified_at = NULL, verified_by = NULL`
	sqlVerifyNamespace = `
UPDATE slug_namespaces SET verified_at = CASE WHEN $2 THEN now() END, verified_by = CASE WHEN $2 THEN $3 END
WHERE namespace = $1`
	sqlWithdrawRulesets = `
UPDATE rulesets SET visibility = 'private', updated_at = now()
WHERE tenant_id = $1 AND split_part(slug, '/', 1) = $2 AND visibility = 'public'`
	sqlWithdrawRulebooks = `
UPDATE rulebooks SET visibility = 'private', updated_at = now()
WHERE tenant_id = $1 AND split_part(slug, '/', 1) = $2 AND visibility = 'public'`
)

// ErrNoTenant is returned by TransferNamespace for a tenant that does not
// exist, so that a mistyped tenant id gets nothing.
var ErrNoTenant = errors.New("no such tenant")

// Namespaces lists the owned namespaces, by name: all of them when
// tenantID is empty, else that tenant's.
func (s *Store) Namespaces(ctx context.Context, tenantID string) ([]NamespaceRecord, error) {
	return s.namespaceRecords(ctx, tenantID, "")
}

// NamespaceRecordOf reads one owned namespace; ErrNotFound when no tenant
// owns it.
func (s *Store) NamespaceRecordOf(ctx context.Context, ns string) (NamespaceRecord, error) {
	recs, err := s.namespaceRecords(ctx, "", ns)
	if err != nil {
		return NamespaceRecord{}, err
	}
	if len(recs) == 0 {
		return NamespaceRecord{}, fmt.Errorf("namespace %q: %w", ns, ErrNotFound)
	}
	return recs[0], nil
}

func (s *Store) namespaceRecords(ctx context.Context, tenantID, ns string) ([]NamespaceRecord, error) {
	rows, err := s.pool.Query(ctx, sqlNamespaceRecords, tenantID, ns)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	recs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (NamespaceRecord, error) {
		var r NamespaceRecord
		err := row.Scan(&r.Namespace, &r.TenantID, &r.ClaimedAt, &r.VerifiedAt, &r.VerifiedBy, &r.Slugs)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	return recs, nil
}

// ReleaseNamespace makes ns no tenant's, so that the next publish under it
// claims it. Slugs already published under it stay their tenants'. With
// withdraw, the former owner's public rulesets and rulebooks under ns are
// made private in the same transaction. A namespace nobody owns is
// ErrNotFound. It records namespace_released for the former owner.
func (s *Store) ReleaseNamespace(ctx context.Context, ns, actor string, withdraw bool) (NamespaceChanged, error) {
	return s.changeNamespaceOwner(ctx, ns, "", actor, withdraw)
}

// TransferNamespace makes tenant to the owner of ns, unverified, whether or
// not another tenant owned it (so an operator can give a reserved
// namespace to the body it names). Slugs already published under it stay
// their tenants'; with withdraw, the former owner's public rulesets and
// rulebooks under ns are made private in the same transaction. A tenant
// that does not exist is ErrNoTenant. It records namespace_transferred
// for the former owner and for the new one.
func (s *Store) TransferNamespace(ctx context.Context, ns, to, actor string, withdraw bool) (NamespaceChanged, error) {
	return s.changeNamespaceOwner(ctx, ns, to, actor, withdraw)
}

// changeNamespaceOwner is a release (to empty) or a transfer.
func (s *Store) changeNamespaceOwner(ctx context.Context, ns, to, actor string, withdraw bool) (NamespaceChanged, error) {
	var out NamespaceChanged
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := lockNamespace(ctx, tx, ns)
		if err != nil {
			return err
		}
		out.Before = before
		kind := "namespace_released"
		if to == "" {
			if before.TenantID == "" {
				return fmt.Errorf("namespace %q is owned by no tenant: %w", ns, ErrNotFound)
			}
			if _, err := tx.Exec(ctx, sqlDeleteNamespace, ns); err != nil {
				return fmt.Errorf("release: %w", err)
			}
		} else {
			kind = "namespace_transferred"
			var exists bool
			if err := tx.QueryRow(ctx, sqlTenantExists, to).Scan(&exists); err != nil {
				return fmt.Errorf("read tenant: %w", err)
			}
			if !exists {
				return fmt.Errorf("tenant %q: %w", to, ErrNoTenant)
			}
			if _, err := tx.Exec(ctx, sqlAssignNamespace, ns, to); err != nil {
				return fmt.Errorf("transfer: %w", err)
			}
		}
		if withdraw && before.TenantID != "" && before.TenantID != to {
			for _, q := range []string{sqlWithdrawRulesets, sqlWithdrawRulebooks} {
				tag, err := tx.Exec(ctx, q, before.TenantID, ns)
				if err != nil {
					return fmt.Errorf("withdraw public content: %w", err)
				}
				out.Withdrawn += int(tag.RowsAffected())
			}
		}
		detail := map[string]any{"namespace": ns, "from": before.TenantID, "actor": actor,
			"was_verified": before.VerifiedAt != nil, "withdrawn": out.Withdrawn}
		if to != "" {
			detail["to"] = to
		}
		for _, tenant := range uniqueNonEmpty(before.TenantID, to) {
			if err := insertAuditEvent(ctx, tx, tenant, kind, detail); err != nil {
				return err
			}
		}
		return notify(ctx, tx, Invalidation{Kind: InvalidateNamespace, ID: ns})
	})
	if err != nil {
		return NamespaceChanged{}, fmt.Errorf("change owner of namespace %q: %w", ns, err)
	}
	return out, nil
}

// VerifyNamespace marks ns verified for its owner (verified true) or takes
// the mark away, recording namespace_verified or namespace_unverified for
// the owner with actor. A namespace nobody owns is ErrNotFound: verify
// the tenant an operator has assigned it to (TransferNamespace).
func (s *Store) VerifyNamespace(ctx context.Context, ns, actor string, verified bool) (NamespaceRecord, error) {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := lockNamespace(ctx, tx, ns)
		if err != nil {
			return err
		}
		if before.TenantID == "" {
			return fmt.Errorf("namespace %q is owned by no tenant: %w", ns, ErrNotFound)
		}
		if _, err := tx.Exec(ctx, sqlVerifyNamespace, ns, verified, actor); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		kind := "namespace_verified"
		if !verified {
			kind = "namespace_unverified"
		}
		if err := insertAuditEvent(ctx, tx, before.TenantID, kind, map[string]any{"namespace": ns, "actor": actor}); err != nil {
			return err
		}
		return notify(ctx, tx, Invalidation{Kind: InvalidateNamespace, ID: ns})
	})
	if err != nil {
		return NamespaceRecord{}, fmt.Errorf("verify namespace %q: %w", ns, err)
	}
	return s.NamespaceRecordOf(ctx, ns)
}

// lockNamespace locks ns's row for the rest of tx and reads it; a record
// with no TenantID when nobody owns it.
func lockNamespace(ctx context.Context, tx pgx.Tx, ns string) (NamespaceRecord, error) {
	rec := NamespaceRecord{Namespace: ns}
	err := tx.QueryRow(ctx, sqlLockNamespace, ns).Scan(&rec.TenantID, &rec.ClaimedAt, &rec.VerifiedAt, &rec.VerifiedBy)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return rec, fmt.Errorf("lock namespace: %w", err)
	}
	return rec, nil
}

// uniqueNonEmpty lists the non-empty ids once each, in order.
func uniqueNonEmpty(ids ...string) []string {
	var out []string
	for _, id := range ids {
		if id != "" && (len(out) == 0 || out[len(out)-1] != id) {
			out = append(out, id)
		}
	}
	return out
}
