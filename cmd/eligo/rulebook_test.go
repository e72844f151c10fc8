package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// casebankRulebook is the casebank's rulebook folder, from this package.
var casebankRulebook = filepath.Join("..", "..", "casebank", "au-age-pension-rulebook")

func TestRulebookCheckCasebank(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI("rulebook", "check", casebankRulebook)
	if code != 0 || errs != "" {
		t.Fatalf("check exited %d:\n%s\n%s", code, out, errs)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filepath.Join(casebankRulebook, "rulebook.json")) + `: ok$`),
		regexp.MustCompile(`(?m)^rulebook au/age-pension-rulebook: Australian Age Pension`),
		regexp.MustCompile(`(?m)^  A +au_pension_age +local:au-pension-age\.rules +sha256:[0-9a-f]{64} `),
		regexp.MustCompile(`(?m)^  B +au_qualifying_residence +local:au-qualifying-residence\.rules +sha256:[0-9a-f]{64} `),
		regexp.MustCompile(`(?m)^  C +au_residence_alternatives +local:au-residence-alternatives\.rules +sha256:[0-9a-f]{64} `),
		regexp.MustCompile(`(?m)^outcome: A and \(B or C\)$`),
		regexp.MustCompile(`(?m)^fields: 5, shared: 0$`),
		regexp.MustCompile(`(?m)^criteria: 9, groups: 3$`),
		regexp.MustCompile(`(?m)^content digest: sha256:[0-9a-f]{64}$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("check output does not match %s:\n%s", want, out)
		}
	}
}

// rulebookDecision is the part of rulebook eval's output the tests read.
type rulebookDecision struct {
	Decision     string            `json:"decision"`
	Slug         string            `json:"slug"`
	DecisionDate string            `json:"decision_date"`
	InputsHash   string            `json:"inputs_hash"`
	Groups       map[string]string `json:"groups"`
	NextQuestion *struct {
		FieldID  string `json:"field_id"`
		Question string `json:"question"`
	} `json:"next_question"`
	ChoiceContext struct {
		FieldSections map[string]string `json:"field_sections"`
		OrGroups      []struct {
			SectionID string `json:"section_id"`
			GroupID   string `json:"group_id"`
		} `json:"or_groups"`
	} `json:"choice_context"`
	SectionResults []struct {
		Letter    string `json:"letter"`
		SectionID string `json:"section_id"`
		RulesetID string `json:"ruleset_id"`
		Decision  string `json:"decision"`
	} `json:"section_results"`
}

func evalRulebook(t *testing.T, args ...string) rulebookDecision {
	t.Helper()
	code, out, errs := runCLI(append([]string{"rulebook", "eval"}, args...)...)
	if code != 0 {
		t.Fatalf("rulebook eval %q exited %d: %s", args, code, errs)
	}
	var d rulebookDecision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return d
}

func TestRulebookEvalCasebank(t *testing.T) {
	t.Parallel()
	// Pension age reached, 8 years of residence: B fails, C is open, so
	// the rulebook waits on C.
	values := `{"person.date_of_birth": "1950-05-05", "residence.longest_continuous_years": 8, "residence.total_years": 8}`
	d := evalRulebook(t, casebankRulebook, "--values", values, "--date", "2026-01-15")
	if d.Decision != "undetermined" || d.Slug != "au/age-pension-rulebook" || d.DecisionDate != "2026-01-15" ||
		!strings.HasPrefix(d.InputsHash, "sha256:") || d.Groups["au_qualifying_residence.ten_years"] != "not_satisfied" {
		t.Errorf("decision %+v", d)
	}
	var sections []string
	for _, s := range d.SectionResults {
		sections = append(sections, s.Letter+"="+s.SectionID+":"+s.Decision)
	}
	if got := strings.Join(sections, " "); got != "A=au_pension_age:eligible B=au_qualifying_residence:not_eligible C=au_residence_alternatives:undetermined" {
		t.Errorf("section results %s", got)
	}
	if d.SectionResults[0].RulesetID != "local:au-pension-age.rules" {
		t.Errorf("ruleset id %s", d.SectionResults[0].RulesetID)
	}
	if d.NextQuestion == nil || d.NextQuestion.FieldID != "residence.qualifying_residence_exemption" {
		t.Errorf("next question %+v", d.NextQuestion)
	}
	if d.ChoiceContext.FieldSections["residence.total_years"] != "au_qualifying_residence" || len(d.ChoiceContext.OrGroups) != 3 ||
		d.ChoiceContext.OrGroups[2].SectionID != "au_residence_alternatives" {
		t.Errorf("choice context %+v", d.ChoiceContext)
	}

	// Section A decides alone; flags first, values from a file.
	path := writeFile(t, t.TempDir(), "values.json", `{"person.date_of_birth": "1966-01-01"}`)
	d = evalRulebook(t, "--date", "2026-01-15", "--values", "@"+path, casebankRulebook)
	if d.Decision != "not_eligible" || d.SectionResults[0].Decision != "not_eligible" || d.SectionResults[1].Decision != "undetermined" {
		t.Errorf("short-circuit: %+v", d)
	}

	// A field error makes every section undetermined.
	d = evalRulebook(t, casebankRulebook, "--values", `{"person.date_of_birth": "1957-02-29", "residence.qualifying_residence_exemption": true}`)
	if d.Decision != "undetermined" || d.SectionResults[2].Decision != "undetermined" {
		t.Errorf("field error: %+v", d)
	}
}

func TestRulebookEvalFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "a.rules", cliRules)
	writeFile(t, dir, "b.rules", strings.Replace(cliRules, "section demo", "section other", 1))
	book := writeFile(t, dir, "book.json", `{"name": "Demo", "slug": "demo/book",
  "sections": [{"rules": "a.rules"}, {"rules": "b.rules"}],
  "outcome_logic": {"op": "and", "args": [{"section": "A"}, {"op": "not", "args": [{"section": "B"}]}]},
  "fields": {"a.n": {"question": "How many, in the rulebook's words?"}}}`)
	code, out, errs := runCLI("rulebook", "check", book)
	if code != 0 || !strings.Contains(out, "fields: 2, shared: 2 (a.born: A, B; a.n: A, B)") || !strings.Contains(out, "outcome: A and not B") {
		t.Errorf("check exited %d:\n%s\n%s", code, out, errs)
	}
	// Both sections read the same answers, so A and not B never holds.
	d := evalRulebook(t, book, "--values", `{"a.n": 12, "a.born": "2000-01-01"}`, "--date", "2024-01-01")
	if d.Decision != "not_eligible" || d.SectionResults[0].Decision != "eligible" || d.SectionResults[1].Decision != "eligible" {
		t.Errorf("decision %+v", d)
	}
	d = evalRulebook(t, book, "--values", `{}`, "--date", "2024-01-01")
	if d.NextQuestion == nil || d.NextQuestion.Question != "How many, in the rulebook's words?" {
		t.Errorf("the overlay's question is not asked: %+v", d.NextQuestion)
	}
	code, out, _ = runCLI("rulebook", "eval", book, "--values", `{"a.n": 1}`, "--date", "2024-01-01", "--explain-failure", "eligible")
	if code != 0 || !strings.Contains(out, `"expected_outcome": "eligible"`) || !strings.Contains(out, `"criterion_id": "demo.c"`) {
		t.Errorf("explain-failure exited %d:\n%s", code, out)
	}
}

func TestRulebookBrokenFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "a.rules", cliRules)
	writeFile(t, dir, "b.rules", strings.NewReplacer("section demo", "section other", "a.n int", "a.n decimal").Replace(cliRules))
	writeFile(t, dir, "c.rules", strings.Replace(cliRules, "a.n >= 12", "a.m >= 12", 1))
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"unknown-member", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a.rules"}], "outcome": "A"}`,
			[]string{`unknown-member.json: unknown member "outcome": a rulebook file takes name, slug, description, sections, outcome_logic, section_facts, fields, robot_hints`}},
		{"bad-tree", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a.rules"}, {"rules": "b.rules"}], "outcome_logic": {"op": "and", "args": [{"section": "A"}, {"section": "C"}, "B"]}}`,
			[]string{"bad-tree.json: outcome_logic.args[1].section: there is no section C: this rulebook has 2 sections, A to B (value_error)",
				"bad-tree.json: outcome_logic.args[2]: an expression tree is required"}},
		{"string-tree", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a.rules"}], "outcome_logic": "A AND B"}`,
			[]string{`string-tree.json: outcome_logic: an expression tree is required: a bare string expression such as "A AND B" is not accepted`}},
		{"missing-section", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a.rules"}, {"rules": "gone/gone.rules"}]}`,
			[]string{"missing-section.json: sections[1].rules: cannot read section B: open " + filepath.Join(dir, "gone", "gone.rules") + ": no such file or directory"}},
		{"compile-error", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "c.rules"}]}`,
			[]string{"compile-error.json: section A: " + filepath.Join(dir, "c.rules") + ":10:5: unknown field a.m"}},
		{"shared-conflict", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a.rules"}, {"rules": "b.rules"}]}`,
			[]string{"shared-conflict.json: compose rulebook demo/x: field a.n is int in section demo (A) but decimal in section other (B): a field shared by two sections needs the same type"}},
		{"unknown-hint", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a.rules"}], "robot_hints": {"preamble": "Hello", "greeting": "Hi"}}`,
			[]string{`unknown-hint.json: robot_hints.greeting: unknown robot hint beat "greeting": the beats are general_context, preamble,`}},
	}
	for _, tt := range tests {
		path := writeFile(t, dir, tt.name+".json", tt.doc)
		for _, args := range [][]string{{"check", path}, {"eval", path, "--values", "{}"}} {
			code, out, errs := runCLI(append([]string{"rulebook"}, args...)...)
			if code != 1 || out != "" {
				t.Errorf("%s: rulebook %s exited %d, printed %q", tt.name, args[0], code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, dir+string(filepath.Separator)+w) {
					t.Errorf("%s: rulebook %s: stderr lacks %q:\n%s", tt.name, args[0], w, errs)
				}
			}
		}
	}
}

func TestRulebookUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"rulebook"}, "usage: eligo rulebook check FOLDER|FILE"},
		{[]string{"rulebook", "frobnicate", casebankRulebook}, `unknown subcommand "frobnicate"`},
		{[]string{"rulebook", "check"}, "usage: eligo rulebook check"},
		{[]string{"rulebook", "check", casebankRulebook, casebankRulebook}, "usage: eligo rulebook check"},
		{[]string{"rulebook", "eval", casebankRulebook}, "--values is required"},
		{[]string{"rulebook", "eval", casebankRulebook, "--values", "{}", "--date", "2026-02-30"}, `--date "2026-02-30" is not a YYYY-MM-DD date`},
		{[]string{"rulebook", "eval", casebankRulebook, "--values", `{"person.date_of_birth": 1`}, "--values: "},
		{[]string{"rulebook", "eval", casebankRulebook, "--values", "@nowhere.json"}, "read values: open nowhere.json"},
		{[]string{"rulebook", "check", "nowhere"}, "read rulebook: stat nowhere"},
		{[]string{"rulebook", "check", filepath.Join("..", "..", "casebank", "au-age-pension")}, "it is a ruleset folder, which Load reads"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(tt.args...)
		if code != 1 || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: exited %d, stderr lacks %q:\n%s", tt.args, code, tt.want, errs)
		}
	}
	if code, out, _ := runCLI("help"); code != 0 || !regexp.MustCompile(`(?m)^  rulebook +check a rulebook`).MatchString(out) {
		t.Errorf("help does not list rulebook:\n%s", out)
	}
}

