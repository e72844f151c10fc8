package main

import (
	"strings"
	"testing"

	"github.com/eligo/eligo/solver/verify"
)

// checkFindingRules compiles with one warning (a.z is read by nothing) and
// has one criterion its neighbour implies.
const checkFindingRules = `section demo

source s "S" url "https://example.org/s" licence "public-domain"

field a.n int
field a.z int

group g all "G" {
  criterion old "At least 67" {
    a.n >= 67
    cite s "67"
  }
  criterion adult "At least 18" {
    a.n >= 18
    cite s "18"
  }
}
`

// TestCheckFindings: the analysis findings follow the compile warnings as
// warning lines, and warnings never fail the command.
func TestCheckFindings(t *testing.T) {
	t.Parallel()
	path := writeFile(t, t.TempDir(), "finding.rules", checkFindingRules)
	code, out, errs := runCLI("check", path)
	if code != 0 || !strings.Contains(out, "finding.rules: ok") {
		t.Fatalf("check exited %d: %q %q", code, out, errs)
	}
	want := []string{
		path + ":6:1: field a.z is declared but no criterion reads it (warning)",
		path + `: warning: criterion_redundant adult: Criterion adult ("At least 18") holds whenever criterion old holds, so it never changes whether group g is satisfied.`,
		path + ": warning: field_never_matters a.z: No criterion reads field a.z, so its answer never changes the outcome.",
	}
	if got := strings.Split(strings.TrimSpace(errs), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check printed\n%s\nwant\n%s", errs, strings.Join(want, "\n"))
	}
}

// TestFindingLine fixes the line format for every shape of finding: the
// subject is the criterion, else the group, else the field, else nothing
// (the outcome), and a witness follows as JSON.
func TestFindingLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    verify.Finding
		want string
	}{
		{verify.Finding{Kind: verify.FindingCriterionNeverSatisfied, Criterion: "c", Group: "g", Message: "M."},
			"f.rules: warning: criterion_never_satisfied c: M."},
		{verify.Finding{Kind: verify.FindingGroupNeverSatisfied, Group: "g", Others: []string{"a", "b"}, Message: "M."},
			"f.rules: warning: group_never_satisfied g: M."},
		{verify.Finding{Kind: verify.FindingFieldNeverMatters, Field: "a.x", Message: "M."},
			"f.rules: warning: field_never_matters a.x: M."},
		{verify.Finding{Kind: verify.FindingOutcomeNeverEligible, Message: "M."},
			"f.rules: warning: outcome_never_eligible: M."},
		{verify.Finding{Kind: "some_kind", Criterion: "c", Message: "M.", Witness: map[string]any{"a.x": 5, "a.d": "2020-01-01"}},
			`f.rules: warning: some_kind c: M. witness: {"a.d":"2020-01-01","a.x":5}`},
	}
	for _, tc := range tests {
		if got := findingLine("f.rules", tc.f); got != tc.want {
			t.Errorf("findingLine\n got %s\nwant %s", got, tc.want)
		}
	}
}
