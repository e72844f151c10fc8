package review

// This file holds the checks the solver answers: the static analysis of
// the draft, and how many of its mutants the tests kill, with the cases
// the solver suggests to kill the rest.

import (
	"context"
	"fmt"
	"math"

	"github.com/eligo/eligo/solver"
)

// Mutation score thresholds: pass at or above mutationPass, warn at or
// above mutationWarn, fail below.
const (
	mutationPass = 0.8
	mutationWarn = 0.5
	// maxListed bounds the survivors and suggestions listed as evidence.
	maxListed = 5
)

// staticAnalysis reports the solver's findings on the draft: criteria that
// can never or always hold, redundant criteria, overlapping alternatives,
// fields that never matter. An analysis that cannot finish is na.
func staticAnalysis(ctx context.Context, in *Input) (outcome, error) {
	findings, err := solver.Analyze(ctx, in.Rules, solver.AnalyzeOptions{})
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	if err != nil && len(findings) == 0 {
		return na("the analysis could not finish: " + err.Error()), nil
	}
	if len(findings) == 0 {
		return outcome{status: StatusPass, evidence: []string{"no criterion is always or never satisfied, none is redundant, and every field can change the outcome"},
			strength: "The solver finds nothing dead, redundant or always true in the rules."}, nil
	}
	o := outcome{status: StatusWarn}
	for _, f := range findings {
		o.evidence = append(o.evidence, f.Kind+": "+f.Message)
	}
	o.advice = fmt.Sprintf("Look at what the solver proved about the rules (%d %s), starting with: %s", len(findings), plural(len(findings), "finding"), findings[0].Message)
	return o, nil
}

// mutationScore runs the tests against the draft's mutants and lists the
// survivors with the cases the solver suggests.
func mutationScore(ctx context.Context, in *Input) (outcome, error) {
	rep, err := solver.MutationScore(ctx, in.Rules, in.Cases)
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	if err != nil {
		return na("the mutants could not be run: " + err.Error()), nil
	}
	if rep.Total == 0 {
		return na("the draft has no condition to mutate"), nil
	}
	pct := int(math.Floor(rep.Score * 100))
	o := outcome{evidence: []string{fmt.Sprintf("the tests kill %d of %d mutants (%d%%); %d more were proved to change nothing",
		rep.Killed, rep.Total, pct, len(rep.Equivalent))}}
	for i, m := range rep.Survivors {
		if i == maxListed {
			o.evidence = append(o.evidence, fmt.Sprintf("and %d more survivors", len(rep.Survivors)-maxListed))
			break
		}
		o.evidence = append(o.evidence, "survives: "+m.Description)
	}
	switch {
	case rep.Score >= mutationPass:
		o.status = StatusPass
		o.strength = fmt.Sprintf("The tests notice %d%% of small changes to the rules.", pct)
	case rep.Score >= mutationWarn:
		o.status = StatusWarn
	default:
		o.status = StatusFail
	}
	if o.status == StatusPass {
		return o, nil
	}
	suggested, err := solver.SuggestCases(ctx, in.Rules, in.Cases, solver.SuggestOptions{})
	if err == nil {
		listed := 0
		for _, s := range suggested {
			if s.Reachable && listed < maxListed {
				o.evidence = append(o.evidence, "suggested case: "+s.Goal+" (expected "+s.Case.ExpectedOutcome+")")
				listed++
			}
		}
	}
	o.advice = fmt.Sprintf("The tests miss %d of %d small changes to the rules; add the cases `eligo test --suggest` proposes, after checking each expected outcome against the law.",
		len(rep.Survivors), rep.Total)
	return o, nil
}
