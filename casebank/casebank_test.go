package casebank

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eligo/eligo/engine"
)

// TestCasebank runs every case of every casebank folder, ruleset and
// rulebook folders alike, and verifies every citation against the source
// text of the folder (for a rulebook, of each section's folder).
// maxCaseName is the longest test case name the API takes (a project's
// test cases, POST /projects and /projects/{id}/tests): casebank cases
// are uploaded as they are by the authoring tests and the demo.
const maxCaseName = 200

func TestCasebank(t *testing.T) {
	t.Parallel()
	entries, err := DiscoverAll(".")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[Kind]int{}
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
	if kinds[KindRuleset] == 0 || kinds[KindRulebook] == 0 {
		t.Errorf("found %d ruleset and %d rulebook folders: the casebank should test both kinds", kinds[KindRuleset], kinds[KindRulebook])
	}
}

func TestSourceSectionsAndCitations(t *testing.T) {
	t.Parallel()
	text := []byte("preamble\n== act ==\nThe applicant must be\n  at least 18 years\nof age.\n== regs ==\nOther words.\n")
	sections := SourceSections(text)
	if len(sections) != 2 || !strings.Contains(sections["act"], "at least 18 years") || strings.Contains(sections["act"], "Other") {
		t.Fatalf("sections %q", sections)
	}
	tests := []struct {
		quote, source string
		ok            bool
	}{
		{"must be at least 18 years of age", "act", true},
		{"must be   at  least 18 years", "act", true},
		{"Other words", "act", false},
		{"must be at least 18 Years", "act", false},
		{"Other words.", "regs", true},
	}
	for _, tt := range tests {
		problems := verifyOne(t, tt.source, tt.quote, text)
		if (len(problems) == 0) != tt.ok {
			t.Errorf("quote %q in %s: problems %v, want ok=%v", tt.quote, tt.source, problems, tt.ok)
		}
	}
}

func TestParseCasesRejectsUnknownMembers(t *testing.T) {
	t.Parallel()
	if _, err := ParseCases([]byte(`[{"name": "x", "field_values": {}, "expected_outcome": "eligible", "expectation": {}}]`)); err == nil {
		t.Error("a misspelt member was accepted")
	}
	if _, err := ParseCases([]byte(`[{"name": "x", "field_values": {}, "expected_outcome": "yes"}]`)); err == nil {
		t.Error("an unknown outcome was accepted")
	}
}

// TestDecideBodies: a case's body names the ruleset, the case's answers
// and the date the case is decided as of, its own or the period's first.
func TestDecideBodies(t *testing.T) {
	f, err := Load(context.Background(), "snap-income")
	if err != nil {
		t.Fatal(err)
	}
	bodies, err := f.DecideBodies("demo/snap-income", `,"no_cache":true`)
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) != len(f.Cases) {
		t.Fatalf("%d bodies for %d cases", len(bodies), len(f.Cases))
	}
	for i, c := range f.Cases {
		var got struct {
			RulesetID    string          `json:"ruleset_id"`
			DecisionDate string          `json:"decision_date"`
			FieldValues  json.RawMessage `json:"field_values"`
			NoCache      bool            `json:"no_cache"`
		}
		if err := json.Unmarshal(bodies[i], &got); err != nil {
			t.Fatalf("case %q: %v in %s", c.Name, err, bodies[i])
		}
		want := c.DecisionDate
		if want == "" {
			want = "2025-10-01" // the first day of fiscal year 2026
		}
		if got.RulesetID != "demo/snap-income" || got.DecisionDate != want || !got.NoCache || !bytes.Equal(got.FieldValues, c.FieldValues) {
			t.Errorf("case %q: body %s", c.Name, bodies[i])
		}
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
	entries, err := DiscoverAll(".")
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
			t.Errorf("%s: no case dated %s, the day before its period, is undetermined", e.Dir, engine.FormatDate(r.Effective.From-1))
		}
		if r.Effective.Until != 0 && !outside[r.Effective.Until+1] {
			t.Errorf("%s: no case dated %s, the day after its period, is undetermined", e.Dir, engine.FormatDate(r.Effective.Until+1))
		}
	}
}
