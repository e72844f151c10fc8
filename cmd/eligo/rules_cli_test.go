package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const cliRules = `section demo

source s "S" url "https://example.org/s" licence "public-domain"

field a.n int weight 1
field a.born date weight 1

group g all "G" {
  criterion c "At least 12" {
    a.n >= 12
    cite s "at least 12"
  }
  criterion adult "Adult" {
    years_between(a.born, decision_date()) >= 18
    cite s "18 years"
  }
}
`

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeFile(t, dir, "good.rules", cliRules)
	bad := writeFile(t, dir, "bad.rules", strings.Replace(cliRules, "a.n >= 12", "a.m >= 12 and a.n == true", 1))
	if code, out, errs := runCLI("check", good); code != 0 || !strings.Contains(out, "good.rules: ok") {
		t.Errorf("check good: %d %q %q", code, out, errs)
	}
	code, _, errs := runCLI("check", good, bad)
	if code == 0 {
		t.Error("check of a bad file exited 0")
	}
	for _, want := range []string{"bad.rules:10:5: unknown field a.m", "bad.rules:10:23: cannot compare an int with a bool"} {
		if !strings.Contains(errs, want) {
			t.Errorf("check output lacks %q:\n%s", want, errs)
		}
	}
}

func TestFmt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	messy := strings.NewReplacer("\n\n", "\n", "\n    ", "\n ", " weight 1", "").Replace(cliRules)
	messyPath := writeFile(t, dir, "messy.rules", "# kept\n"+messy)
	code, out, _ := runCLI("fmt", messyPath)
	if code != 0 || out != "# kept\n"+cliRules {
		t.Fatalf("fmt printed (%d):\n%s", code, out)
	}
	if code, _, _ := runCLI("fmt", "-w", messyPath); code != 0 {
		t.Fatal("fmt -w failed")
	}
	got, _ := os.ReadFile(messyPath)
	if string(got) != out {
		t.Errorf("fmt -w wrote:\n%s", got)
	}
}

func TestTestCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := writeFile(t, dir, "demo.rules", cliRules)
	cases := writeFile(t, dir, "cases.json", `[
  {"name": "eligible", "field_values": {"a.n": 12, "a.born": "2006-02-28"}, "expected_outcome": "eligible", "decision_date": "2024-02-28"},
  {"name": "wrongly expected", "field_values": {"a.n": 11, "a.born": "2006-02-28"}, "expected_outcome": "eligible", "decision_date": "2024-02-28"}
]`)
	code, out, _ := runCLI("test", "--trace", rules, cases)
	if code == 0 {
		t.Error("a failing case exited 0")
	}
	for _, want := range []string{"demo.rules: eligible", "FAIL ", "demo.rules: wrongly expected", "expected eligible, got not_eligible",
		"failing criteria: c", `"failure_reasons"`, `"expression": "a.n >= 12"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "1 passed, 1 failed\n") {
		t.Errorf("last line of:\n%s", out)
	}
}

func TestTestCasebank(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI("test", "../../casebank")
	if code != 0 {
		t.Fatalf("eligo test casebank failed:\n%s\n%s", out, errs)
	}
	if !regexp.MustCompile(`(?m)^[1-9][0-9]* passed, 0 failed\n\z`).MatchString(out) {
		t.Errorf("last line of:\n%s", out)
	}
}

func TestEval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := writeFile(t, dir, "demo.rules", cliRules)
	values := writeFile(t, dir, "values.json", `{"a.n": 1.2e1, "a.born": "2004-02-29"}`)
	code, out, errs := runCLI("eval", rules, values, "--date", "2022-02-28")
	if code != 0 {
		t.Fatalf("eval: %s", errs)
	}
	var got struct {
		Decision     string `json:"decision"`
		DecisionDate string `json:"decision_date"`
		InputsHash   string `json:"inputs_hash"`
		Trace        struct {
			FailureReasons []json.RawMessage `json:"failure_reasons"`
		} `json:"trace"`
		Explanation struct {
			Groups []struct {
				Criteria []struct {
					CriterionID string `json:"criterion_id"`
					Status      string `json:"status"`
				} `json:"criteria"`
			} `json:"groups"`
		} `json:"explanation"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// Born 29 February 2004: 18 years complete on 1 March 2022, not on 28 February.
	if got.Decision != "not_eligible" || got.DecisionDate != "2022-02-28" || !strings.HasPrefix(got.InputsHash, "sha256:") ||
		len(got.Trace.FailureReasons) != 1 || got.Explanation.Groups[0].Criteria[1].Status != "not_satisfied" {
		t.Errorf("decision:\n%s", out)
	}
	if code, _, _ := runCLI("eval", rules, values, "--date", "2022-02-30"); code == 0 {
		t.Error("an impossible --date was accepted")
	}
}

