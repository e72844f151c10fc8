package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
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

func BenchmarkConvert(b *testing.B) {
	r := enginetest.LargestRuleset(b)
	raw, err := json.Marshal(enginetest.Answers(r))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Convert(raw); err != nil {
			b.Fatal(err)
		}
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
