package folder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/rulebook"
)

// auRulebook is the casebank's rulebook folder, and auRuleset one of its
// ruleset folders: a real folder of each kind.
const (
	auRulebook = casebankDir + "/au-age-pension-rulebook"
	auRuleset  = casebankDir + "/au-age-pension"
)

func TestFolderKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if k, err := KindOf(auRulebook); k != KindRulebook || err != nil {
		t.Errorf("KindOf(rulebook) = %v, %v", k, err)
	}
	if k, err := KindOf(auRuleset); k != KindRuleset || err != nil {
		t.Errorf("KindOf(ruleset) = %v, %v", k, err)
	}
	if _, err := Load(ctx, auRulebook); !errors.Is(err, ErrRulebookFolder) || !strings.Contains(err.Error(), "LoadRulebook") {
		t.Errorf("Load(rulebook folder): %v", err)
	}
	if _, err := Discover(auRulebook); !errors.Is(err, ErrRulebookFolder) {
		t.Errorf("Discover(rulebook folder): %v", err)
	}
	if _, err := LoadRulebook(ctx, auRuleset); !errors.Is(err, ErrNotFolder) || !strings.Contains(err.Error(), "ruleset folder") {
		t.Errorf("LoadRulebook(ruleset folder): %v", err)
	}
	dirs, err := Discover(casebankDir)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(dirs, auRulebook) || !slices.Contains(dirs, filepath.Join(casebankDir, "au-pension-age")) {
		t.Errorf("Discover lists rulesets only: %v", dirs)
	}

	both := filepath.Join(t.TempDir(), "both")
	writeTestFile(t, both, "both.rules", "")
	writeTestFile(t, both, RulebookFile, "{}")
	if _, err := KindOf(both); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("KindOf(both): %v", err)
	}
	if _, err := KindOf(t.TempDir()); !errors.Is(err, ErrNotFolder) {
		t.Errorf("KindOf(empty): %v", err)
	}
}

// sectionRules is a one-criterion section ruleset reading field with type
// typ and citing quote.
func sectionRules(section, field, typ, quote string) string {
	return "section " + section + `
source s "S" url "https://example.org/s" licence "public-domain"
field ` + field + " " + typ + `
group g all "G" {
  criterion c "C" {
    present(` + field + `)
    cite s "` + quote + `"
  }
}
`
}

func writeTestFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadRulebookProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "a"), "a.rules", sectionRules("sec_a", "person.age", "int", "an age"))
	writeTestFile(t, filepath.Join(dir, "b"), "b.rules", sectionRules("sec_b", "person.age", "decimal", "an age"))
	writeTestFile(t, filepath.Join(dir, "c"), "c.rules", "section sec_c\nfield person.x int\n")
	tests := []struct {
		name, doc string
		want      []string
		conflict  bool // a *rulebook.FieldConflictError is behind it
	}{
		{"unknown members", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a/a.rules", "rule": 1}], "outcome": "A"}`,
			[]string{`unknown member "outcome": a rulebook file takes name, slug, description`, `sections[0]: unknown member "rule"`}, false},
		{"bad outcome tree", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a/a.rules"}], "outcome_logic": {"op": "xor", "args": [{"section": "B"}]}}`,
			[]string{`outcome_logic.op: Input should be "and", "or" or "not"`, "outcome_logic.args[0].section: there is no section B"}, false},
		{"missing and broken sections", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "nowhere.rules"}, {"rules": "c/c.rules"}]}`,
			[]string{"sections[0].rules: cannot read section A", "section B: " + filepath.Join(dir, "c", "c.rules") + ":"}, false},
		{"shared field conflict", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a/a.rules"}, {"rules": "b/b.rules"}]}`,
			[]string{"compose rulebook demo/x: field person.age is int in section sec_a (A) but decimal in section sec_b (B)"}, true},
		{"unknown hint and bad slug", `{"name": "X", "slug": "Demo", "sections": [{"rules": "a/a.rules"}], "robot_hints": {"preamle": "Hi"}}`,
			[]string{`robot_hints.preamle: unknown robot hint beat "preamle"`, `slug "Demo" must look like namespace/name`}, false},
		{"overlay", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a/a.rules"}], "fields": {"person.age": {"questoin": "?"}}}`,
			[]string{`fields.person.age: unknown member "questoin": a field overlay takes question, description, weight, notes`}, false},
		{"section facts shape", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a/a.rules"}], "section_facts": [{"field": "person.age", "sectoin": "A"}]}`,
			[]string{`section_facts: must be a list of {"field": "<bool field id>", "section": "<letter>"} objects: unknown field "sectoin"`}, false},
		{"section facts letters", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a/a.rules"}], "section_facts": [{"field": "person.age", "section": "C"}, {"section": "A"}]}`,
			[]string{"section_facts[0].section: there is no section C", "section_facts[1].field: Field required"}, false},
		{"section fact not bool", `{"name": "X", "slug": "demo/x", "sections": [{"rules": "a/a.rules"}], "section_facts": [{"field": "person.age", "section": "A"}]}`,
			[]string{"compose rulebook demo/x: section_facts[0].field: field person.age is int: only a plain bool field"}, false},
		{"not an object", `[]`, []string{"a rulebook file is not a JSON object"}, false},
		{"nothing", `{}`, []string{"name: missing", "slug: missing", "sections: missing"}, false},
	}
	for _, tt := range tests {
		path := writeTestFile(t, dir, tt.name+".json", tt.doc)
		_, err := LoadRulebookFile(context.Background(), path)
		var bad *RulebookError
		if !errors.As(err, &bad) {
			t.Errorf("%s: %v, want a *RulebookError", tt.name, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), path+": "+w) {
				t.Errorf("%s: error lacks %q:\n%v", tt.name, w, err)
			}
		}
		var conflict *rulebook.FieldConflictError
		if errors.As(err, &conflict) != tt.conflict {
			t.Errorf("%s: errors.As(*FieldConflictError) = %v", tt.name, !tt.conflict)
		}
	}
}

