package plan

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
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
	rs := solvertest.CasebankRules(b, "snap-income")
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

// BenchmarkPlanSNAP measures next_question and optimal_path on full SNAP
// eligibility (casebank us-snap-eligibility: values and tables by fiscal
// year) at four stages of an interview, warm (the plan cached) and cold
// (the cache emptied each call), reporting the 99th percentile of the
// calls besides the mean; docs/performance.md records both.
func BenchmarkPlanSNAP(b *testing.B) {
	benchStages(b, "us-snap-eligibility", []benchStage{
		{"answered=0", `{}`},
		{"answered=household", `{"household.region": "48_states_dc", "household.size": 3, "household.elderly_or_disabled": false}`},
		{"answered=income", `{"household.region": "48_states_dc", "household.size": 3, "household.elderly_or_disabled": false, "income.earned": 2100, "income.unearned": 300}`},
		{"answered=expenses", `{"household.region": "48_states_dc", "household.size": 3, "household.elderly_or_disabled": false, "income.earned": 2100, "income.unearned": 300,
			"expenses.dependent_care": 200, "expenses.child_support_paid": 0, "shelter.rent_or_mortgage": 1100}`},
	})
}

// BenchmarkPlanHousehold is BenchmarkPlanSNAP on full SNAP with members
// (casebank us-snap-household: up to 8 people of 15 questions each, 130
// fields at the declared bound): nothing answered, the people listed
// with a little about each, and their incomes too.
func BenchmarkPlanHousehold(b *testing.B) {
	benchStages(b, "us-snap-household", []benchStage{
		{"answered=0", `{}`},
		{"answered=people", `{"household.region": "48_states_dc", "member": [{"age": 34, "citizenship": "citizen"}, {"age": 36, "higher_education_student": true}, {"age": 8}]}`},
		{"answered=income", `{"household.region": "48_states_dc", "member": [{"age": 34, "citizenship": "citizen", "earned": 2100, "unearned": 0},
			{"age": 36, "higher_education_student": true, "earned": 400}, {"age": 8, "unearned": 300}], "expenses.dependent_care": 200}`},
	})
}

// benchStage is one stage of an interview: its name and the answers.
type benchStage struct{ name, values string }

// benchStages plans each stage of a casebank ruleset as of 15 January 2026,
// warm and cold, reporting the 99th percentile of the calls as p99-ms.
func benchStages(b *testing.B, casebank string, stages []benchStage) {
	rs := solvertest.CasebankRules(b, casebank)
	date := engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 15)}
	for _, tc := range stages {
		in, err := rs.Convert([]byte(tc.values))
		if err != nil {
			b.Fatal(err)
		}
		res := rs.Evaluate(in, date)
		ctx := context.Background()
		plan := func(b *testing.B, p *Planner) {
			if _, err := p.Plan(ctx, rs, in, res, InquiryContext{}); err != nil {
				b.Fatal(err)
			}
		}
		for _, warm := range []bool{true, false} {
			name := tc.name + "/cold"
			if warm {
				name = tc.name + "/warm"
			}
			b.Run(name, func(b *testing.B) {
				p := NewPlanner(1024)
				defer p.Close()
				plan(b, p)
				var took []time.Duration
				for b.Loop() {
					if !warm {
						p.plans.Purge()
					}
					start := time.Now()
					plan(b, p)
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}
