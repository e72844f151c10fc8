// Package testfiles finds the rules texts the engine's tests run over, so
// that the tests of every engine package read the same casebank wherever
// their own directory is. Only tests import it.
package testfiles

import (
	"path/filepath"
	"runtime"
	"testing"
)

// Casebank returns the paths of the casebank's .rules files, failing t when
// there are none: a test over them would then test nothing.
func Casebank(t testing.TB) []string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot tell where the casebank is: no caller information")
	}
	files, err := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "..", "..", "casebank", "*", "*.rules"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no casebank rulesets under casebank/: the tests over them would test nothing")
	}
	return files
}
