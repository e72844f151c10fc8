package source

import (
	"os"
	"path/filepath"
	"testing"
)

// casebankSource returns the source.txt of a casebank entry: real statute
// text with the curly quotes, dashes and section signs uploads have.
func casebankSource(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "casebank", name, "source.txt"))
	if err != nil {
		t.Fatalf("read casebank source: %v", err)
	}
	return string(b)
}
