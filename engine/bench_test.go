package engine

import (
	"encoding/json"
	"os"
	"testing"
)

// largestRules returns the source of the casebank ruleset with the most
// criteria, falling back to testdata/large.rules (36 criteria).
func largestRules(b *testing.B) (string, []byte) {
	b.Helper()
	best, bestN := "testdata/large.rules", 0
	var bestSrc []byte
	for _, path := range append(casebankFiles(b), "testdata/large.rules") {
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		r, _, err := Compile(path, src)
		if err != nil {
			continue
		}
		if r.NumCriteria() > bestN {
			best, bestN, bestSrc = path, r.NumCriteria(), src
		}
	}
	b.Logf("benchmark ruleset %s (%d criteria)", best, bestN)
	return best, bestSrc
}

// largestRuleset compiles the ruleset largestRules picks.
func largestRuleset(b *testing.B) *Ruleset {
	b.Helper()
	path, src := largestRules(b)
	r, _, err := Compile(path, src)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// benchValues answers every field of r with a value of its type: the
// first enum value, 1000 for numbers, true, 1990-01-01.
func benchValues(r *Ruleset) map[string]any {
	m := map[string]any{}
	for _, f := range r.Fields {
		switch f.Type {
		case SortInt, SortDecimal:
			m[f.ID] = 1000
		case SortBool:
			m[f.ID] = true
		case SortEnum:
			m[f.ID] = f.EnumValues[0]
		case SortDate:
			m[f.ID] = "1990-01-01"
		}
	}
	return m
}

func BenchmarkCompile(b *testing.B) {
	path, src := largestRules(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Compile(path, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadIR loads the stored IR of the ruleset BenchmarkCompile
// compiles, so the two give the cost of a load against a compile.
func BenchmarkLoadIR(b *testing.B) {
	r := largestRuleset(b)
	js, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadIR(IRVersion, js); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConvert(b *testing.B) {
	r := largestRuleset(b)
	raw := mustJSON(b, benchValues(r))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Convert(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEvaluate(b *testing.B, opts Options) {
	r := largestRuleset(b)
	in := r.ConvertMap(benchValues(r))
	opts.DecisionDate = 739000
	var res Result
	r.EvaluateInto(in, opts, &res)
	b.ReportAllocs()
	for b.Loop() {
		r.EvaluateInto(in, opts, &res)
	}
}

func BenchmarkEvaluate(b *testing.B) { benchEvaluate(b, Options{}) }

func BenchmarkEvaluateTraceExplanation(b *testing.B) {
	benchEvaluate(b, Options{Trace: true, Explanation: true})
}

// BenchmarkEvaluateComputing decides a ruleset that computes: named
// values, if/then/else, division, rounding and a two-key table with
// periods (tables_test.go and values_test.go), with a reused Result as the
// service does. It should not allocate.
func BenchmarkEvaluateComputing(b *testing.B) {
	for _, tc := range []struct{ name, src, answers string }{
		{"values", valueRules, `{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`},
		{"tables", tableRules, `{"household.region": "states", "household.size": 10, "household.elderly": true, "income.gross": 7480}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r, _, err := Compile(tc.name+".rules", []byte(tc.src))
			if err != nil {
				b.Fatal(err)
			}
			in, err := r.Convert([]byte(tc.answers))
			if err != nil {
				b.Fatal(err)
			}
			opts := Options{DecisionDate: DateOrdinal(2026, 1, 5)}
			var res Result
			r.EvaluateInto(in, opts, &res)
			b.ReportAllocs()
			for b.Loop() {
				r.EvaluateInto(in, opts, &res)
			}
		})
	}
}
