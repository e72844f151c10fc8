package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/verify"
	"github.com/eligo/eligo/store"
)

// PromoteRequest is one promote-to-live.
type PromoteRequest struct {
	// TenantID owns the rulebook and the candidate.
	TenantID string
	// Rulebook is the rulebook id or slug.
	Rulebook string
	// Section is the section id whose live cut changes.
	Section string
	// Candidate is the exact ruleset_id to make live.
	Candidate string
	// ForceUnsafe promotes despite presence-polarity findings; only
	// Internal callers may (ErrForceNotAllowed), and it is audited as
	// promote_force_bypass_presence_polarity.
	ForceUnsafe bool
	// Internal is set for an internal-tier key.
	Internal bool
	// Actor says who promoted, for the audit trail.
	Actor string
}

// promotion is a promote-to-live in progress.
type promotion struct {
	req       PromoteRequest
	rulebook  store.Rulebook
	candidate *catalog.PreparedRuleset
	// draft is the rulebook with the candidate live and every reference
	// pinned: what the promotion stores and releases.
	draft store.Rulebook
	prior string
	// live is the draft resolved and composed, by the composition stage.
	live       *liveComposition
	advisories []PolarityAdvisory
	audit      []store.Audit
	// publicize is the candidate's id when it takes the public visibility
	// of the prior live cut (set by candidateVisibility).
	publicize []string
}

// promoteStage is one go-live gate; its name is what a refusal names.
type promoteStage struct {
	name string
	run  func(*Publisher, context.Context, *promotion) error
}

// promoteStages are the go-live gates of a promotion, in order.
var promoteStages = [...]promoteStage{
	{StageCandidateTests, (*Publisher).candidateTests},
	{"artefact_visibility", (*Publisher).candidateVisibility},
	{StageComposition, (*Publisher).promotedComposition},
	{StagePresencePolarity, (*Publisher).presencePolarity},
}

// The go-live gates' names. A promotion refused at a gate carries its name
// in RefusedError.Stage, and the HTTP layer answers it as the reason code,
// so each is defined once, here.
const (
	// StageCandidateLoads: the candidate's stored content does not load.
	StageCandidateLoads = "candidate_loads"
	// StageCandidateTests: a stored test case of the candidate fails.
	StageCandidateTests = "candidate_tests"
	// StageComposition: the members do not compose with the candidate in
	// place.
	StageComposition = "composition"
	// StagePresencePolarity: the presence-polarity gate on the composed
	// rulebook.
	StagePresencePolarity = "presence_polarity"
)

