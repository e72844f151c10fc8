package publish

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/solver/verify"
	"github.com/eligo/eligo/store"
)

// Rulebook refusals. Callers branch with errors.Is; catalog.ErrNotFound and
// catalog.ErrMemberUnresolved (a *catalog.MemberError) come back too.
var (
	// ErrCompositionPinned: a floating reference in a family that a
	// promotion has pinned (422 composition_pinned).
	ErrCompositionPinned = errors.New("composition is pinned")
	// ErrCompositionRefused: the members cannot be composed, e.g. a shared
	// field whose type differs between sections (422, validation list).
	ErrCompositionRefused = errors.New("composition refused")
	// ErrFactsRefused: the section facts do not compose: a field no
	// section declares or not a bool, a section bound to itself, a
	// cycle, a section answers cannot decide (422, validation list).
	ErrFactsRefused = errors.New("section facts refused")
	// ErrUnknownField: the field overlay names a field no section declares,
	// or gives a weight out of range (422, validation list).
	ErrUnknownField = errors.New("field overlay refused")
	// ErrLabelAllocation: no release label could be allocated (422
	// release_label_allocation_failed).
	ErrLabelAllocation = errors.New("release label allocation failed")
	// ErrPublicationFailed: the last publication step failed; the draft was
	// kept and the next activate or edit publishes it (422
	// release_publication_failed).
	ErrPublicationFailed = errors.New("release publication failed")
	// ErrNotSectionOfRulebook: promote-to-live names a section the rulebook
	// does not reference (404).
	ErrNotSectionOfRulebook = errors.New("section not in rulebook")
	// ErrCandidateSection: the candidate cut is of another section (422).
	ErrCandidateSection = errors.New("candidate is of another section")
	// ErrCandidateTests: a stored test case of the candidate fails (422).
	ErrCandidateTests = errors.New("candidate test cases fail")
	// ErrPolarityUndecided: the presence-polarity gate could not be
	// decided within PolarityBudget (waiting for a solver slot included),
	// or the solver gave up; the gate never passes for want of time (422
	// presence_polarity; retry).
	ErrPolarityUndecided = errors.New("presence-polarity gate undecided")
	// ErrForceNotAllowed: force_unsafe on promote by a key that is not
	// internal (403).
	ErrForceNotAllowed = errors.New("force_unsafe needs an internal key")
	// ErrArchived: the rulebook is archived; activate it first (409).
	ErrArchived = errors.New("rulebook archived")
	// ErrConcurrentEdit: the rulebook changed between the read a write
	// was worked out from and the write; nothing was written (409; retry).
	ErrConcurrentEdit = errors.New("rulebook changed meanwhile")
)

// PolarityError is a promotion refused by the presence-polarity gate (422
// non_conservative_presence_op): its findings carry the field, criterion
// and the solver's witness.
type PolarityError struct {
	// Findings are the gate's findings on the composed rulebook.
	Findings []PolarityAdvisory
}

// Error summarises the findings.
func (e *PolarityError) Error() string {
	return fmt.Sprintf("presence-polarity gate: %d finding(s), first on field %s", len(e.Findings), e.Findings[0].Field)
}

// RefRequest is one reference as a caller states it.
type RefRequest struct {
	// SectionID names the section among the tenant's published rulesets.
	SectionID string
	// PinMode is store.PinLatestActive or store.PinPinned.
	PinMode string
	// RulesetID is the exact cut of a pinned reference.
	RulesetID string
}

// RulebookDraft is a rulebook as a create or edit states it; a nil member
// of an edit leaves the draft's as it is.
type RulebookDraft struct {
	Slug                      string
	Name, Domain, Description *string
	// Refs replaces the references when not nil.
	Refs *[]RefRequest
	// Outcome replaces the outcome tree when SetOutcome is set (nil:
	// all sections and-ed).
	Outcome    *rulebook.Node
	SetOutcome bool
	// Hints replaces the robot hints when SetHints is set (nil: none).
	Hints    map[string]*string
	SetHints bool
	// Overlay replaces the field overlay when not nil.
	Overlay map[string]rulebook.FieldOverlay
	// Facts replaces the section facts when SetFacts is set (nil: none).
	Facts    []rulebook.SectionFact
	SetFacts bool
	// Actor says who acted, for the audit trail.
	Actor string
}

