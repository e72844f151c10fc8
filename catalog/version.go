package catalog

import (
	"context"
	"errors"
	"fmt"

	"github.com/eligo/eligo/store"
)

// Version resolves the cut published as version (v<N>'s N) of slug for v
// and loads it: a version names one cut, as a concrete id does, so an
// archived one still resolves. ErrNotFound when there is none or v may not
// see it (the same answer for both), ErrCorrupt when its content cannot be
// served.
func (c *Catalog) Version(ctx context.Context, v Viewer, slug string, version int) (*PreparedRuleset, error) {
	ref := fmt.Sprintf("%s v%d", slug, version)
	if !lookable(slug) {
		return nil, c.notFoundFor(kindRuleset, v, ref)
	}
	row, err := c.store.RulesetVersion(ctx, slug, version)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !v.mayView(row)) {
		return nil, c.notFoundFor(kindRuleset, v, ref)
	}
	if err != nil {
		return nil, fmt.Errorf("resolve ruleset %s: %w", ref, err)
	}
	return c.Load(ctx, row)
}
