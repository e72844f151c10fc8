package review

// This file is threshold_boundaries: it finds every comparison of a number
// or date with a constant and asks, with a probe ruleset evaluated by the
// engine, which cases sit on the boundary and just beside it (see the
// package doc).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// threshold is one comparison `side op constant` in a criterion, the
// constant moved to the right.
type threshold struct {
	// criterion is the id of the criterion the comparison is in.
	criterion string
	// op is the comparison with the constant on the right.
	op engine.Operator
	// side is the non-constant side, a field or a computed value.
	side *engine.Expr
	// c is the constant.
	c *engine.Expr
	// orig is the comparison as written, for its printed text.
	orig *engine.Expr
	// sort is how neighbours are formed: int and date step by one, decimal
	// takes any value strictly beside the constant.
	sort engine.Sort
}

// flipped is the operator that keeps the meaning when the operands swap.
var flipped = map[engine.Operator]engine.Operator{
	engine.OpLt: engine.OpGt, engine.OpLe: engine.OpGe, engine.OpGt: engine.OpLt,
	engine.OpGe: engine.OpLe, engine.OpEq: engine.OpEq,
}

// findThresholds lists the comparisons with a constant of every criterion,
// in criterion then expression order. The guard `list > i` before member
// i's part of an aggregate over a household's list is the compiler's, not
// a threshold the rules wrote (docs/language.md#households), so it is
// left out.
func findThresholds(r *engine.Ruleset) []threshold {
	var out []threshold
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		guards := map[*engine.Expr]bool{}
		walk(c.Expr, func(x *engine.Expr) {
			// An aggregate is visited before its parts, so its guards are
			// known by the time the walk reaches them.
			for _, g := range engine.MemberGuards(x) {
				guards[g] = true
			}
			op, ok := flipped[x.Op]
			if x.Kind != engine.ExprOp || !ok || len(x.Args) != 2 || guards[x] {
				return
			}
			a, b := x.Args[0], x.Args[1]
			t := threshold{criterion: c.ID, op: x.Op, side: a, c: b, orig: x}
			switch {
			case b.Kind == engine.ExprConst && a.Kind != engine.ExprConst:
			case a.Kind == engine.ExprConst && b.Kind != engine.ExprConst:
				t.op, t.side, t.c = op, b, a
			default:
				return
			}
			switch {
			case a.Sort == engine.SortDate && b.Sort == engine.SortDate:
				t.sort = engine.SortDate
			case a.Sort == engine.SortInt && b.Sort == engine.SortInt:
				t.sort = engine.SortInt
			case a.Sort.Numeric() && b.Sort.Numeric():
				t.sort = engine.SortDecimal
			default:
				return
			}
			out = append(out, t)
		})
	}
	return out
}

// walk calls visit on x and every node below it.
func walk(x *engine.Expr, visit func(*engine.Expr)) {
	if x == nil {
		return
	}
	visit(x)
	for _, a := range x.Args {
		walk(a, visit)
	}
}

// Probe criteria per threshold, in this order.
const (
	probeOrig  = iota // the comparison as written: its Text
	probeAt           // side == c
	probeBelow        // side == c-1 (int, date) or side < c (decimal)
	probeAbove        // side == c+1 (int, date) or side > c (decimal)
	probes
)

// maxOrdinal is the ordinal of 9999-12-31, the last date a constant may
// hold.
const maxOrdinal = 3652059

// probeRuleset compiles one criterion per probe of each threshold over
// r's fields, so that the engine itself says where each case's value of
// each side lies.
func probeRuleset(r *engine.Ruleset, ts []threshold) (*engine.Ruleset, error) {
	g := engine.Group{ID: "probe", Kind: engine.GroupAll, Title: "probe"}
	readsDate := false
	add := func(x *engine.Expr) {
		var fields []string
		read := make([]bool, len(r.Fields))
		walk(x, func(n *engine.Expr) {
			switch {
			case n.Kind == engine.ExprField:
				read[r.FieldIndex(n.Key)] = true
			case n.Kind == engine.ExprOp && n.Op == engine.OpDecisionDate:
				readsDate = true
			}
		})
		for s, ok := range read {
			if ok {
				fields = append(fields, r.Fields[s].ID)
			}
		}
		g.Criteria = append(g.Criteria, engine.Criterion{ID: fmt.Sprintf("p%d", len(g.Criteria)), Title: "probe", Expr: x,
			Citations: []engine.Citation{{Source: "probe", Quote: "probe"}}, Fields: fields})
	}
	for _, t := range ts {
		cmp := func(op engine.Operator, delta int64) *engine.Expr {
			k := *t.c
			k.Args = nil
			k.Const.Num += delta
			if t.sort == engine.SortDate && (k.Const.Num < 1 || k.Const.Num > maxOrdinal) {
				// No date lies beyond the calendar: the case at the
				// boundary is the nearest there is.
				k.Const.Num -= delta
			}
			return &engine.Expr{Kind: engine.ExprOp, Op: op, Args: []*engine.Expr{t.side, &k}}
		}
		add(t.orig)
		add(cmp(engine.OpEq, 0))
		if t.sort == engine.SortDecimal {
			add(cmp(engine.OpLt, 0))
			add(cmp(engine.OpGt, 0))
		} else {
			add(cmp(engine.OpEq, -1))
			add(cmp(engine.OpEq, +1))
		}
	}
	// The probe cites no field note's source, so the notes go.
	fields := slices.Clone(r.Fields)
	for i := range fields {
		fields[i].Notes = nil
	}
	return engine.Build(&engine.Ruleset{SectionID: "probe", Fields: fields,
		Sources:           []engine.Source{{ID: "probe", Title: "probe", Licence: "none"}},
		Groups:            []engine.Group{g},
		Outcome:           &engine.Expr{Kind: engine.ExprGroup, Key: "probe"},
		ReadsDecisionDate: readsDate})
}

