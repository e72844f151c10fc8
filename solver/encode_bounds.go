package solver

import (
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/z3"
)

// The ranges that decide a comparison about a household while a side is
// unknown, encoded as the evaluator computes them (engine/bounds.go,
// engine/syntax/GRAMMAR.md#three-valued-meaning): a comparison
// Ruleset.BoundedComparison picks is known when both sides are, or when
// the range one side can still take lies wholly below or above the
// other's. Every end is a Real under a Bool saying it is bounded, so the
// encoding stays linear: + and - add ends, a constant factor scales them,
// if and min and max choose among them.

// end is one end of a range: the number v where fin holds, unbounded
// otherwise. never and always say fin is false or true whatever the
// answers, so that ends no answer can bound cost the solver nothing: a
// comparison whose ends are never bounded is left as Kleene's rule
// makes it.
type end struct {
	fin, v        *z3.Expr
	never, always bool
}

// span is the range an encoded number can still take.
type span struct {
	lo, hi end
}

// boundedComparison makes out, the comparison x of two numbers by
// Kleene's rule, known also when its sides' ranges settle it.
func (e *Encoding) boundedComparison(x *engine.Expr, out term) (term, error) {
	c := e.c
	a, err := e.span(x.Args[0])
	if err != nil {
		return term{}, err
	}
	b, err := e.span(x.Args[1])
	if err != nil {
		return term{}, err
	}
	var yes, no *z3.Expr
	switch x.Op {
	case engine.OpLt:
		yes, no = e.below(a.hi, b.lo, true), e.below(b.hi, a.lo, false)
	case engine.OpLe:
		yes, no = e.below(a.hi, b.lo, false), e.below(b.hi, a.lo, true)
	case engine.OpGt:
		yes, no = e.below(b.hi, a.lo, true), e.below(a.hi, b.lo, false)
	case engine.OpGe:
		yes, no = e.below(b.hi, a.lo, false), e.below(a.hi, b.lo, true)
	default:
		apart := e.either(e.below(a.hi, b.lo, true), e.below(b.hi, a.lo, true))
		var same *z3.Expr
		if l, r := e.below(a.hi, b.lo, false), e.below(b.hi, a.lo, false); l != nil && r != nil {
			same = c.And(l, r)
		}
		yes, no = same, apart
		if x.Op == engine.OpNe {
			yes, no = apart, same
		}
	}
	decided := e.either(yes, no)
	if decided == nil {
		return out, nil // no answers bound these sides: Kleene's rule alone
	}
	if yes == nil {
		yes = c.Bool(false)
	}
	return term{sort: out.sort, known: c.Or(out.known, decided), val: c.Ite(out.known, out.val, yes)}, nil
}

// either is a or b, where nil stands for false.
func (e *Encoding) either(a, b *z3.Expr) *z3.Expr {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return e.c.Or(a, b)
}

// below is "a is below b" (at most b unless strict); nil (false) when
// either end is never bounded.
func (e *Encoding) below(a, b end, strict bool) *z3.Expr {
	if a.never || b.never {
		return nil
	}
	c := e.c
	cmp := c.Le(a.v, b.v)
	if strict {
		cmp = c.Lt(a.v, b.v)
	}
	return c.And(e.finAll(a, b).fin, cmp)
}

// finAll is an end bounded when both a and b are (its v is unset).
func (e *Encoding) finAll(a, b end) end {
	switch {
	case a.never || b.never:
		return end{fin: e.c.Bool(false), never: true}
	case a.always:
		return end{fin: b.fin, always: b.always}
	case b.always:
		return end{fin: a.fin}
	}
	return end{fin: e.c.And(a.fin, b.fin)}
}

// span is the range x can still take, as engine's machine.bounds computes
// it: its value when known, otherwise what its kind allows.
func (e *Encoding) span(x *engine.Expr) (span, error) {
	t, err := e.expr(x)
	if err != nil {
		return span{}, err
	}
	if x.Kind == engine.ExprConst {
		return e.pointSpan(t), nil
	}
	inner, err := e.unknownSpan(x)
	if err != nil {
		return span{}, err
	}
	return e.eitherSpan(t.known, e.pointSpan(t), inner), nil
}