// Promote makes req.Candidate the live cut of req.Section in the rulebook,
// after the go-live gates: the candidate loads, its stored test cases
// pass, the members compose with it in place (shared fields agree), and
// the presence-polarity gate passes on the composed rulebook. Then, in one
// transaction, the candidate becomes live, every reference is pinned to
// its live cut, the prior live cut of the section is archived, and a
// release is cut.
func (p *Publisher) Promote(ctx context.Context, req PromoteRequest) (RulebookResult, error) {
	pr := &promotion{req: req}
	rb, err := p.catalog.OwnedRulebook(ctx, req.TenantID, req.Rulebook)
	if err != nil {
		return RulebookResult{}, err
	}
	if rb.Status == store.RulebookArchived {
		return RulebookResult{}, fmt.Errorf("rulebook %q: %w", req.Rulebook, ErrArchived)
	}
	pr.rulebook = rb
	if req.ForceUnsafe && !req.Internal {
		return RulebookResult{}, ErrForceNotAllowed
	}
	at := -1
	for i, r := range rb.Refs {
		if r.SectionID == req.Section {
			at, pr.prior = i, r.LiveRulesetID
		}
	}
	if at < 0 {
		return RulebookResult{}, fmt.Errorf("rulebook %s, section %q: %w", rb.ID, req.Section, ErrNotSectionOfRulebook)
	}
	row, err := p.catalog.Owned(ctx, req.TenantID, req.Candidate)
	if err != nil {
		return RulebookResult{}, err
	}
	if row.SectionID != req.Section {
		return RulebookResult{}, fmt.Errorf("candidate %s is of section %s, not %s: %w", row.ID, row.SectionID, req.Section, ErrCandidateSection)
	}
	if pr.candidate, err = p.catalog.Load(ctx, row); err != nil {
		return RulebookResult{}, &RefusedError{Stage: StageCandidateLoads, Reason: err, Message: "the candidate's stored content does not load"}
	}
	pr.draft = rb
	pr.draft.Refs = make([]store.RulebookRef, len(rb.Refs))
	for i, r := range rb.Refs {
		r.PinMode = store.PinPinned
		if i == at {
			r.LiveRulesetID = row.ID
		}
		pr.draft.Refs[i] = r
	}
	pr.draft.Pinned, pr.draft.Status = true, store.RulebookActive
	for _, st := range promoteStages {
		if err := st.run(p, ctx, pr); err != nil {
			var refused *RefusedError
			if errors.As(err, &refused) {
				refused.Stage = st.name
			}
			return RulebookResult{}, err
		}
	}
	release, err := p.releaseFrom(pr.draft, pr.live)
	if err != nil {
		return RulebookResult{}, err
	}
	var archive []string
	if pr.prior != row.ID {
		archive = []string{pr.prior}
	}
	audit := append([]store.Audit{{Kind: "ruleset_promoted", Detail: map[string]any{
		"actor": req.Actor, "section_id": req.Section, "ruleset_id": row.ID, "prior_ruleset_id": pr.prior}}}, pr.audit...)
	w, err := p.writeRulebook(ctx, pr.rulebook, store.RulebookWrite{TenantID: req.TenantID, RulebookID: rb.ID, Draft: &pr.draft,
		Release: release, ArchiveRulesets: archive, PublicizeRulesets: pr.publicize, Audit: audit})
	if err == nil {
		// The candidate's slug now resolves to it, public or archived
		// changes included: this process reads it at once.
		p.catalog.Forget(row)
	}
	res, err := p.written(w, err)
	res.Advisories = pr.advisories
	if err == nil && pr.prior != row.ID {
		res.DiffAgainstLive = p.diffAgainst(ctx, pr.req.TenantID, pr.prior, pr.candidate.Rules)
	}
	return res, err
}

// diffAgainst is the advisory semantic diff of rules against the cut
// prior: whom the change affects. It is nil when the prior cut cannot be
// loaded or the solver cannot decide in time; it never blocks.
func (p *Publisher) diffAgainst(ctx context.Context, tenant, prior string, rules *engine.Ruleset) *verify.SemanticDiff {
	row, err := p.store.RulesetByRef(ctx, prior)
	if err != nil {
		return nil
	}
	old, err := p.catalog.Load(ctx, row)
	if err != nil {
		return nil
	}
	d, err := verify.Diff(ctx, old.Rules, rules, verify.DiffOptions{DecisionDate: value.DateOf(p.clock.Now()), Gate: p.gate.For(tenant)})
	if err != nil {
		return nil
	}
	return &d
}

// candidateVisibility keeps a public section public: when the prior live
// cut is public and the candidate private, the candidate is made public
// with the promotion (the prior is archived by it, so the slug would
// otherwise leave the public). A candidate citing project artefacts can
// never be public, so it is refused instead, saying why.
func (p *Publisher) candidateVisibility(ctx context.Context, pr *promotion) error {
	if pr.prior == "" || pr.prior == pr.candidate.ID || pr.candidate.Visibility == store.VisibilityPublic {
		return nil
	}
	prior, err := p.store.RulesetByRef(ctx, pr.prior)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("visibility of the live cut %s: %w", pr.prior, err)
	}
	if prior.Visibility != store.VisibilityPublic {
		return nil
	}
	if catalog.CitesArtefacts(pr.candidate.Rules) {
		return &RefusedError{Reason: ErrArtefactPublic, Message: fmt.Sprintf(
			"the live cut %s is public and its successor keeps that visibility, but %s cites project artefacts, which are never public", pr.prior, pr.candidate.ID)}
	}
	pr.publicize = []string{pr.candidate.ID}
	return nil
}

