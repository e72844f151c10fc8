package verify

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/z3"
)

// Mutant kinds: the edits MutationScore makes, each a slip an author could
// plausibly make.
const (
	// MutantFlipComparison negates a comparison: < and >=, <= and >, ==
	// and != swap.
	MutantFlipComparison = "flip_comparison"
	// MutantShiftThreshold moves a comparison's constant one step down or
	// up: 1 for an int or a date, one unit in the constant's last decimal
	// place for a decimal (as SuggestCases steps).
	MutantShiftThreshold = "shift_threshold"
	// MutantSwapConnective turns an `and` into `or` or the reverse, in a
	// criterion or in the outcome.
	MutantSwapConnective = "swap_connective"
	// MutantDropCriterion forgets a criterion (see MutationScore).
	MutantDropCriterion = "drop_criterion"
	// MutantShiftFigure moves a constant figure of a named value or a
	// table cell one step down or up, as MutantShiftThreshold moves a
	// threshold.
	MutantShiftFigure = "shift_figure"
	// MutantSwapRounding rounds the other way: floor, ceil and round
	// become one another.
	MutantSwapRounding = "swap_rounding"
	// MutantSwapBranches swaps the two branches of an if.
	MutantSwapBranches = "swap_branches"
)

// Mutant is one edited copy of a ruleset, which a good suite tells apart
// from the original.
type Mutant struct {
	// ID names the mutant, stable for a given ruleset:
	// "<criterion id or outcome>/<kind>/<n>", n counting from 1 in walk order.
	ID string `json:"id"`
	// Kind is one of the Mutant* kinds.
	Kind string `json:"kind"`
	// Criterion is the id of the criterion edited; empty for the outcome
	// and for a named value.
	Criterion string `json:"criterion,omitempty"`
	// Value is the id of the named value or table edited; empty otherwise.
	Value string `json:"value,omitempty"`
	// Description says what changed, e.g. "a.n >= 12 becomes a.n >= 13".
	Description string `json:"description"`
}

// MutationReport says how many mutants a suite kills, and which survive.
type MutationReport struct {
	// Total counts the mutants scored: all but the equivalent ones, of
	// those decided (see Progress).
	Total int `json:"total"`
	// Killed counts the mutants on which some case's verdict changes.
	Killed int `json:"killed"`
	// Score is Killed / Total, or 1 when Total is 0; 0 when the run is
	// not Complete, since a share of some of the mutants is not the
	// suite's score (Killed and Total still say what was decided).
	Score float64 `json:"score"`
	// Survivors are the scored mutants no case kills, in mutant order: each
	// is a change to the rules that the suite would not notice.
	Survivors []Mutant `json:"survivors"`
	// Equivalent are the mutants left out of the score: Z3 proved that they
	// decide every answer set as the original does, so no case can kill
	// them.
	Equivalent []Mutant `json:"equivalent"`
	// Progress says how many mutants the ruleset has, how many were
	// planned (a sample beyond MutationOptions.MaxMutants) and decided, and
	// why the run stopped early if it did.
	bound.Progress
}

// equivalenceTimeout bounds each equivalence check. Proving a survivor
// equivalent only refines the score, so a check that takes longer leaves
// the mutant in it.
const equivalenceTimeout = time.Second

// DefaultMaxMutants caps the mutants one score runs when MutationOptions
// leave MaxMutants zero. The largest casebank ruleset (snap-income, 56
// criteria) has 482; three times that covers every realistic section whole,
// while a draft of a thousand criteria (about 4,000 mutants, each a copy
// of the ruleset evaluated on every case) is sampled to a bounded cost.
const DefaultMaxMutants = 1500

// DefaultMutationTimeout bounds a whole score when MutationOptions leave
// Timeout zero. Every casebank ruleset scores in well under a second; the
// review gives the score a share of its own, smaller budget.
const DefaultMutationTimeout = 60 * time.Second

// MutationOptions bound MutationScoreWith.
type MutationOptions struct {
	// MaxMutants caps the mutants built and run (DefaultMaxMutants when
	// zero or negative). A ruleset with more is scored on a deterministic
	// sample of this many (Progress.Sampled), the same for the same
	// ruleset every time.
	MaxMutants int
	// Timeout bounds the whole run, equivalence checks included
	// (DefaultMutationTimeout when zero or negative); ctx's deadline
	// applies too. A run that runs out returns what it decided, marked
	// incomplete.
	Timeout time.Duration
	// Gate, when not nil, is the process's bound on heavy solver runs: the
	// score waits for one slot (giving up with ctx), and runs one worker
	// per further slot free at the start, up to GOMAXPROCS.
	Gate *bound.Gate
}

