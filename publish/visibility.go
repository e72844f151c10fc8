package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/store"
)

// SetVisibility makes tenantID's cut ref (a concrete id, or the cut a slug
// points at now) public or private. Making content public passes the
// artefact-visibility rule first (ErrArtefactPublic), which needs the
// content loaded (catalog.ErrCorrupt when it cannot be). Another tenant's
// cut is catalog.ErrNotFound. The catalog's cached references to the cut
// are dropped, so this process sees the change at once.
func (p *Publisher) SetVisibility(ctx context.Context, tenantID, ref, visibility string) (store.Cut, error) {
	row, err := p.catalog.Owned(ctx, tenantID, ref)
	if err != nil {
		return store.Cut{}, err
	}
	if visibility == store.VisibilityPublic {
		rs, err := p.catalog.Load(ctx, row)
		if err != nil {
			return store.Cut{}, err
		}
		if err := checkPublic(rs.Rules); err != nil {
			return store.Cut{}, err
		}
	}
	updated, err := p.store.SetRulesetVisibility(ctx, tenantID, row.ID, visibility)
	return p.afterWrite(ref, row, updated, err)
}

// Archive archives tenantID's cut ref (idempotently): its slug stops
// resolving, its concrete id still does (for replay), and publishing the
// same content again makes it active. Another tenant's cut is
// catalog.ErrNotFound.
func (p *Publisher) Archive(ctx context.Context, tenantID, ref string) (store.Cut, error) {
	row, err := p.catalog.Owned(ctx, tenantID, ref)
	if err != nil {
		return store.Cut{}, err
	}
	updated, err := p.store.ArchiveRuleset(ctx, tenantID, row.ID)
	return p.afterWrite(ref, row, updated, err)
}

// afterWrite drops the catalog's cached references to the changed cut and
// wraps a failed write with its reference.
func (p *Publisher) afterWrite(ref string, before, updated store.Cut, err error) (store.Cut, error) {
	p.catalog.Forget(before)
	if errors.Is(err, store.ErrNotFound) {
		// Gone between the read and the write: as good as never there.
		return store.Cut{}, fmt.Errorf("ruleset %q: %w", ref, catalog.ErrNotFound)
	}
	if err != nil {
		return store.Cut{}, fmt.Errorf("ruleset %q: %w", ref, err)
	}
	return updated, nil
}
