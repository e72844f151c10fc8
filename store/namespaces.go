package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrNamespaceOwned is returned by PublishRuleset, CreateRulebook and a
// rulebook's first release when the slug's namespace belongs to another
// tenant. It is returned whether or not the slug itself exists, so that
// it never tells a tenant which slugs of another tenant's namespace are
// taken (ErrSlugConflict would).
var ErrNamespaceOwned = errors.New("slug namespace owned by another tenant")

// ErrNamespaceLimit is returned when a publish would claim a namespace for
// a tenant that already owns as many as its tier allows (NamespaceCaps).
// Nothing is claimed or stored.
var ErrNamespaceLimit = errors.New("tenant namespace limit reached")

// Namespace is the namespace of slug: the part before its first "/", or
// the whole slug when it has none. Namespaces are owned by the first
// tenant to publish content under them (see claimNamespace).
func Namespace(slug string) string {
	ns, _, _ := strings.Cut(slug, "/")
	return ns
}

// NamespaceCaps bounds how many namespaces one tenant may own, by its
// tier, so that a tenant cannot squat namespaces without limit (see
// docs/limits.md#slug-namespaces). The zero value caps nothing.
type NamespaceCaps struct {
	// Tiers lists the key tiers cheapest first. A tenant's tier is the
	// dearest among its live keys (neither revoked nor expired), or the
	// first tier when it has none.
	Tiers []string
	// Max is the most namespaces a tenant of each tier may own; a tier
	// missing from it, or 0, has no cap.
	Max map[string]int
}

// TierOf is the tier of a tenant whose live keys have tiers: the dearest
// of them in c.Tiers' order, or the cheapest tier when none is known.
func (c NamespaceCaps) TierOf(tiers []string) string {
	best := -1
	for _, t := range tiers {
		best = max(best, slices.Index(c.Tiers, t))
	}
	if best < 0 {
		if len(c.Tiers) == 0 {
			return ""
		}
		return c.Tiers[0]
	}
	return c.Tiers[best]
}

const (
	// The insert waits for a concurrent claim of the same namespace to end,
	// so two first publishes under one namespace are serialised and only
	// one tenant wins it.
	sqlClaimNamespace = `INSERT INTO slug_namespaces (namespace, tenant_id) VALUES ($1, $2) ON CONFLICT (namespace) DO NOTHING`
	// Read in its own statement: in READ COMMITTED it sees a concurrent
	// claim the insert above waited for.
	sqlNamespaceOwner  = `SELECT tenant_id FROM slug_namespaces WHERE namespace = $1`
	sqlCountNamespaces = `SELECT count(*) FROM slug_namespaces WHERE tenant_id = $1`
	// Claims of one tenant queue behind each other for the length of
	// their transactions. An advisory lock, not the tenant's row: every
	// insert referencing the tenant holds a share lock on that row, which
	// a row lock taken after them would deadlock with.
	sqlLockTenantClaims = `SELECT pg_advisory_xact_lock(hashtextextended('tenant_namespaces:' || $1, 0))`
	sqlLiveKeyTiers     = `
SELECT DISTINCT tier FROM api_keys
WHERE tenant_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`
)

// claimNamespace claims slug's namespace for tenantID inside tx when no
// tenant owns it yet, within caps, and returns the namespace's owner
// (tenantID when the claim was made or the namespace was already its
// own). A claim past the tenant's cap is ErrNamespaceLimit. The claim is
// part of tx, so a publish that fails later claims nothing.
func claimNamespace(ctx context.Context, tx pgx.Tx, tenantID, slug string, caps NamespaceCaps) (string, error) {
	ns := Namespace(slug)
	tag, err := tx.Exec(ctx, sqlClaimNamespace, ns, tenantID)
	if err != nil {
		return "", fmt.Errorf("claim namespace %q: %w", ns, err)
	}
	if tag.RowsAffected() == 1 {
		if err := checkNamespaceCap(ctx, tx, tenantID, caps); err != nil {
			return "", fmt.Errorf("claim namespace %q: %w", ns, err)
		}
		return tenantID, nil
	}
	var owner string
	if err := tx.QueryRow(ctx, sqlNamespaceOwner, ns).Scan(&owner); err != nil {
		return "", fmt.Errorf("read owner of namespace %q: %w", ns, err)
	}
	return owner, nil
}

// checkNamespaceCap refuses a claim just made in tx when the tenant now
// owns more namespaces than its tier allows. The count is taken under a
// lock on the tenant's claims, so concurrent claims of one tenant are counted one
// after the other and cannot pass the cap together.
func checkNamespaceCap(ctx context.Context, tx pgx.Tx, tenantID string, caps NamespaceCaps) error {
	if len(caps.Max) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, sqlLiveKeyTiers, tenantID)
	if err != nil {
		return fmt.Errorf("read key tiers: %w", err)
	}
	tiers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("read key tiers: %w", err)
	}
	tier := caps.TierOf(tiers)
	limit := caps.Max[tier]
	if limit <= 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, sqlLockTenantClaims, tenantID); err != nil {
		return fmt.Errorf("lock the tenant's claims: %w", err)
	}
	var owned int
	if err := tx.QueryRow(ctx, sqlCountNamespaces, tenantID).Scan(&owned); err != nil {
		return fmt.Errorf("count namespaces: %w", err)
	}
	if owned > limit {
		return &NamespaceLimitError{Tier: tier, Owned: owned - 1, Limit: limit}
	}
	return nil
}

// NamespaceLimitError is ErrNamespaceLimit with the figures a refusal
// states.
type NamespaceLimitError struct {
	// Tier is the tenant's tier, which set Limit.
	Tier string
	// Owned is how many namespaces the tenant owns.
	Owned int
	// Limit is the most its tier allows.
	Limit int
}

// Error states the figures.
func (e *NamespaceLimitError) Error() string {
	return fmt.Sprintf("%s: the tenant owns %d namespaces and the %s tier allows %d", ErrNamespaceLimit, e.Owned, e.Tier, e.Limit)
}

// Unwrap lets errors.Is match ErrNamespaceLimit.
func (e *NamespaceLimitError) Unwrap() error { return ErrNamespaceLimit }

// NamespaceOwner is the tenant that owns namespace ns; ErrNotFound when no
// tenant has published under it yet.
func (s *Store) NamespaceOwner(ctx context.Context, ns string) (string, error) {
	var owner string
	err := s.pool.QueryRow(ctx, sqlNamespaceOwner, ns).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("owner of namespace %q: %w", ns, err)
	}
	return owner, nil
}

// checkNamespaceFree refuses (ErrNamespaceOwned) a slug whose namespace
// another tenant owns, claiming nothing: what creating a draft checks.
func checkNamespaceFree(ctx context.Context, tx pgx.Tx, tenantID, slug string) error {
	var owner string
	err := tx.QueryRow(ctx, sqlNamespaceOwner, Namespace(slug)).Scan(&owner)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("read owner of namespace %q: %w", Namespace(slug), err)
	case owner != tenantID:
		return ErrNamespaceOwned
	}
	return nil
}
