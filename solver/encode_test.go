package solver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/solvertest"
	"github.com/eligo/eligo/solver/z3"
)

// TestDecodeRoundTrip states random answer sets as facts and checks that
// Decode reads the same answers back from the model, for every sort.
func TestDecodeRoundTrip(t *testing.T) {
	for i, cb := range append(solvertest.Casebank(t), solvertest.Testdata(t)...) {
		t.Run(cb.Name, func(t *testing.T) {
			_, enc, s := encodedSolver(t, cb.Rules, 10*time.Second)
			smp := enginetest.NewSampler(cb.Rules, uint64(100+i))
			for n := range 50 {
				date := smp.DecisionDate()
				in := smp.Inputs(0.6, date)
				facts, err := enc.Facts(in)
				if err != nil {
					t.Fatal(err)
				}
				r, err := s.CheckAssumptions(context.Background(), append(facts, enc.DecisionDateIs(date))...)
				if err != nil || r != z3.Sat {
					t.Fatalf("sample %d: %v %v", n, r, err)
				}
				m, err := s.Model()
				if err != nil {
					t.Fatal(err)
				}
				got, gotDate, err := enc.Decode(m)
				m.Close()
				if err != nil {
					t.Fatal(err)
				}
				if cb.Rules.ReadsDecisionDate && gotDate != date {
					t.Errorf("sample %d: decision date %d, want %d", n, gotDate, date)
				}
				for f, want := range in.Values {
					g := got.Values[f]
					if g.Known != want.Known || want.Known && ValueRat(g).Cmp(ValueRat(want)) != 0 {
						t.Errorf("sample %d: %s decoded as %+v, want %+v", n, cb.Rules.Fields[f].ID, g, want)
					}
				}
			}
		})
	}
}