// MutationScore is MutationScoreWith under the default bounds.
func MutationScore(ctx context.Context, r *engine.Ruleset, cases []engine.Case) (MutationReport, error) {
	return MutationScoreWith(ctx, r, cases, MutationOptions{})
}

// MutationScoreWith measures how tightly cases pin r down, which coverage
// alone cannot tell: it makes the mutants of r's compiled IR (each
// comparison flipped, each threshold constant moved one step down and up,
// each `and` / `or` swapped in criteria and the outcome, each criterion
// dropped), rebuilds each with engine.BuildUnhashed and runs the cases on
// it. A mutant is killed when some case's RunCase verdict (pass or fail)
// differs from its verdict on r.
//
// A dropped criterion keeps its id, so that expectations naming it still
// read a status, and its expression becomes what removing it from its group
// would make it: true in an `all` group, false in an `any` group, and true
// when it is its group's only criterion (the condition is forgotten). A
// date threshold moved out of the calendar makes no mutant.
//
// A survivor is left out of the score when Z3 proves, within a second, that
// it gives every answer set (answered or not, any decision date) the
// outcome, group and criterion statuses r gives; field errors from
// overflowing arithmetic are not modelled. The report is deterministic.
//
// Cost is bounded by opts: at most MaxMutants mutants (a seeded sample
// beyond), each built, run and released in turn (a worker holds one
// mutant at a time, and a survivor waiting for its equivalence check only
// its edited expression), under Timeout and ctx. When time runs out the
// report holds the mutants decided so far with Complete false and the
// reason; the error is for failures of the work itself.
func MutationScoreWith(ctx context.Context, r *engine.Ruleset, cases []engine.Case, opts MutationOptions) (MutationReport, error) {
	if opts.MaxMutants <= 0 {
		opts.MaxMutants = DefaultMaxMutants
	}
	ctx, cancel, budget := bound.WithBudget(ctx, opts.Timeout, DefaultMutationTimeout)
	defer cancel()
	all := listMutations(r)
	chosen, progress := bound.Choose(len(all), opts.MaxMutants)
	rep := MutationReport{Score: 1, Progress: progress}
	stopped := func(err error) (MutationReport, error) {
		rep.Stop(err, "mutants", budget)
		rep.Score = 0
		return rep, nil
	}
	release, err := opts.Gate.Enter(ctx)
	if err != nil {
		return stopped(err)
	}
	defer release()
	muts := make([]mutation, len(chosen))
	for i, k := range chosen {
		muts[i] = all[k]
	}
	all = nil
	if err := describe(r, muts); err != nil {
		return MutationReport{}, err
	}
	runs := prepareRuns(r, cases)
	eq, err := newEquivalence(ctx, r)
	if err != nil {
		if ctx.Err() != nil {
			return stopped(err)
		}
		return MutationReport{}, err
	}
	defer eq.close()
	extra, releaseMore := opts.Gate.TryMore(runtime.GOMAXPROCS(0) - 1)
	defer releaseMore()
	results, done := runMutants(ctx, r, cases, runs, muts, 1+extra)
	// Decide the mutants in order, each as its worker's result arrives:
	// the report is then the same whatever order the workers finish in.
	for i := range muts {
		res, ok := <-results[i]
		if !ok || ctx.Err() != nil {
			return stopped(ctx.Err())
		}
		done()
		if res.err != nil {
			return MutationReport{}, fmt.Errorf("solver: mutant %s: %w", muts[i].ID, res.err)
		}
		if res.survivor != nil {
			same, err := eq.check(ctx, &muts[i], res.survivor)
			if err != nil {
				if ctx.Err() != nil {
					return stopped(ctx.Err())
				}
				return MutationReport{}, fmt.Errorf("solver: mutant %s: %w", muts[i].ID, err)
			}
			if same {
				rep.Equivalent = append(rep.Equivalent, muts[i].Mutant)
				rep.Done++
				continue
			}
			rep.Survivors = append(rep.Survivors, muts[i].Mutant)
		} else {
			rep.Killed++
		}
		rep.Total++
		rep.Done++
	}
	if rep.Total > 0 {
		rep.Score = float64(rep.Killed) / float64(rep.Total)
	}
	return rep, nil
}