// RulebookResult is a rulebook after a write, with the release the write
// published (nil when none).
type RulebookResult struct {
	Rulebook store.Rulebook
	Release  *store.Release
	// Advisories are the presence-polarity findings a promotion let through
	// (force_unsafe, or a reserved-namespace target); nil normally.
	Advisories []PolarityAdvisory
	// DiffAgainstLive is, for a promotion, whom the new live cut affects
	// against the one it replaced (advisory); nil when nothing changed or
	// the diff could not be decided.
	DiffAgainstLive *verify.SemanticDiff
}

// PolarityAdvisory is one presence-polarity finding on a composed
// rulebook.
type PolarityAdvisory struct {
	Field     string          `json:"field"`
	Criterion string          `json:"criterion"`
	Message   string          `json:"message"`
	Witness   json.RawMessage `json:"witness"`
}

// CreateRulebook stores a new draft. An empty draft (no references) may be
// created; every reference given must resolve (a *catalog.MemberError),
// and the members must compose.
func (p *Publisher) CreateRulebook(ctx context.Context, tenantID string, d RulebookDraft) (store.Rulebook, error) {
	if err := p.checkSlug(ctx, tenantID, d.Slug); err != nil {
		return store.Rulebook{}, err
	}
	draft := store.Rulebook{ID: store.NewRulebookID(), TenantID: tenantID, Slug: d.Slug}
	if err := p.applyDraft(ctx, &draft, d); err != nil {
		return store.Rulebook{}, err
	}
	rb, err := p.store.CreateRulebook(ctx, draft)
	if refused := slugRefusal("slug", d.Slug, err); refused != nil {
		return store.Rulebook{}, refused
	}
	if err == nil {
		p.catalog.ForgetRulebook(rb) // it may have been remembered as missing
	}
	return rb, err
}

// UpdateRulebook edits tenantID's rulebook ref. On a published family every
// member is resolved and the members composed first (a failure leaves the
// draft unchanged), and the edited content is published as a release
// (ErrPublicationFailed keeps the draft, to be published by the next
// activate or edit).
func (p *Publisher) UpdateRulebook(ctx context.Context, tenantID, ref string, d RulebookDraft) (RulebookResult, error) {
	rb, err := p.catalog.OwnedRulebook(ctx, tenantID, ref)
	if err != nil {
		return RulebookResult{}, err
	}
	if rb.Status == store.RulebookArchived {
		return RulebookResult{}, fmt.Errorf("rulebook %q: %w", ref, ErrArchived)
	}
	draft := rb
	if err := p.applyDraft(ctx, &draft, d); err != nil {
		return RulebookResult{}, err
	}
	published := rb.Status == store.RulebookActive || rb.CurrentReleaseID != ""
	if !published {
		w, err := p.writeRulebook(ctx, rb, store.RulebookWrite{TenantID: tenantID, RulebookID: rb.ID, Draft: &draft,
			Audit: []store.Audit{{Kind: "rulebook_updated", Detail: map[string]any{"actor": d.Actor}}}})
		return RulebookResult{Rulebook: w.Rulebook}, err
	}
	// Keep the draft first, then publish it: a failed publication leaves
	// the edit in place and the flag that makes the next one publish.
	if _, err := p.writeRulebook(ctx, rb, store.RulebookWrite{TenantID: tenantID, RulebookID: rb.ID, Draft: &draft,
		PublicationPending: true, Audit: []store.Audit{{Kind: "rulebook_updated", Detail: map[string]any{"actor": d.Actor}}}}); err != nil {
		return RulebookResult{}, err
	}
	return p.publishDraft(ctx, tenantID, rb.ID, d.Actor)
}

