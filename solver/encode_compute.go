package solver

import (
	"fmt"
	"math/big"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/z3"
)

// The encoding of what rules compute (engine/syntax/GRAMMAR.md#named-values):
// named values as defined terms, if/then/else, division and rounding.
// Rounding goes through Z3's to_int (the floor of a real), so a rule that
// divides by a constant or rounds to a step stays in linear integer-real
// arithmetic; only a division by an answer is nonlinear, as the law that
// divides by one is.

// valueTerm is named value i as a term, encoded once per encoding and
// shared by every criterion and value that reads it.
func (e *Encoding) valueTerm(i int) (term, error) {
	if e.values == nil {
		e.values = make([]*term, len(e.r.Values))
	}
	if t := e.values[i]; t != nil {
		return *t, nil
	}
	v := &e.r.Values[i]
	var t term
	var err error
	if v.Table {
		t, err = e.tableTerm(v)
	} else {
		t, err = e.expr(v.Expr)
	}
	if err != nil {
		return term{}, fmt.Errorf("value %s: %w", v.ID, err)
	}
	t.sort = v.Type
	if v.Type == engine.SortDecimal {
		t.val = e.coerce(t, engine.SortDecimal)
	}
	e.values[i] = &t
	return t, nil
}

// ValueIs is the Bool term "named value i is known and equals v": how a
// test pins a value the evaluator computed.
func (e *Encoding) ValueIs(i int, v value.Value) (*z3.Expr, error) {
	t, err := e.valueTerm(i)
	if err != nil {
		return nil, err
	}
	return e.c.And(t.known, e.sameValue(t, e.constant(t.sort, v))), nil
}

// ifTerm is `if cond then yes else no`: known when the condition is known
// and the branch it picks is, or when both branches are known and equal.
func (e *Encoding) ifTerm(s engine.Sort, cond, yes, no term) term {
	c := e.c
	yv, nv := e.coerce(yes, s), e.coerce(no, s)
	agree := c.And(yes.known, no.known, c.Eq(yv, nv))
	out := term{sort: s,
		known: c.Ite(cond.known, c.Ite(cond.val, yes.known, no.known), agree),
		val:   c.Ite(c.And(cond.known, c.Not(cond.val)), nv, yv)}
	if s == engine.SortDate && yes.date != nil && no.date != nil {
		pickNo := c.And(cond.known, c.Not(cond.val))
		out.date = &dateParts{
			y: c.Ite(pickNo, no.date.y, yes.date.y),
			m: c.Ite(pickNo, no.date.m, yes.date.m),
			d: c.Ite(pickNo, no.date.d, yes.date.d),
		}
	}
	return out
}

// quotientScale is 10^value.QuotientPlaces as a real.
var quotientScale = new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(value.QuotientPlaces), nil))

// quotient is a / b as the evaluator computes it: exact, rounded half away
// from zero at the last of value.QuotientPlaces places; unknown when b is
// zero, which the evaluator reports as a field error.
func (e *Encoding) quotient(a, b term) (known, val *z3.Expr) {
	c := e.c
	bv := e.coerce(b, engine.SortDecimal)
	exact := c.Div(e.coerce(a, engine.SortDecimal), bv)
	scale := c.RealRat(quotientScale)
	val = c.Div(c.ToReal(e.halfAway(c.Mul(exact, scale))), scale)
	return c.And(a.known, b.known, c.Not(c.Eq(bv, c.Real("0")))), val
}

// halfAway rounds the real x to the nearest integer, half away from zero.
func (e *Encoding) halfAway(x *z3.Expr) *z3.Expr {
	c := e.c
	half := c.Real("1/2")
	return c.Ite(c.Ge(x, c.Real("0")), c.ToInt(c.Add(x, half)), c.Neg(c.ToInt(c.Add(c.Neg(x), half))))
}

// rounded is x rounded to a whole multiple of step (a positive constant)
// by op: floor, ceil or round (half away from zero). The result is an Int
// for an int step, as the checker types it.
func (e *Encoding) rounded(op engine.Operator, s engine.Sort, x, step term) *z3.Expr {
	c := e.c
	q := c.Div(e.coerce(x, engine.SortDecimal), e.coerce(step, engine.SortDecimal))
	var n *z3.Expr
	switch op {
	case engine.OpFloor:
		n = c.ToInt(q)
	case engine.OpCeil:
		n = c.Neg(c.ToInt(c.Neg(q)))
	default:
		n = e.halfAway(q)
	}
	if s == engine.SortDecimal {
		return c.Mul(c.ToReal(n), e.coerce(step, engine.SortDecimal))
	}
	return c.Mul(n, step.val)
}

