package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/eligo/eligo/engine"
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
	// DecisionDate ("YYYY-MM-DD") is the date every suggested case is
	// decided as of, and the one it carries when the ruleset reads
	// decision_date(). Empty means the first day of the ruleset's
	// effective period, as for a test case without a date (a case tests
	// the rules, not the calendar); a ruleset that reads decision_date()
	// and declares no period needs it given. The solver never reads the
	// clock.
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
		if err != nil {
			if ctx.Err() != nil {
				return stopped(err)
			}
			return SuggestReport{}, fmt.Errorf("solver: suggest a case for %q: %w", g.text, err)
		}
		if found {
			last, lastCrit = in, g.crit
		}
		s := Suggestion{Goal: g.text, Reachable: found}
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
		kept[i], conds[i] = goals[k], goals[k].cond
	}
	probe, err := buildProbe(r, conds)
	if err != nil {
		return nil, nil, fmt.Errorf("solver: suggest cases: %w", err)
	}
	return kept, probe, nil
}

// simplify replaces each number in in by the first of 0, ±1, ±10, ±100,
// ... nearer zero, or else of its roundings to fewer decimals (fewest
// first), that keeps probe criterion k (the goal) satisfied and every
// criterion of r, and so the outcome, as it was: the solver picks values at
// the edges of what the constraints allow (a household of 100000), which
// read badly in a case.
func simplify(r, probe *engine.Ruleset, in *engine.Inputs, k int, date int64) {
	opts := engine.Options{DecisionDate: date}
	want := r.Evaluate(in, opts)
	var res engine.Result
	keeps := func() bool {
		if probe.EvaluateInto(in, opts, &res); res.Criteria[k] != engine.Satisfied || len(res.FieldErrors) > 0 {
			return false
		}
		r.EvaluateInto(in, opts, &res)
		return len(res.FieldErrors) == 0 && slices.Equal(res.Criteria, want.Criteria)
	}
	for i, f := range r.Fields {
		v := in.Values[i]
		if !f.Type.Numeric() || v.Num == 0 {
			continue
		}
		sign, abs := int64(1), v.Num
		if abs < 0 {
			sign, abs = -1, -abs
		}
		tries := []engine.Value{{Known: true}}
		for p := int64(1); p < abs/pow10(v.Scale) && len(tries) < 19; p *= 10 {
			tries = append(tries, engine.Value{Num: sign * p, Known: true})
		}
		for s := range v.Scale {
			unit := pow10(v.Scale - s)
			tries = append(tries, engine.Value{Num: sign * (abs / unit), Scale: s, Known: true},
				engine.Value{Num: sign * (abs/unit + 1), Scale: s, Known: true})
		}
		for _, t := range tries {
			if in.Values[i] = t; keeps() {
				break
			}
			in.Values[i] = v
		}
	}
}

func pow10(n uint8) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// suggestDecisionDate reads SuggestOptions.DecisionDate for r: empty
// takes the date an undated case of r is decided as of.
func suggestDecisionDate(r *engine.Ruleset, s string) (int64, error) {
	if s == "" {
		d, err := r.CaseDate(engine.Case{})
		if err != nil {
			return 0, fmt.Errorf("solver: suggest cases: %w", err)
		}
		return d, nil
	}
	ord, ok := engine.ParseDate(s)
	if !ok {
		return 0, fmt.Errorf("solver: suggest cases: decision date %q is not a YYYY-MM-DD date", s)
	}
	return ord, nil
}

// writeCase is the case answering every field of r as in, named name.
func writeCase(r *engine.Ruleset, name string, in *engine.Inputs, date int64) engine.Case {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range r.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(r.Fields[i].ID) // a string always marshals
		b.Write(key)
		b.WriteByte(':')
		b.Write(r.ValueJSON(i, in.Values[i]))
	}
	b.WriteByte('}')
	c := engine.Case{Name: name, FieldValues: json.RawMessage(b.Bytes())}
	if r.ReadsDecisionDate {
		c.DecisionDate = engine.FormatDate(date)
	}
	return c
}

