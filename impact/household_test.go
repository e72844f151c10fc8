package impact

import (
	"context"
	"strings"
	"testing"
)

// householdRules qualify a household with a child under five.
const householdRules = `section household
source law "Act" url "https://example.org/act" licence "public-domain"
list member "People in the household" up to 4
  question "How many people live in your household?"
field member.age int
  range 0..130
group g all "A child" {
  criterion child "A child under five" {
    any(member where member.age < LIMIT)
    cite law "a child under five"
  }
}
`

// TestHouseholdCaseloads: a household is read from JSON Lines as /decide
// reads it, and from CSV in flat columns (how many, then each member's
// answers); a rule change moves the households it should.
func TestHouseholdCaseloads(t *testing.T) {
	t.Parallel()
	baseline := compile(t, "household.rules", strings.Replace(householdRules, "LIMIT", "5", 1))
	candidate := compile(t, "household.rules", strings.Replace(householdRules, "LIMIT", "6", 1))
	for _, tc := range []struct {
		name     string
		format   Format
		caseload string
	}{
		{"json lines", JSONLines, `{"field_values": {"member": [{"age": 40}, {"age": 5}]}, "reference": "H-1"}
{"field_values": {"member": [{"age": 40}, {"age": 3}]}, "reference": "H-2"}
{"field_values": {"member": [{"age": 40}, {"age": 9}]}, "reference": "H-3"}
`},
		{"csv", CSV, "reference,member,member[0].age,member[1].age\nH-1,2,40,5\nH-2,2,40,3\nH-3,2,40,9\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Run(context.Background(), strings.NewReader(tc.caseload), Options{Baseline: baseline, Candidate: candidate, Format: tc.format, Examples: 5})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Cases != 3 || rep.Changed != 1 || len(rep.BadRows) != 0 || len(rep.Undecided) != 0 {
				t.Fatalf("report %+v", rep)
			}
			for _, tr := range rep.Transitions {
				if tr.From != tr.To && (tr.Count != 1 || len(tr.Examples) != 1 || tr.Examples[0] != "H-1") {
					t.Errorf("transition %+v: only the household with a five-year-old moves", tr)
				}
			}
		})
	}
}
