package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/z3"
)

// SuggestOptions tune SuggestCases.
type SuggestOptions struct {
	// Timeout bounds each Z3 check (a goal takes one, and up to five when
	// the preferred shapes of an answer set fail); zero means 5 s. A check
	// that runs out is an error, never a goal reported unreachable.
	Timeout time.Duration
	// DecisionDate ("YYYY-MM-DD") is the date every suggested case of a
	// ruleset that reads decision_date() is decided as of, and carries.
	// Empty means the first day of the ruleset's effective period, as for
	// a test case without a date (a case tests the rules, not the
	// calendar); a ruleset that reads decision_date() and declares no
	// period needs it given. A ruleset that does not read it gets cases
	// without a date, which a test run decides as of that first day
	// (engine.Ruleset.CaseDate), so its goals are solved as of that day
	// whatever DecisionDate says: solved as of another, a case would be
	// checked against tables of another year than the solver read, or
	// outside the period altogether. The solver never reads the clock.
	DecisionDate string
	// MaxGoals caps the goals worked on (DefaultMaxGoals when zero or
	// negative); a ruleset with more is worked on a deterministic sample of
	// this many, in goal order (SuggestReport.Sampled).
	MaxGoals int
	// Budget bounds the whole run (DefaultSuggestBudget when zero or
	// negative); ctx's deadline applies too. A run that runs out returns
	// the suggestions made so far, marked incomplete.
	Budget time.Duration
	// Gate, when not nil, is the process's bound on heavy solver runs: the
	// run waits for one slot, giving up with ctx.
	Gate *bound.Gate
}

// DefaultMaxGoals caps the goals of one SuggestCases run when
// SuggestOptions leave MaxGoals zero. The largest casebank rulesets have
// 273 goals (uk-state-pension-age) and 267 (snap-income); a thousand
// covers every realistic section whole, while each goal may cost up to
// five Z3 checks, so a draft of a thousand criteria (several thousand
// goals) is sampled.
const DefaultMaxGoals = 1000

// DefaultSuggestBudget bounds a whole SuggestCases run when SuggestOptions
// leave Budget zero: every casebank ruleset takes a few seconds at most,
// and the review gives suggestions a share of its own, smaller budget.
const DefaultSuggestBudget = 60 * time.Second

// SuggestReport is SuggestCasesReport's answer: the suggestions, and how
// many of the goals they cover.
type SuggestReport struct {
	// Suggestions are as SuggestCases returns them, for the goals decided.
	Suggestions []Suggestion `json:"suggestions"`
	// Progress counts goals: those r has, those planned (a sample beyond
	// MaxGoals), those decided (covered by an existing case, a suggestion,
	// or found unreachable), and why the run stopped early if it did.
	bound.Progress
}

// Suggestion is one test case the solver proposes, or one goal that no
// answer set meets.
type Suggestion struct {
	// Goal says what the case exercises, e.g. "criterion tenure satisfied"
	// or "threshold employment.months_employed >= 12: just below (11)".
	Goal string `json:"goal"`
	// Reachable is false when no answer set with every field answered meets
	// the goal (a birth-date band the decision date rules out, two
	// conditions that exclude each other, ...). Such goals are reported,
	// not dropped, so that a reader sees what no suite can cover; Case is
	// then the zero Case.
	Reachable bool `json:"reachable"`
	// Undecided is true when the solver could not tell within its time
	// whether any answer set meets the goal (a division by an answer makes
	// the arithmetic nonlinear, which Z3 may not settle), or found answer
	// sets meeting it but none that the evaluator reads as a case (an
	// overflow the encoding does not model): Reachable is then false
	// without meaning that no suite can cover it.
	Undecided bool `json:"undecided,omitempty"`
	// Case is ready to paste into cases.json: Name is Goal, FieldValues
	// answers every field in declaration order (wire JSON), ExpectedOutcome
	// is what the ruleset decides (RunCase passes it), DecisionDate is set
	// when the ruleset reads decision_date(), and Expectations.Criteria
	// pins the status of the criteria its goals are about, so that the case
	// also catches a change the outcome hides (an alternative of an `any`
	// group that another alternative outvotes).
	Case engine.Case `json:"case"`
	// AlsoCovers are later goals this case meets too, which therefore get
	// no case of their own.
	AlsoCovers []string `json:"also_covers,omitempty"`
}

