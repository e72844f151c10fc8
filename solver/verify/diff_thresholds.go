package verify

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/z3"
)

// This file finds the thresholds a new version moved: criteria both
// versions declare (by id) whose comparisons read the same quantity
// against a different constant. A yearly figure update changes nothing
// else, and a reader of the diff wants to see which figure moved and by
// how much, not only that some applicant's outcome flips.

// ThresholdChange is a comparison whose constant a new version changed.
type ThresholdChange struct {
	// CriterionID is the criterion both versions declare.
	CriterionID string `json:"criterion_id" doc:"The criterion, declared in both versions."`
	// Subject is what the threshold is compared with, in the rules
	// language: a field id, or an expression over fields.
	Subject string `json:"subject" doc:"What the threshold is compared with: a field id, or an expression over fields in the rules language."`
	// Operator is the comparison with Subject on the left (<, <=, >, >=,
	// == or !=).
	Operator string `json:"operator" enum:"<,<=,>,>=,==,!=" doc:"The comparison, with subject on its left."`
	// Old and New are the thresholds, exact decimals (rounded to 6 places
	// when the exact value does not end).
	Old string `json:"old" doc:"The threshold in the old version, a decimal number."`
	New string `json:"new" doc:"The threshold in the new version, a decimal number."`
	// Message says it in a sentence: "criterion income_1: threshold
	// changed from 1,255 to 1,305 (household.income <=)".
	Message string `json:"message" doc:"The change in a sentence, e.g. \"criterion income_1: threshold changed from 1,255 to 1,305 (household.income <=)\"."`

	// field is the field slot (in the old version) when Subject is one
	// field; -1 otherwise. The witness search prefers values near mid.
	field int
	// mid is halfway between the two thresholds.
	mid *big.Rat
}

// linear is a numeric expression as a sum of coefficient × term plus a
// constant. A term is a field id or, for anything that is not linear
// (a call, a default), the expression's text.
type linear struct {
	terms map[string]*big.Rat
	k     *big.Rat
}

// linearOf reads x as a linear form; false when x is not numeric.
func linearOf(x *engine.Expr) (linear, bool) {
	if !x.Sort.Numeric() {
		return linear{}, false
	}
	l := linear{terms: map[string]*big.Rat{}, k: new(big.Rat)}
	l.add(x, big.NewRat(1, 1))
	return l, true
}

// add adds f × x to l.
func (l linear) add(x *engine.Expr, f *big.Rat) {
	if c, ok := foldConstant(x); ok {
		l.k.Add(l.k, new(big.Rat).Mul(c, f))
		return
	}
	switch {
	case x.Kind == engine.ExprField:
		l.term(x.Key, f)
		return
	case x.Kind != engine.ExprOp:
	case x.Op == engine.OpAdd || x.Op == engine.OpSub:
		for i, a := range x.Args {
			g := f
			if i > 0 && x.Op == engine.OpSub {
				g = new(big.Rat).Neg(f)
			}
			l.add(a, g)
		}
		return
	case x.Op == engine.OpNeg:
		l.add(x.Args[0], new(big.Rat).Neg(f))
		return
	case x.Op == engine.OpMul && len(x.Args) == 2:
		for i := range 2 {
			if c, ok := foldConstant(x.Args[i]); ok {
				l.add(x.Args[1-i], new(big.Rat).Mul(f, c))
				return
			}
		}
	}
	l.term(engine.ExprText(x), f)
}

func (l linear) term(key string, f *big.Rat) {
	if l.terms[key] == nil {
		l.terms[key] = new(big.Rat)
	}
	l.terms[key].Add(l.terms[key], f)
	if l.terms[key].Sign() == 0 {
		delete(l.terms, key)
	}
}

// normalCmp is a comparison rewritten as `subject op threshold`, the
// subject's first term (by name) with coefficient 1.
type normalCmp struct {
	terms     map[string]*big.Rat
	op        engine.Operator
	threshold *big.Rat
}

// mirrored is each comparison with its sides swapped: a < b is b > a.
var mirrored = map[engine.Operator]engine.Operator{
	engine.OpLt: engine.OpGt, engine.OpGt: engine.OpLt, engine.OpLe: engine.OpGe,
	engine.OpGe: engine.OpLe, engine.OpEq: engine.OpEq, engine.OpNe: engine.OpNe,
}

