package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrNamespaceOwned is returned by PublishRuleset and CreateRulebook when
// the slug's namespace belongs to another tenant. It is returned whether
// or not the slug itself exists, so that it never tells a tenant which
// slugs of another tenant's namespace are taken (ErrSlugConflict would).
var ErrNamespaceOwned = errors.New("slug namespace owned by another tenant")

// Namespace is the namespace of slug: the part before its first "/", or
// the whole slug when it has none. Namespaces are owned by the first
// tenant to publish a slug under them (see claimNamespace).
func Namespace(slug string) string {
	ns, _, _ := strings.Cut(slug, "/")
	return ns
}

const (
	// The insert waits for a concurrent claim of the same namespace to end,
	// so two first publishes under one namespace are serialised and only
	// one tenant wins it.
	sqlClaimNamespace = `INSERT INTO slug_namespaces (namespace, tenant_id) VALUES ($1, $2) ON CONFLICT (namespace) DO NOTHING`
	// Read in its own statement: in READ COMMITTED it sees a concurrent
	// claim the insert above waited for.
	sqlNamespaceOwner = `SELECT tenant_id FROM slug_namespaces WHERE namespace = $1`
)

// claimNamespace claims slug's namespace for tenantID inside tx when no
// tenant owns it yet, and returns the namespace's owner (tenantID when the
// claim was made or the namespace was already its own). The claim is part
// of tx, so a publish that fails later claims nothing.
func claimNamespace(ctx context.Context, tx pgx.Tx, tenantID, slug string) (string, error) {
	ns := Namespace(slug)
	if _, err := tx.Exec(ctx, sqlClaimNamespace, ns, tenantID); err != nil {
		return "", fmt.Errorf("claim namespace %q: %w", ns, err)
	}
	var owner string
	if err := tx.QueryRow(ctx, sqlNamespaceOwner, ns).Scan(&owner); err != nil {
		return "", fmt.Errorf("read owner of namespace %q: %w", ns, err)
	}
	return owner, nil
}

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