// goalsMet evaluates case c in the probe and reports which of the first n
// probe criteria (the goals) it meets; ok is false when c cannot be
// evaluated cleanly (unreadable answers, field errors, no decision date for
// a ruleset that reads it), and it then meets nothing.
func goalsMet(r, probe *engine.Ruleset, c engine.Case, n int) (met []bool, ok bool) {
	var date int64
	switch {
	case c.DecisionDate != "":
		if date, ok = engine.ParseDate(c.DecisionDate); !ok {
			return nil, false
		}
	case r.ReadsDecisionDate:
		return nil, false
	}
	raw := c.FieldValues
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	in, err := probe.Convert(raw)
	if err != nil || len(in.FieldErrors) > 0 {
		return nil, false
	}
	res := probe.Evaluate(in, engine.Options{DecisionDate: date})
	if len(res.FieldErrors) > 0 {
		return nil, false
	}
	met = make([]bool, n)
	for k := range met {
		met[k] = res.Criteria[k] == engine.Satisfied
	}
	return met, true
}

// caseGoal is one thing a suite should show.
type caseGoal struct {
	// text names the goal (Suggestion.Goal).
	text string
	// cond is a bool expression over the ruleset's fields, true exactly
	// when a case meets the goal; probe criterion k is goal k's cond.
	cond *engine.Expr
	// crit is the CriterionAt index of the criterion the goal is about.
	crit int
	// slot and value, when slot >= 0, are the field a threshold goal
	// compares and the value that meets the goal exactly.
	slot  int
	value engine.Value
	// prefer, when not nil, is a narrower cond tried first: the step
	// itself in a decimal window.
	prefer *engine.Expr
}

// maxAloneAlternatives is the largest `any` group whose alternatives get
// an "alone" goal. Each such goal restates every other alternative of the
// group (negated), so the goals of a group of n alternatives hold n² of
// them: a group of a thousand took 54 s and 18 GB to list. The largest
// casebank group has 37 alternatives.
const maxAloneAlternatives = 100