// mutantResult is what running one mutant found: nil survivor when a case
// killed it, else the mutant's edited expression (the criterion's or the
// outcome's), all the equivalence check needs.
type mutantResult struct {
	survivor *engine.Expr
	err      error
}

// runMutants builds and runs muts on workers goroutines, each holding one
// mutant at a time, and returns one channel per mutant that carries its
// result (or is closed without one when ctx ends first). The caller takes
// the results in order and calls done after each; the workers stay at most
// 2 × workers mutants ahead of it, so survivors waiting for their
// equivalence check are few whatever the number of mutants.
func runMutants(ctx context.Context, r *engine.Ruleset, cases []engine.Case, runs caseRuns, muts []mutation, workers int) (results []chan mutantResult, done func()) {
	results = make([]chan mutantResult, len(muts))
	for i := range results {
		results[i] = make(chan mutantResult, 1)
	}
	ahead := make(chan struct{}, 2*workers)
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range muts {
			select {
			case ahead <- struct{}{}:
				select {
				case next <- i:
					continue
				case <-ctx.Done():
				}
			case <-ctx.Done():
			}
			for ; i < len(muts); i++ {
				close(results[i])
			}
			return
		}
	}()
	for range workers {
		go func() {
			for i := range next {
				res, ok := runMutant(ctx, r, cases, runs, &muts[i])
				if !ok {
					close(results[i])
					continue
				}
				results[i] <- res
			}
		}()
	}
	return results, func() { <-ahead }
}

// runMutant builds mu and runs the cases on it; ok is false when ctx
// ended first. The mutant is garbage once it returns: a survivor keeps only
// its edited expression.
func runMutant(ctx context.Context, r *engine.Ruleset, cases []engine.Case, runs caseRuns, mu *mutation) (res mutantResult, ok bool) {
	if ctx.Err() != nil {
		return res, false
	}
	m, err := mu.build(r)
	if err != nil {
		return mutantResult{err: err}, true
	}
	killed := runs.kill(ctx, m, cases)
	if ctx.Err() != nil {
		return res, false
	}
	if !killed {
		res.survivor = mu.edited(m)
	}
	return res, true
}

// caseRuns are the cases' runs on the original ruleset: the verdict, and
// for a case the evaluator can take directly, its answers, options and
// plain decision (res is nil otherwise: unreadable answers, no date).
type caseRuns []struct {
	pass bool
	in   *engine.Inputs
	opts engine.Options
	res  *engine.Result
}

func prepareRuns(r *engine.Ruleset, cases []engine.Case) caseRuns {
	runs := make(caseRuns, len(cases))
	for i, c := range cases {
		runs[i].pass = r.RunCase(c).Pass
		date, err := r.CaseDate(c)
		ok := err == nil
		raw := c.FieldValues
		if len(raw) == 0 {
			raw = []byte("{}")
		}
		if in, err := r.Convert(raw); ok && err == nil {
			runs[i].in, runs[i].opts = in, engine.Options{DecisionDate: date}
			runs[i].res = r.Evaluate(in, runs[i].opts)
		}
	}
	return runs
}

// kill reports whether some case's verdict on m differs from its verdict
// on the original. A verdict depends only on the outcome, the statuses,
// the field errors and the missing fields, so a plain evaluation that
// leaves them all unchanged spares the full RunCase (trace, explanation).
// It stops (reporting no kill) once ctx ends.
func (runs caseRuns) kill(ctx context.Context, m *engine.Ruleset, cases []engine.Case) bool {
	var res engine.Result
	for i, c := range cases {
		if ctx.Err() != nil {
			return false
		}
		if o := runs[i].res; o != nil {
			m.EvaluateInto(runs[i].in, runs[i].opts, &res)
			if res.Outcome == o.Outcome && slices.Equal(res.Criteria, o.Criteria) && slices.Equal(res.Groups, o.Groups) &&
				slices.Equal(res.MissingFields, o.MissingFields) &&
				slices.EqualFunc(res.FieldErrors, o.FieldErrors, func(a, b engine.FieldError) bool { return a.Field == b.Field }) {
				continue
			}
		}
		if m.RunCase(c).Pass != runs[i].pass {
			return true
		}
	}
	return false
}