// applyDraft validates d and applies it to draft: references resolved to
// their live cuts (a floating one keeps its live cut when the section was
// already referenced), outcome letters checked against the references,
// the members composed when there are any, the overlay's fields known.
func (p *Publisher) applyDraft(ctx context.Context, draft *store.Rulebook, d RulebookDraft) error {
	for dst, src := range map[*string]*string{&draft.Name: d.Name, &draft.Domain: d.Domain, &draft.Description: d.Description} {
		if src != nil {
			*dst = *src
		}
	}
	if draft.Name == "" {
		draft.Name = draft.Slug
	}
	if draft.Visibility == "" {
		draft.Visibility, draft.Status = store.VisibilityPrivate, store.RulebookDraft
	}
	if d.Refs != nil {
		refs, err := p.resolveRefs(ctx, *draft, *d.Refs)
		if err != nil {
			return err
		}
		draft.Refs = refs
	}
	if d.SetOutcome {
		draft.OutcomeLogic = nil
		if d.Outcome != nil {
			raw, err := json.Marshal(d.Outcome)
			if err != nil {
				return fmt.Errorf("encode outcome: %w", err)
			}
			draft.OutcomeLogic = raw
		}
	}
	if d.SetHints {
		draft.RobotHints = nil
		if d.Hints != nil {
			raw, err := json.Marshal(d.Hints)
			if err != nil {
				return fmt.Errorf("encode hints: %w", err)
			}
			draft.RobotHints = raw
		}
	}
	if d.SetFacts {
		draft.SectionFacts = nil
		if len(d.Facts) > 0 {
			raw, err := json.Marshal(d.Facts)
			if err != nil {
				return fmt.Errorf("encode section facts: %w", err)
			}
			draft.SectionFacts = raw
		}
	}
	if d.Overlay != nil {
		raw, err := json.Marshal(d.Overlay)
		if err != nil {
			return fmt.Errorf("encode overlay: %w", err)
		}
		draft.FieldOverlay = raw
	}
	_, err := p.checkComposes(ctx, *draft)
	return err
}

// resolveRefs turns requested references into stored ones.
func (p *Publisher) resolveRefs(ctx context.Context, draft store.Rulebook, refs []RefRequest) ([]store.RulebookRef, error) {
	if len(refs) > rulebook.MaxSections {
		return nil, fmt.Errorf("%w: %d references; a rulebook composes at most %d sections", ErrCompositionRefused, len(refs), rulebook.MaxSections)
	}
	live := map[string]string{}
	for _, r := range draft.Refs {
		live[r.SectionID] = r.LiveRulesetID
	}
	out := make([]store.RulebookRef, 0, len(refs))
	seen := map[string]bool{}
	for _, r := range refs {
		if seen[r.SectionID] {
			return nil, fmt.Errorf("%w: section %s is referenced twice", ErrCompositionRefused, r.SectionID)
		}
		seen[r.SectionID] = true
		if draft.Pinned && r.PinMode != store.PinPinned {
			return nil, fmt.Errorf("rulebook %s, section %s: %w: a promoted family names an exact ruleset_id for every reference", draft.ID, r.SectionID, ErrCompositionPinned)
		}
		ref := store.RulebookRef{SectionID: r.SectionID, PinMode: r.PinMode}
		switch {
		case r.PinMode == store.PinPinned:
			ref.LiveRulesetID = r.RulesetID
		case live[r.SectionID] != "":
			ref.LiveRulesetID = live[r.SectionID]
		default:
			cut, err := p.store.LatestActiveCut(ctx, draft.TenantID, r.SectionID)
			if errors.Is(err, store.ErrNotFound) {
				return nil, &catalog.MemberError{SectionID: r.SectionID, Reason: "the tenant has no active published ruleset of this section"}
			}
			if err != nil {
				return nil, err
			}
			ref.LiveRulesetID = cut.ID
		}
		out = append(out, ref)
	}
	return out, nil
}

// checkComposes resolves every member of draft and composes them, so an
// liveComposition is a draft resolved and composed: what a publication
// freezes and what the go-live gates examine.
type liveComposition struct {
	content  catalog.RulebookContent
	members  []*catalog.PreparedRuleset
	composed *rulebook.Composed
	identity string
}

