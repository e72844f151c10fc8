package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
)

// TestTestSuggest: the suggested cases come out as a cases.json that
// `eligo test` passes, dated --date, and the mutation score of the given
// cases, with its survivors, goes to stderr.
func TestTestSuggest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := writeFile(t, dir, "demo.rules", cliRules)
	cases := writeFile(t, dir, "cases.json", `[
  {"name": "eligible", "field_values": {"a.n": 40, "a.born": "1990-01-01"}, "expected_outcome": "eligible", "decision_date": "2024-02-28"}
]`)
	code, out, errs := runCLI("test", rules, "--suggest", cases, "--date", "2024-02-28")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
	var suggested []engine.Case
	if err := json.Unmarshal([]byte(out), &suggested); err != nil || len(suggested) == 0 {
		t.Fatalf("stdout is not a non-empty cases array (%v):\n%s", err, out)
	}
	names := map[string]bool{}
	for _, c := range suggested {
		names[c.Name] = true
		if c.DecisionDate != "2024-02-28" {
			t.Errorf("%s: decision date %q", c.Name, c.DecisionDate)
		}
	}
	for _, goal := range []string{"threshold a.n >= 12: at 12", "threshold a.n >= 12: just below (11)", "criterion adult not satisfied"} {
		if !names[goal] {
			t.Errorf("no case for %q among %v", goal, names)
		}
	}
	score := regexp.MustCompile(`(?m)^mutation score: (\d+)/(\d+) \(\d+%\); survivors:$`).FindStringSubmatch(errs)
	if score == nil || score[1] == score[2] || !strings.Contains(errs, "  c/shift_threshold/1: a.n >= 12 becomes a.n >= 11\n") ||
		!regexp.MustCompile(`(?m)^with the suggested cases: \d+/\d+ \(100%\)$`).MatchString(errs) {
		t.Errorf("stderr:\n%s", errs)
	}
	pasted := writeFile(t, dir, "suggested.json", out)
	if code, out, _ := runCLI("test", rules, pasted); code != 0 || !strings.HasSuffix(out, " passed, 0 failed\n") {
		t.Errorf("eligo test on the suggested cases:\n%s", out)
	}
}

// TestTestSuggestFolder reads a casebank folder's rules and cases; a suite
// that kills every mutant says so.
func TestTestSuggestFolder(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI("test", "--suggest", filepath.Join("..", "..", "casebank", "us-fmla-employee"))
	if code != 0 || out != "[]\n" || errs != "mutation score: 23/23 (100%); survivors: none\n" {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if code, _, errs := runCLI("test", "--suggest"); code == 0 || !strings.Contains(errs, "usage: eligo test --suggest") {
		t.Errorf("no file: exit %d, %s", code, errs)
	}
	dir := t.TempDir()
	rules := writeFile(t, dir, "demo.rules", cliRules)
	if code, _, errs := runCLI("test", "--suggest", rules, "--date", "2024-02-30"); code == 0 || !strings.Contains(errs, "2024-02-30") {
		t.Errorf("bad date: exit %d, %s", code, errs)
	}
}

// TestTestSuggestUndecided: a goal the solver could not decide is printed
// as undecided, not as unreachable: here the only answers meeting it make
// a product past the int range, which the evaluator refuses.
func TestTestSuggestUndecided(t *testing.T) {
	t.Parallel()
	rules := writeFile(t, t.TempDir(), "big.rules", `section big
source law "Law" url "https://laws.example.org/big" licence "public-domain"
field a.x int weight 1
  question "x?"
  range 95000000000000000..
group g all "G" {
  criterion c "C" {
    a.x * 100 >= 1
    cite law "x"
  }
}
outcome g
`)
	code, _, errs := runCLI("test", rules, "--suggest", "--date", "2024-02-28")
	if lines := "\n" + errs; code != 0 || !strings.Contains(lines, "\nundecided: criterion c satisfied\n") ||
		!strings.Contains(lines, "\nunreachable: criterion c not satisfied\n") || strings.Contains(lines, "\nunreachable: criterion c satisfied\n") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
}

// TestTestSuggestStopsOnSignal: `eligo test --suggest` on a draft of a
// thousand criteria (within the engine's caps, hours of solver work
// unbounded) stops when SIGTERM or SIGINT cancels its context, as main
// arranges: it says the run did not finish and exits non-zero, instead of
// running on as it did.
func TestTestSuggestStopsOnSignal(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("section bomb\nsource law \"Law\" url \"https://laws.example.org/bomb\" licence \"public-domain\"\n" +
		"field a.x int weight 1\n  question \"x?\"\nfield a.y decimal weight 1\n  question \"y?\"\ngroup g all \"G\" {\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "  criterion c%d \"C%d\" {\n    a.x >= %d and a.y < %d.5\n    cite law \"x\"\n  }\n", i, i, i, i+7)
	}
	b.WriteString("}\n")
	rules := writeFile(t, t.TempDir(), "bomb.rules", b.String())
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"test", rules, "--suggest"}, &out, &errb) }()
	select {
	case code := <-done:
		if code == 0 || !strings.Contains(errb.String(), "stopped before the end: context canceled") ||
			!strings.Contains(errb.String(), "not finished") {
			t.Errorf("exit %d, stderr:\n%.2000s", code, errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("eligo test --suggest ran on after its context was cancelled")
	}
}

// TestTestSaysWhichAnswersTheRulesCouldNotTake: a case whose answers name
// an undeclared field fails with that field's error first (and the field
// meant, when one is close), as /decide's field_errors say, and without
// the evaluation trace unless --trace asks for it.
func TestTestSaysWhichAnswersTheRulesCouldNotTake(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases.json")
	if err := os.WriteFile(cases, []byte(`[{"name": "typo", "expected_outcome": "eligible",
		"field_values": {"employment.months_employd": 14, "employment.hours_12_months": 1300,
		"employment.employer_type": "private", "employer.workweeks_with_50_employees": 20, "worksite.employees_within_75_miles": 60}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join("..", "..", "casebank", "us-fmla-employee", "us-fmla-employee.rules")
	code, out, _ := eligo(t, "test", rules, cases)
	if code == 0 {
		t.Fatalf("a failing case passed:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || !strings.Contains(lines[1], `unknown field "employment.months_employd"`) ||
		!strings.Contains(lines[1], `did you mean "employment.months_employed"?`) || !strings.Contains(lines[2], "expected eligible, got undetermined") {
		t.Errorf("the field error is not the first thing said:\n%s", out)
	}
	if strings.Contains(out, "trace:") {
		t.Errorf("the trace was printed without --trace:\n%s", out)
	}
	if _, traced, _ := eligo(t, "test", "--trace", rules, cases); !strings.Contains(traced, "trace:") {
		t.Errorf("--trace printed no trace:\n%s", traced)
	}
}