// mutation is a Mutant and how to make it: replace the node at path under
// criterion ci of group gi, crit in CriterionAt order (the outcome when gi
// is -1).
type mutation struct {
	Mutant
	gi, ci  int
	crit    int
	path    []int
	replace func(*engine.Expr) *engine.Expr
	// value is the index of the named value edited, -1 for a criterion or
	// the outcome; root is which of its expressions (valueRoots).
	value, root int
}

// valueRoots are the addresses of a named value's expressions that a
// mutant may edit: its definition, or the figure of each table row, in
// Exprs order after the keys.
func valueRoots(v *engine.NamedValue) []**engine.Expr {
	var out []**engine.Expr
	if v.Expr != nil {
		out = append(out, &v.Expr)
	}
	for i := range v.Rows {
		out = append(out, &v.Rows[i].Value)
	}
	for p := range v.Periods {
		for i := range v.Periods[p].Rows {
			out = append(out, &v.Periods[p].Rows[i].Value)
		}
	}
	return out
}

// build makes the mutant from a copy of r's IR.
func (mu *mutation) build(r *engine.Ruleset) (*engine.Ruleset, error) {
	m := cloneIR(r)
	switch {
	case mu.value >= 0:
		m.Values = cloneValues(m.Values)
		replaceAt(valueRoots(&m.Values[mu.value])[mu.root], mu.path, mu.replace)
		return engine.BuildUnhashed(m)
	case mu.gi < 0:
		replaceAt(&m.Outcome, mu.path, mu.replace)
		return engine.BuildUnhashed(m)
	}
	c := &m.Groups[mu.gi].Criteria[mu.ci]
	replaceAt(&c.Expr, mu.path, mu.replace)
	c.Discretionary, c.Fields = c.Expr == nil, fieldsRead(m, c.Expr)
	m.ReadsDecisionDate = false
	for i := range m.Values {
		for _, x := range m.Values[i].Exprs() {
			m.ReadsDecisionDate = m.ReadsDecisionDate || slices.ContainsFunc(walkNodes(x), isDecisionDate)
		}
	}
	for _, g := range m.Groups {
		for _, c := range g.Criteria {
			m.ReadsDecisionDate = m.ReadsDecisionDate || slices.ContainsFunc(walkNodes(c.Expr), isDecisionDate)
		}
	}
	return engine.BuildUnhashed(m)
}

// edited is the part of m, the mutant mu built, that mu changed: the
// edited criterion's expression, or the outcome.
func (mu *mutation) edited(m *engine.Ruleset) *engine.Expr {
	switch {
	case mu.value >= 0:
		return *valueRoots(&m.Values[mu.value])[mu.root]
	case mu.gi < 0:
		return m.Outcome
	}
	return m.Groups[mu.gi].Criteria[mu.ci].Expr
}

func replaceAt(root **engine.Expr, path []int, replace func(*engine.Expr) *engine.Expr) {
	for _, i := range path {
		root = &(*root).Args[i]
	}
	*root = replace(*root)
}

// flipped is the negation of each comparison.
var flipped = map[engine.Operator]engine.Operator{
	engine.OpLt: engine.OpGe, engine.OpGe: engine.OpLt, engine.OpLe: engine.OpGt,
	engine.OpGt: engine.OpLe, engine.OpEq: engine.OpNe, engine.OpNe: engine.OpEq,
}

// mutations lists r's mutants with their descriptions (see listMutations).
func mutations(r *engine.Ruleset) ([]mutation, error) {
	out := listMutations(r)
	return out, describe(r, out)
}

