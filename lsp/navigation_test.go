package lsp_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/lsp"
)

// hoverAt asks for the hover at p and returns its Markdown ("" for none).
func hoverAt(c *client, uri string, p lsp.Position) string {
	c.t.Helper()
	var h *lsp.Hover
	c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}, &h)
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

// TestHover answers "what is this" for a field (type, unit, question,
// values and their labels, notes), a criterion (its plain-language
// sentence), a group, a source, a cite line (its source and whether the
// quote verifies against the folder's source.txt) and a function.
func TestHover(t *testing.T) {
	c := start(t, lsp.Options{})
	uri, text := fileURI(t, benefitPath), readFile(t, benefitPath)
	c.open(uri, text)
	r, _, err := engine.Compile("b", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	adult := present.CriterionSentence(r, &r.Groups[0].Criteria[0])
	withFn := strings.Replace(text, "person.age >= 18", "years_between(date(\"2000-01-01\"), decision_date()) >= 18 and person.age >= 18", 1)
	c.open("untitled:fn.rules", withFn)
	withRange := strings.Replace(text, "field person.age int", "field person.age int\n  range 0..130", 1)
	c.open("untitled:range.rules", withRange)
	for _, tc := range []struct {
		name string
		uri  string
		at   lsp.Position
		want []string
	}{
		{"enum field at a use", uri, at(t, text, "person.status ==", 0, 3), []string{"**field** `person.status`: enum", "Question: What is your status?",
			"`\"single\"`: Single", "`\"married\"`: Married or in a civil partnership"}},
		{"int field at its declaration", uri, at(t, text, "person.age int", 0, 0), []string{"`person.age`: int (years)", "How old are you?", "Note (why): The benefit is for adults. [source act]"}},
		{"criterion", uri, at(t, text, "criterion adult", 0, 12), []string{"**criterion** `adult` of group `age`: An adult", "In plain words: " + adult + "."}},
		{"group in the outcome", uri, at(t, text, "and household", 0, 6), []string{"**group** `household` (any): Household", "any of its 1 criteria"}},
		{"source", uri, at(t, text, "source act\n", 0, 8), []string{"**source** `act`: Benefit Act 2020", "url: https://example.org/act", "licence: public-domain"}},
		{"verified cite", uri, at(t, text, "cite act \"a person", 0, 1), []string{"cite** of criterion `adult`", "Benefit Act 2020", "Quote verified: it appears in section act of source.txt."}},
		{"unverified cite", uri, at(t, text, "lives alone", 0, 0), []string{"cite** of criterion `single`", "Quote **not verified**: the quote does not appear in section act"}},
		{"cite of an unsaved file", "untitled:fn.rules", at(t, withFn, "cite act \"a person", 0, 1), []string{"not saved in a ruleset folder"}},
		{"int field with a range", "untitled:range.rules", at(t, withRange, "person.age int", 0, 0), []string{"`person.age`: int (years)", "Range: `0..130` (an answer outside it is a field error)"}},
		{"function", "untitled:fn.rules", at(t, withFn, "years_between", 0, 2), []string{"years_between(a, b) -> int", "completed whole years from date `a` to date `b`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hoverAt(c, tc.uri, tc.at)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("hover %q lacks %q", got, w)
				}
			}
		})
	}
	if got := hoverAt(c, uri, at(t, text, ">= 18", 0, 0)); got != "" {
		t.Errorf("an operator has a hover: %q", got)
	}
	c.shutdown()
}

