package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// LiveCut is the cut a slug points at, as far as a publish under it by the
// same tenant cares: its version label and effective period.
type LiveCut struct {
	// Label is the cut's version, "v<N>"; empty when the slug holds no cut
	// of the tenant's.
	Label string
	// Period is its effective period; nil when it declares none or there
	// is no cut.
	Period *engine.Period
}

// Live finds the cut slug points at when tenantID owns it, for the period
// warnings of a publish and of a project's review; the zero LiveCut when
// the slug is new, empty or another tenant's (the slug stage refuses that
// publish). A cut whose content cannot be read counts as none.
func (p *Publisher) Live(ctx context.Context, tenantID, slug string) (LiveCut, error) {
	if slug == "" || !catalog.ValidSlug(slug) {
		return LiveCut{}, nil
	}
	row, err := p.store.RulesetByRef(ctx, slug)
	if errors.Is(err, store.ErrNotFound) || err == nil && row.TenantID != tenantID {
		return LiveCut{}, nil
	}
	if err != nil {
		return LiveCut{}, fmt.Errorf("live cut of %q: %w", slug, err)
	}
	in, err := p.catalog.Load(ctx, row)
	if errors.Is(err, catalog.ErrCorrupt) {
		return LiveCut{}, nil
	}
	if err != nil {
		return LiveCut{}, fmt.Errorf("live cut of %q: %w", slug, err)
	}
	return LiveCut{Label: row.VersionLabel(), Period: in.Rules.Effective}, nil
}

// Stale is engine.StalePeriod of period as of the ordinal day today,
// against this live cut.
func (l LiveCut) Stale(period *engine.Period, today int64) []engine.PeriodNotice {
	return engine.StalePeriod(period, today, l.Period, l.Label)
}
