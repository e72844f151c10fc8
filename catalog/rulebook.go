package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/store"
)

// Rulebook sentinels, beside ErrNotFound and ErrCorrupt.
var (
	// ErrReleaseMissing: the rulebook's head names a release this server
	// does not hold. The latest release is never served instead.
	ErrReleaseMissing = errors.New("head release missing")
	// ErrReleaseCorrupt: a release's frozen content fails its identity
	// check (a member's digest or the content identity differs).
	ErrReleaseCorrupt = errors.New("release content corrupt")
	// ErrMemberUnresolved: a member of the composition is missing, not
	// live, archived or does not load (see MemberError).
	ErrMemberUnresolved = errors.New("member unresolved")
	// ErrRulebookEmpty: the live composition of a draft rulebook has no
	// sections (an empty draft is fine to create and edit), so there is
	// no composed ruleset to evaluate, compare or draw. The reads answer
	// an empty composition instead; /decide and the diff refuse it.
	ErrRulebookEmpty = errors.New("rulebook has no sections")
)

// MemberError says which member of a composition could not be resolved
// and why; it matches ErrMemberUnresolved.
type MemberError struct {
	// SectionID names the member's section.
	SectionID string
	// RulesetID is the cut that could not be used, when one was named.
	RulesetID string
	// Reason says what is wrong, in words.
	Reason string
}

// Error names the member and the reason.
func (e *MemberError) Error() string {
	if e.RulesetID == "" {
		return fmt.Sprintf("section %s: %s", e.SectionID, e.Reason)
	}
	return fmt.Sprintf("section %s (%s): %s", e.SectionID, e.RulesetID, e.Reason)
}

// Is matches ErrMemberUnresolved.
func (e *MemberError) Is(target error) bool { return target == ErrMemberUnresolved }

// RulebookContent is a rulebook's content as a release freezes it: the
// document stored with a release and hashed (through rulebook.Spec) into
// its content identity.
type RulebookContent struct {
	// Name, Slug and Description are the rulebook's texts when frozen.
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Description string `json:"description"`
	// OutcomeLogic is the outcome tree; nil means all sections and-ed.
	OutcomeLogic *rulebook.Node `json:"outcome_logic"`
	// Sections are the members, lettered A, B, C... in order.
	Sections []ContentSection `json:"sections"`
	// FieldOverlay is the field vocabulary overlay.
	FieldOverlay map[string]rulebook.FieldOverlay `json:"field_overlay"`
	// RobotHints maps beats to guidance; nil when none were given.
	RobotHints map[string]*string `json:"robot_hints"`
	// SectionFacts bind bool fields to sections' outcomes; left out when
	// there are none, so releases frozen before facts existed read, and
	// hash, as they always did.
	SectionFacts []rulebook.SectionFact `json:"section_facts,omitempty"`
}

// ContentSection is one frozen member.
type ContentSection struct {
	// Letter is the section's letter, A, B, C...
	Letter string `json:"letter"`
	// SectionID is the member's section id.
	SectionID string `json:"section_id"`
	// Slug is the member cut's slug, which prefixes its graph nodes.
	Slug string `json:"slug"`
	// RulesetID and ContentDigest pin the member cut.
	RulesetID     string `json:"ruleset_id"`
	ContentDigest string `json:"content_digest"`
	// Name is the member's name when frozen; nil on releases that did not
	// capture it.
	Name *string `json:"name"`
}

// Spec is the composition spec of c with its members' loaded rules.
func (c *RulebookContent) spec(members []*PreparedRuleset) rulebook.Spec {
	s := rulebook.Spec{Name: c.Name, Slug: c.Slug, Description: c.Description, Outcome: c.OutcomeLogic, Overlay: c.FieldOverlay,
		Facts: c.SectionFacts}
	for i, m := range c.Sections {
		s.Sections = append(s.Sections, rulebook.Section{Letter: m.Letter, SectionID: m.SectionID, Slug: m.Slug,
			RulesetID: m.RulesetID, ContentDigest: m.ContentDigest, Rules: members[i].Rules})
	}
	return s
}

