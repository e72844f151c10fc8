package plan

import (
	"slices"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/solvertest"
)

// perPersonRules decide on a figure computed from two answers: a question
// matters when it can change a value the outcome needs.
const perPersonRules = `section per_person
source law "Act" url "https://example.org/act" licence "public-domain"
field income.monthly decimal weight 1
  range 0..
field household.size int weight 2
  range 1..
field person.elderly bool weight 5
value per_person decimal "Income per person" {
  income.monthly / household.size
  cite law "per person"
}
group g any "Income or age" {
  criterion low "Low income per person" {
    per_person <= 500
    cite law "low"
  }
  criterion old "Elderly" {
    person.elderly
    cite law "old"
  }
}
`

// The expected paths are worked out by hand from the rules.
func TestPlanThroughValues(t *testing.T) {
	rs, _, err := engine.Compile("per_person.rules", []byte(perPersonRules))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlanner(4)
	defer p.Close()
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		// Both figures of the value (weight 1 + 2) are cheaper than the
		// elderly question (5): an income of 0 passes whatever the size.
		{"nothing answered", `{}`, []string{"income.monthly", "household.size"}},
		// A high income needs a large household: the size can still
		// bring the figure under 500, and costs less than asking age.
		{"income known", `{"income.monthly": 1800}`, []string{"household.size"}},
		// Settled through the value: nothing left to ask.
		{"eligible through the value", `{"income.monthly": 900, "household.size": 2}`, []string{}},
		// The value is over the limit: only age is left.
		{"the value fails", `{"income.monthly": 5000, "household.size": 2}`, []string{"person.elderly"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pathIDs(planFor(t, p, rs, tc.values, InquiryContext{}))
			if len(got) != len(tc.want) {
				t.Fatalf("path %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("path %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestPlanFullSNAP plans a full SNAP interview (casebank
// us-snap-eligibility: net income through a dozen named values and tables)
// from its first question. A question matters when it can change a value
// the outcome needs, and an if asks only one of its branches: the path
// asks the resources (their own test) and the utility costs one way, the
// allowance or the actual costs, never both. Before the planner read the
// fields behind values, the first plan ran out of its query budget.
func TestPlanFullSNAP(t *testing.T) {
	rs := solvertest.CasebankRules(t, "us-snap-eligibility")
	p := NewPlanner(16)
	defer p.Close()
	for _, values := range []string{
		`{}`,
		`{"household.region": "48_states_dc", "household.size": 3, "household.elderly_or_disabled": false}`,
		`{"household.region": "48_states_dc", "household.size": 3, "household.elderly_or_disabled": false, "income.earned": 2100, "income.unearned": 300}`,
	} {
		plan := planFor(t, p, rs, values, InquiryContext{})
		path := pathIDs(plan)
		if plan.NextQuestion == nil || len(path) == 0 {
			t.Fatalf("%s: no next question (path %v)", values, path)
		}
		if !slices.Contains(path, "resources.countable") {
			t.Errorf("%s: path %v does not ask the resources", values, path)
		}
		if slices.Contains(path, "shelter.standard_utility_allowance") && slices.Contains(path, "shelter.actual_utility_costs") {
			t.Errorf("%s: path %v asks both branches of the utility costs", values, path)
		}
	}
}
