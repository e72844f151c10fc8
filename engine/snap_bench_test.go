package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/value"
)

// snapHousehold is a household of three in FY2026 with earnings, other
// income, dependent care, rent and the standard utility allowance: every
// deduction of the net income test but the medical one comes into play.
const snapHousehold = `{"household.region": "48_states_dc", "household.size": 3, "household.elderly_or_disabled": false,
	"income.earned": 2100, "income.unearned": 300.45, "expenses.dependent_care": 200, "expenses.medical": 0,
	"expenses.child_support_paid": 0, "shelter.rent_or_mortgage": 1100, "shelter.property_tax_and_insurance": 50,
	"shelter.claims_sua": true, "shelter.standard_utility_allowance": 500, "resources.countable": 1000}`

// BenchmarkEvaluateSNAP decides full SNAP eligibility (casebank
// us-snap-eligibility: gross, net and resource tests with every deduction,
// figures by fiscal year in tables) with a reused Result, as the service
// does; docs/performance.md records it. It should not allocate.
func BenchmarkEvaluateSNAP(b *testing.B) {
	path := filepath.Join("..", "casebank", "us-snap-eligibility", "us-snap-eligibility.rules")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	r, _, err := engine.Compile(path, src)
	if err != nil {
		b.Fatal(err)
	}
	in, err := r.Convert([]byte(snapHousehold))
	if err != nil || len(in.FieldErrors) > 0 {
		b.Fatal(err, in.FieldErrors)
	}
	opts := engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 15)}
	var res engine.Result
	r.EvaluateInto(in, opts, &res)
	if res.Outcome != engine.Eligible {
		b.Fatalf("the household is %s", res.Outcome)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.EvaluateInto(in, opts, &res)
	}
}

// sixPeople is a household of six for testfiles.HouseholdRules, every
// answer given.
const sixPeople = `{"member": [
	{"age": 34, "pregnant": false, "earnings": 1800.50, "resident": true},
	{"age": 36, "pregnant": false, "earnings": 900, "resident": true},
	{"age": 12, "pregnant": false, "earnings": 0, "resident": true},
	{"age": 9, "pregnant": false, "earnings": 0, "resident": true},
	{"age": 4, "pregnant": false, "earnings": 0, "resident": true},
	{"age": 1, "pregnant": false, "earnings": 0, "resident": true}]}`

// BenchmarkConvertHousehold reads a household of six from its JSON
// (engine.Convert), and BenchmarkEvaluateHousehold decides it with a
// reused Result: docs/performance.md records both beside
// BenchmarkConvert and BenchmarkEvaluateSNAP.
func BenchmarkConvertHousehold(b *testing.B) {
	r, _, err := engine.Compile("household.rules", []byte(testfiles.HouseholdRules))
	if err != nil {
		b.Fatal(err)
	}
	raw := []byte(sixPeople)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Convert(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvaluateHousehold(b *testing.B) {
	r, _, err := engine.Compile("household.rules", []byte(testfiles.HouseholdRules))
	if err != nil {
		b.Fatal(err)
	}
	in, err := r.Convert([]byte(sixPeople))
	if err != nil || len(in.FieldErrors) > 0 {
		b.Fatal(err, in.FieldErrors)
	}
	opts := engine.Options{DecisionDate: value.DateOrdinal(2026, 3, 1)}
	var res engine.Result
	if r.EvaluateInto(in, opts, &res); res.Outcome != engine.Eligible {
		b.Fatalf("the household is %s", res.Outcome)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.EvaluateInto(in, opts, &res)
	}
}