// PreparedRulebook is a rulebook ready to evaluate: its frozen or live
// content composed into one ruleset.
type PreparedRulebook struct {
	// Rulebook is the stored rulebook the reference named.
	Rulebook store.Rulebook
	// Release is the release served; nil for the live composition.
	Release *store.Release
	// Content is what was composed.
	Content RulebookContent
	// Identity is the content identity (rulebook.ContentIdentity).
	Identity string
	// Composed is the composition; shared, never modify it.
	Composed *rulebook.Composed
	// Members are the member cuts, in letter order.
	Members []*PreparedRuleset
	// Ruleset presents the composition as a ruleset for the code /decide
	// and the reads share: no ruleset_id, the rulebook's slug, the content
	// identity as digest, "v<release version>" or "unknown" as label, and
	// the members' source checks under their prefixed source ids.
	Ruleset *PreparedRuleset
}

// Rulebook resolves ref (a rulebook id or slug) for v: public rulebooks
// and the viewer's tenant's own; anything else is ErrNotFound.
func (c *Catalog) Rulebook(ctx context.Context, v Viewer, ref string) (store.Rulebook, error) {
	if !lookable(ref) {
		return store.Rulebook{}, c.notFoundFor(kindRulebook, v, ref)
	}
	rb, hit, err := c.rulebooks.Read(ctx, ref, func(ctx context.Context) (store.Rulebook, error) {
		rb, err := c.store.RulebookByRef(ctx, ref)
		if errors.Is(err, store.ErrNotFound) {
			return store.Rulebook{}, nil // misses are cached like hits: see lookup
		}
		return rb, err
	})
	c.metrics.CacheLookup(metrics.CacheRulebooks, hit)
	if err == nil && rb.ID == "" { // a remembered miss
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) || (err == nil && !v.mayViewRulebook(rb)) {
		return store.Rulebook{}, c.notFoundFor(kindRulebook, v, ref)
	}
	if err != nil {
		return store.Rulebook{}, fmt.Errorf("resolve rulebook %q: %w", ref, err)
	}
	return rb, nil
}

// mayViewRulebook reports whether v may read rb: its own tenant always;
// anyone else only a public rulebook that exposes no artefact citation (a
// public one that does was made so before publish refused it, and is
// served to its tenant alone until made private).
func (v Viewer) mayViewRulebook(rb store.Rulebook) bool {
	if v.TenantID != "" && v.TenantID == rb.TenantID {
		return true
	}
	return rb.Visibility == store.VisibilityPublic && !rb.ExposesArtefacts
}

// OwnedRulebook is the rulebook ref names now, read from the database
// (not the reference cache, so a write acts on the current draft), when
// tenantID owns it; otherwise ErrNotFound, as for an unknown one.
func (c *Catalog) OwnedRulebook(ctx context.Context, tenantID, ref string) (store.Rulebook, error) {
	if !lookable(ref) {
		return store.Rulebook{}, c.notFoundFor(kindRulebook, Viewer{TenantID: tenantID}, ref)
	}
	rb, err := c.store.RulebookByRef(ctx, ref)
	if errors.Is(err, store.ErrNotFound) || (err == nil && rb.TenantID != tenantID) {
		return store.Rulebook{}, c.notFoundFor(kindRulebook, Viewer{TenantID: tenantID}, ref)
	}
	if err != nil {
		return store.Rulebook{}, fmt.Errorf("resolve rulebook %q: %w", ref, err)
	}
	return rb, nil
}

// ForgetRulebook drops the cached references to a rulebook this process
// just changed, so its next read sees the change at once (other processes
// drop theirs when the write's notification reaches them:
// InvalidateRulebook).
func (c *Catalog) ForgetRulebook(rb store.Rulebook) {
	c.InvalidateRulebook(rb.ID, rb.Slug)
}

