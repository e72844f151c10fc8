package value

import (
	"math"
	"math/big"
	"math/bits"
)

// The arithmetic the law uses beyond +, - and *: division, rounding to a
// step (whole dollars, cents, tens), floor, ceil and abs. Every operation is
// exact on the scaled integers of value.go, or defined: a quotient that does
// not end within QuotientPlaces decimal places is rounded half away from
// zero at the last of them, and a result that does not fit is an overflow,
// never a rounded or wrapped figure. The solver encodes the same rules
// (engine/syntax/GRAMMAR.md, "Division and rounding").

// QuotientPlaces is the number of decimal places a quotient keeps when it
// does not end sooner: 1/3 is 0.33333333. Eight places keep a cent exact
// through any division the law does to money (a year into weeks, months
// or days) and leave ten integer digits, ample for any amount a benefit
// rule divides.
const QuotientPlaces = 8

// Rounding says which way a figure that falls between two steps goes.
type Rounding uint8

// The roundings of the language. HalfUp is what "round to the nearest
// dollar" means in benefit law: half a step and more goes up, away from
// zero for a negative figure, so -2.5 rounds to -3 as 2.5 rounds to 3.
const (
	RoundHalfUp Rounding = iota
	RoundDown            // toward minus infinity: floor
	RoundUp              // toward plus infinity: ceil
)

// Fault says why an arithmetic operation has no result.
type Fault uint8

const (
	NoFault   Fault = iota
	Overflow        // the exact result does not fit
	DivByZero       // the divisor is zero
	BadStep         // the step is zero or negative
)

// Quo returns a/b: exact when the quotient ends within QuotientPlaces
// decimal places, otherwise rounded half away from zero at the last place.
func Quo(a, b Value) (Value, Fault) {
	if b.Num == 0 {
		return Value{}, DivByZero
	}
	x, y, _, ok := align(a, b)
	if !ok {
		return bigQuo(a, b, QuotientPlaces, RoundHalfUp)
	}
	if x == 0 {
		return Value{Known: true}, NoFault
	}
	neg := (x < 0) != (y < 0)
	ux, uy := magnitude(x), magnitude(y)
	// The quotient at QuotientPlaces places is ux·10^p / uy, computed in
	// 128 bits; bits.Div64 needs the high word below the divisor, which is
	// exactly the condition that the quotient fits 64 bits.
	hi, lo := bits.Mul64(ux, uint64(pow10[QuotientPlaces]))
	if hi >= uy {
		return bigQuo(a, b, QuotientPlaces, RoundHalfUp)
	}
	q, r := bits.Div64(hi, lo, uy)
	if r >= uy-r { // r ≥ uy/2 without overflow: half and more rounds away
		if q == math.MaxUint64 {
			return bigQuo(a, b, QuotientPlaces, RoundHalfUp)
		}
		q++
	}
	scale := uint8(QuotientPlaces)
	for scale > 0 && q%10 == 0 {
		q /= 10
		scale--
	}
	return signed(q, neg, scale)
}

// RoundTo rounds a to a whole multiple of step (a positive number: 1 for
// whole units, 0.01 for cents, 10 for tens) the way mode says.
func RoundTo(a, step Value, mode Rounding) (Value, Fault) {
	if step.Num <= 0 {
		return Value{}, BadStep
	}
	x, y, _, ok := align(a, step)
	if !ok {
		return bigRoundStep(a, step, mode)
	}
	q, r := x/y, x%y // truncated toward zero; r has x's sign
	switch mode {
	case RoundDown:
		if r < 0 {
			q--
		}
	case RoundUp:
		if r > 0 {
			q++
		}
	default:
		if ur := magnitude(r); ur >= uint64(y)-ur {
			if r < 0 {
				q--
			} else {
				q++
			}
		}
	}
	v, ok := Mul(Value{Num: q, Known: true}, step)
	if !ok {
		return bigRoundStep(a, step, mode)
	}
	return v, NoFault
}

// Abs returns |a|, or an overflow for the one int64 without a positive
// counterpart.
func Abs(a Value) (Value, Fault) {
	if a.Num >= 0 {
		return a, NoFault
	}
	v, ok := Neg(a)
	if !ok {
		return Value{}, Overflow
	}
	return v, NoFault
}

// magnitude is |n| as an unsigned number; it is exact for math.MinInt64 too.
func magnitude(n int64) uint64 {
	if n < 0 {
		return -uint64(n)
	}
	return uint64(n)
}

// signed makes the Value ±u / 10^scale, or an overflow when it does not fit
// an int64.
func signed(u uint64, neg bool, scale uint8) (Value, Fault) {
	if neg {
		if u > 1<<63 {
			return Value{}, Overflow
		}
		return Value{Num: -int64(u), Scale: scale, Known: true}, NoFault
	}
	if u > math.MaxInt64 {
		return Value{}, Overflow
	}
	return Value{Num: int64(u), Scale: scale, Known: true}, NoFault
}

// The slow paths below take over where a figure's digits do not fit the
// 64- and 128-bit fast paths (a huge amount beside one with many decimal
// places). They compute the same result exactly with math/big, so an
// overflow means the rounded result itself does not fit, never that an
// intermediate step did; no decision of real law reaches them.

// bigQuo is a/b rounded by mode to places decimal places.
func bigQuo(a, b Value, places int, mode Rounding) (Value, Fault) {
	// a/b = (a.Num·10^b.Scale) / (b.Num·10^a.Scale); scaled by 10^places.
	n := scaledInt(a.Num, places+int(b.Scale))
	d := scaledInt(b.Num, int(a.Scale))
	return bigValue(divRounded(n, d, mode), places)
}

// bigRoundStep is a rounded by mode to a whole multiple of step.
func bigRoundStep(a, step Value, mode Rounding) (Value, Fault) {
	n := scaledInt(a.Num, int(step.Scale))
	d := scaledInt(step.Num, int(a.Scale))
	q := divRounded(n, d, mode)
	return bigValue(q.Mul(q, big.NewInt(step.Num)), int(step.Scale))
}

// scaledInt is n·10^e as a big integer.
func scaledInt(n int64, e int) *big.Int {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil)
	return p.Mul(p, big.NewInt(n))
}

// divRounded is n/d rounded by mode; d is not zero.
func divRounded(n, d *big.Int, mode Rounding) *big.Int {
	if d.Sign() < 0 {
		n, d = new(big.Int).Neg(n), new(big.Int).Neg(d)
	}
	q, m := new(big.Int).DivMod(n, d, new(big.Int)) // floor, 0 ≤ m < d
	switch mode {
	case RoundDown:
	case RoundUp:
		if m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
	default:
		twice := m.Lsh(m, 1)
		// Half away from zero: for n ≥ 0 go up at exactly half; for n < 0
		// the floor is already the way away, so go up only above half.
		if c := twice.Cmp(d); c > 0 || (c == 0 && n.Sign() >= 0) {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// bigValue is the Value q/10^scale in normal form, or an overflow when it
// does not fit.
func bigValue(q *big.Int, scale int) (Value, Fault) {
	ten := big.NewInt(10)
	r := new(big.Int)
	for scale > 0 {
		t, m := new(big.Int).QuoRem(q, ten, r)
		if m.Sign() != 0 {
			break
		}
		q = t
		scale--
	}
	if !q.IsInt64() || scale > math.MaxUint8 {
		return Value{}, Overflow
	}
	return Value{Num: q.Int64(), Scale: uint8(scale), Known: true}, NoFault
}