// TestEvalWarnsAsTheAPIDoes: a decision dated outside the rules' period
// carries its note as /decide's warnings do (code and message), not under a
// name of the CLI's own.
func TestEvalWarnsAsTheAPIDoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	values := writeFile(t, dir, "values.json", `{}`)
	code, out, errs := runCLI("eval", "../../casebank/snap-income/snap-income.rules", values, "--date", "2020-01-01")
	if code != 0 {
		t.Fatalf("eval: %s", errs)
	}
	var got struct {
		Decision string `json:"decision"`
		Warnings []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.Decision != "undetermined" || len(got.Warnings) != 1 || got.Warnings[0].Code != "outside_effective_period" ||
		!strings.Contains(got.Warnings[0].Message, "2020-01-01") || strings.Contains(out, "period_warning") {
		t.Errorf("eval outside the period:\n%s", out)
	}
}

// TestEvalPrintsOutputValues: eval prints the figures the law worked out
// (the output values) as /decide returns them.
func TestEvalPrintsOutputValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	values := writeFile(t, dir, "values.json", `{"household.region": "48_states_dc", "household.size": 3, "household.elderly_or_disabled": false,
		"income.earned": 2100, "income.unearned": 300.45, "expenses.dependent_care": 200, "expenses.medical": 0, "expenses.child_support_paid": 0,
		"shelter.rent_or_mortgage": 1100, "shelter.property_tax_and_insurance": 50, "shelter.claims_sua": true,
		"shelter.standard_utility_allowance": 500, "resources.countable": 1000}`)
	code, out, errs := runCLI("eval", "../../casebank/us-snap-eligibility/us-snap-eligibility.rules", values, "--date", "2026-01-15")
	if code != 0 {
		t.Fatalf("eval: %s", errs)
	}
	var got struct {
		Decision string `json:"decision"`
		Values   []struct {
			Value  string          `json:"value"`
			Figure json.RawMessage `json:"figure"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	figures := map[string]string{}
	for _, v := range got.Values {
		figures[v.Value] = string(v.Figure)
	}
	// Worked from 7 CFR 273.9 with the FY2026 figures: gross $2,400 (each
	// income rounded to the dollar), earned deduction 20% of $2,100 = $420,
	// standard $209, dependent care $200: $1,571; shelter $1,100 + $50 +
	// $500 less half of $1,571 is $864.50, capped at $744; net $827.
	if got.Decision != "eligible" || figures["gross_income"] != "2400" || figures["excess_shelter_deduction"] != "744" || figures["net_income"] != "827" {
		t.Errorf("eval of full SNAP: %s %v", got.Decision, figures)
	}
}

// TestEverySubcommandAnswersHelp: `eligo CMD --help` (and -h) prints the
// command's usage and succeeds, for every command; it used to be read as
// a file name by check, fmt, test and graph.
func TestEverySubcommandAnswersHelp(t *testing.T) {
	t.Parallel()
	for name := range commands() {
		for _, flag := range []string{"--help", "-h"} {
			code, out, errs := runCLI(name, flag)
			if code != 0 || !strings.Contains(strings.ToLower(out+errs), "usage") {
				t.Errorf("eligo %s %s: exit %d\nstdout %.300s\nstderr %.300s", name, flag, code, out, errs)
			}
		}
	}
}