// listMutations lists r's mutants, without their descriptions (describe
// writes those, for the mutants a run keeps): per criterion, in
// declaration order, its nodes' mutants in walk order and then its drop;
// last the outcome's.
func listMutations(r *engine.Ruleset) []mutation {
	var out []mutation
	counts, crit := map[string]int{}, -1
	add := func(gi, ci int, where, kind string, path []int, replace func(*engine.Expr) *engine.Expr) {
		counts[where+"/"+kind]++
		mu := mutation{Mutant: Mutant{ID: fmt.Sprintf("%s/%s/%d", where, kind, counts[where+"/"+kind]), Kind: kind},
			gi: gi, ci: ci, crit: crit, path: slices.Clone(path), replace: replace, value: -1}
		if gi >= 0 {
			mu.Criterion = where
		}
		out = append(out, mu)
	}
	connectives := func(gi, ci int, where string) func(*engine.Expr, []int) {
		return func(x *engine.Expr, path []int) {
			if _, agg := engine.AggregateOf(x); agg {
				return // an unrolled any or all: swapped, it is no aggregate one could write
			}
			if x.Kind == engine.ExprOp && (x.Op == engine.OpAnd || x.Op == engine.OpOr) {
				add(gi, ci, where, MutantSwapConnective, path, func(y *engine.Expr) *engine.Expr {
					y.Op = map[engine.Operator]engine.Operator{engine.OpAnd: engine.OpOr, engine.OpOr: engine.OpAnd}[y.Op]
					return y
				})
			}
		}
	}
	for gi, g := range r.Groups {
		for ci, c := range g.Criteria {
			crit++
			walkPath(c.Expr, nil, func(x *engine.Expr, path []int) {
				if neg := flipped[x.Op]; neg != "" && x.Kind == engine.ExprOp {
					add(gi, ci, c.ID, MutantFlipComparison, path, func(y *engine.Expr) *engine.Expr { y.Op = neg; return y })
				}
				if t, ok := thresholdOf(x); ok {
					for _, v := range []*big.Rat{new(big.Rat).Sub(t.c, t.step()), new(big.Rat).Add(t.c, t.step())} {
						if k, ok := t.constant(v); ok {
							add(gi, ci, c.ID, MutantShiftThreshold, path, func(y *engine.Expr) *engine.Expr { y.Args[t.k] = k; return y })
						}
					}
				}
				connectives(gi, ci, c.ID)(x, path)
			})
			holds := g.Kind == engine.GroupAll || len(g.Criteria) == 1
			add(gi, ci, c.ID, MutantDropCriterion, nil, func(*engine.Expr) *engine.Expr { return boolConst(holds) })
			m := &out[len(out)-1]
			m.Description = fmt.Sprintf("criterion %s dropped from group %s: it never holds", c.ID, g.ID)
			if holds {
				m.Description = fmt.Sprintf("criterion %s dropped from group %s: it always holds", c.ID, g.ID)
			}
		}
	}
	walkPath(r.Outcome, nil, connectives(-1, 0, "outcome"))
	return append(out, valueMutations(r)...)
}

// rounders are the rounding calls a MutantSwapRounding turns into one
// another.
var rounders = []engine.Operator{engine.OpFloor, engine.OpCeil, engine.OpRound}

// valueMutations lists the mutants of r's named values and tables, value
// by value in declaration order, each expression's in walk order: its
// comparisons flipped and thresholds shifted as a criterion's, its
// constant figures shifted a step, its roundings swapped and its ifs'
// branches swapped.
func valueMutations(r *engine.Ruleset) []mutation {
	var out []mutation
	counts := map[string]int{}
	for vi := range r.Values {
		v := &r.Values[vi]
		for root, x := range valueRoots(v) {
			add := func(kind string, path []int, replace func(*engine.Expr) *engine.Expr) {
				counts[v.ID+"/"+kind]++
				out = append(out, mutation{Mutant: Mutant{ID: fmt.Sprintf("%s/%s/%d", v.ID, kind, counts[v.ID+"/"+kind]), Kind: kind, Value: v.ID},
					gi: -1, crit: -1, path: slices.Clone(path), replace: replace, value: vi, root: root})
			}
			walkPath(*x, nil, func(y *engine.Expr, path []int) {
				switch {
				case y.Kind == engine.ExprConst && y.Sort.Numeric() && (len(path) == 0 || !inRoundingStep(*x, path)):
					t := cmpThreshold{c: solver.ValueRat(y.Const), sort: y.Sort}
					for _, w := range []*big.Rat{new(big.Rat).Sub(t.c, t.step()), new(big.Rat).Add(t.c, t.step())} {
						if k, ok := t.constant(w); ok {
							add(MutantShiftFigure, path, func(*engine.Expr) *engine.Expr { return k })
						}
					}
				case y.Kind == engine.ExprOp && slices.Contains(rounders, y.Op):
					for _, op := range rounders {
						if op != y.Op {
							add(MutantSwapRounding, path, func(z *engine.Expr) *engine.Expr { z.Op = op; return z })
						}
					}
				case y.Kind == engine.ExprOp && y.Op == engine.OpIf:
					add(MutantSwapBranches, path, func(z *engine.Expr) *engine.Expr { z.Args[1], z.Args[2] = z.Args[2], z.Args[1]; return z })
				}
				if neg := flipped[y.Op]; neg != "" && y.Kind == engine.ExprOp {
					add(MutantFlipComparison, path, func(z *engine.Expr) *engine.Expr { z.Op = neg; return z })
				}
			})
		}
	}
	return out
}

