package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
)

// TestDifferentialHouseholdBounds holds the encoding of ranges
// (encode_bounds.go) to the evaluator's (engine/bounds.go) beyond the
// fixed rules of solver/testdata/values/bounds.rules: random household
// rulesets (enginetest.HouseholdRules) nest counts, sums, the least and
// greatest of members, constant factors of either sign, subtraction, abs,
// rounding, if, min, max and ?? over fields whose ranges span zero, have
// one end or none, and random answers land on those ranges' ends. Each
// answer set is checked as TestDifferentialCasebank checks one: Z3 must
// find no status other than the evaluator's. The seeds are fixed, so a
// failure reproduces; it prints the ruleset's text.
func TestDifferentialHouseholdBounds(t *testing.T) {
	t.Parallel()
	const rulesets, samples = 16, 10
	date := value.DateOrdinal(2025, 3, 1)
	for seed := range uint64(rulesets) {
		rnd := rand.New(rand.NewPCG(seed, 0xd1f))
		src := enginetest.HouseholdRules(rnd, 6)
		r, _, err := engine.Compile("households.rules", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		d := newDifferential(t, r, 10*time.Second)
		for n := range samples {
			in := enginetest.HouseholdAnswers(rnd, r, []float64{0.3, 0.6, 0.9}[n%3])
			d.check(t, in, date, fmt.Sprintf("seed %d sample %d", seed, n))
		}
		if t.Failed() {
			t.Fatalf("seed %d's ruleset:\n%s", seed, src)
		}
	}
}

// TestEncodeDeepBounds checks that the encoding builds each comparison
// ranges decide once (Encoding.compared) and each value's range once: a
// ruleset nesting such comparisons forty deep in the conditions of ifs,
// and forty values each reading the one before twice
// (enginetest.DeepHouseholdRules), encodes and agrees with the evaluator.
// Built afresh wherever a range read it, ten levels of conditions took
// five minutes to encode; forty would never finish.
func TestEncodeDeepBounds(t *testing.T) {
	t.Parallel()
	r, in := enginetest.DeepHousehold(t, 40)
	newDifferential(t, r, 30*time.Second).check(t, in, value.DateOrdinal(2025, 3, 1), "earnings of at least 100")
}
