package enginetest

import (
	"os"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/internal/testfiles"
)

// LargestRules returns the path and source of the casebank ruleset with
// the most criteria, or of engine/testdata/large.rules (36 criteria) when
// none has more: what the engine's and the graph's benchmarks measure, so
// that their figures are of one ruleset.
func LargestRules(tb testing.TB) (string, []byte) {
	tb.Helper()
	best, bestN := testfiles.Large(tb), 0
	var bestSrc []byte
	for _, path := range append(testfiles.Casebank(tb), testfiles.Large(tb)) {
		src, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		r, _, err := engine.Compile(path, src)
		if err != nil {
			continue
		}
		if r.NumCriteria() > bestN {
			best, bestN, bestSrc = path, r.NumCriteria(), src
		}
	}
	tb.Logf("benchmark ruleset %s (%d criteria)", best, bestN)
	return best, bestSrc
}

// LargestRuleset compiles the ruleset LargestRules picks.
func LargestRuleset(tb testing.TB) *engine.Ruleset {
	tb.Helper()
	path, src := LargestRules(tb)
	r, _, err := engine.Compile(path, src)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// Answers answers every field of r with a value of its type, as a request
// sends it: the first enum value, 1000 for numbers, true, 1990-01-01. It is
// the fixed answer set the benchmarks evaluate and draw.
func Answers(r *engine.Ruleset) map[string]any {
	m := map[string]any{}
	for _, f := range r.Fields {
		switch f.Type {
		case engine.SortInt, engine.SortDecimal:
			m[f.ID] = 1000
		case engine.SortBool:
			m[f.ID] = true
		case engine.SortEnum:
			m[f.ID] = f.EnumValues[0]
		case engine.SortDate:
			m[f.ID] = "1990-01-01"
		}
	}
	return m
}
