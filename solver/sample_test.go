package solver

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/folder"
)

// long turns the sampled tests from quick to thorough: go test -long.
var long = flag.Bool("long", false, "run the sampled solver tests with many more samples")

// differentialSamples, when set, is the number of random answer sets the
// differential test draws per ruleset, overriding the default and -long;
// `make test` runs it at 2,000 outside the race detector.
var differentialSamples = flag.Int("differential-samples", 0, "random answer sets per ruleset in the differential test (0: 400, or 5,000 with -long)")

// casebankRuleset is one compiled casebank ruleset and its cases.
type casebankRuleset struct {
	name  string
	rules *engine.Ruleset
	cases []engine.Case
}

// loadCasebank compiles every folder under casebank/.
func loadCasebank(tb testing.TB) []casebankRuleset {
	tb.Helper()
	dirs, err := folder.Discover(filepath.Join("..", "casebank"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []casebankRuleset
	for _, d := range dirs {
		f, err := folder.Load(context.Background(), d)
		if err != nil {
			tb.Fatal(err)
		}
		r, _, err := engine.Compile(f.RulesPath, f.Rules)
		if err != nil {
			tb.Fatalf("%s: %v", f.Name, err)
		}
		out = append(out, casebankRuleset{name: f.Name, rules: r, cases: f.Cases})
	}
	return out
}

// loadTestdata compiles solver/testdata/*.rules: small rulesets that use
// what the casebank does not (every operator, presence operators).
func loadTestdata(tb testing.TB) []casebankRuleset {
	tb.Helper()
	return loadRulesDir(tb, "testdata")
}

// loadShiftTestdata compiles solver/testdata/shift/*.rules: rulesets that
// shift dates in every way the language allows, for the differential
// test. They stay out of the other tests over testdata: each shifted date
// is a calendar decomposition of its own, and the analysis's one-second
// checks over several of them would not finish.
func loadShiftTestdata(tb testing.TB) []casebankRuleset {
	tb.Helper()
	return loadRulesDir(tb, filepath.Join("testdata", "shift"))
}

// loadRulesDir compiles every .rules file of dir.
func loadRulesDir(tb testing.TB, dir string) []casebankRuleset {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.rules"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []casebankRuleset
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		r, _, err := engine.Compile(p, src)
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		out = append(out, casebankRuleset{name: filepath.ToSlash(p), rules: r})
	}
	return out
}

// compileRules compiles an inline test ruleset.
func compileRules(tb testing.TB, src string) *engine.Ruleset {
	tb.Helper()
	r, _, err := engine.Compile("test.rules", []byte(src))
	if err != nil {
		tb.Fatalf("compile: %v", err)
	}
	return r
}
