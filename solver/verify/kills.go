package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
)

// KillsOptions bound KillsReport.
type KillsOptions struct {
	// Budget bounds the whole run (DefaultKillsBudget when zero or
	// negative); ctx's deadline applies too. A run that runs out returns
	// the survivors it decided, marked incomplete.
	Budget time.Duration
	// Gate, when not nil, is the process's bound on heavy runs: the run
	// waits for one slot, giving up with ctx.
	Gate *bound.Gate
}

// DefaultKillsBudget bounds a whole KillsReport run when KillsOptions
// leave Budget zero, as DefaultMutationTimeout bounds the score whose
// survivors it weighs: the work is the same kind (a mutant build and the
// cases' evaluations per survivor).
const DefaultKillsBudget = DefaultMutationTimeout

// KillsResult is KillsReport's answer: which survivors each case kills,
// and how many of the survivors were decided.
type KillsResult struct {
	// Kills holds, per case in the order given, the survivors it kills,
	// among those decided.
	Kills [][]Mutant
	// Progress counts survivors: every one given is planned, and Done
	// those run against every case before the run ended.
	bound.Progress
}

// Kills says which of survivors (mutants of r, as a MutationReport lists
// them) each of cases kills: the survivors on which the case's RunCase
// verdict differs from its verdict on r, in the order given. An author
// weighing suggested cases (SuggestCases) then sees what each adds to the
// suite's mutation score, and the score with a case added needs no new
// run. Each survivor is built once and runs every case, so the cost is one
// mutant build per survivor and one evaluation per survivor and case. It
// runs unbounded but for ctx (KillsReport bounds it); ctx's end stops it
// with an *bound.Incomplete error. A survivor that is not a mutant of r is
// an error.
func Kills(ctx context.Context, r *engine.Ruleset, survivors []Mutant, cases []engine.Case) ([][]Mutant, error) {
	rep, err := killsReport(ctx, r, survivors, cases, nil, 0)
	if err == nil && rep.Incomplete != nil {
		err = rep.Incomplete
	}
	return rep.Kills, err
}

// KillsReport is Kills under opts: it waits for a slot of opts.Gate and
// stops when its budget (or ctx) runs out, returning the kills of the
// survivors it decided with a Progress that says how far it got; an error
// only for survivors that are not mutants of r.
func KillsReport(ctx context.Context, r *engine.Ruleset, survivors []Mutant, cases []engine.Case, opts KillsOptions) (KillsResult, error) {
	ctx, cancel, budget := bound.WithBudget(ctx, opts.Budget, DefaultKillsBudget)
	defer cancel()
	return killsReport(ctx, r, survivors, cases, opts.Gate, budget)
}

// killsReport is KillsReport within ctx; budget names the budget that
// ends ctx in an incomplete report, 0 for none of its own.
func killsReport(ctx context.Context, r *engine.Ruleset, survivors []Mutant, cases []engine.Case, gate *bound.Gate, budget time.Duration) (KillsResult, error) {
	_, progress := bound.Choose(len(survivors), 0)
	out := KillsResult{Kills: make([][]Mutant, len(cases)), Progress: progress}
	if len(cases) == 0 {
		out.Done = len(survivors)
		return out, nil
	}
	if len(survivors) == 0 {
		return out, nil
	}
	all := listMutations(r)
	byID := make(map[string]*mutation, len(all))
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	for _, s := range survivors {
		if _, ok := byID[s.ID]; !ok {
			return KillsResult{}, fmt.Errorf("solver: %s is not a mutant of this ruleset", s.ID)
		}
	}
	release, err := gate.Enter(ctx)
	if err != nil {
		out.Stop(err, "survivors", budget)
		return out, nil
	}
	defer release()
	runs := prepareRuns(r, cases)
	killed := make([][]Mutant, len(cases))
	for _, s := range survivors {
		m, err := byID[s.ID].build(r)
		if err != nil {
			return KillsResult{}, fmt.Errorf("solver: mutant %s: %w", s.ID, err)
		}
		for i := range cases {
			if runs[i:i+1].kill(ctx, m, cases[i:i+1]) {
				killed[i] = append(killed[i], s)
			}
		}
		if err := ctx.Err(); err != nil {
			// This survivor may not have run every case: only those
			// decided before it count.
			out.Stop(err, "survivors", budget)
			return out, nil
		}
		for i := range killed {
			out.Kills[i] = append(out.Kills[i], killed[i]...)
			killed[i] = killed[i][:0]
		}
		out.Done++
	}
	return out, nil
}
