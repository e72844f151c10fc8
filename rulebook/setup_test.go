package rulebook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/eligo/eligo/engine"
)

// casebankDir is where the real-world rulesets live, relative to this
// package.
const casebankDir = "../casebank"

// casebankCache compiles each casebank ruleset once for the whole test
// binary; compiled rulesets are immutable, so tests share them.
var casebankCache sync.Map

// casebank compiles ../casebank/<folder>/<folder>.rules, failing the test
// when the casebank cannot be found at all (a test over nothing passes
// silently otherwise) or the ruleset does not compile.
func casebank(tb testing.TB, folder string) *engine.Ruleset {
	tb.Helper()
	if r, ok := casebankCache.Load(folder); ok {
		return r.(*engine.Ruleset)
	}
	all, err := filepath.Glob(filepath.Join(casebankDir, "*", "*.rules"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(all) == 0 {
		tb.Fatalf("no casebank rulesets under %s: the tests over them would test nothing", casebankDir)
	}
	path := filepath.Join(casebankDir, folder, folder+".rules")
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("casebank %s: %v", folder, err)
	}
	r, _, err := engine.Compile(path, src)
	if err != nil {
		tb.Fatalf("casebank %s: %v", folder, err)
	}
	casebankCache.Store(folder, r)
	return r
}

// sectionOf letters ruleset r as section i, with a ruleset id in the
// "<section_id>:<yyyymmdd>-<hash>" shape of docs/api.md#rulesets.
func sectionOf(i int, r *engine.Ruleset) Section {
	return Section{Letter: Letter(i), SectionID: r.SectionID, Slug: r.Slug,
		RulesetID:     r.SectionID + ":20260115-" + r.ContentDigest()[7:15],
		ContentDigest: r.ContentDigest(), Rules: r}
}

// casebankSections letters the casebank folders as sections A, B, C...
func casebankSections(tb testing.TB, folders ...string) []Section {
	tb.Helper()
	out := make([]Section, len(folders))
	for i, f := range folders {
		out[i] = sectionOf(i, casebank(tb, f))
	}
	return out
}

// threeFolders are three casebank sections with no field in common: a
// composition of them is a pure juxtaposition.
var threeFolders = []string{"us-fmla-employee", "uk-child-benefit", "au-age-pension"}

// sharedFolders are three casebank sections that share person.date_of_birth.
var sharedFolders = []string{"au-age-pension", "uk-state-pension-age", "medicaid-adult-expansion"}

// presenceFolders share the SNAP household and income fields, and one of
// them reads presence (present, ??), where an unanswered field decides.
var presenceFolders = []string{"snap-income", "polarity-conservative", "us-independent-student-2026-27"}

// compileRules compiles an inline test ruleset.
func compileRules(tb testing.TB, src string) *engine.Ruleset {
	tb.Helper()
	r, _, err := engine.Compile("test.rules", []byte(src))
	if err != nil {
		tb.Fatalf("compile: %v\n%s", err, src)
	}
	return r
}

// tinyRules is a one-group ruleset of section id whose only criterion is
// cond over the declared fields (each "id type" pair, e.g. "a.x int").
func tinyRules(tb testing.TB, section, cond string, fields ...string) *engine.Ruleset {
	tb.Helper()
	var b strings.Builder
	b.WriteString("section " + section + "\n")
	b.WriteString(`source s "Test source" url "https://example.org/s" licence "public-domain"` + "\n")
	for _, f := range fields {
		b.WriteString("field " + f + "\n")
	}
	b.WriteString("group g all \"G\" {\n  criterion c \"C\" {\n    " + cond + "\n    cite s \"q\"\n  }\n}\n")
	return compileRules(tb, b.String())
}

// mustTree reads an outcome tree for a rulebook of letters sections, failing
// the test on any problem.
func mustTree(tb testing.TB, js string, letters int) *Node {
	tb.Helper()
	n, problems := ParseOutcomeTree([]byte(js), letters)
	if len(problems) > 0 {
		tb.Fatalf("ParseOutcomeTree(%s): %v", js, problems)
	}
	return n
}

// mustCompose composes or fails the test.
func mustCompose(tb testing.TB, spec Spec) *Composed {
	tb.Helper()
	c, err := Compose(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// irJSON is a ruleset's stored IR, to check that nothing changed it.
func irJSON(tb testing.TB, r *engine.Ruleset) string {
	tb.Helper()
	js, err := json.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	return string(js)
}

func ptr[T any](v T) *T { return &v }
