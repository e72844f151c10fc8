package verify

import (
	"context"
	"fmt"

	"github.com/eligo/eligo/engine"
)

// Kills says which of survivors (mutants of r, as a MutationReport lists
// them) each of cases kills: the survivors on which the case's RunCase
// verdict differs from its verdict on r, in the order given. An author
// weighing suggested cases (SuggestCases) then sees what each adds to the
// suite's mutation score, and the score with a case added needs no new
// run. Each survivor is built once and runs every case, so the cost is one
// mutant build per survivor and one evaluation per survivor and case;
// ctx's end stops it with ctx's error. A survivor that is not a mutant of
// r is an error.
func Kills(ctx context.Context, r *engine.Ruleset, survivors []Mutant, cases []engine.Case) ([][]Mutant, error) {
	out := make([][]Mutant, len(cases))
	if len(survivors) == 0 || len(cases) == 0 {
		return out, nil
	}
	all := listMutations(r)
	byID := make(map[string]*mutation, len(all))
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	runs := prepareRuns(r, cases)
	for _, s := range survivors {
		mu, ok := byID[s.ID]
		if !ok {
			return nil, fmt.Errorf("solver: %s is not a mutant of this ruleset", s.ID)
		}
		m, err := mu.build(r)
		if err != nil {
			return nil, fmt.Errorf("solver: mutant %s: %w", s.ID, err)
		}
		for i := range cases {
			if runs[i:i+1].kill(ctx, m, cases[i:i+1]) {
				out[i] = append(out[i], s)
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
