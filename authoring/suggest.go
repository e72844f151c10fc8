package authoring

import (
	"context"
	"fmt"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/verify"
)

// Bounds of one SuggestCases run: it answers a request, so each of its two
// solver runs has a share of the request's time well inside the server's
// work deadline; a run cut short reports what it decided.
const (
	// SuggestBudget bounds the search for suggested cases.
	SuggestBudget = 15 * time.Second
	// SuggestMutationBudget bounds the mutation score of the current
	// tests, whose survivors the suggestions are weighed against.
	SuggestMutationBudget = 15 * time.Second
)

// CaseSuggestions are the cases the solver suggests for a draft, given
// the project's tests, and what each adds to the tests' mutation score.
// Its lists (suggestions' AlsoCovers and Kills, Mutation.Survivors) are
// never nil, so they go on the wire as arrays.
type CaseSuggestions struct {
	// Suggestions are verify.SuggestCasesReport's, each with the
	// survivors of the tests' mutation score it kills.
	Suggestions []CaseSuggestion
	// Progress is how far the search for suggestions got.
	Progress bound.Progress
	// Mutation is the mutation score of the project's tests as they are.
	Mutation verify.MutationReport
	// KilledWithSuggestions is how many of Mutation's scored mutants the
	// tests and every reachable suggestion together kill: the score the
	// suite would have with them all added.
	KilledWithSuggestions int
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
// each would kill (verify.Kills). The solver runs within the tenant's
// share of the process's gate, each bounded by its budget. No draft is
// 409 no_draft; a draft that does not compile is 422
// draft_does_not_compile.
func (s *Service) SuggestCases(ctx context.Context, tenantID, projectID, decisionDate string) (CaseSuggestions, error) {
	w, err := s.Draft(ctx, tenantID, projectID, nil)
	if err == nil {
		err = w.Compiled()
	}
	if err != nil {
		return CaseSuggestions{}, err
	}
	gate := s.cfg.Gate.For(tenantID)
	found, err := verify.SuggestCasesReport(ctx, w.Rules, w.Acceptance.Cases,
		verify.SuggestOptions{DecisionDate: decisionDate, Budget: SuggestBudget, Gate: gate})
	if err != nil {
		return CaseSuggestions{}, fmt.Errorf("suggest cases for project %s: %w", projectID, err)
	}
	mut, err := verify.MutationScoreWith(ctx, w.Rules, w.Acceptance.Cases, verify.MutationOptions{Timeout: SuggestMutationBudget, Gate: gate})
	if err != nil {
		return CaseSuggestions{}, fmt.Errorf("mutation score of project %s: %w", projectID, err)
	}
	var reachable []engine.Case
	for _, sg := range found.Suggestions {
		if sg.Reachable {
			reachable = append(reachable, sg.Case)
		}
	}
	kills, err := verify.Kills(ctx, w.Rules, mut.Survivors, reachable)
	if err != nil {
		return CaseSuggestions{}, fmt.Errorf("mutants killed by the suggestions for project %s: %w", projectID, err)
	}
	mut.Survivors = orEmpty(mut.Survivors)
	out := CaseSuggestions{Suggestions: make([]CaseSuggestion, len(found.Suggestions)), Progress: found.Progress, Mutation: mut}
	killed := map[string]bool{}
	next := 0
	for i, sg := range found.Suggestions {
		sg.AlsoCovers = orEmpty(sg.AlsoCovers)
		out.Suggestions[i] = CaseSuggestion{Suggestion: sg, Kills: []verify.Mutant{}}
		if sg.Reachable {
			out.Suggestions[i].Kills = orEmpty(kills[next])
			for _, m := range kills[next] {
				killed[m.ID] = true
			}
			next++
		}
	}
	out.KilledWithSuggestions = mut.Killed + len(killed)
	return out, nil
}