// candidateTests runs the test cases the candidate was published with.
func (p *Publisher) candidateTests(ctx context.Context, pr *promotion) error {
	raw, err := p.store.RulesetCases(ctx, pr.candidate.ID)
	if err != nil {
		return err
	}
	var cases []engine.Case
	if err := json.Unmarshal(raw, &cases); err != nil {
		return fmt.Errorf("candidate %s test cases: %w", pr.candidate.ID, err)
	}
	var failures []engine.CaseResult
	for _, c := range cases {
		if cr := pr.candidate.Rules.RunCase(c); !cr.Pass {
			failures = append(failures, cr)
		}
	}
	if len(failures) > 0 {
		return &RefusedError{Reason: ErrCandidateTests, Failures: failures,
			Message: fmt.Sprintf("%d of %d stored test cases of %s fail (%s)", len(failures), len(cases), pr.candidate.ID, strings.Join(caseNames(failures), ", "))}
	}
	return nil
}

// promotedComposition composes the rulebook with the candidate in place.
func (p *Publisher) promotedComposition(ctx context.Context, pr *promotion) error {
	live, err := p.checkComposes(ctx, pr.draft)
	if err != nil {
		return &RefusedError{Reason: ErrCompositionRefused, Message: err.Error()}
	}
	pr.live = live
	return nil
}

// PolarityBudget bounds the presence-polarity gate of a promotion, the
// wait for a solver slot included: a promotion answers a request, so the
// gate must end well inside the API's work deadline, as a review's solver
// checks do within review.DefaultBudget. Every casebank rulebook's gate
// takes well under a second. See docs/limits.md#solver-runs.
const PolarityBudget = 20 * time.Second

// presencePolarity runs the go-live gate on the composed rulebook. Its
// findings refuse the promotion, unless it is forced (audited) or the
// rulebook is under the reserved namespace, where they are advisories. A
// gate the solver cannot decide within PolarityBudget refuses it too
// (ErrPolarityUndecided): it never passes for want of time.
func (p *Publisher) presencePolarity(ctx context.Context, pr *promotion) error {
	findings, err := solver.CheckPresencePolarityWith(ctx, pr.live.composed.Rules,
		solver.PolarityOptions{Timeout: PolarityBudget, Gate: p.gate.For(pr.req.TenantID)})
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return fmt.Errorf("presence-polarity gate: %w", err)
		}
		return &RefusedError{Reason: ErrPolarityUndecided,
			Message: fmt.Sprintf("the presence-polarity gate could not be decided within its %s budget (the solver slots were busy, or the composed rules are too large for it): %v; nothing was promoted, retry later", PolarityBudget, err)}
	}
	if len(findings) == 0 {
		return nil
	}
	for _, f := range findings {
		witness, err := json.Marshal(f.Witness)
		if err != nil {
			return fmt.Errorf("encode witness: %w", err)
		}
		pr.advisories = append(pr.advisories, PolarityAdvisory{Field: f.Field, Criterion: f.Criterion, Message: f.Message, Witness: witness})
	}
	reservedTarget := strings.HasPrefix(pr.rulebook.Slug+"/", strings.TrimSuffix(p.reserved, "/")+"/")
	switch {
	case pr.req.ForceUnsafe:
		pr.audit = append(pr.audit, store.Audit{Kind: "promote_force_bypass_presence_polarity", Detail: map[string]any{
			"actor": pr.req.Actor, "section_id": pr.req.Section, "ruleset_id": pr.candidate.ID, "findings": pr.advisories}})
		return nil
	case reservedTarget:
		return nil
	}
	return &PolarityError{Findings: pr.advisories}
}
