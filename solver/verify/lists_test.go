package verify

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

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
