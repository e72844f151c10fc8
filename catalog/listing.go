package catalog

import (
	"context"
	"fmt"

	"github.com/eligo/eligo/store"
)

// ListRulesets is a page of the ruleset catalogue for v: the cuts the
// slugs in force point at that v may see (public ones, and v's tenant's
// own), matching q's namespace and text, in slug order after q.AfterSlug.
// q.ViewerTenant is v's. Rows that are not Listable are returned too, so
// the page's cursor stays right; the caller counts them as skipped.
func (c *Catalog) ListRulesets(ctx context.Context, v Viewer, q store.RulesetQuery) ([]store.Cut, error) {
	q.ViewerTenant = v.TenantID
	rows, err := c.store.ListRulesets(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list rulesets: %w", err)
	}
	return rows, nil
}

// Listable reports whether a listed cut can be shown: the schema's checks
// make this hold for every row written by this version, so a false here
// means a record damaged or written by hand.
func Listable(r store.Cut) bool {
	return ValidSlug(r.Slug) && r.Version >= 1 && len(r.ContentDigest) == len("sha256:")+64 &&
		(r.Visibility == store.VisibilityPublic || r.Visibility == store.VisibilityPrivate)
}

// ListRulebooks is a page of rulebooks for v, in slug order after
// afterSlug, at most limit: v's tenant's own, whatever their state; for
// an anonymous viewer, the public catalogue of active rulebooks.
func (c *Catalog) ListRulebooks(ctx context.Context, v Viewer, afterSlug string, limit int) ([]store.Rulebook, error) {
	rows, err := c.store.ListRulebooks(ctx, store.RulebookQuery{Tenant: v.TenantID, AfterSlug: afterSlug, Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("list rulebooks: %w", err)
	}
	return rows, nil
}
