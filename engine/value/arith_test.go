package value

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func num(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseNumber(s)
	if err != nil {
		t.Fatalf("ParseNumber(%q): %v", s, err)
	}
	return v
}

func TestQuotient(t *testing.T) {
	for _, tt := range []struct {
		a, b, want string
		err        Fault
	}{
		{"12000", "12", "1000", NoFault},
		{"1", "3", "0.33333333", NoFault},
		{"2", "3", "0.66666667", NoFault},
		{"-2", "3", "-0.66666667", NoFault},
		{"2", "-3", "-0.66666667", NoFault},
		{"1", "8", "0.125", NoFault},
		{"0.000000005", "1", "0.00000001", NoFault}, // half a unit of the last place rounds away
		{"-0.000000005", "1", "-0.00000001", NoFault},
		{"0.0000000049", "1", "0", NoFault},
		{"31200", "52", "600", NoFault},
		{"1250.50", "0.5", "2501", NoFault},
		{"0", "7", "0", NoFault},
		{"5", "0", "", DivByZero},
		{"0", "0", "", DivByZero},
		{"1000000000000", "8", "125000000000", NoFault}, // exact, though too long at eight places
		{"900000000000000000", "1", "900000000000000000", NoFault},
		{"900000000000000000", "900000000000000", "1000", NoFault},
		{"1000000000000", "3", "", Overflow}, // 333333333333.33333333 has 20 digits
		{"92233720368", "10", "9223372036.8", NoFault},
	} {
		got, err := Quo(num(t, tt.a), num(t, tt.b))
		if err != tt.err {
			t.Errorf("%s / %s: error %d, want %d", tt.a, tt.b, err, tt.err)
			continue
		}
		if err == NoFault && got.NumberString() != tt.want {
			t.Errorf("%s / %s = %s, want %s", tt.a, tt.b, got.NumberString(), tt.want)
		}
	}
}

func TestRoundToStep(t *testing.T) {
	for _, tt := range []struct {
		a, step string
		mode    Rounding
		want    string
	}{
		{"1187.40", "1", RoundHalfUp, "1187"},
		{"1187.50", "1", RoundHalfUp, "1188"},
		{"-1187.50", "1", RoundHalfUp, "-1188"},
		{"-1187.49", "1", RoundHalfUp, "-1187"},
		{"1187.999", "0.01", RoundHalfUp, "1188"},
		{"1187.994", "0.01", RoundHalfUp, "1187.99"},
		{"1187.995", "0.01", RoundHalfUp, "1188"},
		{"1187.99", "1", RoundDown, "1187"},
		{"-1187.01", "1", RoundDown, "-1188"},
		{"1187.01", "1", RoundUp, "1188"},
		{"-1187.99", "1", RoundUp, "-1187"},
		{"1187", "1", RoundUp, "1187"},
		{"1234", "10", RoundHalfUp, "1230"},
		{"1235", "10", RoundHalfUp, "1240"},
		{"1235", "10", RoundDown, "1230"},
		{"7", "2.5", RoundHalfUp, "7.5"},
		{"0", "0.01", RoundUp, "0"},
	} {
		got, err := RoundTo(num(t, tt.a), num(t, tt.step), tt.mode)
		if err != NoFault || got.NumberString() != tt.want {
			t.Errorf("round(%s, %s, mode %d) = %s (error %d), want %s", tt.a, tt.step, tt.mode, got.NumberString(), err, tt.want)
		}
	}
	for _, step := range []string{"0", "-1"} {
		if _, err := RoundTo(num(t, "5"), num(t, step), RoundHalfUp); err != BadStep {
			t.Errorf("round(5, %s): error %d, want a bad step", step, err)
		}
	}
}

func TestAbs(t *testing.T) {
	for _, tt := range []struct{ a, want string }{{"-3.25", "3.25"}, {"3.25", "3.25"}, {"0", "0"}} {
		if got, err := Abs(num(t, tt.a)); err != NoFault || got.NumberString() != tt.want {
			t.Errorf("abs(%s) = %s (error %d), want %s", tt.a, got.NumberString(), err, tt.want)
		}
	}
	if _, err := Abs(Value{Num: math.MinInt64, Known: true}); err != Overflow {
		t.Errorf("abs(MinInt64): error %d, want an overflow", err)
	}
}

