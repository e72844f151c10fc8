package review_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/folder"
)

// casebankDir is the casebank folder of the repository this test is in.
func casebankDir(t *testing.T, name string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "casebank", name)
}

// bundle is one casebank ruleset folder, loaded and compiled.
type bundle struct {
	folder *folder.Folder
	rules  *engine.Ruleset
}

// load reads and compiles a casebank ruleset folder.
func load(t *testing.T, name string) bundle {
	t.Helper()
	f, err := folder.Load(context.Background(), casebankDir(t, name))
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := engine.Compile(f.RulesPath, f.Rules)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return bundle{folder: f, rules: r}
}

// runCases runs the cases as the authoring service does: field names the
// rules do not declare are dropped (and reported), the rest is run.
func runCases(t testing.TB, r *engine.Ruleset, cases []engine.Case) ([]engine.CaseResult, map[string][]string) {
	t.Helper()
	results := make([]engine.CaseResult, 0, len(cases))
	ignored := map[string][]string{}
	for _, c := range cases {
		var m map[string]json.RawMessage
		if len(c.FieldValues) > 0 {
			if err := json.Unmarshal(c.FieldValues, &m); err != nil {
				t.Fatalf("case %s: %v", c.Name, err)
			}
		}
		for k := range m {
			if r.FieldIndex(k) < 0 {
				ignored[c.Name] = append(ignored[c.Name], k)
				delete(m, k)
			}
		}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		c.FieldValues = raw
		results = append(results, r.RunCase(c))
	}
	return results, ignored
}

// citations lists every cite line of r with its verification: the
// project source of declared source s is "src-"+s, and a quote verifies
// when it appears (white space normalised) in that source's section of
// text. With verify false no quote verifies (the team uploaded the wrong
// text).
func citations(r *engine.Ruleset, text []byte, verify bool) []review.Citation {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	sections := folder.SourceSections(text)
	var out []review.Citation
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		for _, ci := range c.Citations {
			ok := verify && strings.Contains(norm(sections[ci.Source]), norm(ci.Quote))
			out = append(out, review.Citation{Citer: "criterion " + c.ID, SourceID: ci.Source, ProjectSourceID: "src-" + ci.Source, Quote: ci.Quote, Verified: ok})
		}
	}
	return out
}

// parseCases reads a cases.json-shaped literal.
func parseCases(t *testing.T, js string) []engine.Case {
	t.Helper()
	cases, err := folder.ParseCases([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// checkOf returns the check with the id, failing the test when absent.
func checkOf(t *testing.T, rep review.Report, id string) review.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s in the report", id)
	return review.Check{}
}

// hasEvidence reports whether some evidence line of c contains every part.
func hasEvidence(c review.Check, parts ...string) bool {
	for _, e := range c.Evidence {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(e, p)
		}
		if all {
			return true
		}
	}
	return false
}

// build runs review.Build, failing the test on error.
func build(t *testing.T, in review.Input, opts review.Options) review.Report {
	t.Helper()
	rep, err := review.Build(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