// inRoundingStep reports whether the node at path under x is the step of
// a rounding call, which must stay the positive constant it is.
func inRoundingStep(x *engine.Expr, path []int) bool {
	parent := x
	for _, i := range path[:len(path)-1] {
		parent = parent.Args[i]
	}
	return parent.Kind == engine.ExprOp && slices.Contains(rounders, parent.Op) && path[len(path)-1] == 1
}

// cloneValues copies named values deeply enough to edit any expression.
func cloneValues(vs []engine.NamedValue) []engine.NamedValue {
	out := slices.Clone(vs)
	for i := range out {
		v := &out[i]
		v.Expr = cloneExpr(v.Expr)
		v.Rows = slices.Clone(v.Rows)
		for j := range v.Rows {
			v.Rows[j].Value = cloneExpr(v.Rows[j].Value)
		}
		v.Periods = slices.Clone(v.Periods)
		for p := range v.Periods {
			v.Periods[p].Rows = slices.Clone(v.Periods[p].Rows)
			for j := range v.Periods[p].Rows {
				v.Periods[p].Rows[j].Value = cloneExpr(v.Periods[p].Rows[j].Value)
			}
		}
	}
	return out
}

// describe writes the Description of each mutant of muts that has none:
// the edited node before and after, printed in the rules language (the
// whole outcome for an outcome mutant).
func describe(r *engine.Ruleset, muts []mutation) error {
	var texts []*engine.Expr // each criterion node mutant's node before and after
	for i := range muts {
		mu := &muts[i]
		switch {
		case mu.Description != "":
		case mu.value >= 0:
			x := *valueRoots(&r.Values[mu.value])[mu.root]
			for _, k := range mu.path {
				x = x.Args[k]
			}
			mu.Description = engine.ExprText(x) + " becomes " + engine.ExprText(mu.replace(cloneExpr(x))) + " in " + r.Values[mu.value].ID
		case mu.gi < 0:
			o := cloneExpr(r.Outcome)
			replaceAt(&o, mu.path, mu.replace)
			mu.Description = outcomeText(r.Outcome) + " becomes " + outcomeText(o)
		default:
			x := r.Groups[mu.gi].Criteria[mu.ci].Expr
			for _, k := range mu.path {
				x = x.Args[k]
			}
			texts = append(texts, x, mu.replace(cloneExpr(x)))
		}
	}
	printed, err := exprTexts(r, texts)
	if err != nil {
		return fmt.Errorf("solver: describe mutants: %w", err)
	}
	for i := range muts {
		if muts[i].Description == "" {
			muts[i].Description, printed = printed[0]+" becomes "+printed[1], printed[2:]
		}
	}
	return nil
}

