package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEvalExplainFailure runs `eligo eval --explain-failure` on a casebank
// ruleset: the non-conservative income default makes an applicant with no
// income answer eligible, and expecting not_eligible names both criteria
// that would each have to fail, the default among them.
func TestEvalExplainFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := filepath.Join("..", "..", "casebank", "polarity-nonconservative", "polarity-nonconservative.rules")
	values := writeFile(t, dir, "values.json", `{"household.size": 1}`)
	// A date in fiscal year 2026, the period the ruleset holds for.
	code, out, errs := runCLI("eval", "--date", "2026-03-15", "--explain-failure", "not_eligible", rules, values)
	if code != 0 {
		t.Fatalf("eval --explain-failure: %d %s", code, errs)
	}
	// The shape of explain-ruleset-failure's answer: reasons keyed by
	// criterion id.
	var got struct {
		Actual  string `json:"actual_outcome"`
		Reasons map[string]struct {
			ID        string `json:"criterion_id"`
			Mechanism string `json:"mechanism"`
		} `json:"reasons"`
		DecisionDate string `json:"decision_date"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r := got.Reasons["net_income"]; got.Actual != "eligible" || len(got.Reasons) != 2 || r.ID != "net_income" || r.Mechanism != "presence_default" ||
		got.DecisionDate != "2026-03-15" {
		t.Errorf("explanation %+v", got)
	}
	if code, _, _ := runCLI("eval", "--explain-failure", "maybe", rules, values); code == 0 {
		t.Error("an unknown expected outcome was accepted")
	}
}

// overflowRules has one criterion whose arithmetic overflows the engine's
// 18 digits for a large enough x.n.
const overflowRules = `ruleset "acme/overflow"
section big

source law "Test law" url "https://example.test/law" licence "public-domain"

field x.n int weight 1

group g all "Big enough" {
  criterion big "Above ten" {
    x.n * 1000000000 > 10
    cite law "the whole law"
  }
}
`

// TestEvalExplainFailureFieldErrors runs `eligo eval --explain-failure` on
// answers that cannot be applied: they are printed in field_errors with a
// zero exit and an undetermined actual outcome, whether the answer does
// not convert (explained as unanswered) or its arithmetic overflows (no
// criterion to blame).
func TestEvalExplainFailureFieldErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := writeFile(t, dir, "ovf.rules", overflowRules)
	tests := []struct {
		name, values string
		// message is a fragment of the one field error's message.
		message string
		// reasons are the mechanisms of the expected reasons.
		reasons []string
	}{
		{"overflow", `{"x.n": 999999999999999999}`, "overflows", nil},
		{"not a number", `{"x.n": "many"}`, "expected a number", []string{"missing_answer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			values := writeFile(t, t.TempDir(), "values.json", tc.values)
			code, out, errs := runCLI("eval", "--explain-failure", "eligible", rules, values)
			if code != 0 {
				t.Fatalf("eval --explain-failure: %d %s", code, errs)
			}
			var got struct {
				Actual  string `json:"actual_outcome"`
				Reasons map[string]struct {
					Mechanism string `json:"mechanism"`
				} `json:"reasons"`
				FieldErrors []struct {
					Field   string `json:"field"`
					Message string `json:"message"`
				} `json:"field_errors"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var mechanisms []string
			for _, r := range got.Reasons {
				mechanisms = append(mechanisms, r.Mechanism)
			}
			if got.Actual != "undetermined" || len(got.FieldErrors) != 1 || got.FieldErrors[0].Field != "x.n" ||
				!strings.Contains(got.FieldErrors[0].Message, tc.message) || !slices.Equal(mechanisms, tc.reasons) {
				t.Errorf("explanation %s", out)
			}
		})
	}
}