// CurrentRelease is rb's head release, from the release cache; nil
// before the first release, or when the head names a release this server
// does not hold (which a read of the rulebook itself shows as no release).
func (c *Catalog) CurrentRelease(ctx context.Context, rb store.Rulebook) (*store.Release, error) {
	if rb.CurrentReleaseID == "" {
		return nil, nil
	}
	rel, err := c.release(ctx, rb.ID, rb.CurrentReleaseID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &rel, nil
}

// release is rulebookID's release ref (UUID or label), from the cache when
// there: releases never change.
func (c *Catalog) release(ctx context.Context, rulebookID, ref string) (store.Release, error) {
	if !lookable(ref) {
		return store.Release{}, store.ErrNotFound
	}
	key := rulebookID + "\n" + ref
	if rel, ok := c.releases.Get(key); ok {
		return rel, nil
	}
	rel, err := c.store.ReleaseOf(ctx, rulebookID, ref)
	if err != nil {
		return store.Release{}, err
	}
	c.releases.Add(key, rel)
	return rel, nil
}

// PrepareRulebook composes rb for evaluation or reading. With releaseRef
// (a release UUID or exact label) that release's frozen content, which
// must belong to rb (else ErrNotFound); without it the head release when
// there is one (ErrReleaseMissing when the head names a release the server
// does not hold), else the live composition of the draft's references. A
// release whose content fails its identity check is ErrReleaseCorrupt; a
// live member that cannot be used is a *MemberError; a live composition
// of no sections is ErrRulebookEmpty.
func (c *Catalog) PrepareRulebook(ctx context.Context, rb store.Rulebook, releaseRef string) (*PreparedRulebook, error) {
	switch {
	case releaseRef != "":
		rel, err := c.release(ctx, rb.ID, releaseRef)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("release %q: %w", releaseRef, ErrNotFound)
		}
		if err != nil {
			return nil, err
		}
		return c.prepareRelease(ctx, rb, rel)
	case rb.CurrentReleaseID != "":
		rel, err := c.release(ctx, rb.ID, rb.CurrentReleaseID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("rulebook %s head %s: %w", rb.ID, rb.CurrentReleaseID, ErrReleaseMissing)
		}
		if err != nil {
			return nil, err
		}
		return c.prepareRelease(ctx, rb, rel)
	}
	// The members are resolved through the reference cache, as a slug is,
	// so that the live composition is served through an outage too.
	content, members, err := c.liveContent(ctx, rb, c.lookup)
	if err != nil {
		return nil, err
	}
	if len(content.Sections) == 0 {
		return nil, fmt.Errorf("rulebook %s: %w", rb.ID, ErrRulebookEmpty)
	}
	pr, err := c.compose(content, members)
	if err != nil {
		return nil, err
	}
	return c.present(rb, nil, pr), nil
}

// preparedRelease is what a release composes to, kept by release id.
type preparedRelease struct {
	content  RulebookContent
	members  []*PreparedRuleset
	composed *rulebook.Composed
	identity string
	checks   map[string]store.SourceCheck
}

// prepareRelease composes a release's frozen content, checked to be the
// content its identity names, once per release and process.
func (c *Catalog) prepareRelease(ctx context.Context, rb store.Rulebook, rel store.Release) (*PreparedRulebook, error) {
	if pr, ok := c.prepared.Get(rel.ID); ok {
		return c.present(rb, &rel, pr), nil
	}
	var content RulebookContent
	if err := json.Unmarshal(rel.Content, &content); err != nil {
		return nil, fmt.Errorf("release %s: %w: %v", rel.ID, ErrReleaseCorrupt, err)
	}
	members := make([]*PreparedRuleset, len(content.Sections))
	for i, s := range content.Sections {
		row, err := c.store.RulesetByRef(ctx, s.RulesetID)
		if err != nil {
			return nil, fmt.Errorf("release %s member %s: %w: %v", rel.ID, s.RulesetID, ErrReleaseCorrupt, err)
		}
		if row.ContentDigest != s.ContentDigest || row.TenantID != rb.TenantID {
			return nil, fmt.Errorf("release %s member %s: %w: digest %s, frozen %s", rel.ID, s.RulesetID, ErrReleaseCorrupt, row.ContentDigest, s.ContentDigest)
		}
		if members[i], err = c.Load(ctx, row); err != nil {
			return nil, fmt.Errorf("release %s member %s: %w: %w", rel.ID, s.RulesetID, ErrReleaseCorrupt, err)
		}
	}
	pr, err := c.compose(content, members)
	if err != nil {
		return nil, fmt.Errorf("release %s: %w: %w", rel.ID, ErrReleaseCorrupt, err)
	}
	if pr.identity != rel.ContentIdentity {
		return nil, fmt.Errorf("release %s: %w: content hashes to %s, recorded %s", rel.ID, ErrReleaseCorrupt, pr.identity, rel.ContentIdentity)
	}
	c.prepared.Add(rel.ID, pr)
	return c.present(rb, &rel, pr), nil
}