// caseGoals lists r's goals in order, each condition once, and builds
// their probe: a ruleset over r's fields whose criterion k is goal k's
// condition, which the evaluator and the encoding then read alike.
func caseGoals(r *engine.Ruleset) ([]caseGoal, *engine.Ruleset, error) {
	var cmps []*engine.Expr
	for i := 0; i < r.NumCriteria(); i++ {
		c, _ := r.CriterionAt(i)
		solver.WalkExpr(c.Expr, func(x *engine.Expr) {
			if t, ok := thresholdOf(x); ok && slices.ContainsFunc(walkNodes(t.side), isField) {
				cmps = append(cmps, x)
			}
		})
	}
	texts, err := exprTexts(r, cmps)
	if err != nil {
		return nil, nil, fmt.Errorf("solver: suggest cases: %w", err)
	}
	var goals []caseGoal
	seen := map[string]bool{}
	// add adds a goal met by window, or by exact when window is nil; exact
	// (side == value) is then also the preferred shape.
	add := func(crit int, text string, window, exact *engine.Expr) {
		g := caseGoal{text: text, cond: window, crit: crit, slot: -1, prefer: exact}
		if window == nil {
			g.cond, g.prefer = exact, nil
		}
		if key, _ := g.cond.MarshalJSON(); !seen[string(key)] {
			seen[string(key)] = true
			if exact != nil && exact.Args[0].Kind == engine.ExprField {
				g.slot, g.value = exact.Args[0].Slot, exact.Args[1].Const
			}
			goals = append(goals, g)
		}
	}
	for i := 0; i < r.NumCriteria(); i++ {
		c, gi := r.CriterionAt(i)
		if c.Expr == nil {
			continue
		}
		alone := []*engine.Expr{c.Expr}
		for _, o := range r.Groups[gi].Criteria {
			if o.ID != c.ID && o.Expr != nil && r.Groups[gi].Kind == engine.GroupAny {
				alone = append(alone, boolOp(engine.OpNot, o.Expr))
			}
		}
		if len(alone) > 1 && len(alone) <= maxAloneAlternatives {
			add(i, "alternative "+c.ID+" alone", boolOp(engine.OpAnd, alone...), nil)
		}
		add(i, "criterion "+c.ID+" satisfied", c.Expr, nil)
		add(i, "criterion "+c.ID+" not satisfied", boolOp(engine.OpNot, c.Expr), nil)
		solver.WalkExpr(c.Expr, func(x *engine.Expr) {
			n := slices.Index(cmps, x)
			if n < 0 {
				return
			}
			t, _ := thresholdOf(x)
			at, ok := t.constant(t.c)
			if !ok {
				return
			}
			name := "threshold " + texts[n] + ": "
			if t.c.IsInt() || t.sort == engine.SortDecimal {
				add(i, name+"at "+t.format(t.c), nil, boolOp(engine.OpEq, t.side, at))
			}
			lo, hi := t.neighbours()
			for _, nb := range []struct {
				word      string
				v         *big.Rat
				far, near engine.Operator
			}{{"just below", lo, engine.OpGe, engine.OpLt}, {"just above", hi, engine.OpLe, engine.OpGt}} {
				if k, ok := t.constant(nb.v); ok {
					var window *engine.Expr // a decimal goal's half-open step
					if t.sort == engine.SortDecimal {
						window = boolOp(engine.OpAnd, boolOp(nb.far, t.side, k), boolOp(nb.near, t.side, at))
					}
					add(i, fmt.Sprintf("%s%s (%s)", name, nb.word, t.format(nb.v)), window, boolOp(engine.OpEq, t.side, k))
				}
			}
		})
	}
	if len(goals) == 0 {
		return nil, nil, nil
	}
	conds := make([]*engine.Expr, len(goals))
	for k, g := range goals {
		conds[k] = g.cond
	}
	probe, err := buildProbe(r, conds)
	if err != nil {
		return nil, nil, fmt.Errorf("solver: suggest cases: %w", err)
	}
	return goals, probe, nil
}

// goalSolver finds answer sets meeting the probe's goals, with every field
// answered and the decision date fixed.
type goalSolver struct {
	// c owns everything below.
	c *z3.Context
	// probe and rules encode the probe and the ruleset over the same
	// variables.
	probe, rules *solver.Encoding
	// s holds the axioms, every field answered and the decision date.
	s *z3.Solver
	// plain (magnitudes from 0 to a power of ten above every constant,
	// two decimals or the constants' own, dates from 1900 to 2100), signed
	// (the same magnitudes either sign, the same dates) and fine (decimals
	// with four more places) are tracked literals for the tries of solve.
	plain, signed, fine *z3.Expr
}