// absolute is |x| in sort s.
func (e *Encoding) absolute(s engine.Sort, x term) *z3.Expr {
	c := e.c
	v := e.coerce(x, s)
	zero := c.Int(0)
	if s == engine.SortDecimal {
		zero = c.Real("0")
	}
	return c.Ite(c.Ge(v, zero), v, c.Neg(v))
}

// tableTerm is a table's lookup as a finite choice: the figure of the
// first row whose matches hold (the compiler proves exactly one does),
// in the period the decision date falls in. It is known when every key
// is, the date falls in a period, and the chosen figure is known.
func (e *Encoding) tableTerm(v *engine.NamedValue) (term, error) {
	c := e.c
	keys := make([]term, len(v.Keys))
	for k, x := range v.Keys {
		t, err := e.expr(x)
		if err != nil {
			return term{}, err
		}
		keys[k] = t
	}
	choose := func(rows []engine.TableRow) (term, error) {
		var out term
		for i := len(rows) - 1; i >= 0; i-- {
			fig, err := e.expr(rows[i].Value)
			if err != nil {
				return term{}, err
			}
			fig.val = e.coerce(fig, v.Type)
			if i == len(rows)-1 {
				out = term{sort: v.Type, known: fig.known, val: fig.val, date: fig.date}
				continue
			}
			hit := e.rowMatches(keys, rows[i].Match)
			out = e.ifTerm(v.Type, term{sort: engine.SortBool, known: c.Bool(true), val: hit}, fig, out)
		}
		return out, nil
	}
	var out term
	if len(v.Periods) == 0 {
		t, err := choose(v.Rows)
		if err != nil {
			return term{}, err
		}
		out = t
	} else {
		if e.decision == nil {
			return term{}, fmt.Errorf("a table with periods in a ruleset without a decision date")
		}
		out = term{sort: v.Type, known: c.Bool(false), val: e.zero(v.Type)}
		for i := len(v.Periods) - 1; i >= 0; i-- {
			t, err := choose(v.Periods[i].Rows)
			if err != nil {
				return term{}, err
			}
			in := e.inPeriod(v.Periods[i].Period)
			out = term{sort: v.Type, known: c.Ite(in, t.known, out.known), val: c.Ite(in, t.val, out.val)}
		}
	}
	out.known = c.And(append([]*z3.Expr{out.known}, knowns(keys)...)...)
	return out, nil
}

// rowMatches is "the keys' values meet the row's matches".
func (e *Encoding) rowMatches(keys []term, match []engine.KeyMatch) *z3.Expr {
	c := e.c
	conds := []*z3.Expr{c.Bool(true)}
	for k, m := range match {
		switch m.Kind {
		case engine.MatchEnum, engine.MatchBool:
			conds = append(conds, c.Eq(keys[k].val, e.constant(keys[k].sort, m.Const).val))
		case engine.MatchRange:
			if m.Min.Known {
				conds = append(conds, c.Ge(keys[k].val, c.Int(m.Min.Num)))
			}
			if m.Max.Known {
				conds = append(conds, c.Le(keys[k].val, c.Int(m.Max.Num)))
			}
		}
	}
	return c.And(conds...)
}

// inPeriod is "the decision date falls in p".
func (e *Encoding) inPeriod(p engine.Period) *z3.Expr {
	c := e.c
	in := c.Ge(e.decision.val, c.Int(p.From))
	if p.Until != 0 {
		in = c.And(in, c.Le(e.decision.val, c.Int(p.Until)))
	}
	return in
}

// zero is a value of sort s for a term that is never known.
func (e *Encoding) zero(s engine.Sort) *z3.Expr {
	switch s {
	case engine.SortDecimal:
		return e.c.Real("0")
	case engine.SortBool:
		return e.c.Bool(false)
	}
	return e.c.Int(0)
}

// knowns are the Known terms of ts.
func knowns(ts []term) []*z3.Expr {
	out := make([]*z3.Expr, len(ts))
	for i, t := range ts {
		out[i] = t.known
	}
	return out
}

// ValueTri is named value i as a pair of terms: Known, and Value (its
// figure, in the value's sort), for comparing a value with another
// definition of it (the mutation score's equivalence check).
func (e *Encoding) ValueTri(i int) (Tri, error) {
	t, err := e.valueTerm(i)
	if err != nil {
		return Tri{}, err
	}
	return Tri{Known: t.known, Value: t.val}, nil
}

// TermAs is Term with the value brought to sort s (an int to a decimal),
// so that it compares with a value of that sort.
func (e *Encoding) TermAs(x *engine.Expr, s engine.Sort) (Tri, error) {
	t, err := e.expr(x)
	if err != nil {
		return Tri{}, err
	}
	return Tri{Known: t.known, Value: e.coerce(t, s)}, nil
}
