package solver

import (
	"context"
	"testing"

	"github.com/eligo/eligo/engine"
)

// BenchmarkPresencePolarity runs the go-live gate on every casebank
// ruleset and on solver/testdata (target: under 1 s each). Rulesets without
// presence operators cost next to nothing: the gate has no field to
// examine.
func BenchmarkPresencePolarity(b *testing.B) {
	for _, cb := range append(loadCasebank(b), loadTestdata(b)...) {
		b.Run(cb.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := CheckPresencePolarity(context.Background(), cb.rules); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExplainFailure explains, for every casebank ruleset, its first
// case whose outcome is not eligible, against expected eligible (target:
// under 50 ms): one-shot builds the Z3 context, encoding and solver on
// every call; pooled reuses them through an Explainer.
func BenchmarkExplainFailure(b *testing.B) {
	for _, cb := range loadCasebank(b) {
		for _, c := range cb.cases {
			if c.ExpectedOutcome == "eligible" {
				continue
			}
			in, err := cb.rules.Convert(c.FieldValues)
			if err != nil || len(in.FieldErrors) > 0 {
				continue
			}
			var date int64
			if c.DecisionDate != "" {
				date, _ = engine.ParseDate(c.DecisionDate)
			}
			b.Run(cb.name+"/one-shot", func(b *testing.B) {
				for b.Loop() {
					if _, err := ExplainFailure(context.Background(), cb.rules, in, engine.Eligible, ExplainOptions{DecisionDate: date}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(cb.name+"/pooled", func(b *testing.B) {
				x := NewExplainer(cb.rules, 1)
				defer x.Close()
				for b.Loop() {
					if _, err := x.Explain(context.Background(), in, engine.Eligible, ExplainOptions{DecisionDate: date}); err != nil {
						b.Fatal(err)
					}
				}
			})
			break
		}
	}
}
