package lsp_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/lsp"
)

// benefitPath is a ruleset folder with a failing case and a quote its
// source text does not verify.
var benefitPath = filepath.Join("testdata", "benefit", "benefit.rules")

// fileURI is the file: URI of a path relative to the package.
func fileURI(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(abs)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInitialize(t *testing.T) {
	c := start(t, lsp.Options{})
	var init lsp.InitializeResult
	c.call("initialize", map[string]any{"capabilities": map[string]any{}}, &init)
	for _, cap := range []string{"textDocumentSync", "documentFormattingProvider", "hoverProvider", "definitionProvider", "referencesProvider",
		"documentSymbolProvider", "completionProvider", "codeActionProvider"} {
		if init.Capabilities[cap] == nil {
			t.Errorf("initialize does not announce %s: %v", cap, init.Capabilities)
		}
	}
	if init.ServerInfo.Name != "eligo lsp" {
		t.Errorf("server name %q", init.ServerInfo.Name)
	}
	m := c.await(c.send("workspace/symbol", map[string]any{"query": ""}))
	if m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("an unknown method answers %+v, want method not found", m.Error)
	}
	c.shutdown()
}

// broken has one error of each kind the compiler suggests a fix for.
const broken = `ruleset "test/broken"
section broken
source act "Act" url "https://example.org" licence "public-domain"
field person.age int
field person.status enum ["single", "married"]
group g all "G" {
  criterion misspelt "A misspelt field" {
    person.agee >= 18
    cite act "a"
  }
  criterion unclosed "An unclosed string" {
    person.status == "single
    cite act "a"
  }
  criterion chained "A chained comparison" {
    18 <= person.age < 67
    cite act "a"
  }
  criterion assign "A single equals" {
    person.age = 20
    cite act "a"
  }
}
`

// TestDiagnosticsAndQuickFixes opens a text with errors: each is
// published at the exact range of what is wrong, with `eligo check`'s
// message, and the quick fix offered there makes the text compile.
func TestDiagnosticsAndQuickFixes(t *testing.T) {
	c := start(t, lsp.Options{})
	uri := "untitled:broken.rules"
	c.open(uri, broken)
	got := c.diagnostics(uri, 1, nil)
	_, _, err := engine.Compile("untitled:broken.rules", []byte(broken))
	list := err.(syntax.ErrorList)
	want := []struct {
		rng  lsp.Range
		msg  string
		fix  string
		edit lsp.TextEdit
	}{
		{rng(t, broken, "person.agee", 0), "(did you mean person.age?)", "Change to person.age", lsp.TextEdit{Range: rng(t, broken, "person.agee", 0), NewText: "person.age"}},
		{lsp.Range{Start: at(t, broken, `"single`, 1, 0), End: at(t, broken, `"single`, 1, len(`"single`))}, "this string is not closed", "Close the string",
			lsp.TextEdit{Range: lsp.Range{Start: at(t, broken, `"single`, 1, 7), End: at(t, broken, `"single`, 1, 7)}, NewText: `"`}},
		{lsp.Range{Start: at(t, broken, "< 67", 0, 0), End: at(t, broken, "< 67", 0, 1)}, "comparisons do not chain", "Write the comparisons joined by and",
			lsp.TextEdit{Range: lsp.Range{Start: at(t, broken, "< 67", 0, 0), End: at(t, broken, "< 67", 0, 0)}, NewText: "and person.age "}},
		{lsp.Range{Start: at(t, broken, "= 20", 0, 0), End: at(t, broken, "= 20", 0, 1)}, `unexpected "="`, "Change = to ==", lsp.TextEdit{Range: lsp.Range{Start: at(t, broken, "= 20", 0, 0), End: at(t, broken, "= 20", 0, 1)}, NewText: "=="}},
	}
	if len(got.Diagnostics) != len(want) || len(list) != len(want) {
		t.Fatalf("published %d diagnostics, compile has %d errors, want %d: %+v", len(got.Diagnostics), len(list), len(want), got.Diagnostics)
	}
	var edits []lsp.TextEdit
	for i, w := range want {
		d := got.Diagnostics[i]
		if d.Range != w.rng || !strings.Contains(d.Message, w.msg) || d.Message != list[i].Msg || d.Severity != lsp.SeverityError {
			t.Errorf("diagnostic %d: %+v, want range %+v and message %q containing %q", i, d, w.rng, list[i].Msg, w.msg)
		}
		var actions []lsp.CodeAction
		c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": d.Range,
			"context": map[string]any{"diagnostics": []lsp.Diagnostic{d}}}, &actions)
		if len(actions) != 1 || actions[0].Title != w.fix || actions[0].Kind != "quickfix" {
			t.Errorf("diagnostic %d: actions %+v, want one quick fix %q", i, actions, w.fix)
			continue
		}
		e := actions[0].Edit.Changes[uri]
		if len(e) != 1 || e[0] != w.edit {
			t.Errorf("diagnostic %d: edit %+v, want %+v", i, e, w.edit)
		}
		edits = append(edits, e...)
	}
	fixed := applyEdits(t, broken, edits)
	if _, _, err := engine.Compile("fixed.rules", []byte(fixed)); err != nil {
		t.Errorf("the quick fixes leave errors:\n%v\n%s", err, fixed)
	}
	// The fixed text, sent as a change, publishes no errors.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": fixed}}})
	if d := c.diagnostics(uri, 2, nil); slices.ContainsFunc(d.Diagnostics, func(d lsp.Diagnostic) bool { return d.Severity == lsp.SeverityError }) {
		t.Errorf("errors after the fixes: %+v", d.Diagnostics)
	}
	c.shutdown()
}

