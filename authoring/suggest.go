package authoring

import (
	"context"
	"fmt"
	"time"

	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/verify"
)

// SuggestBudget bounds one SuggestCases run as a whole: the search for
// cases, the mutation score of the current tests and the kills of the
// cases found share it, each an equal share of what is left when it
// starts (bound.Share), so that time one does not use passes to the next.
// It answers a request, so it is the review's budget (review.DefaultBudget),
// well inside the server's work deadline; a run cut short reports what it
// decided (complete: false). See docs/limits.md#solver-runs.
const SuggestBudget = review.DefaultBudget

// CaseSuggestions are the cases the solver suggests for a draft, given
// the project's tests, and what each adds to the tests' mutation score.
// Its lists (suggestions' AlsoCovers and Kills, Mutation.Survivors) are
// never nil, so they go on the wire as arrays.
type CaseSuggestions struct {
	// Suggestions are verify.SuggestCasesReport's, each with the
	// survivors of the tests' mutation score it kills.
	Suggestions []CaseSuggestion
	// Progress is how far the search for suggestions got: its counts are
	// goals, and it is incomplete when the search, the score or the kills
	// did not finish (Incomplete says which).
	Progress bound.Progress
	// Mutation is the mutation score of the project's tests as they are.
	Mutation verify.MutationReport
	// KilledWithSuggestions is how many of Mutation's scored mutants the
	// tests and every reachable suggestion together kill: the score the
	// suite would have with them all added (of the survivors Kills
	// decided).
	KilledWithSuggestions int
	// Kills is how far weighing the survivors against the suggestions got.
	Kills bound.Progress
}

// CaseSuggestion is one suggestion and the survivors it kills.
type CaseSuggestion struct {
	verify.Suggestion
	// Kills are the survivors of the tests' mutation score this case
	// kills; empty for an unreachable goal.
	Kills []verify.Mutant
}

// SuggestCases proposes test cases for what the project's tests leave
// untested in its draft (verify.SuggestCasesReport, as `eligo test
// --suggest` does), dated decisionDate ("YYYY-MM-DD") when the draft reads
// decision_date(), and says which survivors of the tests' mutation score
// each would kill (verify.KillsReport). Its three solver runs each wait
// for a slot of the tenant's share of the process's gate and share
// SuggestBudget; a run that runs out, or that the solver cannot decide,
// leaves the result incomplete instead of failing it. No draft is 409
// no_draft; a draft that does not compile is 422 draft_does_not_compile.
func (s *Drafts) SuggestCases(ctx context.Context, tenantID, projectID, decisionDate string) (CaseSuggestions, error) {
	w, err := s.Draft(ctx, tenantID, projectID, nil)
	if err == nil {
		err = w.Compiled()
	}
	if err != nil {
		return CaseSuggestions{}, err
	}
	gate := s.cfg.Gate.For(tenantID)
	ctx, cancel, _ := bound.WithBudget(ctx, SuggestBudget, SuggestBudget)
	defer cancel()
	runs := 3
	share := func() time.Duration {
		runs--
		return bound.Share(ctx, runs+1)
	}
	budget := share()
	found, err := verify.SuggestCasesReport(ctx, w.Rules, w.Acceptance.Cases, verify.SuggestOptions{DecisionDate: decisionDate, Budget: budget, Gate: gate})
	if err != nil {
		found = verify.SuggestReport{Progress: bound.Progress{Complete: true}}
		found.GiveUp(ctx, err, "goals", budget)
	}
	budget = share()
	mut, err := verify.MutationScoreWith(ctx, w.Rules, w.Acceptance.Cases, verify.MutationOptions{Timeout: budget, Gate: gate})
	if err != nil {
		mut = verify.MutationReport{Progress: bound.Progress{Complete: true}}
		mut.GiveUp(ctx, err, "mutants", budget)
	}
	var reachable []engine.Case
	for _, sg := range found.Suggestions {
		if sg.Reachable {
			reachable = append(reachable, sg.Case)
		}
	}
	kills, err := verify.KillsReport(ctx, w.Rules, mut.Survivors, reachable, verify.KillsOptions{Budget: share(), Gate: gate})
	if err != nil {
		return CaseSuggestions{}, fmt.Errorf("mutants killed by the suggestions for project %s: %w", projectID, err)
	}
	mut.Survivors = orEmpty(mut.Survivors)
	out := CaseSuggestions{Suggestions: make([]CaseSuggestion, len(found.Suggestions)), Progress: found.Progress, Mutation: mut, Kills: kills.Progress}
	switch {
	case !out.Progress.Complete:
	case !mut.Complete:
		out.Progress.Complete, out.Progress.Incomplete = false, unfinished("the mutation score", mut.Incomplete)
	case !kills.Complete:
		out.Progress.Complete, out.Progress.Incomplete = false, unfinished("weighing the survivors against the suggestions", kills.Incomplete)
	}
	killed := map[string]bool{}
	next := 0
	for i, sg := range found.Suggestions {
		sg.AlsoCovers = orEmpty(sg.AlsoCovers)
		out.Suggestions[i] = CaseSuggestion{Suggestion: sg, Kills: []verify.Mutant{}}
		if sg.Reachable {
			out.Suggestions[i].Kills = orEmpty(kills.Kills[next])
			for _, m := range kills.Kills[next] {
				killed[m.ID] = true
			}
			next++
		}
	}
	out.KilledWithSuggestions = mut.Killed + len(killed)
	return out, nil
}

// unfinished is the search's Incomplete when a later run of SuggestCases
// (named what) did not finish though the search did.
func unfinished(what string, why *bound.Incomplete) *bound.Incomplete {
	return &bound.Incomplete{Reason: why.Reason, Detail: what + ": " + why.Detail}
}