// SuggestCases proposes test cases for what existing leaves untested, so
// that an author sees the gaps of a suite and gets cases to paste. The
// goals, per criterion in declaration order: satisfied as the only
// alternative of its `any` group (for groups of at most 100), satisfied, not satisfied, then each
// comparison of a field, or of a value computed from fields, with a
// constant: at the constant, just below and just above. Discretionary
// criteria have no goals (no answer decides them), nor do comparisons that
// read no field (decision_date() >= ...). A condition two goals share is
// one goal, under the first name.
//
// "Just below" and "just above" are one step away: 1 for an int or a date
// (one day); for a decimal, one unit in the constant's last place as the IR
// holds it, so 0.1 for 1250.5 and 1 for 1250.00 (the IR keeps a number's
// value, not its spelling). An int compared with a fraction gets the nearest
// ints either side. A decimal goal is met anywhere in the half-open step
// (1249 <= hours < 1250), as a computed value (income * 12 - 782.5) seldom
// lands on the step itself; the step itself is preferred.
//
// A case covers a goal when evaluating it shows the goal's condition (the
// criterion's status, the compared value in the window). Existing cases
// are checked first; each new case is then checked against the later goals,
// so one case may cover several (AlsoCovers). Z3 finds each answer set with
// every field answered within its domain, preferring in turn the step
// itself, answers where flipping the goal's criterion would flip the outcome
// (so that the outcome shows the boundary), and plain values (0 to a power
// of ten above every constant, two decimals or the constants' own, dates
// from 1900 to 2100), before any value; numbers are then brought as near 0
// as the case allows. The neighbours of a threshold on a field are first
// tried as the previous case with that one answer changed. The evaluator
// sets the expected outcome; an answer set it reads differently from the
// encoding is an error.
//
// Given the same inputs and the same sequence of Z3 term releases the
// output is the same. solver/z3 releases a term when the garbage collector
// finds its wrapper unreachable, so a collection can steer Z3 to another,
// equally valid, answer set: reachability and goals never change, answer
// values occasionally may.
//
// The run is bounded by opts (MaxGoals, Budget, Gate) and ctx. When it runs
// out, SuggestCases returns the suggestions made so far with an
// *Incomplete error; SuggestCasesReport returns them in a report marked
// incomplete, and an error only for failures of the work itself.
func SuggestCases(ctx context.Context, r *engine.Ruleset, existing []engine.Case, opts SuggestOptions) ([]Suggestion, error) {
	rep, err := SuggestCasesReport(ctx, r, existing, opts)
	if err == nil && rep.Incomplete != nil {
		err = rep.Incomplete
	}
	return rep.Suggestions, err
}

