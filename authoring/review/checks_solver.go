package review

// This file holds the checks the solver answers: the static analysis of
// the draft, and how many of its mutants the tests kill, with the cases
// the solver suggests to kill the rest.

import (
	"context"
	"fmt"
	"math"

	"github.com/eligo/eligo/solver/verify"
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
// fields that never matter. An analysis that cannot finish is unfinished:
// na, or warn with the findings it proved before it stopped.
func staticAnalysis(ctx context.Context, in *Input) (outcome, error) {
	findings, err := verify.Analyze(ctx, in.Rules, verify.AnalyzeOptions{Gate: in.gate})
	if err != nil && len(findings) == 0 {
		return unfinished(solverStopped(ctx, "the analysis", err)), nil
	}
	if len(findings) == 0 {
		return outcome{status: StatusPass, evidence: []string{"no criterion is always or never satisfied, none is redundant, and every field can change the outcome"},
			strength: "The solver finds nothing dead, redundant or always true in the rules."}, nil
	}
	o := outcome{status: StatusWarn}
	if err != nil {
		o.incomplete = solverStopped(ctx, "the analysis", err)
		o.evidence = append(o.evidence, "not finished: "+o.incomplete+"; the findings below were proved before it stopped")
	}
	for _, f := range findings {
		o.evidence = append(o.evidence, f.Kind+": "+f.Message)
	}
	o.advice = fmt.Sprintf("Look at what the solver proved about the rules (%d %s), starting with: %s", len(findings), plural(len(findings), "finding"), findings[0].Message)
	return o, nil
}

// solverStopped says why a solver check stopped: its share of the review's
// time budget ran out (ctx ended), or the solver failed with err.
func solverStopped(ctx context.Context, what string, err error) string {
	if ctx.Err() != nil {
		return what + " ran out of its share of the review's time budget"
	}
	return what + " could not finish: " + err.Error()
}

// mutationScore runs the tests against the draft's mutants and lists the
// survivors with the cases the solver suggests. A score the budget cuts
// short is unfinished: na, with what was decided as evidence, never a
// score.
func mutationScore(ctx context.Context, in *Input) (outcome, error) {
	rep, err := verify.MutationScoreWith(ctx, in.Rules, in.Cases, verify.MutationOptions{Gate: in.gate})
	if err != nil {
		return unfinished(solverStopped(ctx, "the mutation score", err)), nil
	}
	if !rep.Complete {
		return unfinished("the mutation score ran out of its share of the review's time budget ("+rep.Incomplete.Detail+")",
			fmt.Sprintf("before it stopped, the tests killed %d of the %d mutants decided; no score is given for part of them", rep.Killed, rep.Total)), nil
	}
	if rep.Total == 0 {
		return na("the draft has no condition to mutate"), nil
	}
	pct := int(math.Floor(rep.Score * 100))
	o := outcome{evidence: []string{fmt.Sprintf("the tests kill %d of %d mutants (%d%%); %d more were proved to change nothing",
		rep.Killed, rep.Total, pct, len(rep.Equivalent))}}
	if rep.Sampled {
		o.evidence = append(o.evidence, fmt.Sprintf("scored on a fixed sample of %d of the draft's %d mutants", rep.Planned, rep.Candidates))
	}
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
	suggested, err := verify.SuggestCasesReport(ctx, in.Rules, in.Cases, verify.SuggestOptions{Gate: in.gate})
	if err == nil {
		listed := 0
		for _, s := range suggested.Suggestions {
			if s.Reachable && listed < maxListed {
				o.evidence = append(o.evidence, "suggested case: "+s.Goal+" (expected "+s.Case.ExpectedOutcome+")")
				listed++
			}
		}
		if !suggested.Complete {
			o.evidence = append(o.evidence, "suggested cases not finished: "+suggested.Incomplete.Detail)
		}
	}
	o.advice = fmt.Sprintf("The tests miss %d of %d small changes to the rules; add the cases `eligo test --suggest` proposes, after checking each expected outcome against the law.",
		len(rep.Survivors), rep.Total)
	return o, nil
}
