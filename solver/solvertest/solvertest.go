// Package solvertest holds what the tests of solver, solver/plan and
// solver/verify share: the rulesets they run over (the casebank and
// solver/testdata), compiled once per call, an inline-ruleset compiler,
// the wide-min adversary and the -long flag. It is imported by tests only.
package solvertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/folder"
)

// long turns the sampled tests from quick to thorough: go test -long. It
// is registered in every test binary that imports this package, so each
// of the solver packages takes the same flag.
var long = flag.Bool("long", false, "run the sampled solver tests with many more samples")

// Long reports whether the tests run with -long (many more samples).
func Long() bool { return *long }

// Ruleset is one compiled ruleset of the casebank or of solver/testdata,
// with its cases (none for testdata).
type Ruleset struct {
	// Name is the casebank folder's name, or the file's path relative to
	// solver/ ("testdata/operators.rules").
	Name string
	// Rules is the compiled ruleset.
	Rules *engine.Ruleset
	// Cases are the folder's cases; nil for testdata.
	Cases []engine.Case
}

// solverDir is the solver package's folder, found from this file's path
// so that every test package reads the same files whatever its own folder.
func solverDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("solvertest: cannot locate the solver folder")
	}
	return filepath.Dir(filepath.Dir(file))
}

// Folders loads every casebank ruleset folder.
func Folders(tb testing.TB) []*folder.Folder {
	tb.Helper()
	dirs, err := folder.Discover(filepath.Join(solverDir(tb), "..", "casebank"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []*folder.Folder
	for _, d := range dirs {
		f, err := folder.Load(context.Background(), d)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// Casebank compiles every folder under casebank/.
func Casebank(tb testing.TB) []Ruleset {
	tb.Helper()
	var out []Ruleset
	for _, f := range Folders(tb) {
		r, _, err := engine.Compile(f.RulesPath, f.Rules)
		if err != nil {
			tb.Fatalf("%s: %v", f.Name, err)
		}
		out = append(out, Ruleset{Name: f.Name, Rules: r, Cases: f.Cases})
	}
	return out
}

// CasebankRules returns the compiled casebank ruleset called name.
func CasebankRules(tb testing.TB, name string) *engine.Ruleset {
	tb.Helper()
	for _, cb := range Casebank(tb) {
		if cb.Name == name {
			return cb.Rules
		}
	}
	tb.Fatalf("no casebank ruleset %s", name)
	return nil
}

// Testdata compiles solver/testdata/*.rules: small rulesets that use
// what the casebank does not (every operator, presence operators).
func Testdata(tb testing.TB) []Ruleset {
	tb.Helper()
	return rulesDir(tb, "testdata")
}

// ShiftTestdata compiles solver/testdata/shift/*.rules: rulesets that
// shift dates in every way the language allows, for the differential
// test. They stay out of the other tests over testdata: each shifted date
// is a calendar decomposition of its own, and the analysis's one-second
// checks over several of them would not finish.
func ShiftTestdata(tb testing.TB) []Ruleset {
	tb.Helper()
	return rulesDir(tb, filepath.Join("testdata", "shift"))
}

// ValuesTestdata compiles solver/testdata/values/*.rules: rulesets that
// compute with named values, if, division and rounding, and over a
// household's members with count, sum, any and all, for the differential
// test of their encoding and the tools over values.
func ValuesTestdata(tb testing.TB) []Ruleset {
	tb.Helper()
	return rulesDir(tb, filepath.Join("testdata", "values"))
}

// ValuesRules returns the compiled solver/testdata/values ruleset called
// name ("household" for household.rules), as CasebankRules does for the
// casebank.
func ValuesRules(tb testing.TB, name string) *engine.Ruleset {
	tb.Helper()
	for _, r := range ValuesTestdata(tb) {
		if r.Name == "testdata/values/"+name+".rules" {
			return r.Rules
		}
	}
	tb.Fatalf("no ruleset %s in solver/testdata/values", name)
	return nil
}

// rulesDir compiles every .rules file of dir, a folder under solver/.
func rulesDir(tb testing.TB, dir string) []Ruleset {
	tb.Helper()
	root := solverDir(tb)
	paths, err := filepath.Glob(filepath.Join(root, dir, "*.rules"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []Ruleset
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		name, err := filepath.Rel(root, p)
		if err != nil {
			tb.Fatal(err)
		}
		r, _, err := engine.Compile(name, src)
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		out = append(out, Ruleset{Name: filepath.ToSlash(name), Rules: r})
	}
	return out
}

// Compile compiles an inline test ruleset.
func Compile(tb testing.TB, src string) *engine.Ruleset {
	tb.Helper()
	r, _, err := engine.Compile("test.rules", []byte(src))
	if err != nil {
		tb.Fatalf("compile: %v", err)
	}
	return r
}

// CriterionIndex is the flat index (engine.Ruleset.CriterionAt order) of
// the criterion called id, or -1.
func CriterionIndex(r *engine.Ruleset, id string) int {
	for i := 0; i < r.NumCriteria(); i++ {
		if c, _ := r.CriterionAt(i); c.ID == id {
			return i
		}
	}
	return -1
}

// WideMin is a ruleset whose one criterion compares a min() of n
// distinct arguments (a.x + 0, a.y + 1, a.x + 2, ...) with threshold: the
// adversary the solver's limits hold against (docs/limits.md#solver-runs),
// aimed at the encoding and the authoring-time tools. The parser refuses a call of more than syntax.MaxCallArgs
// arguments, but the solver also meets compiled IR that no parser read
// under today's caps (a cut stored before them, a composed rulebook), so
// the ruleset is built into the IR of a two-argument one.
func WideMin(tb testing.TB, n, threshold int) *engine.Ruleset {
	tb.Helper()
	r := Compile(tb, fmt.Sprintf(`section wide
source law "Law" url "https://laws.example.org/wide" licence "public-domain"
field a.x int weight 1
  question "x?"
field a.y int weight 1
  question "y?"
group g all "G" {
  criterion c "C" {
    min(a.x + 0, a.y + 1) >= %d
    cite law "x"
  }
}
`, threshold))
	// r is this call's own, and BuildUnhashed copies it deeply, so the
	// call is widened in place; each argument is a new sum over the
	// field of one of the two originals with a constant of its own.
	call := r.Groups[0].Criteria[0].Expr.Args[0]
	pair := call.Args
	call.Args = make([]*engine.Expr, n)
	for i := range call.Args {
		sum := *pair[i%2]
		k := *sum.Args[1]
		k.Const = value.Value{Num: int64(i), Known: true}
		sum.Args = []*engine.Expr{sum.Args[0], &k}
		call.Args[i] = &sum
	}
	wide, err := engine.BuildUnhashed(r)
	if err != nil {
		tb.Fatal(err)
	}
	return wide
}

// InForce evaluates as a casebank case that names no date is decided
// (engine.Ruleset.CaseDate: the first day of rs's effective period), so
// that a test of the rules keeps passing after their period has ended.
// Rules that read decision_date() with no period are decided as of
// 2026-01-15, a fixed day, so no test depends on the day it runs.
func InForce(rs *engine.Ruleset) engine.Options {
	date, err := rs.CaseDate(engine.Case{})
	if err != nil {
		date = value.DateOrdinal(2026, 1, 15)
	}
	return engine.Options{DecisionDate: date}
}

// DescribeInputs writes the answered fields of in as "{ id=value ... }",
// for a failure message.
func DescribeInputs(r *engine.Ruleset, in *engine.Inputs) string {
	s := "{"
	for i, v := range in.Values {
		if v.Known {
			s += fmt.Sprintf(" %s=%s", r.Fields[i].ID, r.ValueJSON(i, v))
		}
	}
	return s + " }"
}

// Group is a group of one criterion, "<id>_c", whose condition is expr,
// citing source law: the unit the small inline rulesets of the solver's
// tests are built from.
func Group(id, kind, expr string) string {
	return fmt.Sprintf("group %s %s \"%s\" {\n  criterion %s_c \"%s condition\" {\n    %s\n    cite law \"x\"\n  }\n}\n", id, kind, id, id, id, expr)
}