// checkComposes resolves every member of draft and composes them, so an
// edit that could not be published is refused before anything is stored.
// The members are resolved first: a member that cannot be used is the
// answer even when the outcome names letters the new references no longer
// have. It returns nil for a draft without references.
func (p *Publisher) checkComposes(ctx context.Context, draft store.Rulebook) (*liveComposition, error) {
	if len(draft.Refs) == 0 {
		var overlay map[string]json.RawMessage
		if len(draft.FieldOverlay) > 0 && json.Unmarshal(draft.FieldOverlay, &overlay) == nil && len(overlay) > 0 {
			return nil, fmt.Errorf("%w: the rulebook has no sections yet, so no field to describe", ErrUnknownField)
		}
		var facts []json.RawMessage
		if len(draft.SectionFacts) > 0 && json.Unmarshal(draft.SectionFacts, &facts) == nil && len(facts) > 0 {
			return nil, fmt.Errorf("%w: the rulebook has no sections yet, so no section's outcome to bind", ErrFactsRefused)
		}
		return nil, nil
	}
	membersOnly := draft
	membersOnly.OutcomeLogic = nil
	content, members, err := p.catalog.LiveContent(ctx, membersOnly)
	if err != nil {
		return nil, err
	}
	if len(draft.OutcomeLogic) > 0 {
		tree, problems := rulebook.ParseOutcomeTree(draft.OutcomeLogic, len(draft.Refs))
		if len(problems) > 0 {
			return nil, fmt.Errorf("%w: outcome_logic: %s", ErrCompositionRefused, problems[0])
		}
		content.OutcomeLogic = tree
	}
	bare := content
	bare.FieldOverlay, bare.SectionFacts = nil, nil
	if _, _, err := p.catalog.Compose(bare, members); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompositionRefused, err)
	}
	// The members compose; so a refusal now is the facts', then the
	// overlay's.
	if len(content.SectionFacts) > 0 {
		bare.SectionFacts = content.SectionFacts
		if _, _, err := p.catalog.Compose(bare, members); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFactsRefused, err)
		}
	}
	composed, identity, err := p.catalog.Compose(content, members)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnknownField, err)
	}
	return &liveComposition{content: content, members: members, composed: composed, identity: identity}, nil
}

// Activate publishes tenantID's rulebook ref as a release, idempotently:
// content already released reuses that release. Every member must resolve.
func (p *Publisher) Activate(ctx context.Context, tenantID, ref, actor string) (RulebookResult, error) {
	rb, err := p.catalog.OwnedRulebook(ctx, tenantID, ref)
	if err != nil {
		return RulebookResult{}, err
	}
	return p.publishDraft(ctx, tenantID, rb.ID, actor)
}

// publishDraft publishes the stored draft of rulebook id as a release.
func (p *Publisher) publishDraft(ctx context.Context, tenantID, id, actor string) (RulebookResult, error) {
	rb, err := p.catalog.OwnedRulebook(ctx, tenantID, id)
	if err != nil {
		return RulebookResult{}, err
	}
	release, err := p.releaseOf(ctx, rb)
	if err != nil {
		return RulebookResult{}, err
	}
	w, err := p.writeRulebook(ctx, rb, store.RulebookWrite{TenantID: tenantID, RulebookID: rb.ID, Release: release,
		Audit: []store.Audit{{Kind: "rulebook_activated", Detail: map[string]any{"actor": actor}}}})
	return p.written(w, err)
}

// written maps the store's answer of a publication.
func (p *Publisher) written(w store.RulebookWritten, err error) (RulebookResult, error) {
	var refused *RefusedError
	switch {
	case errors.Is(err, ErrConcurrentEdit), errors.As(err, &refused):
		return RulebookResult{}, err
	case errors.Is(err, store.ErrNoLabel):
		return RulebookResult{}, fmt.Errorf("%w: %w", ErrLabelAllocation, err)
	case errors.Is(err, store.ErrNotFound):
		return RulebookResult{}, fmt.Errorf("%w: %w", catalog.ErrNotFound, err)
	case err != nil:
		return RulebookResult{}, fmt.Errorf("%w: %w", ErrPublicationFailed, err)
	}
	return RulebookResult{Rulebook: w.Rulebook, Release: w.Release}, nil
}

// releaseOf freezes rb's draft into the release a write publishes.
func (p *Publisher) releaseOf(ctx context.Context, rb store.Rulebook) (*store.ReleaseDraft, error) {
	live, err := p.checkComposes(ctx, rb)
	if err != nil {
		return nil, err
	}
	if live == nil {
		return nil, &catalog.MemberError{SectionID: "(none)", Reason: "the rulebook references no section yet; add ruleset_refs first"}
	}
	return p.releaseFrom(rb, live)
}