// TestFolderDiagnostics opens a file saved in a ruleset folder: its
// failing case is an error on the criterion that fails it, its unverified
// quote a warning on the cite line.
func TestFolderDiagnostics(t *testing.T) {
	c := start(t, lsp.Options{})
	uri, text := fileURI(t, benefitPath), readFile(t, benefitPath)
	c.open(uri, text)
	got := c.diagnostics(uri, 1, nil)
	var found []string
	for _, d := range got.Diagnostics {
		switch {
		case d.Code == "case" && d.Range == (lsp.Range{Start: at(t, text, "criterion single", 0, 10), End: at(t, text, "criterion single", 0, 16)}) && strings.Contains(d.Message, `case "a married adult, wrongly expected eligible" fails: expected eligible, got not_eligible`):
			found = append(found, "case")
		case d.Code == "citation" && d.Range.Start == at(t, text, `cite act "the person`, 0, 0) && d.Severity == lsp.SeverityWarning && strings.Contains(d.Message, "criterion single"):
			found = append(found, "citation")
		default:
			t.Errorf("unexpected diagnostic %+v", d)
		}
	}
	if !reflect.DeepEqual(found, []string{"case", "citation"}) {
		t.Errorf("found %v in %+v, want the failing case and the unverified quote", found, got.Diagnostics)
	}
	c.shutdown()
}

// TestFormatting formats as `eligo fmt` does, and refuses a text with
// syntax errors with a message saying so.
func TestFormatting(t *testing.T) {
	c := start(t, lsp.Options{})
	canonical := readFile(t, benefitPath)
	f, _ := syntax.Parse("x", []byte(canonical))
	canonical = string(syntax.Print(f))
	messy := strings.ReplaceAll(strings.ReplaceAll(canonical, "  ", "\t "), "\n\n", "\n\n\n")
	uri := "untitled:messy.rules"
	c.open(uri, messy)
	var edits []lsp.TextEdit
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
	if got := applyEdits(t, messy, edits); got != canonical {
		t.Errorf("formatted:\n%s\nwant:\n%s", got, canonical)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": canonical}}})
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}}, &edits)
	if len(edits) != 0 {
		t.Errorf("a canonical text gets edits %+v", edits)
	}
	c.open("untitled:broken.rules", broken)
	m := c.await(c.send("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": "untitled:broken.rules"}}))
	if m.Error == nil || !strings.Contains(m.Error.Message, "syntax errors") {
		t.Errorf("formatting a broken text answers %s %+v", m.Result, m.Error)
	}
	c.shutdown()
}