// thresholdBoundaries reports every threshold that no case tests at its
// boundary and just beside it.
func thresholdBoundaries(_ context.Context, in *Input) (outcome, error) {
	ts := findThresholds(in.Rules)
	if len(ts) == 0 {
		return na("no criterion compares a number or date with a constant"), nil
	}
	probe, err := probeRuleset(in.Rules, ts)
	if err != nil {
		return na("the boundaries could not be probed: " + err.Error()), nil
	}
	hit := make([]bool, probe.NumCriteria())
	for _, c := range in.Cases {
		var opts engine.Options
		if probe.ReadsDecisionDate {
			d, ok := value.ParseDate(c.DecisionDate)
			if !ok {
				continue // the case cannot be evaluated; tests_pass says so
			}
			opts.DecisionDate = d
		}
		raw := c.FieldValues
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		vals, err := probe.Convert(raw)
		if err != nil {
			continue
		}
		res := probe.Evaluate(vals, opts)
		for i, st := range res.Criteria {
			hit[i] = hit[i] || st == engine.Satisfied
		}
	}
	// One threshold as the rules write it can be several in the compiled
	// form: each member's copy of a comparison over a member's field
	// prints as the same text ("member.age < 18"), and a case at the
	// boundary for any member tests it.
	var labels []string
	first := map[string]threshold{}
	hits := map[string][]bool{}
	for k, t := range ts {
		pc, _ := probe.CriterionAt(k * probes)
		label := fmt.Sprintf("%s (criterion %s)", pc.Text, t.criterion)
		if _, seen := first[label]; !seen {
			labels = append(labels, label)
			first[label] = t
			hits[label] = make([]bool, probes)
		}
		for p, h := range hit[k*probes : (k+1)*probes] {
			hits[label][p] = hits[label][p] || h
		}
	}
	var ev []string
	tested := 0
	for _, label := range labels {
		missing := first[label].missing(hits[label])
		if len(missing) == 0 {
			tested++
			continue
		}
		ev = append(ev, label+": "+strings.Join(missing, " and "))
	}
	n := len(labels)
	o := outcome{evidence: ev}
	switch {
	case tested == n:
		o.status = StatusPass
		o.evidence = []string{fmt.Sprintf("all %d %s tested at the boundary and beside it", n, plural(n, "threshold"))}
		o.strength = fmt.Sprintf("Every one of the %d %s is tested at its boundary and just beside it.", n, plural(n, "threshold"))
		return o, nil
	case tested > 0:
		o.status = StatusWarn
	default:
		o.status = StatusFail
	}
	o.advice = fmt.Sprintf("Add boundary cases for the %d untested %s, starting with %s.", n-tested, plural(n-tested, "threshold"), ev[0])
	return o, nil
}

// missing says which of the boundary cases no case supplies, given which
// of the threshold's probes some case satisfied.
func (t threshold) missing(hit []bool) []string {
	c := t.c.Const
	show := func(delta int64) string {
		v := c
		v.Num += delta
		if t.sort == engine.SortDate {
			return value.FormatDate(v.Num)
		}
		return v.NumberString()
	}
	var at, below, above string
	if t.sort == engine.SortDecimal {
		at, below, above = "no case at "+show(0), "no case below "+show(0), "no case above "+show(0)
	} else {
		at, below, above = "no case at "+show(0), "no case at "+show(-1), "no case at "+show(+1)
	}
	// An int side never equals a fractional constant: ask for a case on
	// each side instead.
	atPossible := !(t.side.Sort == engine.SortInt && c.Scale > 0)
	var out []string
	if atPossible && !hit[probeAt] {
		out = append(out, at)
	}
	needBelow := t.op == engine.OpGe || t.op == engine.OpLt || !atPossible
	needAbove := t.op == engine.OpGt || t.op == engine.OpLe || !atPossible
	switch {
	case t.op == engine.OpEq && atPossible:
		if !hit[probeBelow] && !hit[probeAbove] {
			if t.sort == engine.SortDecimal {
				out = append(out, "no case below or above "+show(0))
			} else {
				out = append(out, fmt.Sprintf("no case at %s or %s", show(-1), show(+1)))
			}
		}
	default:
		if needBelow && !hit[probeBelow] {
			out = append(out, below)
		}
		if needAbove && !hit[probeAbove] {
			out = append(out, above)
		}
	}
	return out
}
