package solver

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
	"github.com/eligo/eligo/solver/z3"
	"golang.org/x/sync/errgroup"
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
)

// Mutant is one edited copy of a ruleset, which a good suite tells apart
// from the original.
type Mutant struct {
	// ID names the mutant, stable for a given ruleset:
	// "<criterion id or outcome>/<kind>/<n>", n counting from 1 in walk order.
	ID string `json:"id"`
	// Kind is one of the Mutant* kinds.
	Kind string `json:"kind"`
	// Criterion is the id of the criterion edited; empty for the outcome.
	Criterion string `json:"criterion,omitempty"`
	// Description says what changed, e.g. "a.n >= 12 becomes a.n >= 13".
	Description string `json:"description"`
}

// MutationReport says how many mutants a suite kills, and which survive.
type MutationReport struct {
	// Total counts the mutants scored: all but the equivalent ones.
	Total int `json:"total"`
	// Killed counts the mutants on which some case's verdict changes.
	Killed int `json:"killed"`
	// Score is Killed / Total, or 1 when Total is 0.
	Score float64 `json:"score"`
	// Survivors are the scored mutants no case kills, in mutant order: each
	// is a change to the rules that the suite would not notice.
	Survivors []Mutant `json:"survivors"`
	// Equivalent are the mutants left out of the score: Z3 proved that they
	// decide every answer set as the original does, so no case can kill
	// them.
	Equivalent []Mutant `json:"equivalent"`
}

// equivalenceTimeout bounds each equivalence check. Proving a survivor
// equivalent only refines the score, so a check that takes longer leaves
// the mutant in it.
const equivalenceTimeout = time.Second

