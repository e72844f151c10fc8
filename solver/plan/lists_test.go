package plan

import (
	"slices"
	"testing"

	"github.com/eligo/eligo/engine"
)

// householdRules decide on the members of a household: any member under
// five or pregnant.
const householdRules = `section household
source law "Act" url "https://example.org/act" licence "public-domain"
list member "People in the household" up to 4 weight 4
  question "How many people live in your household?"
field member.age int weight 1
  question "How old is this person?"
  range 0..130
field member.pregnant bool weight 3
  question "Is this person pregnant?"
group g all "A child or a pregnancy" {
  criterion young_or_pregnant "A child under five or a pregnant member" {
    any(member where member.age < 5 or member.pregnant)
    cite law "a child under five or a pregnant member"
  }
}
`

// The expected paths are worked out by hand from the rules: how many
// members comes first, whatever its weight; then the cheapest member
// question that can settle the outcome; never one that cannot.
func TestPlanHousehold(t *testing.T) {
	rs, _, err := engine.Compile("household.rules", []byte(householdRules))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlanner(4)
	defer p.Close()
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		{"nothing answered: how many, then the first person's age", `{}`, []string{"member", "member[0].age"}},
		{"one adult: only her pregnancy is left", `{"member": [{"age": 40}]}`, []string{"member[0].pregnant"}},
		{"the second person's age is cheaper than the first one's pregnancy", `{"member": [{"age": 40}, {}]}`, []string{"member[1].age"}},
		{"a child settles it: nothing about the others", `{"member": [{"age": 3}, {}, {}]}`, []string{}},
		{"everyone known not to qualify", `{"member": [{"age": 40, "pregnant": false}]}`, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pathIDs(planFor(t, p, rs, tc.values, InquiryContext{}))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("path %v, want %v", got, tc.want)
			}
		})
	}
}
