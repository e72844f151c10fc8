package solver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/solvertest"
	"github.com/eligo/eligo/solver/z3"
)

// TestDifferentialCasebank checks the encoding against the evaluator. For
// every casebank ruleset it draws random partial answer sets (seeded, so a
// failure reproduces), biased toward the boundary values of the constants
// the rules compare with, each with a random decision date, and asks Z3
// whether the answers allow any outcome, criterion or group status other
// than the evaluator's. Unsat means the encoding fixes every status to the
// evaluator's value (the answers alone are checked satisfiable first, so
// unsat cannot come from contradictory axioms); a model is a disagreement
// and fails the test with the answers that show it.
//
// Samples: 400 per ruleset by default (about 5,000 over the casebank, a few
// seconds under -race), 5,000 per ruleset with -long, or the number given
// by -differential-samples (`make test` runs 2,000 per ruleset, some 26,000
// answer sets, in the plain build). Each casebank ruleset
// also runs its own cases first. The rulesets of solver/testdata join them:
// they use every operator, presence operators included, which the casebank
// reads only in part; so do those of solver/testdata/values, which compute
// with named values, if, division and rounding (each value the evaluator
// knows is compared too), and those of solver/testdata/shift, which shift
// dates (add_days, add_months, add_years) in every way the language
// allows. A ruleset that shifts dates draws 60 samples (at most 300 with
// -long or -differential-samples), each check with a longer timeout.
func TestDifferentialCasebank(t *testing.T) {
	samples := 400
	if solvertest.Long() {
		samples = 5000
	}
	if *differentialSamples > 0 {
		samples = *differentialSamples
	}
	rulesets := append(solvertest.Casebank(t), solvertest.Testdata(t)...)
	rulesets = append(rulesets, solvertest.ValuesTestdata(t)...)
	for i, cb := range append(rulesets, solvertest.ShiftTestdata(t)...) {
		t.Run(cb.Name, func(t *testing.T) {
			t.Parallel()
			timeout := 10 * time.Second
			if shiftsDates(cb.Rules) {
				// Each shifted date is a calendar decomposition of its
				// own: a check costs Z3 far more.
				timeout = 60 * time.Second
			}
			d := newDifferential(t, cb.Rules, timeout)
			for _, c := range cb.Cases {
				in, err := cb.Rules.Convert(c.FieldValues)
				if err != nil {
					t.Fatal(err)
				}
				date, err := cb.Rules.CaseDate(c)
				if err != nil {
					t.Fatal(err)
				}
				d.check(t, in, date, "case "+c.Name)
			}
			n := samples
			if shiftsDates(cb.Rules) {
				// 60 samples in the quick run (under the race detector a
				// sample costs seconds), at most 300 when more are asked.
				n = min(n, 60)
				if solvertest.Long() || *differentialSamples > 0 {
					n = min(samples, 300)
				}
			}
			s := enginetest.NewSampler(cb.Rules, uint64(i+1))
			for n := range n {
				date := s.DecisionDate()
				answered := []float64{0.3, 0.7, 1}[n%3]
				d.check(t, s.Inputs(answered, date), date, fmt.Sprintf("sample %d", n))
			}
		})
	}
}

// shiftsDates reports whether some criterion of r calls add_days,
// add_months or add_years.
func shiftsDates(r *engine.Ruleset) bool {
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		found := false
		WalkExpr(c.Expr, func(x *engine.Expr) {
			found = found || x.Kind == engine.ExprOp && (x.Op == engine.OpAddDays || x.Op == engine.OpAddMonths || x.Op == engine.OpAddYears)
		})
		if found {
			return true
		}
	}
	return false
}

// differential holds one ruleset's encoding and a solver with its axioms.
type differential struct {
	r   *engine.Ruleset
	c   *z3.Context
	enc *Encoding
	s   *z3.Solver
}

func newDifferential(t *testing.T, r *engine.Ruleset, timeout time.Duration) *differential {
	t.Helper()
	c, enc, s := encodedSolver(t, r, timeout)
	return &differential{r: r, c: c, enc: enc, s: s}
}

// check compares the evaluator's decision on in with the encoding's.
func (d *differential) check(t *testing.T, in *engine.Inputs, date int64, label string) {
	t.Helper()
	if len(in.FieldErrors) > 0 {
		return // a case about unreadable answers: nothing to encode
	}
	res := d.r.Evaluate(in, engine.Options{DecisionDate: date})
	if len(res.FieldErrors) > 0 {
		t.Fatalf("%s: the sample overflowed: %v", label, res.FieldErrors)
	}
	if date == 0 {
		date = res.DecisionDate
	}
	c, enc := d.c, d.enc
	facts, err := enc.Facts(in)
	if err != nil {
		t.Fatal(err)
	}
	same := []*z3.Expr{enc.OutcomeIs(res.Outcome)}
	for i, st := range res.Criteria {
		same = append(same, enc.CriterionIs(i, st))
	}
	for i, v := range res.Values {
		// The evaluator computes the values a decision needs; each one
		// it knows must be the encoding's figure.
		if v.Known {
			is, err := enc.ValueIs(i, v)
			if err != nil {
				t.Fatal(err)
			}
			same = append(same, is)
		}
	}
	for g, st := range res.Groups {
		same = append(same, enc.GroupIs(g, st))
	}
	if err := d.s.Push(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.s.Pop(1); err != nil {
			t.Fatal(err)
		}
	}()
	for _, f := range append(facts, enc.DecisionDateIs(date)) {
		if err := d.s.Assert(f); err != nil {
			t.Fatal(err)
		}
	}
	// The answers alone must be satisfiable, or the check below would pass
	// for nothing.
	if r, err := d.s.Check(context.Background()); err != nil || r != z3.Sat {
		t.Fatalf("%s: answers %s (decision date %s) are %v in the encoding: %v", label, solvertest.DescribeInputs(d.r, in), value.FormatDate(date), r, err)
	}
	if err := d.s.Assert(c.Not(c.And(same...))); err != nil {
		t.Fatal(err)
	}
	r, err := d.s.Check(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if r == z3.Unsat {
		return
	}
	m, err := d.s.Model()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	got, err := enc.Statuses(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Errorf("%s: answers %s (decision date %s): evaluator says %s, solver model %s",
		label, solvertest.DescribeInputs(d.r, in), value.FormatDate(date), describeResult(d.r, res.Outcome, res.Criteria), describeResult(d.r, got.Outcome, got.Criteria))
}

func describeResult(r *engine.Ruleset, o engine.Outcome, criteria []engine.Status) string {
	s := o.String() + " ["
	for i, st := range criteria {
		c, _ := r.CriterionAt(i)
		s += fmt.Sprintf(" %s:%s", c.ID, st)
	}
	return s + " ]"
}