func TestTestRulebookFolder(t *testing.T) {
	t.Parallel()
	code, out, errs := runCLI("test", casebankRulebook)
	if code != 0 || !strings.Contains(out, "PASS au-age-pension-rulebook: ") || !regexp.MustCompile(`(?m)^([89]|[1-9][0-9]+) passed, 0 failed\n\z`).MatchString(out) {
		t.Errorf("eligo test on the rulebook folder exited %d:\n%s\n%s", code, out, errs)
	}
	// A rulebook folder that does not compose fails like a ruleset that
	// does not compile, and the run goes on to report it.
	dir := filepath.Join(t.TempDir(), "book")
	writeFile(t, filepath.Dir(dir), "a.rules", cliRules)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "rulebook.json", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "../a.rules"}], "outcome_logic": {"section": "B"}}`)
	writeFile(t, dir, "cases.json", `[]`)
	code, out, _ = runCLI("test", dir)
	if code != 1 || !strings.Contains(out, "FAIL book: does not compile\n") || !strings.Contains(out, "there is no section B") ||
		!strings.HasSuffix(out, "0 passed, 1 failed\n") {
		t.Errorf("eligo test on a broken rulebook exited %d:\n%s", code, out)
	}
}

// TestRulebookSectionFactsCasebank: `eligo rulebook` over the casebank's
// WIC and SNAP rulebook, whose WIC field income.snap is SNAP's outcome:
// check says so, eval never asks the bound field, asks a WIC question
// while a cheaper way of WIC's income test is open, and SNAP's once only
// SNAP is left; the fact decides WIC when SNAP's answers are in.
func TestRulebookSectionFactsCasebank(t *testing.T) {
	t.Parallel()
	book := filepath.Join("..", "..", "casebank", "us-wic-snap-rulebook")
	code, out, errs := runCLI("rulebook", "check", book)
	if code != 0 || errs != "" {
		t.Fatalf("check exited %d:\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"\noutcome: B\n", "\nsection fact: income.snap is section A's outcome (not asked)\n",
		"\nfields: 22, shared: 2 (household.region: A, B; household.size: A, B)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	wic := `"applicant.category": "infant_or_child", "applicant.date_of_birth": "2025-05-01", "residence.lives_in_state": true`
	over := wic + `, "income.tanf_family": false, "income.medicaid": false, "household.region": "48_states_dc", "household.size": 3, "household.annual_income": 60000`
	for _, tc := range []struct {
		name, values, next, section, decision string
	}{
		{"TANF first", `{` + wic + `}`, "income.tanf_family", "us_wic_contiguous", "undetermined"},
		{"SNAP once only SNAP is left", `{` + over + `}`, "household.elderly_or_disabled", "snap_eligibility", "undetermined"},
		{"SNAP eligible, so WIC's income test is met", `{` + over + `, "household.elderly_or_disabled": true, "income.earned": 0, "income.unearned": 5000,
			"expenses.dependent_care": 0, "expenses.medical": 1800, "expenses.child_support_paid": 0, "shelter.rent_or_mortgage": 2500,
			"shelter.property_tax_and_insurance": 0, "shelter.claims_sua": false, "shelter.actual_utility_costs": 300, "resources.countable": 1000}`, "", "", "eligible"},
	} {
		d := evalRulebook(t, book, "--values", tc.values, "--date", "2026-08-15")
		next := ""
		if d.NextQuestion != nil {
			next = d.NextQuestion.FieldID
		}
		if d.Decision != tc.decision || next != tc.next || (next != "" && d.ChoiceContext.FieldSections[next] != tc.section) {
			t.Errorf("%s: decision %s, next question %q of %s", tc.name, d.Decision, next, d.ChoiceContext.FieldSections[next])
		}
		if _, asked := d.ChoiceContext.FieldSections["income.snap"]; asked {
			t.Errorf("%s: the bound field is a field of the composition", tc.name)
		}
	}
}
