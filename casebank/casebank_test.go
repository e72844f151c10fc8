// The casebank is data: real-world rulesets and rulebooks, one folder
// each, read through package folder like any user's folder. These tests
// hold the data to account: every folder compiles, verifies its quotes and
// passes its cases; every real ruleset declares its period and tests both
// ends; the Australian rulebook composes its sections faithfully.
package casebank

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/solver/plan"
)

// maxCaseName is the longest test case name the API takes (a project's
// test cases, POST /projects and /projects/{id}/tests): casebank cases
// are uploaded as they are by the authoring tests and the demo.
const maxCaseName = 200

// auRulebook is the casebank's rulebook that splits au-age-pension into
// three sections.
const auRulebook = "au-age-pension-rulebook"

// TestCasebank runs every case of every casebank folder, ruleset and
// rulebook folders alike, and verifies every citation against the source
// text of the folder (for a rulebook, of each section's folder).
func TestCasebank(t *testing.T) {
	t.Parallel()
	entries, err := folder.DiscoverAll(".")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[folder.Kind]int{}
	for _, e := range entries {
		kinds[e.Kind]++
		t.Run(e.Dir, func(t *testing.T) {
			t.Parallel()
			res, err := e.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.CompileErrors != nil {
				t.Fatalf("does not compile:\n%v", res.CompileErrors)
			}
			for _, p := range res.CitationProblems {
				t.Errorf("citation: %s", p)
			}
			if res.CaseCount() == 0 {
				t.Error("the folder has no cases")
			}
			for _, c := range res.Cases {
				if n := utf8.RuneCountInString(c.Name); n > maxCaseName {
					t.Errorf("case name of %d characters, over the API's %d: %s", n, maxCaseName, c.Name)
				}
				t.Run(c.Name, func(t *testing.T) {
					if !c.Pass {
						t.Errorf("%s; failing criteria %v", strings.Join(c.Mismatches, "; "), c.FailingCriteria)
					}
				})
			}
		})
	}
	if kinds[folder.KindRuleset] == 0 || kinds[folder.KindRulebook] == 0 {
		t.Errorf("found %d ruleset and %d rulebook folders: the casebank should test both kinds", kinds[folder.KindRuleset], kinds[folder.KindRulebook])
	}
}

// TestCasebankPeriods: every real ruleset (all but the test/ fixtures)
// declares the period its law holds for, every rulebook composes one (the
// days its sections share), and their cases show a decision
// dated the day before it starts, and the day after it ends if it ends,
// to be undetermined: no casebank ruleset answers for a period it does not
// cover without saying so.
func TestCasebankPeriods(t *testing.T) {
	t.Parallel()
	entries, err := folder.DiscoverAll(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		res, err := e.Run(context.Background())
		if err != nil || res.Ruleset == nil {
			t.Fatalf("%s: %v %v", e.Dir, err, res.CompileErrors)
		}
		r := res.Ruleset
		if strings.HasPrefix(r.Slug, "test/") {
			continue
		}
		if r.Effective == nil {
			t.Errorf("%s: no effective period", e.Dir)
			continue
		}
		outside := map[int64]bool{}
		for _, c := range res.Cases {
			if c.Pass && c.Result != nil && c.Result.OutsidePeriod && c.Result.Outcome == engine.Undetermined {
				outside[c.Result.DecisionDate] = true
			}
		}
		if !outside[r.Effective.From-1] {
			t.Errorf("%s: no case dated %s, the day before its period, is undetermined", e.Dir, value.FormatDate(r.Effective.From-1))
		}
		if r.Effective.Until != 0 && !outside[r.Effective.Until+1] {
			t.Errorf("%s: no case dated %s, the day after its period, is undetermined", e.Dir, value.FormatDate(r.Effective.Until+1))
		}
	}
}