// TestDefinitionAndReferences go from each use of a field, source and
// group to its declaration and list every place it is written.
func TestDefinitionAndReferences(t *testing.T) {
	c := start(t, lsp.Options{})
	uri, text := fileURI(t, benefitPath), readFile(t, benefitPath)
	c.open(uri, text)
	for _, tc := range []struct {
		name string
		from lsp.Position
		decl lsp.Range
		refs []lsp.Range
	}{
		{"field", at(t, text, "person.age >=", 0, 4), rng(t, text, "person.age", 0), []lsp.Range{rng(t, text, "person.age", 0), rng(t, text, "person.age", 1)}},
		{"source from a cite", at(t, text, "cite act \"the", 0, 6), lsp.Range{Start: at(t, text, "source act ", 0, 7), End: at(t, text, "source act ", 0, 10)},
			[]lsp.Range{{Start: at(t, text, "source act ", 0, 7), End: at(t, text, "source act ", 0, 10)}, {Start: at(t, text, "source act\n", 0, 7), End: at(t, text, "source act\n", 0, 10)},
				{Start: at(t, text, "cite act", 0, 5), End: at(t, text, "cite act", 0, 8)}, {Start: at(t, text, "cite act", 1, 5), End: at(t, text, "cite act", 1, 8)}}},
		{"group from the outcome", at(t, text, "outcome age", 0, 9), lsp.Range{Start: at(t, text, "group age", 0, 6), End: at(t, text, "group age", 0, 9)},
			[]lsp.Range{{Start: at(t, text, "group age", 0, 6), End: at(t, text, "group age", 0, 9)}, {Start: at(t, text, "outcome age", 0, 8), End: at(t, text, "outcome age", 0, 11)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var defs []lsp.Location
			c.call("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": tc.from}, &defs)
			if len(defs) != 1 || defs[0].URI != uri || defs[0].Range != tc.decl {
				t.Errorf("definition %+v, want %+v", defs, tc.decl)
			}
			var refs []lsp.Location
			c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": tc.from, "context": map[string]any{"includeDeclaration": true}}, &refs)
			var got []lsp.Range
			for _, l := range refs {
				got = append(got, l.Range)
			}
			if !slices.Equal(got, tc.refs) {
				t.Errorf("references %+v, want %+v", got, tc.refs)
			}
			c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": tc.from, "context": map[string]any{"includeDeclaration": false}}, &refs)
			if len(refs) != len(tc.refs)-1 {
				t.Errorf("references without the declaration: %d, want %d", len(refs), len(tc.refs)-1)
			}
		})
	}
	c.shutdown()
}

// TestCompletion proposes what may be written where the cursor is.
func TestCompletion(t *testing.T) {
	c := start(t, lsp.Options{})
	text := readFile(t, benefitPath)
	edited := strings.Replace(text, "    cite act \"the person lives alone\"\n", "    cite act \"the person lives alone\"\n    cite \n", 1)
	edited = strings.Replace(edited, "    person.status == \"single\"\n", "    person.status == \"single\" or person.status in [\"married\", \n    person.age > \n", 1)
	uri := "untitled:complete.rules"
	c.open(uri, edited)
	labels := func(p lsp.Position) []string {
		var list lsp.CompletionList
		c.call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}, &list)
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		at        lsp.Position
		want, not []string
	}{
		{"enum value after ==", at(t, edited, "== \"single\" or", 0, 3), []string{`"single"`, `"married"`}, []string{"person.age", "min"}},
		{"enum value in a list", at(t, edited, "\"married\", \n", 0, 11), []string{`"single"`, `"married"`}, []string{"person.age"}},
		{"source after cite", at(t, edited, "cite \n", 0, 5), []string{"act"}, []string{"person.age", "and"}},
		{"fields, functions and keywords in a condition", at(t, edited, "person.age > \n", 0, 13), []string{"person.age", "person.status", "years_between", "decision_date", "criterion", "not"}, []string{"act", `"single"`}},
		{"field being typed", at(t, edited, "person.age > \n", 0, 7), []string{"person.age", "person.status"}, []string{`"single"`}},
		{"group in the outcome", at(t, edited, "outcome age", 0, 8), []string{"age", "household", "and", "or"}, []string{"person.age"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := labels(tc.at)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("completion %q lacks %q", got, w)
				}
			}
			for _, w := range tc.not {
				if slices.Contains(got, w) {
					t.Errorf("completion %q has %q", got, w)
				}
			}
		})
	}
	c.shutdown()
}