// TestRulebookRunVerifiesSections checks that a rulebook's citations are
// verified section by section, against the source text beside each
// section's .rules file, and that its cases run against the composition.
func TestRulebookRunVerifiesSections(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "a"), "a.rules", sectionRules("sec_a", "person.age", "int", "an age"))
	writeTestFile(t, filepath.Join(dir, "a"), "source.txt", "== s ==\nGive an age.\n")
	writeTestFile(t, filepath.Join(dir, "b"), "b.rules", sectionRules("sec_b", "person.age", "int", "a quote nobody wrote"))
	writeTestFile(t, filepath.Join(dir, "b"), "source.txt", "== s ==\nGive an age.\n")
	writeTestFile(t, filepath.Join(dir, "c"), "c.rules", sectionRules("sec_c", "person.ok", "bool", "an age"))
	book := filepath.Join(dir, "book")
	writeTestFile(t, book, RulebookFile, `{"name": "Book", "slug": "demo/book",
  "sections": [{"rules": "../a/a.rules"}, {"rules": "../b/b.rules"}, {"rules": "../c/c.rules"}],
  "outcome_logic": {"op": "or", "args": [{"section": "A"}, {"op": "not", "args": [{"section": "C"}]}]}}`)
	writeTestFile(t, book, "cases.json", `[
  {"name": "A decides", "field_values": {"person.age": 40}, "expected_outcome": "eligible"},
  {"name": "nothing answered: not C holds", "field_values": {}, "expected_outcome": "eligible"}
]`)
	b, err := LoadRulebook(context.Background(), book)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.Warnings, "section B (sec_b) is not in outcome_logic: it cannot change the outcome") || b.Composed.SharedFields() != 1 {
		t.Errorf("warnings %q, %d shared", b.Warnings, b.Composed.SharedFields())
	}
	res, err := Entry{Dir: book, Kind: KindRulebook}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Name() != "book" || res.CaseCount() != 2 || len(res.Cases) != 2 || !res.Cases[0].Pass || !res.Cases[1].Pass {
		t.Errorf("%s: %d cases: %+v", res.Name(), res.CaseCount(), res.Cases)
	}
	problems := strings.Join(res.CitationProblems, "\n")
	if len(res.CitationProblems) != 2 || !strings.Contains(problems, `section B: criterion c: quote "a quote nobody wrote" does not appear`) ||
		!strings.Contains(problems, "section C: no source.txt, source.md or source.html in "+filepath.Join(dir, "c")) || res.Passed() {
		t.Errorf("citation problems:\n%s", problems)
	}

	// A rulebook whose content is wrong is reported like a ruleset that
	// does not compile, not as a failure to run.
	writeTestFile(t, book, RulebookFile, `{"name": "Book", "slug": "demo/book", "sections": [{"rules": "../nowhere.rules"}]}`)
	res, err = Entry{Dir: book, Kind: KindRulebook}.Run(context.Background())
	var bad *RulebookError
	if err != nil || !errors.As(res.CompileErrors, &bad) || res.Name() != "book" || res.Passed() {
		t.Errorf("broken rulebook: %v, %+v", err, res)
	}
}

// Passed reports whether the folder compiled, its quotes verified and
// every case passed.
func (r *Result) Passed() bool {
	if r.CompileErrors != nil || len(r.CitationProblems) > 0 {
		return false
	}
	for _, c := range r.Cases {
		if !c.Pass {
			return false
		}
	}
	return true
}
