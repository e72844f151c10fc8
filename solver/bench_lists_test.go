package solver

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/solvertest"
	"github.com/eligo/eligo/solver/z3"
)

// BenchmarkEncodeHousehold encodes solver/testdata/values/household.rules
// with its list's bound at 4, 8, 16 and 32 members, and explains a
// household of three that is not eligible: the encoding unrolls every
// aggregate to the bound, so its size (terms: the printed length of its
// axioms and outcome, in bytes) and its cost should grow linearly with it
// (docs/performance.md records them).
func BenchmarkEncodeHousehold(b *testing.B) {
	src, err := os.ReadFile("testdata/values/household.rules")
	if err != nil {
		b.Fatal(err)
	}
	for _, bound := range []int{4, 8, 16, 32} {
		text := strings.Replace(string(src), "up to 4", fmt.Sprintf("up to %d", bound), 1)
		r := solvertest.Compile(b, text)
		b.Run(fmt.Sprintf("bound=%d/encode", bound), func(b *testing.B) {
			c, err := z3.NewContext()
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			e, err := Encode(c, r)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Encode(c, r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(encodingSize(e)), "terms")
		})
		in, err := r.Convert([]byte(`{"member": [{"age": 30, "pregnant": false, "earnings": 2500, "resident": true}, {"age": 8}, {"age": 12, "resident": true}], "household.rent": 600}`))
		if err != nil || len(in.FieldErrors) > 0 {
			b.Fatal(err, in.FieldErrors)
		}
		b.Run(fmt.Sprintf("bound=%d/explain", bound), func(b *testing.B) {
			for b.Loop() {
				if _, err := ExplainFailure(context.Background(), r, in, engine.Eligible, ExplainOptions{DecisionDate: solvertest.InForce(r).DecisionDate}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// encodingSize is the printed length of e's axioms and outcome: a measure
// of the encoding's size that grows with its terms.
func encodingSize(e *Encoding) int {
	n := 0
	for _, a := range e.Axioms() {
		n += len(a.String())
	}
	o := e.Outcome()
	return n + len(o.Known.String()) + len(o.Value.String())
}
