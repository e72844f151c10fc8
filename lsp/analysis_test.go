package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/lsp"
)

// publications are the diagnostics published for uri among notes, in
// order.
func publications(t *testing.T, c *client, uri string) []lsp.PublishDiagnosticsParams {
	t.Helper()
	var out []lsp.PublishDiagnosticsParams
	for _, m := range c.notes {
		if m.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p lsp.PublishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.URI == uri {
			out = append(out, p)
		}
	}
	return out
}

// TestChangeStorm sends hundreds of edits as fast as the pipe takes them,
// incremental ones with ranges: the diagnostics published never go back
// to an older version, and the last are those of the last version (an
// error exactly on the name the last edit wrote).
func TestChangeStorm(t *testing.T) {
	c := start(t, lsp.Options{})
	uri := "untitled:storm.rules"
	text := readFile(t, benefitPath)
	c.open(uri, text)
	prev := "18"
	const last = 301
	for v := 2; v <= last; v++ {
		word := fmt.Sprint(v)
		if v%2 == 1 {
			word = "x" + word // not a name the file declares: an error
		}
		r := lsp.Range{Start: at(t, text, ">= "+prev, 0, 3), End: at(t, text, ">= "+prev, 0, 3+len(prev))}
		text = strings.Replace(text, ">= "+prev, ">= "+word, 1)
		prev = word
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]any{"range": r, "text": word}}})
	}
	c.diagnostics(uri, last, nil)
	c.shutdown() // every publication precedes the answer to shutdown
	pubs := publications(t, c, uri)
	if len(pubs) == 0 {
		t.Fatal("nothing published")
	}
	for i := 1; i < len(pubs); i++ {
		if pubs[i].Version < pubs[i-1].Version {
			t.Errorf("publication %d is of version %d after one of version %d", i, pubs[i].Version, pubs[i-1].Version)
		}
	}
	final := pubs[len(pubs)-1]
	want := rng(t, text, "x301", 0)
	if final.Version != last || len(final.Diagnostics) == 0 || final.Diagnostics[0].Range != want || !strings.Contains(final.Diagnostics[0].Message, "x301") {
		t.Errorf("the last publication is %+v, want version %d with an error at %+v", final, last, want)
	}
	t.Logf("%d publications for %d versions", len(pubs), last)
	if len(pubs) > last {
		t.Errorf("%d publications for %d versions", len(pubs), last)
	}
}

// pathological is a ruleset whose solver analysis takes minutes: an any
// group of 200 criteria over six fields, each pair of which the
// analysis checks for overlap.
func pathological() string {
	var b strings.Builder
	b.WriteString("ruleset \"test/pathological\"\nsection pathological\nsource act \"Act\" url \"https://example.org\" licence \"public-domain\"\n")
	for i := range 6 {
		fmt.Fprintf(&b, "field a.x%d int\n", i)
	}
	b.WriteString("group g any \"G\" {\n")
	for i := range 200 {
		fmt.Fprintf(&b, "  criterion c%d \"C\" {\n    3 * a.x%d + 7 * a.x%d - 11 * a.x%d + 13 * a.x%d >= %d and 5 * a.x%d - 2 * a.x%d <= %d\n    cite act \"a\"\n  }\n",
			i, i%6, (i+1)%6, (i+2)%6, (i+3)%6, i*17%101, (i+4)%6, (i+5)%6, i*31%97)
	}
	b.WriteString("}\n")
	return b.String()
}