// TestVariantSharesOtherFields checks that a variant renames only the
// fields it is asked to: the same answers for the shared fields with
// different answers for the renamed one are satisfiable together, and the
// shared fields cannot differ.
func TestVariantSharesOtherFields(t *testing.T) {
	r := solvertest.Compile(t, `section v
source law "Law" url "https://example.org" licence "public-domain"
field a.x int
field a.y int
group g all "G" {
  criterion c "C" {
    a.x + a.y > 10
    cite law "c"
  }
}
`)
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	base, err := Encode(c, r)
	if err != nil {
		t.Fatal(err)
	}
	other, err := base.Variant("w", 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := base.NewSolver(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range other.Axioms() {
		if err := s.Assert(a); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	tests := []struct {
		name string
		fs   []*z3.Expr
		want z3.Result
	}{
		{"renamed field differs", []*z3.Expr{
			base.Answered(0, value.IntValue(1)), other.Answered(0, value.IntValue(20)),
			base.Answered(1, value.IntValue(0)),
			base.CriterionIs(0, engine.NotSatisfied), other.CriterionIs(0, engine.Satisfied)}, z3.Sat},
		{"shared field cannot differ", []*z3.Expr{
			base.Answered(1, value.IntValue(0)), other.Answered(1, value.IntValue(5))}, z3.Unsat},
		{"same answers, same status", []*z3.Expr{
			base.Answered(0, value.IntValue(6)), other.Answered(0, value.IntValue(6)),
			base.CriterionIs(0, engine.Satisfied), other.CriterionIs(0, engine.NotSatisfied)}, z3.Unsat},
	}
	for _, tc := range tests {
		got, err := s.CheckAssumptions(ctx, tc.fs...)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCalendarAxioms checks the date axioms against the engine's calendar
// in both directions: fixing only the ordinal yields the engine's year,
// month and day, and fixing only those yields the ordinal. Dates: the ends
// of the range, century and leap-day edges, and random ordinals.
func TestCalendarAxioms(t *testing.T) {
	r := solvertest.Compile(t, `section cal
source law "Law" url "https://example.org" licence "public-domain"
field a.d date
group g all "G" {
  criterion c "C" {
    years_between(a.d, date("2000-01-01")) >= 1
    cite law "c"
  }
}
`)
	c, enc, s := encodedSolver(t, r, 10*time.Second)
	parts := enc.fields[0].date
	if parts == nil || !enc.calendar[0] {
		t.Fatal("the date read by years_between has no calendar")
	}
	ords := []int64{1, MaxOrdinal}
	for _, ymd := range [][3]int{{1600, 2, 29}, {1700, 2, 28}, {1700, 3, 1}, {1900, 2, 28}, {1900, 3, 1}, {2000, 2, 29}, {2000, 12, 31}, {2024, 2, 29}, {2100, 3, 1}, {400, 12, 31}, {401, 1, 1}} {
		ords = append(ords, value.DateOrdinal(ymd[0], ymd[1], ymd[2]))
	}
	rnd := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		ords = append(ords, 1+rnd.Int64N(MaxOrdinal))
	}
	ctx := context.Background()
	for _, ord := range ords {
		y, m, d := value.Civil(ord)
		// Ordinal given: the parts follow.
		if res, err := s.CheckAssumptions(ctx, c.Eq(enc.fields[0].val, c.Int(ord))); err != nil || res != z3.Sat {
			t.Fatalf("%s: %v %v", value.FormatDate(ord), res, err)
		}
		m1, err := s.Model()
		if err != nil {
			t.Fatal(err)
		}
		gy, _ := m1.Int64(parts.y)
		gm, _ := m1.Int64(parts.m)
		gd, _ := m1.Int64(parts.d)
		m1.Close()
		if gy != int64(y) || gm != int64(m) || gd != int64(d) {
			t.Errorf("ordinal %d: parts %d-%d-%d, want %s", ord, gy, gm, gd, value.FormatDate(ord))
		}
		// Parts given: the ordinal follows.
		if res, err := s.CheckAssumptions(ctx, c.Eq(parts.y, c.Int(int64(y))), c.Eq(parts.m, c.Int(int64(m))), c.Eq(parts.d, c.Int(int64(d)))); err != nil || res != z3.Sat {
			t.Fatalf("%s: %v %v", value.FormatDate(ord), res, err)
		}
		m2, err := s.Model()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := m2.Int64(enc.fields[0].val)
		m2.Close()
		if got != ord {
			t.Errorf("%s: ordinal %d, want %d", value.FormatDate(ord), got, ord)
		}
	}
	// An impossible day is ruled out.
	if res, err := s.CheckAssumptions(ctx, c.Eq(parts.y, c.Int(1900)), c.Eq(parts.m, c.Int(2)), c.Eq(parts.d, c.Int(29))); err != nil || res != z3.Unsat {
		t.Errorf("1900-02-29: %v %v, want unsat", res, err)
	}
}

// TestWideMinCheck: a check over the wide min finds an answer set that
// satisfies it. Encoded as a chain, the min nested ten thousand
// if-then-else terms deep and Z3's recursive walk overflowed its stack in
// this first check, killing the process; the balanced tree nests fourteen
// deep.
func TestWideMinCheck(t *testing.T) {
	t.Parallel()
	r := solvertest.WideMin(t, 10000, 12)
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e, err := Encode(c, r)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.NewSolver(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Assert(e.OutcomeIs(engine.Eligible)); err != nil {
		t.Fatal(err)
	}
	res, err := s.Check(context.Background())
	if errors.Is(err, z3.ErrTimeout) {
		t.Logf("the check ran out of time on a loaded machine, as bounded: %v", err)
		return
	}
	if err != nil || res != z3.Sat {
		t.Fatalf("eligible under the wide min: %v, %v; want sat", res, err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	in, _, err := e.Decode(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Evaluate(in, engine.Options{}).Outcome; got != engine.Eligible {
		t.Errorf("the model's answers give %s in the evaluator, want eligible", got)
	}
}

// TestExtremumAgrees: the balanced min and max agree with the evaluator on
// every answer of a small grid, odd and even argument counts alike.
func TestExtremumAgrees(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 7, 8} {
		r := solvertest.WideMin(t, n, 3)
		c, err := z3.NewContext()
		if err != nil {
			t.Fatal(err)
		}
		e, err := Encode(c, r)
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.NewSolver(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for x := -2; x <= 4; x++ {
			for y := -2; y <= 4; y++ {
				in, err := r.Convert(fmt.Appendf(nil, `{"a.x": %d, "a.y": %d}`, x, y))
				if err != nil {
					t.Fatal(err)
				}
				want := r.Evaluate(in, engine.Options{}).Criteria[0]
				facts, _ := e.Facts(in)
				res, err := s.CheckAssumptions(context.Background(), append(facts, c.Not(e.CriterionIs(0, want)))...)
				if err != nil || res != z3.Unsat {
					t.Errorf("min of %d at x=%d y=%d: the encoding allows a status other than %s (%v, %v)", n, x, y, want, res, err)
				}
			}
		}
		s.Close()
		c.Close()
	}
}

// TestEncodeContext: building an encoding stops once its context ends.
func TestEncodeContext(t *testing.T) {
	t.Parallel()
	r := solvertest.WideMin(t, 10000, 12)
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EncodeContext(ctx, c, r); !errors.Is(err, context.Canceled) {
		t.Errorf("encoding under a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := EncodeContext(context.Background(), c, r); err != nil {
		t.Errorf("encoding: %v", err)
	}
}
