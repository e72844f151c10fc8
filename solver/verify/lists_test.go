package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/solvertest"
)

// TestToolsSpeakHouseholds: the examples the solver gives for a ruleset
// with a list of members are households as /decide reads them. Every
// suggested case converts without a field error and passes, and a diff's
// witness holds the list of members, not the flat fields it is compiled to.
func TestToolsSpeakHouseholds(t *testing.T) {
	var rules = solvertest.ValuesTestdata(t)
	var household = rules[0].Rules
	for _, cb := range rules {
		if cb.Name == "testdata/values/household.rules" {
			household = cb.Rules
		}
	}
	if household.SectionID != "household" {
		t.Fatal("no household ruleset in solver/testdata/values")
	}
	ctx := context.Background()
	suggestions, err := SuggestCases(ctx, household, nil, SuggestOptions{DecisionDate: "2025-06-01"})
	if err != nil {
		t.Fatal(err)
	}
	reached := 0
	for _, s := range suggestions {
		if !s.Reachable {
			continue
		}
		reached++
		if !strings.Contains(string(s.Case.FieldValues), `"member":`) {
			t.Errorf("%s: the case %s has no household", s.Goal, s.Case.FieldValues)
		}
		if res := household.RunCase(s.Case); !res.Pass || len(res.Result.FieldErrors) > 0 {
			t.Errorf("%s: the case %s does not pass: %v %v", s.Goal, s.Case.FieldValues, res.Mismatches, res.Result.FieldErrors)
		}
	}
	if reached < 5 {
		t.Errorf("only %d suggestions reached", reached)
	}

	src, err := os.ReadFile("../testdata/values/household.rules")
	if err != nil {
		t.Fatal(err)
	}
	older := solvertest.Compile(t, strings.Replace(string(src), "any(member where member.age < 5)", "any(member where member.age < 4)", 1))
	diff, err := Diff(ctx, older, household, DiffOptions{DecisionDate: value.DateOrdinal(2025, 6, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if diff.Equivalent || len(diff.Changes) == 0 {
		t.Fatalf("a child of four is eligible only under the new rules, but the diff finds no change: %+v", diff)
	}
	for _, ch := range diff.Changes {
		members, ok := ch.Witness["member"].(json.RawMessage)
		var list []map[string]any
		if !ok || json.Unmarshal(members, &list) != nil || len(list) == 0 {
			t.Errorf("the witness %v of %s holds no list of members", ch.Witness, mustJSON(ch))
			continue
		}
		for id := range ch.Witness {
			if strings.Contains(id, "[") {
				t.Errorf("the witness names a member's field flat: %s", id)
			}
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// householdRules is a list of up to 6 members read by one aggregate.
const householdRules = `ruleset "t/goals"
section goals
name "Goals"
source s "S" url "https://example.org/s" licence "public-domain"
list member "People" up to 6
  question "How many people?"
field member.age int
  question "How old is this person?"
  range 0..130
group g all "G" {
  criterion young "A child under five" {
    any(member where member.age < 5)
    cite s "a child under five"
  }
}
`

// TestMutantsOfHouseholds: a comparison written once inside an aggregate
// is mutated once, in member 0's part, and neither the unrolling's guards
// nor its chain of members' parts are mutated: one mutant per member up to the bound made survivors of
// every member beyond the cases' households (a Child Benefit ruleset of
// 16 children scored 9%, its equivalence checks taking minutes).
func TestMutantsOfHouseholds(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, householdRules)
	muts, err := mutations(r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range muts {
		got = append(got, m.ID+": "+m.Description)
	}
	want := []string{
		"young/flip_comparison/1: member.age < 5 becomes member.age >= 5",
		"young/shift_threshold/1: member.age < 5 becomes member.age < 4",
		"young/shift_threshold/2: member.age < 5 becomes member.age < 6",
		"young/drop_criterion/1: criterion young dropped from group g: it always holds",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mutants\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cases := []engine.Case{{Name: "a child", FieldValues: json.RawMessage(`{"member":[{"age":3}]}`), ExpectedOutcome: "eligible"}}
	rep, err := MutationScore(context.Background(), r, cases)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != len(want) || !rep.Complete {
		t.Errorf("report %+v, want all %d mutants scored", rep, len(want))
	}
}

// TestGoalsOfHouseholds: a comparison written once inside an aggregate is
// one threshold of suggested cases, on member 0 standing for every member,
// and the guards the unrolling adds ("the list has more than i members")
// are none: a goal per member up to the bound would ask for a household of
// the bound's size, which is slow for Z3 and means nothing to an author.
func TestGoalsOfHouseholds(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, householdRules)
	goals, _, err := caseGoals(r)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, g := range goals {
		texts = append(texts, g.text)
	}
	want := []string{"criterion young satisfied", "criterion young not satisfied",
		"threshold member.age < 5: at 5", "threshold member.age < 5: just below (4)", "threshold member.age < 5: just above (6)"}
	if !slices.Equal(texts, want) {
		t.Errorf("goals\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	got, err := SuggestCases(context.Background(), r, nil, SuggestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		checkSuggestion(t, r, s)
		if !s.Reachable {
			t.Errorf("%s: no case", s.Goal)
		}
	}
}

// TestSuggestGoalsHouseholdOfOne: a goal over an aggregate is met by a
// household smaller than the list's bound (each member's part is guarded
// by the household's size), and a threshold on member 0's part by a
// household of one. Goals that asked for every member the unrolled form
// reads wanted a full household, which the solver's first, small tries
// could never give.
func TestSuggestGoalsHouseholdOfOne(t *testing.T) {
	household := solvertest.ValuesRules(t, "household")
	goals, probe, err := caseGoals(household)
	if err != nil {
		t.Fatal(err)
	}
	member := func(age int, resident bool) string {
		return fmt.Sprintf(`{"age": %d, "pregnant": false, "earnings": 500, "resident": %t}`, age, resident)
	}
	for _, tc := range []struct{ goal, members string }{
		{"criterion child satisfied", member(2, true)},
		{"criterion child not satisfied", member(30, true)},
		{"alternative elder alone", member(70, true)},
		{"criterion residents not satisfied", member(30, false)},
		{"threshold member.age < 5: at 5", member(5, true)},
		{"criterion residents satisfied", ""},
	} {
		k := slices.IndexFunc(goals, func(g caseGoal) bool { return g.text == tc.goal })
		if k < 0 {
			t.Errorf("no goal %q", tc.goal)
			continue
		}
		c := engine.Case{Name: tc.goal, FieldValues: json.RawMessage(`{"household.rent": 0, "member": [` + tc.members + `]}`)}
		if met, ok := goalsMet(household, probe, c, len(goals)); !ok || !met[k] {
			t.Errorf("%s: not met by the household %s", tc.goal, c.FieldValues)
		}
	}
}