// SuggestCasesReport is SuggestCases with the report of how far it got.
func SuggestCasesReport(ctx context.Context, r *engine.Ruleset, existing []engine.Case, opts SuggestOptions) (SuggestReport, error) {
	date, err := suggestDecisionDate(r, opts.DecisionDate)
	if err != nil {
		return SuggestReport{}, err
	}
	if opts.MaxGoals <= 0 {
		opts.MaxGoals = DefaultMaxGoals
	}
	ctx, cancel, budget := bound.WithBudget(ctx, opts.Budget, DefaultSuggestBudget)
	defer cancel()
	goals, probe, err := caseGoals(r)
	if err != nil {
		return SuggestReport{}, err
	}
	chosen, progress := bound.Choose(len(goals), opts.MaxGoals)
	rep := SuggestReport{Progress: progress}
	stopped := func(err error) (SuggestReport, error) {
		rep.Stop(err, "goals", budget)
		return rep, nil
	}
	if len(goals) == 0 {
		return rep, nil
	}
	if rep.Sampled {
		if goals, probe, err = sampleGoals(r, goals, chosen); err != nil {
			return SuggestReport{}, err
		}
	}
	release, err := opts.Gate.Enter(ctx)
	if err != nil {
		return stopped(err)
	}
	defer release()
	covered := make([]bool, len(goals))
	for _, c := range existing {
		met, _ := goalsMet(r, probe, c, len(goals))
		for k := range met {
			covered[k] = covered[k] || met[k]
		}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = solver.QueryTimeout
	}
	gs, err := newGoalSolver(ctx, r, probe, date, opts.Timeout)
	if err != nil {
		if ctx.Err() != nil {
			return stopped(err)
		}
		return SuggestReport{}, err
	}
	defer gs.close()
	out := &rep.Suggestions
	var last *engine.Inputs // the answers of the latest case found
	lastCrit := -1
	for k, g := range goals {
		if ctx.Err() != nil {
			return stopped(ctx.Err())
		}
		if covered[k] {
			rep.Done++
			continue
		}
		var c engine.Case
		var met []bool
		var in *engine.Inputs
		meets := func(answers *engine.Inputs) bool {
			in, c = answers, writeCase(r, g.text, answers, date)
			var ok bool
			met, ok = goalsMet(r, probe, c, len(goals))
			return ok && met[k]
		}
		// A threshold's neighbours first try the latest case of the same
		// criterion with only the compared field changed: a boundary triple
		// that differs in one answer, without a solver call.
		found := g.slot >= 0 && last != nil && lastCrit == g.crit &&
			meets(&engine.Inputs{Values: slices.Replace(slices.Clone(last.Values), g.slot, g.slot+1, g.value)})
		var err error
		if !found {
			found, err = gs.solve(ctx, k, g, func(answers *engine.Inputs) (bool, error) {
				simplify(r, probe, answers, k, date)
				if !meets(answers) && met != nil {
					return false, fmt.Errorf("the evaluator does not meet the goal with the solver's answers %s (encoding and evaluator disagree)", c.FieldValues)
				}
				return met != nil, nil // no met: an overflow the encoding does not model, so try other values
			})
		}
		undecided := false
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return stopped(err)
			case errors.Is(err, z3.ErrTimeout), errors.Is(err, errNoCase):
				undecided, found = true, false
			default:
				return SuggestReport{}, fmt.Errorf("solver: suggest a case for %q: %w", g.text, err)
			}
		}
		if found {
			last, lastCrit = in, g.crit
		}
		s := Suggestion{Goal: g.text, Reachable: found, Undecided: undecided}
		if found {
			res := r.RunCase(c).Result
			c.ExpectedOutcome, c.Expectations = res.Outcome.String(), &engine.Expectations{Criteria: map[string]string{}}
			for j := k; j < len(goals); j++ {
				if met[j] && (j == k || !covered[j]) {
					cr, _ := r.CriterionAt(goals[j].crit)
					c.Expectations.Criteria[cr.ID] = res.Criteria[goals[j].crit].String()
				}
				if j > k && met[j] && !covered[j] {
					covered[j] = true
					s.AlsoCovers = append(s.AlsoCovers, goals[j].text)
				}
			}
			s.Case = c
		}
		*out = append(*out, s)
		rep.Done++
	}
	return rep, nil
}

// sampleGoals keeps the goals of chosen (indexes, in order) and rebuilds
// the probe over them, whose criterion k must be kept goal k's condition.
func sampleGoals(r *engine.Ruleset, goals []caseGoal, chosen []int) ([]caseGoal, *engine.Ruleset, error) {
	kept := make([]caseGoal, len(chosen))
	conds := make([]*engine.Expr, len(chosen))
	for i, k := range chosen {
		kept[i], conds[i] = goals[k], inHousehold(r, goals[k].cond)
	}
	probe, err := buildProbe(r, conds)
	if err != nil {
		return nil, nil, fmt.Errorf("solver: suggest cases: %w", err)
	}
	return kept, probe, nil
}

// suggestDecisionDate reads SuggestOptions.DecisionDate for r: the date
// its suggested cases are decided as of. That is the given date for a
// ruleset that reads decision_date(), whose cases carry it; otherwise,
// and when none is given, the date an undated case of r is decided as of.
func suggestDecisionDate(r *engine.Ruleset, s string) (int64, error) {
	if s != "" {
		ord, ok := value.ParseDate(s)
		if !ok {
			return 0, fmt.Errorf("solver: suggest cases: decision date %q is not a YYYY-MM-DD date", s)
		}
		if r.ReadsDecisionDate {
			return ord, nil
		}
	}
	d, err := r.CaseDate(engine.Case{})
	if err != nil {
		return 0, fmt.Errorf("solver: suggest cases: %w", err)
	}
	return d, nil
}
