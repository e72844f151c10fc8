package worker

import (
	"context"
	"fmt"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// rulesets loads what run compares (docs/impact.md#over-http): a
// published cut or the draft text against a published cut, or, for a run
// of a rulebook, a proposal of the rulebook against the release that was
// in force when the run was started.
func (r *ImpactRunner) rulesets(ctx context.Context, run store.ImpactRun) (baseline, candidate *engine.Ruleset, err error) {
	books, err := r.store.ImpactRulebooks(ctx, []string{run.ID})
	if err != nil {
		return nil, nil, err
	}
	if rb, ok := books[run.ID]; ok {
		return r.rulebooks(ctx, run.TenantID, rb)
	}
	baseline, err = r.published(ctx, run.BaselineRulesetID)
	if err != nil {
		return nil, nil, err
	}
	candidate = baseline
	if run.CandidateRulesetID != "" {
		candidate, err = r.published(ctx, run.CandidateRulesetID)
	} else {
		candidate, _, err = engine.Compile("draft.rules", []byte(run.CandidateDraft))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load candidate: %w", err)
	}
	return baseline, candidate, nil
}

// rulebooks composes the two sides of a run of a rulebook, as the start
// of the run checked they compose.
func (r *ImpactRunner) rulebooks(ctx context.Context, tenantID string, rb store.ImpactRulebook) (baseline, candidate *engine.Ruleset, err error) {
	book, err := r.catalog.OwnedRulebook(ctx, tenantID, rb.RulebookID)
	if err != nil {
		return nil, nil, fmt.Errorf("load rulebook %s: %w", rb.RulebookID, err)
	}
	base, err := r.catalog.Propose(ctx, book, catalog.Proposal{Release: rb.BaselineReleaseID})
	if err != nil {
		return nil, nil, fmt.Errorf("load baseline release: %w", err)
	}
	cand, err := r.catalog.Propose(ctx, book, catalog.Proposal{Release: rb.CandidateReleaseID, SectionID: rb.SectionID, RulesetID: rb.SectionRulesetID})
	if err != nil {
		return nil, nil, fmt.Errorf("load candidate: %w", err)
	}
	return base.Composed.Rules, cand.Composed.Rules, nil
}