// normalise rewrites a numeric comparison; false for anything else or a
// comparison of constants.
func normalise(x *engine.Expr) (normalCmp, bool) {
	if x.Kind != engine.ExprOp || mirrored[x.Op] == "" || len(x.Args) != 2 {
		return normalCmp{}, false
	}
	l, ok1 := linearOf(x.Args[0])
	r, ok2 := linearOf(x.Args[1])
	if !ok1 || !ok2 {
		return normalCmp{}, false
	}
	// l - r op 0
	for k, v := range r.terms {
		l.term(k, new(big.Rat).Neg(v))
	}
	l.k.Sub(l.k, r.k)
	if len(l.terms) == 0 {
		return normalCmp{}, false
	}
	keys := sortedKeys(l.terms)
	a := new(big.Rat).Set(l.terms[keys[0]])
	op := x.Op
	if a.Sign() < 0 {
		op = mirrored[op]
	}
	n := normalCmp{terms: map[string]*big.Rat{}, op: op}
	for k, v := range l.terms {
		n.terms[k] = new(big.Rat).Quo(v, a)
	}
	n.threshold = new(big.Rat).Neg(new(big.Rat).Quo(l.k, a))
	return n, true
}

func sortedKeys(m map[string]*big.Rat) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// subject writes the normalised left side: "a.x" or "a.x + 2 * a.y".
func (n normalCmp) subject() string {
	var b strings.Builder
	for i, k := range sortedKeys(n.terms) {
		c := n.terms[k]
		switch {
		case i == 0:
		case c.Sign() < 0:
			b.WriteString(" - ")
		default:
			b.WriteString(" + ")
		}
		abs := new(big.Rat).Abs(c)
		if abs.Cmp(big.NewRat(1, 1)) != 0 {
			b.WriteString(ratText(abs) + " * ")
		}
		b.WriteString(k)
	}
	return b.String()
}

func (n normalCmp) sameSubject(m normalCmp) bool {
	if n.op != m.op || len(n.terms) != len(m.terms) {
		return false
	}
	for k, v := range n.terms {
		if w := m.terms[k]; w == nil || w.Cmp(v) != 0 {
			return false
		}
	}
	return true
}

// comparisons lists the numeric comparisons of x in reading order.
func comparisons(x *engine.Expr) []normalCmp {
	var out []normalCmp
	solver.WalkExpr(x, func(y *engine.Expr) {
		if n, ok := normalise(y); ok {
			out = append(out, n)
		}
	})
	return out
}

// thresholdChanges pairs the criteria of older and newer by id and, where both
// have the same number of comparisons, reports each pair that compares the
// same quantity the same way against a different constant.
func thresholdChanges(older, newer *engine.Ruleset) []ThresholdChange {
	out := []ThresholdChange{}
	for i := range newer.NumCriteria() {
		nc, _ := newer.CriterionAt(i)
		oc := findCriterion(older, nc.ID)
		if oc == nil || oc.Expr == nil || nc.Expr == nil {
			continue
		}
		os, ns := comparisons(oc.Expr), comparisons(nc.Expr)
		if len(os) != len(ns) {
			continue
		}
		for j := range os {
			o, n := os[j], ns[j]
			if !o.sameSubject(n) || o.threshold.Cmp(n.threshold) == 0 {
				continue
			}
			tc := ThresholdChange{CriterionID: nc.ID, Subject: o.subject(), Operator: string(o.op),
				Old: ratText(o.threshold), New: ratText(n.threshold), field: -1,
				mid: new(big.Rat).Quo(new(big.Rat).Add(o.threshold, n.threshold), big.NewRat(2, 1))}
			if len(o.terms) == 1 {
				tc.field = older.FieldIndex(tc.Subject)
			}
			tc.Message = fmt.Sprintf("criterion %s: threshold changed from %s to %s (%s %s)", nc.ID,
				present.GroupThousands(tc.Old), present.GroupThousands(tc.New), tc.Subject, tc.Operator)
			out = append(out, tc)
		}
	}
	return out
}