// releaseFrom is the release of rb's composed draft.
func (p *Publisher) releaseFrom(rb store.Rulebook, live *liveComposition) (*store.ReleaseDraft, error) {
	raw, err := json.Marshal(live.content)
	if err != nil {
		return nil, fmt.Errorf("encode release content: %w", err)
	}
	sum := sha256.Sum256([]byte(rb.ID + live.identity))
	return &store.ReleaseDraft{Title: rb.Name, ContentIdentity: live.identity, Content: raw, Fail: p.releaseFault,
		AllocateLabel: func(taken func(string) bool) (string, error) {
			label, err := p.allocateLabel(binary.BigEndian.Uint64(sum[:8]), taken)
			if errors.Is(err, rulebook.ErrNoLabel) {
				return "", fmt.Errorf("%w: %w", store.ErrNoLabel, err)
			}
			return label, err
		}}, nil
}

// ArchiveRulebook archives tenantID's rulebook ref: it leaves the public
// catalogue and refuses edits until activated again; its releases still
// serve decisions.
func (p *Publisher) ArchiveRulebook(ctx context.Context, tenantID, ref, actor string) (store.Rulebook, error) {
	return p.setRulebookState(ctx, tenantID, ref, "rulebook_archived", actor, func(d *store.Rulebook) { d.Status = store.RulebookArchived })
}

// SetRulebookVisibility makes tenantID's rulebook ref public or private.
func (p *Publisher) SetRulebookVisibility(ctx context.Context, tenantID, ref, visibility, actor string) (store.Rulebook, error) {
	return p.setRulebookState(ctx, tenantID, ref, "rulebook_visibility_changed", actor, func(d *store.Rulebook) { d.Visibility = visibility })
}

func (p *Publisher) setRulebookState(ctx context.Context, tenantID, ref, event, actor string, change func(*store.Rulebook)) (store.Rulebook, error) {
	rb, err := p.catalog.OwnedRulebook(ctx, tenantID, ref)
	if err != nil {
		return store.Rulebook{}, err
	}
	draft := rb
	change(&draft)
	w, err := p.writeRulebook(ctx, rb, store.RulebookWrite{TenantID: tenantID, RulebookID: rb.ID, Draft: &draft,
		PublicationPending: rb.PublicationPending,
		Audit:              []store.Audit{{Kind: event, Detail: map[string]any{"actor": actor, "status": draft.Status, "visibility": draft.Visibility}}}})
	return w.Rulebook, err
}

// writeRulebook makes w, unless the rulebook changed since read (the state
// w was worked out from): then ErrConcurrentEdit and nothing written, so
// two concurrent edits can never publish a release of a draft that is no
// longer the one stored. A write that would leave the rulebook public with
// a member citing project artefacts is refused (ErrArtefactPublic), so
// every path (edit, visibility, activate, promote) keeps the rule. It
// drops the catalog's cached references to the rulebook, so this process
// reads the change at once.
func (p *Publisher) writeRulebook(ctx context.Context, read store.Rulebook, w store.RulebookWrite) (store.RulebookWritten, error) {
	w.Check = func(cur store.Rulebook) error {
		if !cur.UpdatedAt.Equal(read.UpdatedAt) {
			return fmt.Errorf("rulebook %s: %w", cur.ID, ErrConcurrentEdit)
		}
		return nil
	}
	if err := p.checkRulebookPublic(ctx, read, w); err != nil {
		return store.RulebookWritten{}, err
	}
	if w.Release != nil {
		// A release publishes content under the slug: the reserved
		// namespaces apply, and it claims the namespace within the caps.
		if err := p.checkReserved(ctx, w.TenantID, read.Slug); err != nil {
			return store.RulebookWritten{}, err
		}
		w.NamespaceCaps = p.caps
	}
	out, err := p.store.WriteRulebook(ctx, w)
	if refused := slugRefusal("slug", read.Slug, err); refused != nil {
		return out, refused
	}
	if err == nil {
		p.catalog.ForgetRulebook(out.Rulebook)
	}
	return out, err
}