func TestLoadRulebook(t *testing.T) {
	t.Parallel()
	b, err := folder.LoadRulebook(context.Background(), auRulebook)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != auRulebook || b.Path != filepath.Join(auRulebook, folder.RulebookFile) || len(b.Warnings) != 0 {
		t.Errorf("name %q, path %q, warnings %q", b.Name, b.Path, b.Warnings)
	}
	c := b.Composed
	want := []struct{ letter, id, slug, file string }{
		{"A", "au_pension_age", "au/pension-age", "au-pension-age.rules"},
		{"B", "au_qualifying_residence", "au/qualifying-residence", "au-qualifying-residence.rules"},
		{"C", "au_residence_alternatives", "au/residence-alternatives", "au-residence-alternatives.rules"},
	}
	if len(c.Sections) != len(want) || len(b.Sections) != len(want) {
		t.Fatalf("%d sections, %d described", len(c.Sections), len(b.Sections))
	}
	for i, w := range want {
		s, src := c.Sections[i], b.Sections[i]
		if s.Letter != w.letter || s.SectionID != w.id || s.Slug != w.slug || s.RulesetID != "local:"+w.file ||
			s.ContentDigest != s.Rules.ContentDigest() || src.Letter != w.letter ||
			filepath.Base(src.RulesPath) != w.file || filepath.Base(src.SourcePath) != "source.txt" {
			t.Errorf("section %d: %+v, %+v", i, s, src)
		}
	}
	if got := c.Outcome.String(); got != "A and (B or C)" {
		t.Errorf("outcome %s", got)
	}
	if c.Rules.Slug != "au/age-pension-rulebook" || c.Rules.SectionID != rulebook.SectionID || len(c.Rules.Fields) != 5 || c.SharedFields() != 0 {
		t.Errorf("composed %s %s, %d fields, %d shared", c.Rules.Slug, c.Rules.SectionID, len(c.Rules.Fields), c.SharedFields())
	}
	if h := b.Hints["preamble"]; h == nil || !strings.Contains(*h, "income and assets tests") {
		t.Errorf("hints %v", b.Hints)
	}
	outcomes := map[string]int{}
	for _, cs := range b.Cases {
		outcomes[cs.ExpectedOutcome]++
	}
	if len(b.Cases) < 8 || outcomes["eligible"] == 0 || outcomes["not_eligible"] == 0 || outcomes["undetermined"] == 0 {
		t.Errorf("%d cases, by outcome %v", len(b.Cases), outcomes)
	}
}

// TestAUSectionsComposeToTheRuleset checks that the split is faithful: the
// three sections composed as A and (B or C) decide every case of the
// one-ruleset au-age-pension folder as that ruleset does (its expectations
// name unprefixed ids, so only outcomes are compared).
func TestAUSectionsComposeToTheRuleset(t *testing.T) {
	t.Parallel()
	b, err := folder.LoadRulebook(context.Background(), auRulebook)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := folder.Load(context.Background(), "au-age-pension")
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Cases) == 0 {
		t.Fatal("au-age-pension has no cases")
	}
	for _, c := range whole.Cases {
		c.Expectations = nil
		if got := b.Composed.Rules.RunCase(c); !got.Pass {
			t.Errorf("%s: %s", c.Name, strings.Join(got.Mismatches, "; "))
		}
	}
}

// TestWICAsksSNAPOnlyWhenNeeded: in us-wic-snap-rulebook, WIC's "receives
// SNAP" is SNAP's own decision (section_facts), so the planner asks SNAP's
// questions only when WIC's income test needs them: never while a cheaper
// way (TANF, Medicaid, income within the limit) is open, and first once
// those are closed. The bound field itself is never asked or missing.
func TestWICAsksSNAPOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	b, err := folder.LoadRulebook(context.Background(), "us-wic-snap-rulebook")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) != 0 {
		t.Errorf("warnings %q", b.Warnings)
	}
	rules := b.Composed.Rules
	snapOnly := func(field string) bool {
		return slices.Equal(b.Composed.FieldSections[field], []string{"snap_eligibility"})
	}
	planner := plan.NewPlanner(16)
	defer planner.Close()
	date := rules.Effective.From + 30
	wic := `"applicant.category": "infant_or_child", "applicant.date_of_birth": "2025-05-01", "residence.lives_in_state": true`
	for _, tc := range []struct {
		name    string
		answers string
		snap    bool
	}{
		{"income test open: TANF is cheaper than SNAP", `{` + wic + `}`, false},
		{"TANF and Medicaid no: income within the limit is cheaper", `{` + wic + `, "income.tanf_family": false, "income.medicaid": false}`, false},
		{"income over the limit: only SNAP is left", `{` + wic + `, "income.tanf_family": false, "income.medicaid": false,
			"household.region": "48_states_dc", "household.size": 3, "household.annual_income": 60000}`, true},
	} {
		var answers map[string]any
		if err := json.Unmarshal([]byte(tc.answers), &answers); err != nil {
			t.Fatal(err)
		}
		in := rules.ConvertMap(answers)
		res := rules.Evaluate(in, engine.Options{DecisionDate: date})
		p, err := planner.Plan(context.Background(), rules, in, res, plan.InquiryContext{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.NextQuestion == nil {
			t.Fatalf("%s: no next question (outcome %s)", tc.name, res.Outcome)
		}
		for _, s := range p.OptimalPath {
			if snapOnly(s.FieldID) != tc.snap {
				t.Errorf("%s: path %v asks %s (a SNAP question: %v)", tc.name, p.OptimalPath, s.FieldID, snapOnly(s.FieldID))
			}
		}
		if slices.Contains(res.MissingFields, "income.snap") || p.NextQuestion.FieldID == "income.snap" {
			t.Errorf("%s: the bound field is asked: missing %v, next %s", tc.name, res.MissingFields, p.NextQuestion.FieldID)
		}
	}
}
