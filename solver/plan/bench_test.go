package plan

import (
	"context"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/solvertest"
)

// BenchmarkPlan measures the path search on the largest casebank ruleset
// (snap-income) with none, a third and two thirds of its fields answered:
//
//   - warm: the plan is in the planner's cache (what a repeated /decide
//     costs);
//   - cold: the plan cache is emptied before each call, the per-ruleset
//     precomputation (ways, prepared Z3 encodings) kept;
//   - first: a new planner each call, so the ways are derived and the
//     ruleset encoded into a fresh Z3 context as well.
func BenchmarkPlan(b *testing.B) {
	var rs *engine.Ruleset
	for _, cb := range solvertest.Casebank(b) {
		if cb.Name == "snap-income" {
			rs = cb.Rules
		}
	}
	if rs == nil {
		b.Fatal("snap-income is not in the casebank")
	}
	for _, tc := range []struct{ name, values string }{
		{"answered=0", `{}`},
		{"answered=1of3", `{"household.region": "contiguous_us_guam_vi", "household.size": 3}`},
		{"answered=2of3", `{"household.region": "contiguous_us_guam_vi", "household.size": 3, "income.gross_monthly": 2500}`},
	} {
		in, err := rs.Convert([]byte(tc.values))
		if err != nil {
			b.Fatal(err)
		}
		res := rs.Evaluate(in, solvertest.InForce(rs))
		ctx := context.Background()
		plan := func(b *testing.B, p *Planner) {
			if _, err := p.Plan(ctx, rs, in, res, InquiryContext{}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(tc.name+"/warm", func(b *testing.B) {
			p := NewPlanner(1024)
			defer p.Close()
			plan(b, p)
			for b.Loop() {
				plan(b, p)
			}
		})
		b.Run(tc.name+"/cold", func(b *testing.B) {
			p := NewPlanner(1024)
			defer p.Close()
			plan(b, p)
			for b.Loop() {
				p.plans.Purge()
				plan(b, p)
			}
		})
		b.Run(tc.name+"/first", func(b *testing.B) {
			for b.Loop() {
				p := NewPlanner(1024)
				plan(b, p)
				p.Close()
			}
		})
	}
}
