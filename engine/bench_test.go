package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/value"
)

func BenchmarkCompile(b *testing.B) {
	path, src := enginetest.LargestRules(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := engine.Compile(path, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadIR loads the stored IR of the ruleset BenchmarkCompile
// compiles, so the two give the cost of a load against a compile.
func BenchmarkLoadIR(b *testing.B) {
	r := enginetest.LargestRuleset(b)
	js, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.LoadIR(engine.IRVersion, js); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvert reads a flat answer set (every field of the largest
// ruleset answered) as Convert does, "direct" in one pass over the bytes,
// and "decoded" through encoding/json and ConvertMap as it did before.
func BenchmarkConvert(b *testing.B) {
	r := enginetest.LargestRuleset(b)
	raw, err := json.Marshal(enginetest.Answers(r))
	if err != nil {
		b.Fatal(err)
	}
	benchConvertPaths(b, r, raw)
}

// benchConvertPaths measures Convert and ConvertDecoded on raw, a
// request's field_values that both read without error.
func benchConvertPaths(b *testing.B, r *engine.Ruleset, raw []byte) {
	for _, path := range []struct {
		name    string
		convert func([]byte) (*engine.Inputs, error)
	}{{"direct", r.Convert}, {"decoded", r.ConvertDecoded}} {
		b.Run(path.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := path.convert(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchEvaluate(b *testing.B, opts engine.Options) {
	r := enginetest.LargestRuleset(b)
	in := r.ConvertMap(enginetest.Answers(r))
	opts.DecisionDate = 739000
	var res engine.Result
	r.EvaluateInto(in, opts, &res)
	b.ReportAllocs()
	for b.Loop() {
		r.EvaluateInto(in, opts, &res)
	}
}

func BenchmarkEvaluate(b *testing.B) { benchEvaluate(b, engine.Options{}) }

func BenchmarkEvaluateTraceExplanation(b *testing.B) {
	benchEvaluate(b, engine.Options{Trace: true, Explanation: true})
}

// BenchmarkEvaluateComputing decides a ruleset that computes: named
// values, if/then/else, division, rounding and a two-key table with
// periods (tables_test.go and values_test.go), with a reused Result as the
// service does. It should not allocate.
func BenchmarkEvaluateComputing(b *testing.B) {
	for _, tc := range []struct{ name, src, answers string }{
		{"values", testfiles.ValueRules, `{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`},
		{"tables", testfiles.TableRules, `{"household.region": "states", "household.size": 10, "household.elderly": true, "income.gross": 7480}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r, _, err := engine.Compile(tc.name+".rules", []byte(tc.src))
			if err != nil {
				b.Fatal(err)
			}
			in, err := r.Convert([]byte(tc.answers))
			if err != nil {
				b.Fatal(err)
			}
			opts := engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 5)}
			var res engine.Result
			r.EvaluateInto(in, opts, &res)
			b.ReportAllocs()
			for b.Loop() {
				r.EvaluateInto(in, opts, &res)
			}
		})
	}
}
