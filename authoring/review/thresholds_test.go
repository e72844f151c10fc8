package review_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
)

// thresholdRules compares fields and computed values with constants in
// every way the check handles: constant on the left, a computed side
// (years_between with decision_date, a ?? default), decimal, date, ==, and
// an int field against a fractional constant.
const thresholdRules = `ruleset "test/thresholds"
section thresholds
name "Thresholds"

source s "Source" url "https://example.org/s" licence "public-domain"

field person.age int weight 1
field person.birth date weight 1
field person.income decimal weight 1
field person.start date weight 1
field person.count int weight 1

group g all "Everything" {
  criterion adult "Adult" {
    18 <= person.age
    cite s "adult"
  }
  criterion pension_age "Pension age" {
    years_between(person.birth, decision_date()) >= 66
    cite s "pension age"
  }
  criterion income "Income" {
    person.income ?? 0 < 1305.5
    cite s "income"
  }
  criterion started "Started" {
    person.start > date("2020-01-01")
    cite s "started"
  }
  criterion count "Count" {
    person.count == 3 and person.count >= 2.5
    cite s "count"
  }
}
`

// thresholdLines are the evidence lines for every threshold when no case
// tests any, in criterion order.
var thresholdLines = []string{
	"18 <= person.age (criterion adult): no case at 18 and no case at 17",
	"years_between(person.birth, decision_date()) >= 66 (criterion pension_age): no case at 66 and no case at 65",
	"person.income ?? 0 < 1305.5 (criterion income): no case at 1305.5 and no case below 1305.5",
	`person.start > date("2020-01-01") (criterion started): no case at 2020-01-01 and no case at 2020-01-02`,
	"person.count == 3 (criterion count): no case at 3 and no case at 2 or 4",
	"person.count >= 2.5 (criterion count): no case below 2.5 and no case above 2.5",
}

// thresholdCase is the threshold_boundaries check's status and evidence
// over r that cases (JSON) should give.
type thresholdCase struct {
	name, cases, status string
	evidence            []string
}

// check reviews tc's cases over r and compares the check with tc's.
func (tc thresholdCase) check(t *testing.T, r *engine.Ruleset) {
	t.Helper()
	cases := parseCases(t, tc.cases)
	results, ignored := runCases(t, r, cases)
	rep := build(t, review.Input{Rules: r, Cases: cases, Results: results, IgnoredFields: ignored}, review.Options{})
	c := checkOf(t, rep, review.CheckThresholdBoundaries)
	if c.Status != tc.status || !slices.Equal(c.Evidence, tc.evidence) {
		t.Errorf("%s: %s %q\nwant %s %q", tc.name, c.Status, c.Evidence, tc.status, tc.evidence)
	}
}

func TestThresholdBoundaries(t *testing.T) {
	t.Parallel()
	r, _, err := engine.Compile("thresholds.rules", []byte(thresholdRules))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []thresholdCase{
		{"no cases", `[]`, "fail", thresholdLines},
		{"far from every boundary", `[
		  {"name": "far", "decision_date": "2026-01-01", "field_values": {"person.age": 40, "person.birth": "1940-05-05", "person.income": 100, "person.start": "2024-01-01", "person.count": 9}, "expected_outcome": "not_eligible"}
		]`, "fail", []string{
			thresholdLines[0], thresholdLines[1],
			"person.income ?? 0 < 1305.5 (criterion income): no case at 1305.5",
			thresholdLines[3], thresholdLines[4],
			"person.count >= 2.5 (criterion count): no case below 2.5",
		}},
		{"every boundary, computed sides included", `[
		  {"name": "at", "decision_date": "2026-01-01", "field_values": {"person.age": 18, "person.birth": "1960-01-01", "person.income": 1305.5, "person.start": "2020-01-01", "person.count": 3}, "expected_outcome": "not_eligible"},
		  {"name": "beside", "decision_date": "2026-01-01", "field_values": {"person.age": 17, "person.birth": "1960-01-02", "person.start": "2020-01-02", "person.count": 2}, "expected_outcome": "not_eligible"}
		]`, "pass", []string{"all 6 thresholds tested at the boundary and beside it"}},
		{"the wrong side of each boundary", `[
		  {"name": "at", "decision_date": "2026-01-01", "field_values": {"person.age": 18, "person.birth": "1960-01-01", "person.income": 1305.5, "person.start": "2020-01-01", "person.count": 3}, "expected_outcome": "not_eligible"},
		  {"name": "other side", "decision_date": "2026-01-01", "field_values": {"person.age": 19, "person.birth": "1959-06-01", "person.income": 1400, "person.start": "2019-12-31", "person.count": 4}, "expected_outcome": "not_eligible"}
		]`, "warn", []string{
			"18 <= person.age (criterion adult): no case at 17",
			"years_between(person.birth, decision_date()) >= 66 (criterion pension_age): no case at 65",
			"person.income ?? 0 < 1305.5 (criterion income): no case below 1305.5",
			`person.start > date("2020-01-01") (criterion started): no case at 2020-01-02`,
			"person.count >= 2.5 (criterion count): no case below 2.5",
		}},
		{"a case without its decision date decides no computed side", `[
		  {"name": "at", "field_values": {"person.birth": "1960-01-01"}, "expected_outcome": "undetermined"},
		  {"name": "beside", "field_values": {"person.birth": "1960-01-02"}, "expected_outcome": "undetermined"}
		]`, "fail", thresholdLines},
	} {
		tc.check(t, r)
	}
}