// randomNumber draws a number whose digits and scale vary over the whole
// range the language allows, biased toward the small figures of real law.
func randomNumber(r *rand.Rand) Value {
	var n int64
	switch r.IntN(3) {
	case 0:
		n = r.Int64N(2000) - 1000
	case 1:
		n = r.Int64N(1_000_000_000) - 500_000_000
	default:
		n = int64(r.Uint64())
	}
	return Value{Num: n, Scale: uint8(r.IntN(12)), Known: true}
}

func ratOf(v Value) *big.Rat {
	return new(big.Rat).SetFrac(big.NewInt(v.Num), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Scale)), nil))
}

// roundRat rounds x to a whole multiple of step by mode, exactly.
func roundRat(x, step *big.Rat, mode Rounding) *big.Rat {
	q := new(big.Rat).Quo(x, step)
	n, d := q.Num(), q.Denom()
	fl := new(big.Int).Div(n, d) // Euclidean: floor for d > 0
	switch mode {
	case RoundDown:
	case RoundUp:
		if new(big.Int).Mul(fl, d).Cmp(n) != 0 {
			fl.Add(fl, big.NewInt(1))
		}
	default:
		// half away from zero: floor(|q| + 1/2) with q's sign
		abs := new(big.Rat).Abs(q)
		abs.Add(abs, big.NewRat(1, 2))
		fl = new(big.Int).Div(abs.Num(), abs.Denom())
		if q.Sign() < 0 {
			fl.Neg(fl)
		}
	}
	return new(big.Rat).Mul(new(big.Rat).SetInt(fl), step)
}

// fits reports whether x is a Value the engine can hold (an int64 count
// of a power of ten's parts), and that Value in normal form.
func fits(x *big.Rat) (Value, bool) {
	n := new(big.Int).Set(x.Num())
	d := x.Denom()
	scale := 0
	ten := big.NewInt(10)
	for scale <= 255 && new(big.Int).Rem(n, d).Sign() != 0 {
		n.Mul(n, ten)
		scale++
	}
	n.Quo(n, d)
	if scale > 255 || !n.IsInt64() {
		return Value{}, false
	}
	return Value{Num: n.Int64(), Scale: uint8(scale), Known: true}, true
}

// TestArithmeticAgreesWithExactRationals checks quotients and rounding
// against math/big over numbers across the whole range: every result is
// the exactly rounded figure, or an overflow only when that figure does not
// fit an int64 at its scale.
func TestArithmeticAgreesWithExactRationals(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	place := big.NewRat(1, 100_000_000)
	for i := 0; i < 20000; i++ {
		a, b := randomNumber(r), randomNumber(r)
		if b.Num != 0 {
			want := roundRat(new(big.Rat).Quo(ratOf(a), ratOf(b)), place, RoundHalfUp)
			got, err := Quo(a, b)
			wantV, ok := fits(want)
			switch {
			case err == Overflow && !ok:
			case err != NoFault && err != Overflow, err == NoFault && !ok:
				t.Fatalf("%s / %s: error %d, want %s", a.NumberString(), b.NumberString(), err, want.FloatString(8))
			case err == NoFault && ratOf(got).Cmp(want) != 0:
				t.Fatalf("%s / %s = %s, want %s", a.NumberString(), b.NumberString(), got.NumberString(), want.FloatString(8))
			case err == NoFault && got != wantV:
				t.Fatalf("%s / %s = %+v, not in normal form %+v", a.NumberString(), b.NumberString(), got, wantV)
			case err == Overflow && ok:
				t.Fatalf("%s / %s overflowed, want %s", a.NumberString(), b.NumberString(), want.FloatString(8))
			}
		}
		step := Value{Num: 1 + r.Int64N(100), Scale: uint8(r.IntN(4)), Known: true}
		mode := Rounding(r.IntN(3))
		got, err := RoundTo(a, step, mode)
		want := roundRat(ratOf(a), ratOf(step), mode)
		if err == NoFault && ratOf(got).Cmp(want) != 0 {
			t.Fatalf("round(%s, %s, %d) = %s, want %s", a.NumberString(), step.NumberString(), mode, got.NumberString(), want.FloatString(6))
		}
		if _, ok := fits(want); (err == Overflow) == ok {
			t.Fatalf("round(%s, %s, %d): error %d, want %s", a.NumberString(), step.NumberString(), mode, err, want.FloatString(6))
		}
	}
}
