package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/eligo/eligo/store"
)

// ErrSectionMissing: a proposal names a section the release does not
// have.
var ErrSectionMissing = errors.New("no such section in the release")

// ErrCutOfOtherSection: a proposal's replacement cut is of another
// section than the one it replaces.
var ErrCutOfOtherSection = errors.New("the cut is of another section")

// Proposal is a rulebook as it would be: one of its releases, and
// optionally that release with one section's member replaced by another
// cut of the same section, as a promotion would make it
// (docs/impact.md#rulebook-candidates). Impact runs compare one with the
// release in force.
type Proposal struct {
	// Release is a release UUID or exact label of the rulebook.
	Release string
	// SectionID and RulesetID, when set, replace that section's member
	// by the tenant's cut RulesetID.
	SectionID, RulesetID string
}

// Propose composes p of rb, a rulebook of its tenant. The release must
// be rb's (else ErrNotFound); a replacement must name a section of the
// release (ErrSectionMissing) and a cut of the tenant (ErrNotFound) of that
// section (ErrCutOfOtherSection), and the members must compose with it
// in place (the composition's own error, naming the field and sections).
// The composition is the one Compose gives, so a proposal whose content
// is a release's is that release's ruleset.
func (c *Catalog) Propose(ctx context.Context, rb store.Rulebook, p Proposal) (*PreparedRulebook, error) {
	if p.Release == "" {
		return nil, fmt.Errorf("rulebook %s: no release named: %w", rb.ID, ErrNotFound)
	}
	base, err := c.PrepareRulebook(ctx, rb, p.Release)
	if err != nil || p.SectionID == "" {
		return base, err
	}
	at := slices.IndexFunc(base.Content.Sections, func(s ContentSection) bool { return s.SectionID == p.SectionID })
	if at < 0 {
		return nil, fmt.Errorf("rulebook %s release %s, section %q: %w", rb.ID, p.Release, p.SectionID, ErrSectionMissing)
	}
	row, err := c.Owned(ctx, rb.TenantID, p.RulesetID)
	if err != nil {
		return nil, err
	}
	if row.SectionID != p.SectionID {
		return nil, fmt.Errorf("cut %s is of section %s, not %s: %w", row.ID, row.SectionID, p.SectionID, ErrCutOfOtherSection)
	}
	cut, err := c.Load(ctx, row)
	if err != nil {
		return nil, fmt.Errorf("load cut %s: %w", row.ID, err)
	}
	content := base.Content
	content.Sections = slices.Clone(base.Content.Sections)
	name := cut.Name
	s := &content.Sections[at]
	s.Slug, s.RulesetID, s.ContentDigest, s.Name = cut.Slug, cut.ID, cut.ContentDigest, &name
	members := slices.Clone(base.Members)
	members[at] = cut
	pr, err := c.compose(content, members)
	if err != nil {
		return nil, fmt.Errorf("rulebook %s with %s as section %s: %w", rb.ID, cut.ID, p.SectionID, err)
	}
	return c.present(rb, nil, pr), nil
}