func TestThresholdBoundariesNotApplicable(t *testing.T) {
	t.Parallel()
	const rules = `ruleset "test/no-thresholds"
section flags
name "Flags"

source s "Source" url "https://example.org/s" licence "public-domain"

field person.resident bool weight 1

group g all "Everything" {
  criterion resident "Resident" {
    person.resident
    cite s "resident"
  }
  criterion decided "Decided by an official" discretionary {
    cite s "official"
  }
}
`
	r, _, err := engine.Compile("flags.rules", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	cases := parseCases(t, `[
	  {"name": "resident", "field_values": {"person.resident": true}, "expected_outcome": "undetermined"},
	  {"name": "not resident", "field_values": {"person.resident": false}, "expected_outcome": "not_eligible"}
	]`)
	results, _ := runCases(t, r, cases)
	rep := build(t, review.Input{Rules: r, Cases: cases, Results: results}, review.Options{})
	if c := checkOf(t, rep, review.CheckThresholdBoundaries); c.Status != "na" || c.Scored || !hasEvidence(c, "no criterion compares") {
		t.Errorf("threshold_boundaries %+v, want na", c)
	}
	c := checkOf(t, rep, review.CheckCriteriaBothWays)
	if c.Status != "pass" || !hasEvidence(c, "discretionary criteria excluded (always pending): decided") {
		t.Errorf("criteria_both_ways %+v, want pass naming the discretionary criterion", c)
	}
}

// mealsHead declares a household of up to four with each member's age,
// for the tests over members; inSchoolField adds whether each goes to
// school.
const mealsHead = `ruleset "test/member-thresholds"
section meals
name "Meals"

source s "Source" url "https://example.org/s" licence "public-domain"

list member "People in the household" up to 4
  question "How many people live in your household?"
field member.age int weight 1
  question "How old is this person?"
`

// inSchoolField is each member's school question (see mealsHead).
const inSchoolField = `field member.in_school bool weight 2
  question "Does this person go to school?"
`

// TestThresholdBoundariesOverMembers: a comparison over a member's field
// is one threshold as written, tested by a case at its boundary for any
// member; the guards `member > i` the compiler puts before each member's
// part are no thresholds, while a count the rules compare is one.
func TestThresholdBoundariesOverMembers(t *testing.T) {
	t.Parallel()
	rules := mealsHead + inSchoolField + `
group g all "Everything" {
  criterion school_child "A child in school" {
    any(member where member.age < 18 and member.in_school)
    cite s "child"
  }
  criterion small "At most three people" {
    count(member) <= 3
    cite s "small"
  }
}
`
	r, _, err := engine.Compile("meals.rules", []byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []thresholdCase{
		{"no cases", `[]`, "fail", []string{
			"member.age < 18 (criterion school_child): no case at 18 and no case at 17",
			"count(member) <= 3 (criterion small): no case at 3 and no case at 4",
		}},
		{"the boundary by the second member, beside it by the first", `[
		  {"name": "at", "field_values": {"member": [{"age": 40, "in_school": false}, {"age": 18, "in_school": true}, {"age": 9, "in_school": true}]}, "expected_outcome": "eligible"},
		  {"name": "beside", "field_values": {"member": [{"age": 17, "in_school": true}]}, "expected_outcome": "eligible"}
		]`, "warn", []string{"count(member) <= 3 (criterion small): no case at 4"}},
	} {
		tc.check(t, r)
	}
}

// TestUnusedFieldsOverMembers: a field of each member is one field as the
// rules write it (member.age), however many members the list holds, so
// the field check and the compile summary count it once, and an unread
// one is named once.
func TestUnusedFieldsOverMembers(t *testing.T) {
	t.Parallel()
	const group = `
group g all "Everything" {
  criterion child "A child" {
    any(member where member.age < 18)
    cite s "child"
  }
}
`
	for _, tc := range []struct {
		name, extra, status string
		evidence            []string
	}{
		{"every field read", "", "pass", []string{"all 2 declared fields are read, and every test field is declared"}},
		{"a member field unread", inSchoolField, "warn",
			[]string{"field member.in_school is declared but no criterion reads it"}},
	} {
		r, _, err := engine.Compile("meals.rules", []byte(mealsHead+tc.extra+group))
		if err != nil {
			t.Fatal(err)
		}
		rep := build(t, review.Input{Rules: r}, review.Options{})
		c := checkOf(t, rep, review.CheckUnusedFields)
		if c.Status != tc.status || !slices.Equal(c.Evidence, tc.evidence) {
			t.Errorf("%s: %s %q\nwant %s %q", tc.name, c.Status, c.Evidence, tc.status, tc.evidence)
		}
		fields := 2
		if tc.extra != "" {
			fields = 3
		}
		compiled := fmt.Sprintf("section meals compiles: 1 group, 1 criterion, %d fields", fields)
		if c := checkOf(t, rep, review.CheckDraftCompiles); !slices.Equal(c.Evidence, []string{compiled}) {
			t.Errorf("%s: draft compiles says %q, want %q", tc.name, c.Evidence, compiled)
		}
	}
}
