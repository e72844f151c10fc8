package verify

import (
	"math/big"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
)

// This file reads a comparison with a constant side as a threshold, so
// that goals can sit at, just below and just above it.

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
		return &engine.Expr{Kind: engine.ExprConst, Sort: engine.SortDate, Const: value.Value{Num: v.Num().Int64(), Known: true}}, true
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
		return value.FormatDate(v.Num().Int64())
	}
	if val, ok := solver.RatValue(v); ok {
		return val.NumberString()
	}
	return v.RatString()
}