// TestCasebank opens every casebank ruleset: no errors are published
// (as `eligo check` reports none), the outline lists what the file
// declares with each name's range on its id, and every use of a field
// goes to its declaration.
func TestCasebank(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "casebank", "*", "*.rules"))
	if err != nil || len(paths) < 30 {
		t.Fatalf("casebank: %d files, %v", len(paths), err)
	}
	c := start(t, lsp.Options{})
	for _, path := range paths {
		text := readFile(t, path)
		uri := fileURI(t, path)
		c.open(uri, text)
		d := c.diagnostics(uri, 1, nil)
		for _, diag := range d.Diagnostics {
			if diag.Severity == lsp.SeverityError {
				t.Errorf("%s: error %+v", path, diag)
			}
		}
		f, _ := syntax.Parse(path, []byte(text))
		var syms []lsp.DocumentSymbol
		c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
		var got, want []string
		lines := strings.Split(text, "\n")
		for _, s := range syms {
			got = append(got, s.Name)
			for _, ch := range s.Children {
				got = append(got, ch.Name)
				if !inside(ch.Range, s.Range) {
					t.Errorf("%s: criterion %s's range %+v is outside its group's %+v", path, ch.Name, ch.Range, s.Range)
				}
			}
		}
		for _, d := range f.Declarations() {
			want = append(want, d.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: outline %q, want %q", path, got, want)
		}
		for _, s := range syms {
			sel := s.SelectionRange
			if id := lines[sel.Start.Line][sel.Start.Character:sel.End.Character]; id != s.Name {
				t.Errorf("%s: %s's selection range holds %q", path, s.Name, id)
			}
		}
		declared := map[string]int{}
		for _, fd := range f.Fields {
			declared[fd.ID] = fd.Pos.Line - 1
		}
		for _, vd := range f.Values {
			if strings.Contains(vd.Body.ID, ".") {
				declared[vd.Body.ID] = vd.Body.Pos.Line - 1 // a value of each member, written as a field is
			}
		}
		for _, tok := range syntax.Tokens([]byte(text)) {
			if tok.Kind != syntax.TokenField {
				continue
			}
			var defs []lsp.Location
			p := lsp.Position{Line: tok.Start.Line - 1, Character: tok.Start.Col} // inside the name (ASCII)
			c.call("textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}, &defs)
			if len(defs) != 1 || defs[0].Range.Start.Line != declared[tok.Text] {
				t.Errorf("%s: %s at %s goes to %+v, want line %d", path, tok.Text, tok.Start, defs, declared[tok.Text])
			}
		}
		c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	}
	c.shutdown()
}

// inside reports whether a is within b.
func inside(a, b lsp.Range) bool {
	le := func(x, y lsp.Position) bool { return x.Line < y.Line || x.Line == y.Line && x.Character <= y.Character }
	return le(b.Start, a.Start) && le(a.End, b.End)
}

// TestEveryPosition asks every request at every position of texts cut
// short and broken: each is answered without an error, so no place in a
// half-written file can take the server down.
func TestEveryPosition(t *testing.T) {
	c := start(t, lsp.Options{})
	whole := readFile(t, filepath.Join("..", "casebank", "us-eitc-age", "us-eitc-age.rules"))
	texts := []string{broken, whole[:len(whole)/2], whole[:len(whole)/3] + "\u201c\n\"é😀 x.y.z @ Adult ?? {[(", ""}
	for i, text := range texts {
		uri := "untitled:every" + string(rune('a'+i)) + ".rules"
		c.open(uri, text)
		lines := strings.Split(text, "\n")
		doc := map[string]any{"uri": uri}
		for _, method := range []string{"textDocument/documentSymbol", "textDocument/formatting"} {
			m := c.await(c.send(method, map[string]any{"textDocument": doc}))
			if m.Error != nil && !(method == "textDocument/formatting" && strings.Contains(m.Error.Message, "syntax errors")) {
				t.Errorf("%s of text %d: %v", method, i, m.Error)
			}
		}
		for line := 0; line <= len(lines); line++ {
			width := 0
			if line < len(lines) {
				width = len([]rune(lines[line]))
			}
			for ch := 0; ch <= width+1; ch += 1 + width/40 {
				p := lsp.Position{Line: line, Character: ch}
				for _, method := range []string{"textDocument/hover", "textDocument/definition", "textDocument/references", "textDocument/completion"} {
					if m := c.await(c.send(method, map[string]any{"textDocument": doc, "position": p})); m.Error != nil {
						t.Fatalf("%s at %+v of text %d: %v", method, p, i, m.Error)
					}
				}
				r := lsp.Range{Start: p, End: p}
				if m := c.await(c.send("textDocument/codeAction", map[string]any{"textDocument": doc, "range": r, "context": map[string]any{"diagnostics": []any{}}})); m.Error != nil {
					t.Fatalf("codeAction at %+v of text %d: %v", p, i, m.Error)
				}
			}
		}
	}
	c.shutdown()
}
