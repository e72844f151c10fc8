package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// eligo diff names the change with a witness, or proves equivalence.
func TestDiffCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := writeFile(t, dir, "old.rules", cliRules)
	raised := writeFile(t, dir, "new.rules", strings.Replace(cliRules, "a.n >= 12", "a.n >= 13", 1))
	code, out, errs := runCLI("diff", "--date", "2026-01-01", old, raised)
	if code != 0 || !strings.Contains(out, "eligible -> not_eligible, for example:") || !strings.Contains(out, "a.n = 12") ||
		!strings.Contains(out, `criterion c: satisfied -> not_satisfied ("at least 12")`) ||
		!strings.Contains(out, "criterion c: threshold changed from 12 to 13 (a.n >=)") {
		t.Fatalf("diff: %d %q %q", code, out, errs)
	}
	// A yearly update: consecutive periods, the limits raised. Who flips
	// is shown with a realistic witness, and which limits moved.
	code, out, errs = runCLI("diff", "--date", "2026-01-15", "../../casebank/medicaid-adult-expansion/medicaid-adult-expansion.rules",
		"../../casebank/medicaid-adult-expansion-2026/medicaid-adult-expansion-2026.rules")
	if code != 0 || !strings.Contains(out, "not_eligible -> eligible, for example:") ||
		!strings.Contains(out, "criterion income_us_1: threshold changed from 1,799.75 to 1,835.4 (income.monthly_magi <=)") ||
		!strings.Contains(out, "each is judged as its own law") || strings.Contains(out, "household.size = 0") || strings.Contains(out, "= -") {
		t.Fatalf("diff of a yearly update: %d %q %q", code, out, errs)
	}
	if code, out, _ := runCLI("diff", old, old); code != 0 || !strings.Contains(out, "equivalent") {
		t.Fatalf("diff of a file with itself: %d %q", code, out)
	}
	code, out, _ = runCLI("diff", "--json", old, raised)
	var d struct {
		Equivalent bool `json:"equivalent"`
		Changes    []struct {
			Kind string `json:"kind"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || d.Equivalent || d.Changes[0].Kind != "eligible_to_not_eligible" {
		t.Fatalf("diff --json: %d %v %q", code, err, out)
	}
	if code, _, errs := runCLI("diff", old); code == 0 || !strings.Contains(errs, "usage: eligo diff") {
		t.Fatalf("diff with one argument: %d %q", code, errs)
	}
}
