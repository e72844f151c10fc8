// Package testfiles finds the rules texts the engine's tests run over, so
// that the tests of every engine package read the same casebank wherever
// their own directory is. Only tests import it.
package testfiles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Casebank returns the paths of the casebank's .rules files, failing t when
// there are none: a test over them would then test nothing.
func Casebank(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root(t), "casebank", "*", "*.rules"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no casebank rulesets under casebank/: the tests over them would test nothing")
	}
	return files
}

// CaseAnswers returns the field_values of every case of every casebank
// folder (rulesets and rulebooks), as cases.json spells them, by the
// folder's name, failing t when there are fewer than 100 cases: too few
// to stand for real requests.
func CaseAnswers(t testing.TB) map[string][]json.RawMessage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root(t), "casebank", "*", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	answers, n := map[string][]json.RawMessage{}, 0
	for _, path := range files {
		var cases []struct {
			FieldValues json.RawMessage `json:"field_values"`
		}
		if err := json.Unmarshal(Read(t, path), &cases); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		folder := filepath.Base(filepath.Dir(path))
		for _, c := range cases {
			answers[folder] = append(answers[folder], c.FieldValues)
		}
		n += len(cases)
	}
	if n < 100 {
		t.Fatalf("%d casebank cases: too few to stand for real requests", n)
	}
	return answers
}

// Large returns the path of engine/testdata/large.rules, the test ruleset
// larger than any the casebank had when it was written.
func Large(t testing.TB) string {
	t.Helper()
	return filepath.Join(root(t), "engine", "testdata", "large.rules")
}

// Read returns the contents of the file at path, failing t when it cannot
// be read.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// root is the repository's root directory, found from this file's path so
// that a test in any package's directory reads the same files.
func root(t testing.TB) string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot tell where the repository is: no caller information")
	}
	return filepath.Join(filepath.Dir(here), "..", "..", "..")
}

// OpsRules is a ruleset template that declares one field of every type
// (a.n, a.m int; a.d decimal; a.b, a.c bool; a.e enum; a.born, a.on date)
// and one criterion whose condition is the %s verb: the operator tables
// and the sentence tests fill it with the expression under test.
const OpsRules = `section ops
source s "S" url "https://example.org/s" licence "public-domain"
field a.n int
field a.m int
field a.d decimal
field a.b bool
field a.c bool
field a.e enum ["red", "green", "blue"]
field a.born date
field a.on date
group g all "G" {
  criterion k "K" {
    %s
    cite s "quote"
  }
}
`