// LiveContent is rb's draft as content, with its members: each
// reference's live cut, which must exist, belong to the tenant, be active
// and load (else a *MemberError). The outcome, overlay and hints are read
// from the draft as stored, the members from the database (not the
// reference cache), so that a release freezes the cuts live now.
func (c *Catalog) LiveContent(ctx context.Context, rb store.Rulebook) (RulebookContent, []*PreparedRuleset, error) {
	return c.liveContent(ctx, rb, c.store.RulesetByRef)
}

// liveContent is LiveContent with the members' rows read by read.
func (c *Catalog) liveContent(ctx context.Context, rb store.Rulebook, read func(context.Context, string) (store.Cut, error)) (RulebookContent, []*PreparedRuleset, error) {
	content := RulebookContent{Name: rb.Name, Slug: rb.Slug, Description: rb.Description}
	if err := decodeDraft(rb, &content); err != nil {
		return RulebookContent{}, nil, err
	}
	members := make([]*PreparedRuleset, len(rb.Refs))
	for i, ref := range rb.Refs {
		m, err := c.liveMember(ctx, read, rb.TenantID, ref.SectionID, ref.LiveRulesetID)
		if err != nil {
			return RulebookContent{}, nil, err
		}
		members[i] = m
		name := m.Name
		content.Sections = append(content.Sections, ContentSection{Letter: rulebook.Letter(i), SectionID: ref.SectionID,
			Slug: m.Slug, RulesetID: m.ID, ContentDigest: m.ContentDigest, Name: &name})
	}
	return content, members, nil
}

// liveMember loads the cut a reference makes live, its row read by read,
// or says why it cannot.
func (c *Catalog) liveMember(ctx context.Context, read func(context.Context, string) (store.Cut, error), tenantID, sectionID, rulesetID string) (*PreparedRuleset, error) {
	row, err := read(ctx, rulesetID)
	switch {
	case errors.Is(err, store.ErrNotFound) || (err == nil && row.TenantID != tenantID):
		return nil, &MemberError{SectionID: sectionID, RulesetID: rulesetID, Reason: "no such published ruleset"}
	case err != nil:
		return nil, err
	case row.SectionID != sectionID:
		return nil, &MemberError{SectionID: sectionID, RulesetID: rulesetID, Reason: "the cut is of section " + row.SectionID}
	case row.Status != store.StatusActive:
		return nil, &MemberError{SectionID: sectionID, RulesetID: rulesetID, Reason: "the cut is archived"}
	}
	m, err := c.Load(ctx, row)
	if errors.Is(err, ErrCorrupt) {
		return nil, &MemberError{SectionID: sectionID, RulesetID: rulesetID, Reason: "the cut's stored content does not load"}
	}
	return m, err
}

// decodeDraft reads the draft's outcome, overlay, hints and section facts
// into content.
func decodeDraft(rb store.Rulebook, content *RulebookContent) error {
	if len(rb.OutcomeLogic) > 0 && string(rb.OutcomeLogic) != "null" {
		tree, problems := rulebook.ParseOutcomeTree(rb.OutcomeLogic, len(rb.Refs))
		if len(problems) > 0 {
			return fmt.Errorf("rulebook %s outcome_logic: %s", rb.ID, problems[0])
		}
		content.OutcomeLogic = tree
	}
	if len(rb.FieldOverlay) > 0 {
		if err := json.Unmarshal(rb.FieldOverlay, &content.FieldOverlay); err != nil {
			return fmt.Errorf("rulebook %s overlay: %w", rb.ID, err)
		}
	}
	if len(rb.RobotHints) > 0 && string(rb.RobotHints) != "null" {
		if err := json.Unmarshal(rb.RobotHints, &content.RobotHints); err != nil {
			return fmt.Errorf("rulebook %s hints: %w", rb.ID, err)
		}
	}
	if len(rb.SectionFacts) > 0 {
		if err := json.Unmarshal(rb.SectionFacts, &content.SectionFacts); err != nil {
			return fmt.Errorf("rulebook %s section facts: %w", rb.ID, err)
		}
		if len(content.SectionFacts) == 0 {
			content.SectionFacts = nil // [] is none, as in a release
		}
	}
	return nil
}

