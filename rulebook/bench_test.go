package rulebook

import (
	"encoding/json"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// benchAnswers are answers to all three threeFolders sections: an eligible
// FMLA employee, a child under 16 and a pension-age resident.
var benchAnswers = map[string]any{
	"employment.employer_type": "private", "employment.months_employed": 24, "employment.hours_12_months": json.Number("1500.5"),
	"employer.workweeks_with_50_employees": 30, "worksite.employees_within_75_miles": 80,
	"child.date_of_birth": "2015-06-01", "claimant.child_lives_with_you": true, "claimant.in_great_britain": true,
	"child.in_great_britain": true, "claimant.ordinarily_resident_uk": true, "claimant.right_to_reside": true,
	"person.date_of_birth": "1955-03-04", "residence.longest_continuous_years": 12,
}

var benchOpts = engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 15)}

func BenchmarkCompose(b *testing.B) {
	spec := Spec{Name: "bench", Slug: "test/bench", Sections: casebankSections(b, threeFolders...),
		Outcome: mustTree(b, trees3[3], 3)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compose(spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateComposed compares deciding a rulebook as one composed
// ruleset with deciding its three members one by one (and combining their
// decisions with the tree), on inputs already converted, the /decide hot
// path after conversion.
func BenchmarkEvaluateComposed(b *testing.B) {
	sections := casebankSections(b, threeFolders...)
	c := mustCompose(b, Spec{Name: "bench", Sections: sections, Outcome: mustTree(b, trees3[3], 3)})
	b.Run("composed", func(b *testing.B) {
		in := c.Rules.ConvertMap(benchAnswers)
		res := &engine.Result{}
		b.ReportAllocs()
		for b.Loop() {
			c.Rules.EvaluateInto(in, benchOpts, res)
		}
		if res.Outcome != engine.Eligible {
			b.Fatalf("outcome %s", res.Outcome)
		}
	})
	b.Run("members", func(b *testing.B) {
		ins := make([]*engine.Inputs, len(sections))
		results := make([]*engine.Result, len(sections))
		for i, s := range sections {
			ins[i], results[i] = s.Rules.ConvertMap(only(s.Rules, benchAnswers)), &engine.Result{}
		}
		decisions := map[string]engine.Outcome{}
		b.ReportAllocs()
		for b.Loop() {
			for i, s := range sections {
				s.Rules.EvaluateInto(ins[i], benchOpts, results[i])
				decisions[s.Letter] = results[i].Outcome
			}
			_ = c.Outcome.Eval(decisions)
		}
		if c.Outcome.Eval(decisions) != engine.Eligible {
			b.Fatalf("decisions %v", decisions)
		}
	})
}