// findCriterion is the criterion of r with the given id, or nil.
func findCriterion(r *engine.Ruleset, id string) *engine.Criterion {
	for i := range r.NumCriteria() {
		if c, _ := r.CriterionAt(i); c.ID == id {
			return c
		}
	}
	return nil
}

// ratText writes r as an exact decimal when it has one of at most 18
// digits, else rounded to 6 places.
func ratText(r *big.Rat) string {
	if v, ok := solver.RatValue(r); ok {
		return v.NumberString()
	}
	s := strings.TrimRight(r.FloatString(6), "0")
	return strings.TrimSuffix(s, ".")
}

// consecutive reports whether both versions declare a period and the
// periods differ: cuts of one ruleset for different years.
func consecutive(a, b *engine.Period) bool {
	return a != nil && b != nil && *a != *b
}

// anchorWindows are the distances from an anchor a witness's number is
// tried within, nearest first.
var anchorWindows = []int64{0, 1, 10, 100, 1_000, 10_000, 100_000}

// nearAnchors draws each int or decimal answer of the witness near the
// figures the law names, so that a witness reads as a real applicant
// (income 1,280 across a limit moved from 1,255 to 1,305, a household of
// one) rather than whatever the solver met first: for each field of a,
// in declaration order, it keeps the nearest window around one of the
// field's anchors that the change survives. It returns the scopes it
// pushed and kept on s.
func nearAnchors(ctx context.Context, s *z3.Solver, a *solver.Encoding, moved []ThresholdChange) (uint, error) {
	c, r := a.Context(), a.Ruleset()
	kept := uint(0)
	for slot := range r.Fields {
		anchors := fieldAnchors(r, slot, moved)
		if len(anchors) == 0 {
			continue
		}
		x := asReal(c, a, slot)
		for _, w := range anchorWindows {
			win := big.NewRat(w, 1)
			near := make([]*z3.Expr, len(anchors))
			for i, m := range anchors {
				near[i] = c.And(c.Ge(x, c.RealRat(new(big.Rat).Sub(m, win))), c.Le(x, c.RealRat(new(big.Rat).Add(m, win))))
			}
			if err := s.Push(); err != nil {
				return kept, fmt.Errorf("solver: diff: %w", err)
			}
			if err := s.Assert(c.Or(a.Unanswered(slot), c.Or(near...))); err != nil {
				return kept, err
			}
			res, err := s.Check(ctx)
			if err != nil {
				return kept, err
			}
			if res == z3.Sat {
				kept++
				break
			}
			if err := s.Pop(1); err != nil {
				return kept, fmt.Errorf("solver: diff: %w", err)
			}
		}
	}
	return kept, nil
}

// fieldAnchors are the values a witness's answer to field slot of r is
// drawn near: halfway across each threshold the new version moved on
// that field; failing those, the lower end of its declared range (or
// the upper, open below) and the thresholds the rules compare it with
// alone; failing those too, 0. Nil for a field that is not a number.
func fieldAnchors(r *engine.Ruleset, slot int, moved []ThresholdChange) []*big.Rat {
	f := &r.Fields[slot]
	if !f.Type.Numeric() {
		return nil
	}
	var out []*big.Rat
	for _, t := range moved {
		if t.field == slot {
			out = append(out, t.mid)
		}
	}
	if len(out) > 0 {
		return out
	}
	if g := f.Range; g != nil && g.Min.Known {
		out = append(out, solver.ValueRat(g.Min))
	} else if g != nil && g.Max.Known {
		out = append(out, solver.ValueRat(g.Max))
	}
	for i := range r.NumCriteria() {
		cr, _ := r.CriterionAt(i)
		if cr.Expr == nil {
			continue
		}
		for _, n := range comparisons(cr.Expr) {
			if _, ok := n.terms[f.ID]; ok && len(n.terms) == 1 && inRange(f, n.threshold) {
				out = append(out, n.threshold)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, new(big.Rat))
	}
	return out
}

// inRange reports whether r is a value field f's range allows.
func inRange(f *engine.Field, r *big.Rat) bool {
	if f.Range == nil {
		return true
	}
	v, ok := solver.RatValue(r)
	return ok && f.Range.Contains(v)
}