// Compose composes content with its loaded members, from the composition
// cache when the same content was composed before. It returns the content
// identity too. A composition the members refuse (a shared field whose
// type differs) is an error naming the field and sections.
func (c *Catalog) Compose(content RulebookContent, members []*PreparedRuleset) (*rulebook.Composed, string, error) {
	spec := content.spec(members)
	identity, err := rulebook.ContentIdentity(spec, content.RobotHints)
	if err != nil {
		return nil, "", err
	}
	// The composed ruleset also depends on the names, which identity does
	// not hash.
	key := identity + "\n" + content.Name + "\n" + content.Slug + "\n" + content.Description
	if composed, ok := c.composed.Get(key); ok {
		return composed, identity, nil
	}
	composed, err := rulebook.Compose(spec)
	if err != nil {
		return nil, "", err
	}
	c.composed.Add(key, composed)
	return composed, identity, nil
}

// compose composes content with its members and gathers their source
// checks under the composition's prefixed source ids.
func (c *Catalog) compose(content RulebookContent, members []*PreparedRuleset) (*preparedRelease, error) {
	composed, identity, err := c.Compose(content, members)
	if err != nil {
		return nil, err
	}
	checks := map[string]store.SourceCheck{}
	for i, m := range members {
		for id, check := range m.SourceChecks {
			checks[content.Sections[i].SectionID+"."+id] = check
		}
	}
	return &preparedRelease{content: content, members: members, composed: composed, identity: identity, checks: checks}, nil
}

// present is a prepared composition as rulebook rb serves it: with rel, or
// live when rel is nil.
func (c *Catalog) present(rb store.Rulebook, rel *store.Release, pr *preparedRelease) *PreparedRulebook {
	label := "unknown"
	if rel != nil {
		label = fmt.Sprintf("v%d", rel.Version)
	}
	rules := pr.composed.Rules
	view := &PreparedRuleset{Label: label, Rules: rules, Cut: store.Cut{
		Slug: rb.Slug, Name: rb.Name, SectionID: rules.SectionID, ContentDigest: pr.identity,
		Visibility: rb.Visibility, Status: store.StatusActive, SourceChecks: pr.checks, UpdatedAt: rb.UpdatedAt,
		TenantID: rb.TenantID, RuleCount: rules.NumCriteria(), EngineVersion: engine.Version,
	}, catalog: c}
	return &PreparedRulebook{Rulebook: rb, Release: rel, Content: pr.content, Identity: pr.identity, Composed: pr.composed,
		Members: pr.members, Ruleset: view}
}

// ReleaseEntry is one release of a rulebook's history: the release, what
// it froze, and the version under its slug of each member cut (absent for
// a cut the store no longer holds).
type ReleaseEntry struct {
	// Release is the stored release.
	Release store.Release
	// Content is its frozen content.
	Content RulebookContent
	// CutVersions maps member ruleset ids to their versions: the members
	// of every release of the page, one map shared by the page's entries.
	CutVersions map[string]int
}

// Releases is one page of rb's releases, newest first: those below
// beforeVersion (0: from the newest), at most limit, with their frozen
// content and their members' versions. Releases are read from the store,
// not the cache, so a release published by another process is listed.
func (c *Catalog) Releases(ctx context.Context, rb store.Rulebook, beforeVersion, limit int) ([]ReleaseEntry, error) {
	rows, err := c.store.Releases(ctx, rb.ID, beforeVersion, limit)
	if err != nil {
		return nil, err
	}
	out := make([]ReleaseEntry, len(rows))
	var ids []string
	for i, rel := range rows {
		out[i].Release = rel
		if err := json.Unmarshal(rel.Content, &out[i].Content); err != nil {
			return nil, fmt.Errorf("release %s: %w: %v", rel.ID, ErrReleaseCorrupt, err)
		}
		for _, s := range out[i].Content.Sections {
			ids = append(ids, s.RulesetID)
		}
	}
	versions, err := c.store.CutVersions(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].CutVersions = versions
	}
	return out, nil
}
