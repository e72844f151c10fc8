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
// otherwise.
type end struct {
	fin, v *z3.Expr
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
		apart := c.Or(e.below(a.hi, b.lo, true), e.below(b.hi, a.lo, true))
		same := c.And(e.below(a.hi, b.lo, false), e.below(b.hi, a.lo, false))
		yes, no = same, apart
		if x.Op == engine.OpNe {
			yes, no = apart, same
		}
	}
	return term{sort: out.sort, known: c.Or(out.known, yes, no), val: c.Ite(out.known, out.val, yes)}, nil
}

// below is "a is below b" (at most b unless strict), false when either end
// is unbounded.
func (e *Encoding) below(a, b end, strict bool) *z3.Expr {
	c := e.c
	cmp := c.Le(a.v, b.v)
	if strict {
		cmp = c.Lt(a.v, b.v)
	}
	return c.And(a.fin, b.fin, cmp)
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
	c := e.c
	switch x.Kind {
	case engine.ExprField:
		var out span
		out.lo.fin, out.hi.fin = c.Bool(false), c.Bool(false)
		out.lo.v, out.hi.v = e.real(value.IntValue(0)), e.real(value.IntValue(0))
		if g := e.r.Fields[x.Slot].Range; g != nil {
			if g.Min.Known {
				out.lo = end{c.Bool(true), e.real(g.Min)}
			}
			if g.Max.Known {
				out.hi = end{c.Bool(true), e.real(g.Max)}
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
	operands := func() error {
		for _, a := range x.Args {
			s, err := e.span(a)
			if err != nil {
				return err
			}
			args = append(args, s)
		}
		return nil
	}
	switch x.Op {
	case engine.OpAdd, engine.OpSub, engine.OpNeg, engine.OpMin, engine.OpMax, engine.OpAbs:
		if err := operands(); err != nil {
			return span{}, err
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
		yes, err := e.span(x.Args[1])
		if err != nil {
			return span{}, err
		}
		no, err := e.span(x.Args[2])
		if err != nil {
			return span{}, err
		}
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
				return end{v.fin, e.rounded(x.Op, engine.SortDecimal, term{sort: engine.SortDecimal, val: v.v}, k)}
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

// pointSpan is the range of t's value alone.
func (e *Encoding) pointSpan(t term) span {
	v := e.coerce(t, engine.SortDecimal)
	on := e.c.Bool(true)
	return span{end{on, v}, end{on, v}}
}

// unbounded is the range of a number nothing is known of.
func (e *Encoding) unbounded() span {
	off, zero := e.c.Bool(false), e.real(value.IntValue(0))
	return span{end{off, zero}, end{off, zero}}
}

// eitherSpan is a where cond holds, b otherwise.
func (e *Encoding) eitherSpan(cond *z3.Expr, a, b span) span {
	return span{e.eitherEnd(cond, a.lo, b.lo), e.eitherEnd(cond, a.hi, b.hi)}
}

func (e *Encoding) eitherEnd(cond *z3.Expr, a, b end) end {
	c := e.c
	return end{c.Ite(cond, a.fin, b.fin), c.Ite(cond, a.v, b.v)}
}

// pick is the greater (greater) or lesser of two ends. With
// unboundedWins an unbounded end is the result (it stands for an
// infinity on the side asked for); otherwise it is passed over for the
// other, as engine's lower and upper do.
func (e *Encoding) pick(a, b end, greater, unboundedWins bool) end {
	c := e.c
	bBetter := c.Lt(b.v, a.v)
	if greater {
		bBetter = c.Gt(b.v, a.v)
	}
	both := c.And(a.fin, b.fin)
	v := c.Ite(both, c.Ite(bBetter, b.v, a.v), c.Ite(a.fin, a.v, b.v))
	if unboundedWins {
		return end{both, v}
	}
	return end{c.Or(a.fin, b.fin), v}
}

// sumSpan is the range of a + b.
func (e *Encoding) sumSpan(a, b span) span {
	c := e.c
	add := func(x, y end) end { return end{c.And(x.fin, y.fin), c.Add(x.v, y.v)} }
	return span{add(a.lo, b.lo), add(a.hi, b.hi)}
}

// negSpan is the range of -a.
func (e *Encoding) negSpan(a span) span {
	c := e.c
	return span{end{a.hi.fin, c.Neg(a.hi.v)}, end{a.lo.fin, c.Neg(a.lo.v)}}
}

// scaledSpan is the range of a times the constant k.
func (e *Encoding) scaledSpan(a span, k value.Value) span {
	c := e.c
	if k.Num == 0 {
		on, zero := c.Bool(true), e.real(k)
		return span{end{on, zero}, end{on, zero}}
	}
	if k.Num < 0 {
		a = span{a.hi, a.lo}
	}
	kv := e.real(k)
	return span{end{a.lo.fin, c.Mul(a.lo.v, kv)}, end{a.hi.fin, c.Mul(a.hi.v, kv)}}
}

// absSpan is the range of abs(a).
func (e *Encoding) absSpan(a span) span {
	c := e.c
	zero := end{c.Bool(true), e.real(value.IntValue(0))}
	nonNegative := e.below(zero, a.lo, false)
	nonPositive := e.below(a.hi, zero, false)
	n := e.negSpan(a)
	straddle := span{zero, e.pick(n.hi, a.hi, true, true)}
	return e.eitherSpan(nonNegative, a, e.eitherSpan(nonPositive, n, straddle))
}
