package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// periodFolderRules is a casebank ruleset of slug demo/periods with the
// effective header %s.
const periodFolderRules = `ruleset "demo/periods"
section periods
%s

source s "S" url "https://example.org/s" licence "public-domain"

field a.n int

group g all "G" {
  criterion c "C" {
    a.n >= 1
    cite s "1"
  }
}
`

// TestCheckPeriods: checking one casebank folder compares its period with
// the folders beside it under the same slug, and warns, without failing,
// on an overlap or a gap.
func TestCheckPeriods(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
	}{
		{"consecutive", "effective 2025-10-01 until 2026-09-30", "effective 2026-10-01", ""},
		{"overlap", "effective 2025-10-01 until 2026-09-30", "effective 2026-09-01",
			"demo/periods: warning: effective periods: the periods of OLD (2025-10-01 until 2026-09-30) and NEW (2026-09-01 onwards) overlap: on 2026-09-01 both would hold"},
		{"gap", "effective 2025-10-01 until 2026-09-30", "effective 2026-11-01",
			"demo/periods: warning: effective periods: no ruleset holds from 2026-10-01 to 2026-10-31, between OLD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for name, header := range map[string]string{"periods": tt.old, "periods-next": tt.new} {
				if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(root, name), name+".rules", strings.Replace(periodFolderRules, "%s", header, 1))
			}
			oldPath := filepath.Join(root, "periods", "periods.rules")
			newPath := filepath.Join(root, "periods-next", "periods-next.rules")
			code, out, errs := runCLI("check", newPath)
			if code != 0 || !strings.Contains(out, "periods-next.rules: ok") {
				t.Fatalf("check exited %d: %q %q", code, out, errs)
			}
			want := strings.NewReplacer("OLD", oldPath, "NEW", newPath).Replace(tt.want)
			if got := strings.Contains(errs, "effective periods"); got != (want != "") || !strings.Contains(errs, want) {
				t.Errorf("check printed %q, want %q", errs, want)
			}
		})
	}
}