// unknownSpan is the range of x while its value is unknown.
func (e *Encoding) unknownSpan(x *engine.Expr) (span, error) {
	switch x.Kind {
	case engine.ExprField:
		out := e.unbounded()
		if g := e.r.Fields[x.Slot].Range; g != nil {
			if g.Min.Known {
				out.lo = e.bounded(e.real(g.Min))
			}
			if g.Max.Known {
				out.hi = e.bounded(e.real(g.Max))
			}
		}
		return out, nil
	case engine.ExprValue:
		return e.valueSpan(x.Slot)
	case engine.ExprOp:
	default:
		return e.unbounded(), nil
	}
	args := make([]span, 0, len(x.Args))
	switch x.Op {
	case engine.OpAdd, engine.OpSub, engine.OpNeg, engine.OpMin, engine.OpMax, engine.OpAbs, engine.OpIf:
		for _, a := range x.Args {
			if a.Sort == engine.SortBool {
				args = append(args, span{}) // an if's condition
				continue
			}
			s, err := e.span(a)
			if err != nil {
				return span{}, err
			}
			args = append(args, s)
		}
	}
	switch x.Op {
	case engine.OpAdd:
		return e.sumSpan(args[0], args[1]), nil
	case engine.OpSub:
		return e.sumSpan(args[0], e.negSpan(args[1])), nil
	case engine.OpNeg:
		return e.negSpan(args[0]), nil
	case engine.OpMul:
		for i, k := range x.Args {
			if k.Kind == engine.ExprConst {
				s, err := e.span(x.Args[1-i])
				if err != nil {
					return span{}, err
				}
				return e.scaledSpan(s, k.Const), nil
			}
		}
	case engine.OpIf:
		cond, err := e.expr(x.Args[0])
		if err != nil {
			return span{}, err
		}
		yes, no := args[1], args[2]
		hull := span{e.pick(yes.lo, no.lo, false, true), e.pick(yes.hi, no.hi, true, true)}
		return e.eitherSpan(cond.known, e.eitherSpan(cond.val, yes, no), hull), nil
	case engine.OpMin, engine.OpMax:
		out := args[0]
		for _, b := range args[1:] {
			if x.Op == engine.OpMin {
				out = span{e.pick(out.lo, b.lo, false, true), e.pick(out.hi, b.hi, false, false)}
			} else {
				out = span{e.pick(out.lo, b.lo, true, false), e.pick(out.hi, b.hi, true, true)}
			}
		}
		return out, nil
	case engine.OpDefault:
		return e.span(x.Args[1])
	case engine.OpAbs:
		return e.absSpan(args[0]), nil
	case engine.OpFloor, engine.OpCeil, engine.OpRound:
		if step := x.Args[1]; step.Kind == engine.ExprConst && step.Const.Num > 0 {
			a, err := e.span(x.Args[0])
			if err != nil {
				return span{}, err
			}
			k := e.constant(step.Sort, step.Const)
			round := func(v end) end {
				if v.never {
					return v
				}
				v.v = e.rounded(x.Op, engine.SortDecimal, term{sort: engine.SortDecimal, val: v.v}, k)
				return v
			}
			return span{round(a.lo), round(a.hi)}, nil
		}
	}
	return e.unbounded(), nil
}

// valueSpan is the range of named value i's expression, once per value
// (a table's is unbounded: its row is not known).
func (e *Encoding) valueSpan(i int) (span, error) {
	if e.spans == nil {
		e.spans = make([]*span, len(e.r.Values))
	}
	if s := e.spans[i]; s != nil {
		return *s, nil
	}
	v := &e.r.Values[i]
	s := e.unbounded()
	if !v.Table && v.Expr != nil {
		var err error
		if s, err = e.span(v.Expr); err != nil {
			return span{}, err
		}
	}
	e.spans[i] = &s
	return s, nil
}

// real is the engine number v as a Real.
func (e *Encoding) real(v value.Value) *z3.Expr { return e.c.RealRat(ValueRat(v)) }

// bounded is an end that is v whatever the answers.
func (e *Encoding) bounded(v *z3.Expr) end { return end{fin: e.c.Bool(true), v: v, always: true} }

