package main

import (
	"encoding/json"
	"path/filepath"
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
	code, out, errs := runCLI("eval", "--explain-failure", "not_eligible", rules, values)
	if code != 0 {
		t.Fatalf("eval --explain-failure: %d %s", code, errs)
	}
	var got struct {
		Actual  string `json:"actual_outcome"`
		Reasons []struct {
			ID        string `json:"criterion_id"`
			Mechanism string `json:"mechanism"`
		} `json:"reasons"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Actual != "eligible" || len(got.Reasons) != 2 || got.Reasons[1].ID != "net_income" || got.Reasons[1].Mechanism != "presence_default" {
		t.Errorf("explanation %+v", got)
	}
	if code, _, _ := runCLI("eval", "--explain-failure", "maybe", rules, values); code == 0 {
		t.Error("an unknown expected outcome was accepted")
	}
}
