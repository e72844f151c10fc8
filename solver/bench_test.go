package solver

import (
	"context"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/solvertest"
)

// BenchmarkPresencePolarity runs the go-live gate on every casebank
// ruleset and on solver/testdata (target: under 1 s each). Rulesets without
// presence operators cost next to nothing: the gate has no field to
// examine.
func BenchmarkPresencePolarity(b *testing.B) {
	for _, cb := range append(solvertest.Casebank(b), solvertest.Testdata(b)...) {
		b.Run(cb.Name, func(b *testing.B) {
			for b.Loop() {
				if _, err := CheckPresencePolarity(context.Background(), cb.Rules); err != nil {
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
	for _, cb := range solvertest.Casebank(b) {
		for _, c := range cb.Cases {
			if c.ExpectedOutcome == "eligible" {
				continue
			}
			in, err := cb.Rules.Convert(c.FieldValues)
			if err != nil || len(in.FieldErrors) > 0 {
				continue
			}
			var date int64
			if c.DecisionDate != "" {
				date, _ = value.ParseDate(c.DecisionDate)
			}
			b.Run(cb.Name+"/one-shot", func(b *testing.B) {
				for b.Loop() {
					if _, err := ExplainFailure(context.Background(), cb.Rules, in, engine.Eligible, ExplainOptions{DecisionDate: date}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(cb.Name+"/pooled", func(b *testing.B) {
				x := NewExplainer(cb.Rules, 1)
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
