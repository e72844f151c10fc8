package folder

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// casebankDir is the repository's casebank, whose folders serve these
// tests as real folders of both kinds.
const casebankDir = "../casebank"

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
	f, err := Load(context.Background(), filepath.Join(casebankDir, "snap-income"))
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

// TestSiblings finds the compiled rulesets of the casebank folders beside
// a file's folder, the file's own excluded.
func TestSiblings(t *testing.T) {
	path := filepath.Join(casebankDir, "snap-income", "snap-income.rules")
	sibs := Siblings(path)
	found := false
	for _, s := range sibs {
		if filepath.Base(s.Path) == "snap-income.rules" {
			t.Errorf("Siblings(%s) holds the file itself", path)
		}
		if filepath.Base(s.Path) == "snap-income-fy2027.rules" && s.Ruleset != nil && s.Ruleset.Slug != "" {
			found = true
		}
	}
	if !found || len(sibs) < 10 {
		t.Errorf("Siblings(%s) = %d rulesets without snap-income-fy2027", path, len(sibs))
	}
}
