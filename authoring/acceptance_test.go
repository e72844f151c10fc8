package authoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
)

// hintRules decide eligible for anyone 18 or over.
const hintRules = `ruleset "test/hint"
section hint
name "Hint"

source act "Hint Act" url "https://example.org/act" licence "public-domain"

field person.age int
  question "How old are you?"

group age all "Age" {
  criterion adult "An adult" {
    person.age >= 18
    cite act "aged 18 or over"
  }
}

outcome age
`

// TestFailingTestHintNeverRestatesTheOutcomes: every reader of a test
// result shows its expected and decided outcomes beside the hint, so the
// hint says where to look and never "expected not_eligible, got eligible"
// a second time.
func TestFailingTestHintNeverRestatesTheOutcomes(t *testing.T) {
	rules, _, err := engine.Compile("hint.rules", []byte(hintRules))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answers, expected, hint string
	}{
		{"eligible, expected not", `{"person.age": 30}`, "not_eligible", ""},
		{"not eligible, expected eligible", `{"person.age": 10}`, "eligible", "look at criterion adult"},
		{"a misspelt field", `{"person.agee": 30}`, "eligible", "the draft declares no field person.agee"},
		{"an answer of the wrong type", `{"person.age": "old"}`, "undetermined", "field_values: person.age could not be applied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := accept(rules, []engine.Case{{Name: tc.name, FieldValues: json.RawMessage(tc.answers), ExpectedOutcome: tc.expected}}, nil)
			r := a.Results[0]
			if r.Pass {
				t.Fatalf("the case passes: %+v", r)
			}
			if strings.Contains(r.Hint, "expected "+tc.expected) || (tc.hint == "") != (r.Hint == "") || !strings.HasPrefix(r.Hint, tc.hint) {
				t.Errorf("hint %q, want it to start %q and never restate the outcomes", r.Hint, tc.hint)
			}
		})
	}
}
