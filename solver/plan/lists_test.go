package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/solver/solvertest"
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

// wideHouseholdRules are householdRules with room for 30 people of ten
// questions each, eight of them read by no criterion: 301 fields once the
// list is unrolled (docs/language.md#households), more than a planner
// field set once held, and the last person's age at slot 299.
var wideHouseholdRules = func() string {
	var b strings.Builder
	b.WriteString(`section wide_household
source law "Act" url "https://example.org/act" licence "public-domain"
list member "People in the household" up to 30 weight 4
  question "How many people live in your household?"
`)
	for i := range 8 {
		fmt.Fprintf(&b, "field member.note%d int weight 1\n  question \"Anything else (%d)?\"\n", i, i)
	}
	_, rest, _ := strings.Cut(householdRules, "weight 4\n  question \"How many people live in your household?\"\n")
	b.WriteString(rest)
	return b.String()
}()

// The expected paths are worked out by hand from the rules: how many
// members comes first, whatever its weight; then the cheapest member
// question that can settle the outcome; never one that cannot. The wide
// household asks the same, at slots beyond 256.
func TestPlanHousehold(t *testing.T) {
	adults := strings.Repeat(`{"age": 40, "pregnant": false}, `, 29)
	for _, tc := range []struct {
		name, rules, values string
		want                []string
	}{
		{"nothing answered: how many, then the first person's age", householdRules, `{}`, []string{"member", "member[0].age"}},
		{"one adult: only her pregnancy is left", householdRules, `{"member": [{"age": 40}]}`, []string{"member[0].pregnant"}},
		{"the second person's age is cheaper than the first one's pregnancy", householdRules, `{"member": [{"age": 40}, {}]}`, []string{"member[1].age"}},
		{"a child settles it: nothing about the others", householdRules, `{"member": [{"age": 3}, {}, {}]}`, []string{}},
		{"everyone known not to qualify", householdRules, `{"member": [{"age": 40, "pregnant": false}]}`, []string{}},
		{"wide: nothing answered: how many, then the first person's age", wideHouseholdRules, `{}`, []string{"member", "member[0].age"}},
		{"wide: one adult: only her pregnancy is left", wideHouseholdRules, `{"member": [{"age": 40}]}`, []string{"member[0].pregnant"}},
		{"wide: 29 adults: the thirtieth person's age", wideHouseholdRules, `{"member": [` + adults + `{}]}`, []string{"member[29].age"}},
		{"wide: 29 adults and a known age: her pregnancy", wideHouseholdRules, `{"member": [` + adults + `{"age": 30}]}`, []string{"member[29].pregnant"}},
		{"wide: a child settles it", wideHouseholdRules, `{"member": [{"age": 40}, {"age": 2}]}`, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, _, err := engine.Compile("household.rules", []byte(tc.rules))
			if err != nil {
				t.Fatal(err)
			}
			p := NewPlanner(4)
			defer p.Close()
			plan := planFor(t, p, rs, tc.values, InquiryContext{})
			got := pathIDs(plan)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("path %v, want %v", got, tc.want)
			}
			if len(got) > 0 && (plan.NextQuestion == nil || plan.NextQuestion.FieldID != got[0]) {
				t.Fatalf("next question %+v, path %v", plan.NextQuestion, got)
			}
		})
	}
}

// smallHouseholdRules read three members through every kind of
// aggregate, small enough for the brute force of property_test.go.
const smallHouseholdRules = `section small_household
source law "Act" url "https://example.org/act" licence "public-domain"
field household.rent int weight 2
  question "How much rent does the household pay a month?"
  range 0..
list member "People sharing the home" up to 3 weight 1
  question "How many people share your home?"
field member.income int weight 2
  question "How much does this person earn a month?"
  range 0..
field member.age int weight 1
  question "How old is this person?"
  range 0..130
field member.student bool weight 1
  question "Is this person a student?"
group means all "Means" {
  criterion income "The income of the members who are not students is within the limit" {
    sum(member.income where not member.student) <= 1000 + household.rent
    cite law "the income of the household, students left out"
  }
  criterion adult "An adult lives in the household" {
    count(member where member.age >= 18) >= 1
    cite law "at least one adult"
  }
}
group need any "Need" {
  criterion young "Nobody is 65 or over" {
    all(member where member.age < 65)
    cite law "no member of pensionable age"
  }
  criterion rent "High rent" {
    household.rent > 500
    cite law "a rent over 500"
  }
}
outcome means and need
`