// outcomeText prints an outcome expression: group ids under and, or, not.
func outcomeText(x *engine.Expr) string {
	if x.Kind != engine.ExprOp {
		return x.Key
	}
	parts := make([]string, len(x.Args))
	for i, a := range x.Args {
		if parts[i] = outcomeText(a); a.Kind == engine.ExprOp && a.Op != engine.OpNot {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	if x.Op == engine.OpNot {
		return "not " + parts[0]
	}
	return strings.Join(parts, " "+string(x.Op)+" ")
}

// equivalence decides whether mutants behave exactly as the original: the
// edited part of each is encoded over the original's variables.
type equivalence struct {
	c    *z3.Context
	base *solver.Encoding
	s    *z3.Solver
}

func newEquivalence(ctx context.Context, r *engine.Ruleset) (*equivalence, error) {
	c, err := z3.NewContext()
	if err != nil {
		return nil, fmt.Errorf("solver: mutation score: %w", err)
	}
	q := &equivalence{c: c}
	if q.base, err = solver.EncodeContext(ctx, c, r); err == nil {
		q.s, err = q.base.NewSolver(equivalenceTimeout)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return q, nil
}

// check reports whether Z3 proves that x, the edited expression of the
// mutant mu (see mutation.edited), gives the edited criterion (or the
// outcome) the status r gives, for every answer set and decision date. The
// rest of the mutant is r's, so then every group and the outcome agree
// too. A check that runs out of its own time is a no; one that ctx
// interrupts is ctx's error.
func (q *equivalence) check(ctx context.Context, mu *mutation, x *engine.Expr) (same bool, err error) {
	was := q.base.Outcome()
	var now solver.Tri
	switch {
	case mu.value >= 0 && q.base.Ruleset().Values[mu.value].Table:
		// A table's figure is one of many rows' under keys and periods:
		// the check would encode the whole mutant table; a survivor stays.
		return false, nil
	case mu.value >= 0:
		// The edited definition against the value it replaces, both as
		// the value's sort: equal figures make every reader agree.
		if was, err = q.base.ValueTri(mu.value); err != nil {
			return false, err
		}
		now, err = q.base.TermAs(x, q.base.Ruleset().Values[mu.value].Type)
	default:
		if mu.gi >= 0 {
			was = q.base.Criterion(mu.crit)
		}
		now, err = q.base.Term(x) // m's fields are r's, in the same slots
	}
	if err != nil {
		return false, err
	}
	c := q.c
	if err := q.s.Push(); err != nil {
		return false, err
	}
	defer func() {
		if perr := q.s.Pop(1); perr != nil && err == nil {
			err = perr
		}
	}()
	if err := q.s.Assert(c.Not(c.And(c.Eq(was.Known, now.Known), c.Implies(was.Known, c.Eq(was.Value, now.Value))))); err != nil {
		return false, err
	}
	res, err := q.s.Check(ctx)
	if errors.Is(err, z3.ErrTimeout) || errors.Is(err, z3.ErrUnknown) {
		return false, nil
	}
	return res == z3.Unsat, err
}

func (q *equivalence) close() {
	q.s.Close()
	q.c.Close()
}

// cloneIR copies what decides in r's IR, deeply enough to edit any
// criterion and expression of the copy. It leaves out the texts (questions,
// notes, quotes) no verdict depends on, which spares most of Build's cost:
// hashing the IR for its digest.
func cloneIR(r *engine.Ruleset) *engine.Ruleset {
	m := &engine.Ruleset{SectionID: r.SectionID, Sources: r.Sources, Fields: slices.Clone(r.Fields),
		Groups: slices.Clone(r.Groups), Outcome: cloneExpr(r.Outcome), ReadsDecisionDate: r.ReadsDecisionDate,
		Effective: r.Effective, Values: r.Values}
	for i := range m.Fields {
		m.Fields[i].Question, m.Fields[i].Description, m.Fields[i].Notes = "", "", nil
	}
	for gi := range m.Groups {
		m.Groups[gi].Criteria = slices.Clone(m.Groups[gi].Criteria)
		for ci := range m.Groups[gi].Criteria {
			c := &m.Groups[gi].Criteria[ci]
			c.Expr, c.Citations = cloneExpr(c.Expr), []engine.Citation{{Source: c.Citations[0].Source}}
		}
	}
	return m
}

func cloneExpr(x *engine.Expr) *engine.Expr {
	if x == nil {
		return nil
	}
	c := *x
	if x.Args != nil {
		c.Args = make([]*engine.Expr, len(x.Args))
		for i, a := range x.Args {
			c.Args[i] = cloneExpr(a)
		}
	}
	return &c
}

// boolOp is a bool operator node, unlinked: Build links it.
func boolOp(op engine.Operator, args ...*engine.Expr) *engine.Expr {
	return &engine.Expr{Kind: engine.ExprOp, Sort: engine.SortBool, Op: op, Args: args}
}

func boolConst(b bool) *engine.Expr {
	return &engine.Expr{Kind: engine.ExprConst, Sort: engine.SortBool, Const: value.BoolValue(b)}
}

func isField(x *engine.Expr) bool { return x.Kind == engine.ExprField }
