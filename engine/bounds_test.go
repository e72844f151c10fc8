package engine

import (
	"slices"
	"strings"
	"testing"
)

// boundsRules compares counts, sums and the highest of members' figures
// with limits, beside comparisons that read no list.
const boundsRules = `ruleset "demo/bounds"
section bounds
name "Bounds"

source act "Act" url "https://example.org/act" licence "public-domain"

list member "People in the household" up to 4
  question "How many people live in your household?"
field member.age int
  question "How old is this person?"
  range 0..130
field member.income decimal
  question "What does this person earn a month?"
  range 0..
field member.student bool
  question "Is this person a student?"
field household.other_income decimal
  question "What other income does the household have?"

value total decimal "Household income" {
  sum(member.income)
  cite act "the income of every member"
}

group all_of all "Everything" {
  criterion two_children "Two children" {
    count(member where member.age < 18) >= 2
    cite act "at least two children"
  }
  criterion few_students "Fewer than three students" {
    count(member where member.student) < 3
    cite act "fewer than three students"
  }
  criterion under_limit "Income within the limit" {
    total <= 2000
    cite act "income of at most 2,000"
  }
  criterion with_other "All income within the limit" {
    total + household.other_income <= 2000
    cite act "all income of at most 2,000"
  }
  criterion highest "Nobody earns much" {
    max(member.income where member.age >= 16 else 0) < 1500
    cite act "no adult earning 1,500 or more"
  }
  criterion not_three "Not three children" {
    count(member where member.age < 18) != 3
    cite act "not exactly three children"
  }
  criterion flat "Little other income" {
    household.other_income < 100
    cite act "other income under 100"
  }
}

outcome all_of
`

// TestBoundsDecideComparisons checks that a comparison reading a list's
// length is decided once the ranges its sides can still take settle it,
// and that every other comparison keeps Kleene's rule.
func TestBoundsDecideComparisons(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("bounds.rules", []byte(boundsRules))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	const (
		P = Pending
		S = Satisfied
		N = NotSatisfied
	)
	for _, tt := range []struct {
		name     string
		answers  string
		criteria map[string]Status
	}{
		{"nothing known: every side can still be anything in its range",
			`{}`, map[string]Status{"two_children": P, "few_students": P, "under_limit": P, "with_other": P, "highest": P, "not_three": P, "flat": P}},
		{"two known children settle at least two, whatever the rest",
			`{"member": [{"age": 3}, {"age": 5}, {}, {}]}`, map[string]Status{"two_children": S, "not_three": P}},
		{"too few members left to make two children",
			`{"member": [{"age": 30}, {"age": 40}, {}]}`, map[string]Status{"two_children": N, "not_three": S}},
		{"a household of two cannot hold three students",
			`{"member": [{"student": true}, {}]}`, map[string]Status{"few_students": S}},
		{"four members and three known students",
			`{"member": [{"student": true}, {"student": true}, {"student": true}, {}]}`, map[string]Status{"few_students": N}},
		{"one member's income already past the limit, the others' not given",
			`{"member": [{"income": 2500}, {}]}`, map[string]Status{"under_limit": N}},
		{"an unbounded answer keeps its comparison unknown",
			`{"member": [{"income": 2500}, {}]}`, map[string]Status{"with_other": P}},
		{"a known adult's earnings settle the highest",
			`{"member": [{"income": 1600, "age": 40}, {}]}`, map[string]Status{"highest": N}},
		{"the highest waits while a member could still earn more",
			`{"member": [{"income": 1000, "age": 40}, {"age": 30}]}`, map[string]Status{"highest": P}},
		{"income within the limit needs every member's income",
			`{"member": [{"income": 500}, {}]}`, map[string]Status{"under_limit": P}},
		{"a comparison that reads no list keeps Kleene's rule",
			`{"member": []}`, map[string]Status{"flat": P, "with_other": P, "under_limit": S, "two_children": N}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := convertClean(t, r, tt.answers)
			res := r.Evaluate(in, Options{})
			for id, want := range tt.criteria {
				if got := criterionStatus(t, r, res, id); got != want {
					t.Errorf("criterion %s is %s, want %s", id, got, want)
				}
			}
		})
	}
}

// convertClean reads answers that must convert without a field error.
func convertClean(t *testing.T, r *Ruleset, answers string) *Inputs {
	t.Helper()
	in, err := r.Convert([]byte(answers))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.FieldErrors) > 0 {
		t.Fatalf("field errors: %v", in.FieldErrors)
	}
	return in
}

// perPersonRules divides a household's earnings by its size, which an
// answer of 0 makes a division by zero.
const perPersonRules = `section per_person
source act "Act" url "https://example.org/act" licence "public-domain"

list member "People in the household" up to 4
  question "How many people live in your household?"
field member.earned decimal
  question "What does this person earn?"
  range 0..
field household.size int
  question "How many people does the household count?"

value per_person decimal "Earnings per person" {
  sum(member.earned) / household.size
  cite act "Act"
}

group tests all "Tests" {
  criterion low "Low earnings per person" {
    per_person <= 500
    cite act "Act"
  }
  criterion direct "Low earnings per person, worked out in place" {
    sum(member.earned) / household.size <= 500
    cite act "Act"
  }
}

outcome tests
`

// TestBoundsFaultNamedOnce checks that a value whose arithmetic has no
// result is one field error naming the value, as without bounds: the
// range of a comparison reading it works the value's expression out
// again, and that must not charge its fault to the criterion as well. A
// criterion's own division by zero stays its own error.
func TestBoundsFaultNamedOnce(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("per_person.rules", []byte(perPersonRules))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	in := convertClean(t, r, `{"member": [{"earned": 100}], "household.size": 0}`)
	res := r.Evaluate(in, Options{})
	var got []string
	for _, fe := range res.FieldErrors {
		got = append(got, strings.SplitN(fe.Message, ":", 2)[0])
	}
	if want := []string{"value per_person", "criterion direct"}; !slices.Equal(got, want) {
		t.Errorf("field errors from %q, want one each from %q: %v", got, want, res.FieldErrors)
	}
}