// On households the search keeps one set of each family of
// interchangeable members' questions and grows rejected sets by their
// unsat cores (members.go, search.go); the paths stay the ones a brute
// force over every subset of the unanswered fields finds.
func TestPlanMatchesBruteForceHousehold(t *testing.T) {
	samples := 24
	if solvertest.Long() {
		samples = 200
	}
	for name, src := range map[string]string{"household": householdRules, "small household": smallHouseholdRules} {
		t.Run(name, func(t *testing.T) {
			rs, _, err := engine.Compile(name+".rules", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			checkPlans(t, name, rs, samples, 5)
		})
	}
}

// Full SNAP with members (casebank us-snap-household, up to 8 people of
// 15 questions each) plans within the default number of solver queries
// from sampled partial households on days the rules are in force, and its
// paths never ask about a member beyond the household's answered size,
// nor about a member before how many there are. Each query gets a minute,
// not the 2 s a served plan gets: how fast a loaded machine answers is
// measured by BenchmarkPlanHousehold, not here.
func TestPlanHouseholdWithinBudget(t *testing.T) {
	rs := solvertest.CasebankRules(t, "us-snap-household")
	samples := 40
	if solvertest.Long() {
		samples = 400
	}
	p := NewPlanner(samples, WithCheckTimeout(time.Minute))
	defer p.Close()
	smp := enginetest.NewSampler(rs, 11)
	list := rs.FieldIndex("member")
	days := []int64{value.DateOrdinal(2022, 12, 1), value.DateOrdinal(2024, 3, 1), value.DateOrdinal(2025, 6, 30), value.DateOrdinal(2026, 1, 15)}
	asked := 0
	for i := range samples {
		date := days[i%len(days)]
		in := smp.Inputs([]float64{0.2, 0.4, 0.6}[i%3], date)
		res := rs.Evaluate(in, engine.Options{DecisionDate: date})
		plan, err := p.Plan(context.Background(), rs, in, res, InquiryContext{})
		if err != nil {
			t.Fatalf("answers %s: %v", solvertest.DescribeInputs(rs, in), err)
		}
		n := in.Values[list]
		for k, step := range plan.OptimalPath {
			f := rs.Fields[rs.FieldIndex(step.FieldID)]
			switch {
			case f.Member == nil:
			case n.Known && int64(f.Member.Index) >= n.Num:
				t.Fatalf("answers %s: path %v asks about a member beyond the %d there are", solvertest.DescribeInputs(rs, in), pathIDs(plan), n.Num)
			case !n.Known && !slices.Contains(pathIDs(plan)[:k], "member"):
				t.Fatalf("answers %s: path %v asks about a member before how many there are", solvertest.DescribeInputs(rs, in), pathIDs(plan))
			}
		}
		if len(plan.OptimalPath) > 0 {
			asked++
		}
	}
	if asked < samples/2 {
		t.Fatalf("only %d of %d sampled households have questions left", asked, samples)
	}
}

// A rulebook composes its sections' fields side by side, so it may hold
// more than one ruleset can (syntax.MaxFields): the wide household beside
// 300 asset questions is 601 fields, the last asset question at slot 600,
// in the words a field set keeps beyond its own (fieldset.go). The plan
// still asks the household's size, a member's age and that asset, and
// nothing once they are answered.
func TestPlanRulebookBeyondMaxFields(t *testing.T) {
	var b strings.Builder
	b.WriteString("section assets\nsource law \"Act\" url \"https://example.org/act\" licence \"public-domain\"\n")
	for i := range 300 {
		fmt.Fprintf(&b, "field asset.a%d int weight 1\n  question \"How much is asset %d worth?\"\n", i, i)
	}
	b.WriteString("group g all \"Assets\" {\n  criterion last_asset \"The last asset is worth something\" {\n    asset.a299 > 0\n    cite law \"an asset\"\n  }\n}\n")
	var sections []rulebook.Section
	for i, src := range []string{wideHouseholdRules, b.String()} {
		rs, _, err := engine.Compile(fmt.Sprintf("section%d.rules", i), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		sections = append(sections, rulebook.Section{Letter: rulebook.Letter(i), SectionID: rs.SectionID,
			RulesetID: rs.SectionID + ":1", ContentDigest: rs.ContentDigest(), Rules: rs})
	}
	book, err := rulebook.Compose(rulebook.Spec{Name: "Household and assets", Slug: "test/household-assets", Sections: sections})
	if err != nil {
		t.Fatal(err)
	}
	rs := book.Rules
	if n := len(rs.Fields); n <= syntax.MaxFields || rs.FieldIndex("asset.a299") < inlineWords*64 {
		t.Fatalf("%d fields, asset.a299 at slot %d: the composition does not reach beyond a field set's own words", n, rs.FieldIndex("asset.a299"))
	}
	p := NewPlanner(4)
	defer p.Close()
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		{"nothing answered", `{}`, []string{"member", "member[0].age", "asset.a299"}},
		{"a child: only the asset", `{"member": [{"age": 2}]}`, []string{"asset.a299"}},
		{"an asset: the household", `{"asset.a299": 10}`, []string{"member", "member[0].age"}},
		{"both answered", `{"member": [{"age": 2}], "asset.a299": 10}`, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := planFor(t, p, rs, tc.values, InquiryContext{})
			if got := pathIDs(plan); !slices.Equal(got, tc.want) {
				t.Fatalf("path %v, want %v", got, tc.want)
			}
		})
	}
}
