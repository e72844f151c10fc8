package catalog

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/store"
)

// RulesetOn resolves ref for v as of the ordinal date: the law in force on
// that day. A concrete ruleset_id always pins its cut, whatever its
// effective period. A slug resolves first as Ruleset does, to the cut it
// points at (the latest published); when that cut's effective period does
// not cover date, it resolves to the cut under the same slug whose period
// does (of the cuts v may see, the highest version; a cut published
// without a period holds for every date), and when none does, to the cut
// the slug points at, whose decision is then undetermined with the period
// warning. The cuts in force on a date are cached as references are (for
// the reference TTL, dropped by any invalidation), so a date outside the
// latest cut's period costs one indexed query per slug and date at most
// once per TTL.
func (c *Catalog) RulesetOn(ctx context.Context, v Viewer, ref string, date int64) (*PreparedRuleset, error) {
	rs, err := c.Ruleset(ctx, v, ref)
	if err != nil || store.IsConcreteRulesetID(ref) || rs.Rules.Effective == nil || rs.Rules.Effective.Covers(date) {
		return rs, err
	}
	rows, err := c.cutsInForce(ctx, rs.Slug, date)
	if err != nil {
		return nil, fmt.Errorf("resolve ruleset %q on %s: %w", ref, value.FormatDate(date), err)
	}
	for _, row := range rows {
		if row.ID == rs.ID || !v.mayView(row) || row.TenantID != rs.TenantID {
			continue
		}
		in, err := c.Load(ctx, row)
		if errors.Is(err, ErrCorrupt) {
			// A corrupt older cut is reported where it is named by id;
			// here the slug's own cut still answers, with the warning.
			continue
		}
		if err != nil {
			return nil, err
		}
		return in, nil
	}
	return rs, nil
}

// cutsInForce is the store's RulesetsInForce(slug, date), from the cache
// when fresh, or when the database cannot be reached and the answer was
// read within store.OutageWindow.
func (c *Catalog) cutsInForce(ctx context.Context, slug string, date int64) ([]store.Cut, error) {
	key := inForcePrefix(slug) + strconv.FormatInt(date, 10)
	rows, _, err := c.inForce.Read(ctx, key, func(ctx context.Context) ([]store.Cut, error) {
		y, m, d := value.Civil(date)
		return c.store.RulesetsInForce(ctx, slug, y, m, d)
	})
	return rows, err
}

// inForcePrefix opens the key of every date cached for slug in the cache
// of cuts in force.
func inForcePrefix(slug string) string { return slug + "\x00" }