// TestPathologicalAnalysisDoesNotBlock opens a ruleset whose analysis
// runs for minutes under a budget of hours: the compiler's diagnostics
// come at once, every request is answered while the analysis runs, a new
// version cancels it and gets its own diagnostics, and shutdown stops it.
// Nothing here measures time: were the analysis on the request loop, the
// answers would wait for it and the test would time out.
func TestPathologicalAnalysisDoesNotBlock(t *testing.T) {
	c := start(t, lsp.Options{AnalysisBudget: 5 * time.Hour, CheckBudget: 5 * time.Hour})
	uri, text := "untitled:pathological.rules", pathological()
	c.open(uri, text)
	first := c.diagnostics(uri, 1, nil)
	for _, d := range first.Diagnostics {
		if d.Source == "eligo check (solver)" {
			t.Errorf("the first publication already holds the analysis: %+v", d)
		}
	}
	doc := map[string]any{"uri": uri}
	var h *lsp.Hover
	c.call("textDocument/hover", map[string]any{"textDocument": doc, "position": at(t, text, "a.x3", 1, 1)}, &h)
	if h == nil || !strings.Contains(h.Contents.Value, "`a.x3`: int") {
		t.Errorf("hover %+v", h)
	}
	var syms []lsp.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": doc}, &syms)
	if len(syms) != 8 || len(syms[7].Children) != 200 {
		t.Errorf("outline of %d symbols", len(syms))
	}
	var list lsp.CompletionList
	c.call("textDocument/completion", map[string]any{"textDocument": doc, "position": at(t, text, "3 * a.x0", 0, 0)}, &list)
	var edits []lsp.TextEdit
	c.call("textDocument/formatting", map[string]any{"textDocument": doc}, &edits)
	if n := len(publications(t, c, uri)); n != 1 {
		t.Errorf("%d publications while the analysis runs, want only the compiler's", n)
	}
	// A new version cancels the analysis of the first: its compiler
	// diagnostics arrive although the first analysis has hours left.
	changed := strings.Replace(text, "field a.x5 int\n", "field a.x5 int\nfield a.unused bool\n", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": changed}}})
	second := c.diagnostics(uri, 2, nil)
	if len(second.Diagnostics) != 1 || second.Diagnostics[0].Range != rng(t, changed, "field a.unused", 0) {
		t.Errorf("version 2's diagnostics %+v, want the warning on the unread field", second.Diagnostics)
	}
	c.shutdown()
	for _, p := range publications(t, c, uri) {
		for _, d := range p.Diagnostics {
			if d.Source == "eligo check (solver)" {
				t.Errorf("version %d published an analysis that was cancelled: %+v", p.Version, d)
			}
		}
	}
}

// TestBackgroundFindings: after the compiler's diagnostics, the solver's
// findings arrive as warnings on what they are about, and so do effective
// periods that overlap with a folder beside the file's under the same
// slug.
func TestBackgroundFindings(t *testing.T) {
	root := t.TempDir()
	rules := func(effective, criterion string) string {
		return `ruleset "test/periods"
section periods
effective ` + effective + `
source act "Act" url "https://example.org" licence "public-domain"
field person.age int
group g all "G" {
  criterion adult "Adult" {
    ` + criterion + `
    cite act "a"
  }
}
`
	}
	write := func(name, text string) string {
		t.Helper()
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".rules")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("later", rules("2024-06-01", "person.age >= 18"))
	text := rules("2024-01-01 until 2024-12-31", "person.age >= 18 or person.age < 18")
	uri := fileURI(t, write("earlier", text))
	c := start(t, lsp.Options{AnalysisBudget: time.Minute, CheckBudget: time.Minute})
	c.open(uri, text)
	first := c.diagnostics(uri, 1, nil)
	if len(first.Diagnostics) != 0 {
		t.Errorf("the compiler's diagnostics: %+v, want none", first.Diagnostics)
	}
	later := c.diagnostics(uri, 1, func(p lsp.PublishDiagnosticsParams) bool { return len(p.Diagnostics) > 0 })
	var codes []string
	for _, d := range later.Diagnostics {
		codes = append(codes, d.Code)
		switch d.Code {
		case "criterion_always_satisfied":
			if d.Range != (lsp.Range{Start: at(t, text, "criterion adult", 0, 10), End: at(t, text, "criterion adult", 0, 15)}) || d.Severity != lsp.SeverityWarning {
				t.Errorf("finding %+v, want a warning on the criterion's id", d)
			}
		case "effective_periods":
			if d.Range.Start != at(t, text, "effective", 0, 0) || !strings.Contains(d.Message, "overlap") || !strings.Contains(d.Message, "later.rules") {
				t.Errorf("period warning %+v", d)
			}
		}
	}
	if !slices.Contains(codes, "criterion_always_satisfied") || !slices.Contains(codes, "effective_periods") {
		t.Errorf("background diagnostics %q, want the always-satisfied criterion and the overlapping periods: %+v", codes, later.Diagnostics)
	}
	c.shutdown()
}

// TestSaveRereadsTheFolder: a case added to cases.json is shown once the
// rules file is saved again, without an edit of its own.
func TestSaveRereadsTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "benefit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	text := readFile(t, benefitPath)
	for name, content := range map[string]string{"benefit.rules": text, "cases.json": "[]", "source.txt": readFile(t, filepath.Join("testdata", "benefit", "source.txt"))} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uri := fileURI(t, filepath.Join(dir, "benefit.rules"))
	c := start(t, lsp.Options{})
	c.open(uri, text)
	hasCase := func(p lsp.PublishDiagnosticsParams) bool {
		return slices.ContainsFunc(p.Diagnostics, func(d lsp.Diagnostic) bool { return d.Code == "case" })
	}
	if hasCase(c.diagnostics(uri, 1, nil)) {
		t.Fatal("a failing case before cases.json has one")
	}
	failing := `[{"name": "a child", "field_values": {"person.age": 5, "person.status": "single"}, "expected_outcome": "eligible"}]`
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	p := c.diagnostics(uri, 1, hasCase)
	for _, d := range p.Diagnostics {
		if d.Code == "case" && d.Range != (lsp.Range{Start: at(t, text, "criterion adult", 0, 10), End: at(t, text, "criterion adult", 0, 15)}) {
			t.Errorf("the failing case is at %+v, want the criterion adult", d.Range)
		}
	}
	c.shutdown()
}