func newGoalSolver(ctx context.Context, r, probe *engine.Ruleset, date int64, timeout time.Duration) (gs *goalSolver, err error) {
	c, err := z3.NewContext()
	if err != nil {
		return nil, fmt.Errorf("solver: suggest cases: %w", err)
	}
	gs = &goalSolver{c: c}
	defer func() {
		if err != nil {
			gs.close()
		}
	}()
	if gs.probe, err = solver.EncodeContext(ctx, c, probe); err != nil {
		return nil, err
	}
	if gs.rules, err = solver.EncodeContext(ctx, c, r); err != nil {
		return nil, err
	}
	if gs.s, err = gs.probe.NewSolver(timeout); err != nil {
		return nil, err
	}
	e := gs.probe
	hard := append([]*z3.Expr{e.DecisionDateIs(date)}, gs.rules.Axioms()...)
	scale, bound := 2, big.NewRat(100, 1)
	for i := 0; i < probe.NumCriteria(); i++ {
		cr, _ := probe.CriterionAt(i)
		solver.WalkExpr(cr.Expr, func(x *engine.Expr) {
			if x.Kind == engine.ExprConst && x.Sort.Numeric() {
				scale = max(scale, int(x.Const.Scale))
				for v := new(big.Rat).Abs(solver.ValueRat(x.Const)); bound.Cmp(v) < 0; {
					bound.Mul(bound, big.NewRat(10, 1))
				}
			}
		})
	}
	var plain, signed []*z3.Expr
	low, high := engine.DateOrdinal(1900, 1, 1), engine.DateOrdinal(2100, 12, 31)
	for i, f := range probe.Fields {
		hard = append(hard, e.Present(i))
		v := e.Value(i)
		switch f.Type {
		case engine.SortInt, engine.SortDecimal:
			if f.Type == engine.SortInt {
				v = c.ToReal(v)
			}
			plain = append(plain, c.Ge(v, c.Real("0")), c.Le(v, c.RealRat(bound)))
			signed = append(signed, c.Ge(v, c.Neg(c.RealRat(bound))), c.Le(v, c.RealRat(bound)))
		case engine.SortDate:
			plain = append(plain, c.Ge(v, c.Int(low)), c.Le(v, c.Int(high)))
			signed = append(signed, plain[len(plain)-2:]...)
		}
	}
	if err = solver.AssertAll(gs.s, hard); err != nil {
		return nil, err
	}
	track := func(name string, fs []*z3.Expr) *z3.Expr {
		var lit *z3.Expr
		if err == nil {
			lit, err = e.Track(gs.s, name, c.And(append(fs, c.Bool(true))...))
		}
		return lit
	}
	gs.plain, gs.signed = track("plain", append(plain, e.DecimalGrid(scale)...)), track("signed", signed)
	gs.fine = track("fine", e.DecimalGrid(min(scale+4, 18)))
	return gs, err
}

// decisive is "flipping criterion i of the rules flips the outcome".
func (gs *goalSolver) decisive(i int) (*z3.Expr, error) {
	c, e := gs.c, gs.rules
	crits := make([]solver.Tri, e.Ruleset().NumCriteria())
	for j := range crits {
		crits[j] = e.Criterion(j)
	}
	crits[i].Value = c.Not(crits[i].Value)
	alt, err := e.WithCriteria(crits)
	if err != nil {
		return nil, err
	}
	o, a := e.Outcome(), alt.Outcome()
	return c.And(o.Known, a.Known, c.Xor(o.Value, a.Value)), nil
}