// TestQuickFixTable applies the one quick fix offered for each mistake of
// another language's habits and checks the line it leaves.
func TestQuickFixTable(t *testing.T) {
	c := start(t, lsp.Options{})
	for i, tc := range []struct {
		condition, fixed string
	}{
		{"person.age >= 18 && person.age < 67", "person.age >= 18 and person.age < 67"},
		{"person.age < 18 || person.age > 67", "person.age < 18 or person.age > 67"},
		{"!(person.age < 18)", "not(person.age < 18)"},
		{"person.status == \u201csingle\u201d", `person.status == "single"`},
		{"person.statsu == \"single\"", `person.status == "single"`},
		{"18 < person.age <= 67", "18 < person.age and person.age <= 67"},
		{"min(person.age, 3) < person.age < 67", "min(person.age, 3) < person.age and person.age < 67"},
	} {
		text := strings.Replace(readFile(t, benefitPath), "person.age >= 18", tc.condition, 1)
		uri := "untitled:fix" + string(rune('a'+i)) + ".rules"
		c.open(uri, text)
		var actions []lsp.CodeAction
		c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": lsp.Range{End: lsp.Position{Line: 100}}, "context": map[string]any{"diagnostics": []any{}}}, &actions)
		if len(actions) != 1 {
			t.Errorf("%s: %d actions %+v, want one", tc.condition, len(actions), actions)
			continue
		}
		got := applyEdits(t, text, actions[0].Edit.Changes[uri])
		if want := strings.Replace(text, tc.condition, tc.fixed, 1); got != want {
			t.Errorf("%s: fixed to\n%s\nwant\n%s", tc.condition, got, want)
		}
		if _, _, err := engine.Compile("fixed.rules", []byte(got)); err != nil {
			t.Errorf("%s: the fixed text does not compile: %v", tc.condition, err)
		}
	}
	c.shutdown()
}

// TestEachSetOfDiagnosticsPublishedOnce edits a saved folder's rules and
// saves them, as an editor does (didChange, then didSave): the server tells
// the editor each distinct set of diagnostics once, never the same set
// for the same version twice (a save published the partial set and the
// full one again, four publications in all).
func TestEachSetOfDiagnosticsPublishedOnce(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"cases.json", "source.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(readFile(t, filepath.Join("testdata", "benefit", name))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A field no criterion reads: the solver's analysis says so, so each
	// version has a partial publication and a full one.
	text := strings.Replace(readFile(t, benefitPath), "group age all", "field person.shoe_size int\n  question \"What is your shoe size?\"\n\ngroup age all", 1)
	path := filepath.Join(dir, "benefit.rules")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	analysed := func(p lsp.PublishDiagnosticsParams) bool {
		return slices.ContainsFunc(p.Diagnostics, func(d lsp.Diagnostic) bool { return d.Source == "eligo check (solver)" })
	}
	c := start(t, lsp.Options{})
	uri := fileURI(t, path)
	c.open(uri, text)
	c.diagnostics(uri, 1, analysed)
	edited := strings.Replace(text, `question "How old are you?"`, `question "How old are you today?"`, 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": edited}}})
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	c.diagnostics(uri, 2, analysed)
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, nil)
	// A third version, whose full publication comes after the save's
	// diagnosis (the worker takes its wakes in order).
	third := strings.Replace(edited, "today?", "now?", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []any{map[string]any{"text": third}}})
	c.diagnostics(uri, 3, analysed)
	c.shutdown()
	seen := map[string]int{}
	for _, m := range c.notes {
		if m.Method == "textDocument/publishDiagnostics" {
			seen[string(m.Params)]++
		}
	}
	for params, n := range seen {
		if n > 1 {
			t.Errorf("published %d times: %.300s", n, params)
		}
	}
	if len(seen) < 6 {
		t.Errorf("%d distinct publications, want a partial and a full one for each of 3 versions", len(seen))
	}
}

// TestQuoteWarningNamesTheNearestPassage: a cite whose quote is not in the
// folder's source text as written is warned with the passage nearest it,
// as the studio's quote check says it.
func TestQuoteWarningNamesTheNearestPassage(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"cases.json", "source.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(readFile(t, filepath.Join("testdata", "benefit", name))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := strings.Replace(readFile(t, benefitPath), `cite act "a person aged 18 or over"`, `cite act "a persons aged 18 or older"`, 1)
	path := filepath.Join(dir, "benefit.rules")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, lsp.Options{})
	uri := fileURI(t, path)
	c.open(uri, text)
	got := c.diagnostics(uri, 1, nil)
	found := false
	for _, d := range got.Diagnostics {
		if d.Code == "citation" && strings.Contains(d.Message, "criterion adult") {
			found = true
			if !strings.Contains(d.Message, "The nearest passage in the source is \u201ca person aged 18 or over\u201d") {
				t.Errorf("the warning names no nearest passage: %q", d.Message)
			}
		}
	}
	if !found {
		t.Errorf("no citation warning on criterion adult: %+v", got.Diagnostics)
	}
	c.shutdown()
}
