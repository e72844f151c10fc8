package verify

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
)

// This file lists what a suite should cover (the goals SuggestCases
// solves for) and builds the probe ruleset whose criterion k is goal k's
// condition, so the evaluator can tell which goals a case meets.

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
	value value.Value
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
		walkWritten(c.Expr, func(x *engine.Expr) {
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
		walkWritten(c.Expr, func(x *engine.Expr) {
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
		conds[k] = inHousehold(r, g.cond)
	}
	probe, err := buildProbe(r, conds)
	if err != nil {
		return nil, nil, fmt.Errorf("solver: suggest cases: %w", err)
	}
	return goals, probe, nil
}

// walkWritten calls visit on x and every node below it as the rules wrote
// them: an aggregate over a list's members is unrolled to the list's
// bound, each member's part guarded by "the list has more than i
// members", and only member 0's part is walked, standing for every
// member's as the printer shows it (engine.AggregateOf). So a comparison
// written once is one threshold, met by a household of one, not one per
// member up to the bound (the sixteenth member's, which only a household
// of sixteen can meet), and the guards, which the rules never wrote, are
// no thresholds.
func walkWritten(x *engine.Expr, visit func(*engine.Expr)) {
	walkPath(x, nil, func(y *engine.Expr, _ []int) { visit(y) })
}

// inHousehold is goal condition x of a case, which must also have the
// members whose answers x reads: a threshold on member 0's part of an
// aggregate (`member[0].age == 5`, walkWritten) needs a household of one,
// or the case, written as /decide reads a household, would leave that
// answer out. x itself when it reads no member's field. What an aggregate
// reads is no such need: each member's part is guarded by "the household
// has more than i members" (docs/language.md#households), so a criterion
// over `any(member where ...)` is met by a household of one, and needing
// every member its unrolled form reads would ask for a full household of
// the list's bound (which the first, small tries of the solver then
// cannot give).
func inHousehold(r *engine.Ruleset, x *engine.Expr) *engine.Expr {
	most := map[string]int{}
	solver.WalkRuleInto(r, x, func(y *engine.Expr) bool {
		if _, ok := engine.AggregateOf(y); ok {
			return false
		}
		if y.Kind == engine.ExprField {
			if m := r.Fields[r.FieldIndex(y.Key)].Member; m != nil {
				most[m.List] = max(most[m.List], m.Index+1)
			}
		}
		return true
	})
	if len(most) == 0 {
		return x
	}
	args := []*engine.Expr{x}
	for list, n := range most {
		slot := r.FieldIndex(list)
		args = append(args, &engine.Expr{Kind: engine.ExprOp, Sort: engine.SortBool, Op: engine.OpGe, Args: []*engine.Expr{
			{Kind: engine.ExprField, Sort: engine.SortInt, Key: list, Slot: slot},
			{Kind: engine.ExprConst, Sort: engine.SortInt, Const: value.IntValue(int64(n)), FieldContext: list}}})
	}
	slices.SortFunc(args[1:], func(a, b *engine.Expr) int { return strings.Compare(a.Args[0].Key, b.Args[0].Key) })
	return &engine.Expr{Kind: engine.ExprOp, Sort: engine.SortBool, Op: engine.OpAnd, Args: args}
}

// fieldsRead lists the ids of the fields x reads, in declaration order, as
// Criterion.Fields does.
func fieldsRead(r *engine.Ruleset, x *engine.Expr) []string {
	read := map[string]bool{}
	solver.WalkRule(r, x, func(y *engine.Expr) {
		if y.Kind == engine.ExprField {
			read[y.Key] = true
		}
	})
	var out []string
	for _, f := range r.Fields {
		if read[f.ID] {
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
	// The probe keeps r's named values, and its period when a table needs
	// it (a table's periods must cover the ruleset's): its conditions may
	// read the values.
	p := &engine.Ruleset{SectionID: "probe", Fields: r.Fields, Sources: r.Sources, Values: r.Values,
		Groups: []engine.Group{{ID: "probe", Kind: engine.GroupAll, Title: "probe"}}, Outcome: &engine.Expr{Kind: engine.ExprGroup, Key: "probe"}}
	if slices.ContainsFunc(r.Values, func(v engine.NamedValue) bool { return len(v.Periods) > 0 }) {
		p.Effective = r.Effective
	}
	for i := range r.Values {
		for _, x := range r.Values[i].Exprs() {
			p.ReadsDecisionDate = p.ReadsDecisionDate || slices.ContainsFunc(walkNodes(x), isDecisionDate)
		}
	}
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