// solve looks for an answer set meeting goal k that accept takes, trying
// the preferred shapes first (see SuggestCases). found is false when no
// answer set meets the goal. An unsat core lets it skip the tries that
// cannot succeed: with an empty core, none can.
func (gs *goalSolver) solve(ctx context.Context, k int, g caseGoal, accept func(*engine.Inputs) (bool, error)) (found bool, err error) {
	if err := gs.s.Push(); err != nil {
		return false, err
	}
	defer func() {
		if perr := gs.s.Pop(1); perr != nil && err == nil {
			err = perr
		}
	}()
	if err := gs.s.Assert(gs.probe.CriterionIs(k, engine.Satisfied)); err != nil {
		return false, err
	}
	cond, err := gs.decisive(g.crit)
	if err != nil {
		return false, err
	}
	decisive, err := gs.probe.Track(gs.s, fmt.Sprintf("decisive|%d", k), cond)
	if err != nil {
		return false, err
	}
	tries := [][]*z3.Expr{{decisive, gs.plain}, {gs.plain}, {gs.signed, gs.fine}, {gs.fine}}
	if g.prefer != nil {
		t, err := gs.probe.Term(g.prefer) // prefer is linked: r's side, typed constants
		if err != nil {
			return false, err
		}
		prefer, err := gs.probe.Track(gs.s, fmt.Sprintf("prefer|%d", k), gs.c.And(t.Known, t.Value))
		if err != nil {
			return false, err
		}
		tries = append([][]*z3.Expr{{prefer, decisive, gs.plain}}, tries...)
	}
	var cores [][]*z3.Expr
	for _, as := range tries {
		if slices.ContainsFunc(cores, func(core []*z3.Expr) bool { return containsAll(as, core) }) {
			continue
		}
		res, err := gs.s.CheckAssumptions(ctx, as...)
		if err != nil {
			return false, err
		}
		if res == z3.Unsat {
			core, err := gs.s.UnsatCore()
			if err != nil || len(core) == 0 {
				return false, err
			}
			cores = append(cores, core)
			continue
		}
		if ok, err := gs.accept(accept); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// accept decodes the current model and hands it to accept.
func (gs *goalSolver) accept(accept func(*engine.Inputs) (bool, error)) (bool, error) {
	m, err := gs.s.Model()
	if err != nil {
		return false, err
	}
	defer m.Close()
	in, _, err := gs.probe.Decode(m)
	if err != nil {
		return false, err
	}
	return accept(in)
}

// containsAll reports whether every literal of sub is in set.
func containsAll(set, sub []*z3.Expr) bool {
	for _, x := range sub {
		if !slices.ContainsFunc(set, func(y *z3.Expr) bool { return y.ID() == x.ID() }) {
			return false
		}
	}
	return true
}

func (gs *goalSolver) close() {
	if gs.s != nil {
		gs.s.Close()
	}
	gs.c.Close()
}

// neighbours are the values just below and above the constant: one step
// either side for a decimal side; the nearest ints (or dates) either side
// otherwise.
func (t cmpThreshold) neighbours() (lo, hi *big.Rat) {
	if t.sort == engine.SortDecimal {
		return new(big.Rat).Sub(t.c, t.step()), new(big.Rat).Add(t.c, t.step())
	}
	floor := new(big.Int).Div(t.c.Num(), t.c.Denom()) // Euclidean: the floor, as Denom > 0
	lo, hi = new(big.Rat).SetInt(floor), new(big.Rat).SetInt(floor)
	if t.c.IsInt() {
		lo.Sub(lo, big.NewRat(1, 1))
	}
	return lo, hi.Add(hi, big.NewRat(1, 1))
}

// fieldsRead lists the ids of the fields x reads, in declaration order, as
// Criterion.Fields does.
func fieldsRead(r *engine.Ruleset, x *engine.Expr) []string {
	var out []string
	for _, f := range r.Fields {
		if slices.ContainsFunc(walkNodes(x), func(y *engine.Expr) bool { return y.Kind == engine.ExprField && y.Key == f.ID }) {
			out = append(out, f.ID)
		}
	}
	return out
}

// buildProbe builds a ruleset over r's fields whose criteria are conds
// (bool expressions over those fields) in one `all` group. Evaluating it
// tells which conds an answer set meets, encoding it states them to Z3, and
// its criteria's Text prints them.
func buildProbe(r *engine.Ruleset, conds []*engine.Expr) (*engine.Ruleset, error) {
	if len(r.Sources) == 0 {
		return nil, errors.New("a ruleset without sources") // every criterion cites one
	}
	p := &engine.Ruleset{SectionID: "probe", Fields: r.Fields, Sources: r.Sources,
		Groups: []engine.Group{{ID: "probe", Kind: engine.GroupAll, Title: "probe"}}, Outcome: &engine.Expr{Kind: engine.ExprGroup, Key: "probe"}}
	for i, x := range conds {
		p.Groups[0].Criteria = append(p.Groups[0].Criteria, engine.Criterion{ID: fmt.Sprintf("p%d", i), Title: "probe", Expr: x,
			Citations: []engine.Citation{{Source: r.Sources[0].ID}}, Fields: fieldsRead(r, x)})
		p.ReadsDecisionDate = p.ReadsDecisionDate || slices.ContainsFunc(walkNodes(x), isDecisionDate)
	}
	return engine.Build(p)
}

// exprTexts prints bool expressions over r's fields in the rules language.
func exprTexts(r *engine.Ruleset, xs []*engine.Expr) ([]string, error) {
	if len(xs) == 0 {
		return nil, nil
	}
	p, err := buildProbe(r, xs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(xs))
	for i := range out {
		c, _ := p.CriterionAt(i)
		out[i] = c.Text
	}
	return out, nil
}

// cmpThreshold is a comparison of a value with a constant.
type cmpThreshold struct {
	// side is the operand that is not constant.
	side *engine.Expr
	// k is the index of the constant operand.
	k int
	// c is the constant's value (a date's ordinal).
	c *big.Rat
	// sort is side's sort: int, decimal or date.
	sort engine.Sort
}

// thresholdOf recognises a comparison of a number or date with a constant,
// which may be written as arithmetic over literals (15650 * 1.33).
func thresholdOf(x *engine.Expr) (cmpThreshold, bool) {
	if x.Kind != engine.ExprOp || flipped[x.Op] == "" || len(x.Args) != 2 {
		return cmpThreshold{}, false
	}
	for k := range 2 {
		c, ok := foldConstant(x.Args[k])
		side := x.Args[1-k]
		if _, both := foldConstant(side); ok && !both && (side.Sort.Numeric() || side.Sort == engine.SortDate) {
			return cmpThreshold{side: side, k: k, c: c, sort: side.Sort}, true
		}
	}
	return cmpThreshold{}, false
}

// foldConstant is the value of an expression over numeric or date
// literals only, or false.
func foldConstant(x *engine.Expr) (*big.Rat, bool) {
	switch {
	case x.Kind == engine.ExprConst && x.Sort.Numeric():
		return solver.ValueRat(x.Const), true
	case x.Kind == engine.ExprConst && x.Sort == engine.SortDate:
		return new(big.Rat).SetInt64(x.Const.Num), true
	case x.Kind != engine.ExprOp || len(x.Args) == 0:
		return nil, false
	}
	vals := make([]*big.Rat, len(x.Args))
	for i, a := range x.Args {
		v, ok := foldConstant(a)
		if !ok {
			return nil, false
		}
		vals[i] = v
	}
	acc := new(big.Rat).Set(vals[0])
	for _, v := range vals[1:] {
		switch x.Op {
		case engine.OpAdd:
			acc.Add(acc, v)
		case engine.OpSub:
			acc.Sub(acc, v)
		case engine.OpMul:
			acc.Mul(acc, v)
		case engine.OpMin, engine.OpMax:
			if (acc.Cmp(v) > 0) == (x.Op == engine.OpMin) {
				acc.Set(v)
			}
		default:
			return nil, false
		}
	}
	if x.Op == engine.OpNeg {
		acc.Neg(acc)
	} else if len(vals) == 1 {
		return nil, false
	}
	return acc, true
}

// step is the distance to the values just below and above the constant:
// 1 for an int or date side, else one unit in the constant's last decimal
// place.
func (t cmpThreshold) step() *big.Rat {
	v, ok := solver.RatValue(t.c)
	if t.sort != engine.SortDecimal || !ok {
		return big.NewRat(1, 1)
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Scale)), nil))
}

// constant is the literal of value v in the threshold's sort, or false
// when v is outside its domain.
func (t cmpThreshold) constant(v *big.Rat) (*engine.Expr, bool) {
	if t.sort == engine.SortDate {
		if !v.IsInt() || !v.Num().IsInt64() || v.Num().Int64() < 1 || v.Num().Int64() > solver.MaxOrdinal {
			return nil, false
		}
		return &engine.Expr{Kind: engine.ExprConst, Sort: engine.SortDate, Const: engine.Value{Num: v.Num().Int64(), Known: true}}, true
	}
	val, ok := solver.RatValue(v)
	if !ok {
		return nil, false
	}
	s := engine.SortInt
	if val.Scale > 0 {
		s = engine.SortDecimal
	}
	return &engine.Expr{Kind: engine.ExprConst, Sort: s, Const: val}, true
}

// format spells a threshold value as a case would: a number or a date.
func (t cmpThreshold) format(v *big.Rat) string {
	if t.sort == engine.SortDate {
		return engine.FormatDate(v.Num().Int64())
	}
	if val, ok := solver.RatValue(v); ok {
		return val.NumberString()
	}
	return v.RatString()
}
