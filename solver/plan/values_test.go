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

// yesNoValueRules read a yes/no value, compared with true, that is an or
// of two ways of five answers each: a section fact is such a value (a
// section's whole outcome, docs/language.md#rulebooks).
const yesNoValueRules = `section yes_no
source law "Act" url "https://example.org/act" licence "public-domain"
field p.a1 bool
field p.a2 bool
field p.a3 bool
field p.a4 bool
field p.a5 bool
field p.b1 bool
field p.b2 bool
field p.b3 bool
field p.b4 bool
field p.b5 bool
field p.other bool weight 20
value met bool "Met one way or the other" {
  (p.a1 and p.a2 and p.a3 and p.a4 and p.a5) or (p.b1 and p.b2 and p.b3 and p.b4 and p.b5)
  cite law "met"
}
group g any "Met, or the other way" {
  criterion by_value "Met" {
    met == true
    cite law "met"
  }
  criterion other "Other" {
    p.other == true
    cite law "other"
  }
}
`

// TestPlanThroughYesNoValue: the supports of `met == true` are the two
// five-answer ways of the value's own and/or, so the path is found at
// once; seen as one atom, the value would need no answer in particular
// and the search would try every smaller set first, hundreds of them,
// far over this planner's budget.
func TestPlanThroughYesNoValue(t *testing.T) {
	rs, _, err := engine.Compile("yes_no.rules", []byte(yesNoValueRules))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlanner(4, WithMaxChecks(40))
	defer p.Close()
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		{"nothing answered", `{}`, []string{"p.a1", "p.a2", "p.a3", "p.a4", "p.a5"}},
		{"the first way closed", `{"p.a3": false}`, []string{"p.b1", "p.b2", "p.b3", "p.b4", "p.b5"}},
		{"both closed: only the other criterion", `{"p.a3": false, "p.b1": false}`, []string{"p.other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pathIDs(planFor(t, p, rs, tc.values, InquiryContext{})); !slices.Equal(got, tc.want) {
				t.Errorf("path %v, want %v", got, tc.want)
			}
		})
	}
}