// pointSpan is the range of t's value alone.
func (e *Encoding) pointSpan(t term) span {
	v := e.bounded(e.coerce(t, engine.SortDecimal))
	return span{v, v}
}

// unbounded is the range of a number nothing is known of.
func (e *Encoding) unbounded() span {
	off := end{fin: e.c.Bool(false), v: e.real(value.IntValue(0)), never: true}
	return span{off, off}
}

// eitherSpan is a where cond holds, b otherwise.
func (e *Encoding) eitherSpan(cond *z3.Expr, a, b span) span {
	return span{e.eitherEnd(cond, a.lo, b.lo), e.eitherEnd(cond, a.hi, b.hi)}
}

// eitherEnd is a where cond holds, b otherwise; the value of an end never
// bounded is never read, so the other's stands for it.
func (e *Encoding) eitherEnd(cond *z3.Expr, a, b end) end {
	c := e.c
	switch {
	case a.never && b.never:
		return a
	case a.never:
		return end{fin: c.And(c.Not(cond), b.fin), v: b.v}
	case b.never:
		return end{fin: c.And(cond, a.fin), v: a.v}
	}
	out := end{v: c.Ite(cond, a.v, b.v), always: a.always && b.always}
	out.fin = c.Bool(true)
	if !out.always {
		out.fin = c.Ite(cond, a.fin, b.fin)
	}
	return out
}

// pick is the greater (greater) or lesser of two ends. With
// unboundedWins an unbounded end is the result (it stands for an
// infinity on the side asked for); otherwise it is passed over for the
// other, as engine's lower and upper do.
func (e *Encoding) pick(a, b end, greater, unboundedWins bool) end {
	c := e.c
	switch {
	case a.never || b.never:
		if unboundedWins {
			return e.unbounded().lo
		}
		if a.never {
			return b
		}
		return a
	}
	bBetter := c.Lt(b.v, a.v)
	if greater {
		bBetter = c.Gt(b.v, a.v)
	}
	better := c.Ite(bBetter, b.v, a.v)
	both := e.finAll(a, b)
	if both.always {
		return end{fin: both.fin, v: better, always: true}
	}
	v := c.Ite(both.fin, better, c.Ite(a.fin, a.v, b.v))
	if unboundedWins {
		return end{fin: both.fin, v: v}
	}
	return end{fin: c.Or(a.fin, b.fin), v: v, always: a.always || b.always}
}

// sumSpan is the range of a + b.
func (e *Encoding) sumSpan(a, b span) span {
	add := func(x, y end) end {
		out := e.finAll(x, y)
		if !out.never {
			out.v = e.c.Add(x.v, y.v)
		} else {
			out.v = x.v
		}
		return out
	}
	return span{add(a.lo, b.lo), add(a.hi, b.hi)}
}

// negSpan is the range of -a.
func (e *Encoding) negSpan(a span) span {
	neg := func(x end) end {
		if !x.never {
			x.v = e.c.Neg(x.v)
		}
		return x
	}
	return span{neg(a.hi), neg(a.lo)}
}

// scaledSpan is the range of a times the constant k.
func (e *Encoding) scaledSpan(a span, k value.Value) span {
	if k.Num == 0 {
		z := e.bounded(e.real(k))
		return span{z, z}
	}
	if k.Num < 0 {
		a = span{a.hi, a.lo}
	}
	kv := e.real(k)
	scale := func(x end) end {
		if !x.never {
			x.v = e.c.Mul(x.v, kv)
		}
		return x
	}
	return span{scale(a.lo), scale(a.hi)}
}

// absSpan is the range of abs(a).
func (e *Encoding) absSpan(a span) span {
	c := e.c
	zero := e.bounded(e.real(value.IntValue(0)))
	n := e.negSpan(a)
	straddle := span{zero, e.pick(n.hi, a.hi, true, true)}
	orFalse := func(x *z3.Expr) *z3.Expr {
		if x == nil {
			return c.Bool(false)
		}
		return x
	}
	nonNegative := orFalse(e.below(zero, a.lo, false))
	nonPositive := orFalse(e.below(a.hi, zero, false))
	return e.eitherSpan(nonNegative, a, e.eitherSpan(nonPositive, n, straddle))
}