// MutationScore measures how tightly cases pin r down, which coverage alone
// cannot tell: it makes every mutant of r's compiled IR (each comparison
// flipped, each threshold constant moved one step down and up, each `and` /
// `or` swapped in criteria and the outcome, each criterion dropped),
// rebuilds each with engine.BuildUnhashed and runs the cases on it. A mutant is
// killed when some case's RunCase verdict (pass or fail) differs from its
// verdict on r.
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
func MutationScore(ctx context.Context, r *engine.Ruleset, cases []engine.Case) (MutationReport, error) {
	muts, err := mutations(r)
	if err != nil {
		return MutationReport{}, err
	}
	runs := prepareRuns(r, cases)
	survivors := make([]*engine.Ruleset, len(muts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range muts {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			m, err := muts[i].build(r)
			if err != nil {
				return fmt.Errorf("solver: mutant %s: %w", muts[i].ID, err)
			}
			if !runs.kill(m, cases) {
				survivors[i] = m
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return MutationReport{}, err
	}
	eq, err := newEquivalence(r)
	if err != nil {
		return MutationReport{}, err
	}
	defer eq.close()
	rep := MutationReport{Score: 1}
	for i, mu := range muts {
		if survivors[i] == nil {
			rep.Killed++
		} else if same, err := eq.check(ctx, &muts[i], survivors[i]); err != nil {
			return MutationReport{}, fmt.Errorf("solver: mutant %s: %w", mu.ID, err)
		} else if same {
			rep.Equivalent = append(rep.Equivalent, mu.Mutant)
			continue
		} else {
			rep.Survivors = append(rep.Survivors, mu.Mutant)
		}
		rep.Total++
	}
	if rep.Total > 0 {
		rep.Score = float64(rep.Killed) / float64(rep.Total)
	}
	return rep, nil
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
func (runs caseRuns) kill(m *engine.Ruleset, cases []engine.Case) bool {
	var res engine.Result
	for i, c := range cases {
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
}

// build makes the mutant from a copy of r's IR.
func (mu *mutation) build(r *engine.Ruleset) (*engine.Ruleset, error) {
	m := cloneIR(r)
	if mu.gi < 0 {
		replaceAt(&m.Outcome, mu.path, mu.replace)
		return engine.BuildUnhashed(m)
	}
	c := &m.Groups[mu.gi].Criteria[mu.ci]
	replaceAt(&c.Expr, mu.path, mu.replace)
	c.Discretionary, c.Fields = c.Expr == nil, fieldsRead(m, c.Expr)
	m.ReadsDecisionDate = false
	for _, g := range m.Groups {
		for _, c := range g.Criteria {
			m.ReadsDecisionDate = m.ReadsDecisionDate || slices.ContainsFunc(walkNodes(c.Expr), isDecisionDate)
		}
	}
	return engine.BuildUnhashed(m)
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

// mutations lists r's mutants: per criterion, in declaration order, its
// nodes' mutants in walk order and then its drop; last the outcome's.
func mutations(r *engine.Ruleset) ([]mutation, error) {
	var out []mutation
	var texts []*engine.Expr // each criterion node mutant's node before and after
	counts, crit := map[string]int{}, -1
	add := func(gi, ci int, where, kind string, path []int, x *engine.Expr, replace func(*engine.Expr) *engine.Expr) {
		counts[where+"/"+kind]++
		mu := mutation{Mutant: Mutant{ID: fmt.Sprintf("%s/%s/%d", where, kind, counts[where+"/"+kind]), Kind: kind},
			gi: gi, ci: ci, crit: crit, path: slices.Clone(path), replace: replace}
		if gi < 0 {
			o := cloneExpr(r.Outcome)
			replaceAt(&o, path, replace)
			mu.Description = outcomeText(r.Outcome) + " becomes " + outcomeText(o)
		} else if kind != MutantDropCriterion {
			mu.Criterion = where
			texts = append(texts, x, replace(cloneExpr(x)))
		}
		out = append(out, mu)
	}
	connectives := func(gi, ci int, where string) func(*engine.Expr, []int) {
		return func(x *engine.Expr, path []int) {
			if x.Kind == engine.ExprOp && (x.Op == engine.OpAnd || x.Op == engine.OpOr) {
				add(gi, ci, where, MutantSwapConnective, path, x, func(y *engine.Expr) *engine.Expr {
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
					add(gi, ci, c.ID, MutantFlipComparison, path, x, func(y *engine.Expr) *engine.Expr { y.Op = neg; return y })
				}
				if t, ok := thresholdOf(x); ok {
					for _, v := range []*big.Rat{new(big.Rat).Sub(t.c, t.step()), new(big.Rat).Add(t.c, t.step())} {
						if k, ok := t.constant(v); ok {
							add(gi, ci, c.ID, MutantShiftThreshold, path, x, func(y *engine.Expr) *engine.Expr { y.Args[t.k] = k; return y })
						}
					}
				}
				connectives(gi, ci, c.ID)(x, path)
			})
			holds := g.Kind == engine.GroupAll || len(g.Criteria) == 1
			add(gi, ci, c.ID, MutantDropCriterion, nil, nil, func(*engine.Expr) *engine.Expr { return boolConst(holds) })
			m := &out[len(out)-1]
			m.Criterion = c.ID
			m.Description = fmt.Sprintf("criterion %s dropped from group %s: it never holds", c.ID, g.ID)
			if holds {
				m.Description = fmt.Sprintf("criterion %s dropped from group %s: it always holds", c.ID, g.ID)
			}
		}
	}
	walkPath(r.Outcome, nil, connectives(-1, 0, "outcome"))
	printed, err := exprTexts(r, texts)
	if err != nil {
		return nil, fmt.Errorf("solver: describe mutants: %w", err)
	}
	for i := range out {
		if out[i].Description == "" {
			out[i].Description, printed = printed[0]+" becomes "+printed[1], printed[2:]
		}
	}
	return out, nil
}

// walkPath calls visit on x and every node below it, with the operand
// indexes that lead there.
func walkPath(x *engine.Expr, path []int, visit func(*engine.Expr, []int)) {
	if x != nil {
		visit(x, path)
		for i, a := range x.Args {
			walkPath(a, append(path, i), visit)
		}
	}
}

// walkNodes lists x and every node below it.
func walkNodes(x *engine.Expr) []*engine.Expr {
	var out []*engine.Expr
	walkExpr(x, func(y *engine.Expr) { out = append(out, y) })
	return out
}

func isDecisionDate(x *engine.Expr) bool {
	return x.Kind == engine.ExprOp && x.Op == engine.OpDecisionDate
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
	base *Encoding
	s    *z3.Solver
}

func newEquivalence(r *engine.Ruleset) (*equivalence, error) {
	c, err := z3.NewContext()
	if err != nil {
		return nil, fmt.Errorf("solver: mutation score: %w", err)
	}
	q := &equivalence{c: c}
	if q.base, err = Encode(c, r); err == nil {
		q.s, err = q.base.NewSolver(equivalenceTimeout)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return q, nil
}

// check reports whether Z3 proves that m, the mutant mu, gives the edited
// criterion (or the outcome) the status r gives, for every answer set and
// decision date. The rest of m is r's, so then every group and the outcome
// agree too. A check that runs out of time is a no.
func (q *equivalence) check(ctx context.Context, mu *mutation, m *engine.Ruleset) (same bool, err error) {
	was, x := q.base.Outcome(), m.Outcome
	if mu.gi >= 0 {
		was, x = q.base.Criterion(mu.crit), m.Groups[mu.gi].Criteria[mu.ci].Expr
	}
	now, err := q.base.expr(x) // m's fields are r's, in the same slots
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
	if err := q.s.Assert(c.Not(c.And(c.Eq(was.Known, now.known), c.Implies(was.Known, c.Eq(was.Value, now.val))))); err != nil {
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
		Effective: r.Effective}
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
	return &engine.Expr{Kind: engine.ExprConst, Sort: engine.SortBool, Const: engine.BoolValue(b)}
}

func isField(x *engine.Expr) bool { return x.Kind == engine.ExprField }
