package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/syntax"
)

// stripPositions zeroes every Pos in a syntax tree so that trees parsed
// from differently laid out text compare equal.
func stripPositions(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			stripPositions(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(syntax.Pos{}) {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			stripPositions(v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			stripPositions(v.Index(i))
		}
	}
}

// checkRoundTrip asserts parse(print(f)) == f and that print is idempotent.
func checkRoundTrip(t *testing.T, name string, f *syntax.File) {
	t.Helper()
	printed := syntax.Print(f)
	g, errs := syntax.Parse(name, printed)
	if len(errs) > 0 {
		t.Fatalf("%s: printed text does not parse: %v\n%s", name, errs, printed)
	}
	stripPositions(reflect.ValueOf(f))
	stripPositions(reflect.ValueOf(g))
	if !reflect.DeepEqual(f, g) {
		t.Fatalf("%s: parse(print(ast)) != ast\nprinted:\n%s", name, printed)
	}
	if again := syntax.Print(g); !bytes.Equal(again, printed) {
		t.Fatalf("%s: print is not idempotent:\n%s\n---\n%s", name, printed, again)
	}
}

func TestRoundTripCasebank(t *testing.T) {
	t.Parallel()
	files := append(testfiles.Casebank(t), filepath.Join("testdata", "large.rules"))
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, errs := syntax.Parse(path, src)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", path, errs)
		}
		checkRoundTrip(t, path, f)
	}
}

func TestPrintCanonicalLayout(t *testing.T) {
	t.Parallel()
	messy := `# the header comment
section   demo
source s "S"
  url "https://e.org" licence "CC-BY-4.0"
field a.n int question "How many?" note why "Because." source s
field a.e enum ["x","y"] weight 3
# group comment
group g any "G" { criterion c "C" { (a.n >= 1) and ((a.e == "x")) cite s "q" } criterion d "D" discretionary { cite s "may" } }
outcome (g)
`
	want := `# the header comment
section demo

source s "S" url "https://e.org" licence "CC-BY-4.0"

field a.n int weight 1
  question "How many?"
  note why "Because." source s
field a.e enum ["x", "y"] weight 3

# group comment
group g any "G" {
  criterion c "C" {
    a.n >= 1 and a.e == "x"
    cite s "q"
  }
  criterion d "D" discretionary {
    cite s "may"
  }
}

outcome g
`
	f, errs := syntax.Parse("messy.rules", []byte(messy))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := string(syntax.Print(f)); got != want {
		t.Errorf("canonical print:\n%s\nwant:\n%s", got, want)
	}
	checkRoundTrip(t, "messy.rules", f)
}

func TestPrintParenthesesKeepMeaning(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{
		"a.n - (a.m - 1) > 0", "(a.n - a.m) - 1 > 0", "not (a.b and a.c)", "(a.b or a.c) and a.b",
		"a.b or (a.c or a.b)", "(a.n ?? 1) * 2 > 0", "-(a.n + a.m) < 0", "(a.n > 1) == a.b",
		"a.n * (2 * 3) > 0", "not not a.b", "a.b == (a.n in [1, 2])",
	} {
		src := fmt.Sprintf(testfiles.OpsRules, expr)
		f, errs := syntax.Parse("p.rules", []byte(src))
		if len(errs) > 0 {
			t.Fatalf("%s: %v", expr, errs)
		}
		checkRoundTrip(t, expr, f)
		r1, _, err1 := Compile("p.rules", []byte(src))
		r2, _, err2 := Compile("p.rules", syntax.Print(f))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", expr, err1, err2)
		}
		if r1.ContentDigest() != r2.ContentDigest() {
			t.Errorf("%s: printing changed the meaning", expr)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string // each a substring of one error, in order
	}{
		{"several errors in one run", fmt.Sprintf(testfiles.OpsRules, "a.nope >= 1 and a.e == \"pink\" and a.born > 3"),
			[]string{"ops.rules:13:5: unknown field a.nope", `"pink" is not a value of a.e`, "cannot compare a date with an int"}},
		{"type mismatch", fmt.Sprintf(testfiles.OpsRules, "a.b + 1 > 2"), []string{"+ needs a number, but this is a bool"}},
		{"not a condition", fmt.Sprintf(testfiles.OpsRules, "a.n + 1"), []string{"is an int, not true/false"}},
		{"chained comparison", fmt.Sprintf(testfiles.OpsRules, "1 < a.n < 3"), []string{"comparisons do not chain"}},
		{"nonlinear", fmt.Sprintf(testfiles.OpsRules, "a.n * a.m > 3"), []string{"* needs a constant number"}},
		{"bad date constant", fmt.Sprintf(testfiles.OpsRules, `a.born > date("2023-02-29")`), []string{`"2023-02-29" is not a valid date`}},
		{"unknown function", fmt.Sprintf(testfiles.OpsRules, `age(a.born) > 3`), []string{"unknown function age"}},
		{"present of a constant", fmt.Sprintf(testfiles.OpsRules, `present(3)`), []string{"present takes a field"}},
		{"default left side", fmt.Sprintf(testfiles.OpsRules, `(a.n + 1) ?? 3 > 1`), []string{"left side of ?? must be a field"}},
		{"default wrong type", fmt.Sprintf(testfiles.OpsRules, `a.n ?? true`), []string{"default of a.n must be an int"}},
		{"enum ordering", fmt.Sprintf(testfiles.OpsRules, `a.e < "red"`), []string{"compare only with ==, != and in"}},
		{"string vs int", fmt.Sprintf(testfiles.OpsRules, `a.n == "red"`), []string{"strings compare only with enum fields"}},
		{"typo suggestion", fmt.Sprintf(testfiles.OpsRules, `a.nn > 1`), []string{"did you mean a.n?"}},
		{"missing section and licence", `source s "S" url "u"
field a.x bool
group g all "G" {
  criterion c "C" {
    a.x
    cite s "q"
  }
}`, []string{"1:1: the file has no section line", "expected licence"}},
		{"duplicates and unknown source", `section d
source s "S" url "u" licence "l"
field a.x bool
field a.x int
group g all "G" {
  criterion c "C" {
    a.x
    cite t "q"
  }
  criterion c "C again" {
    a.x
    cite s "q"
  }
}
group g any "G2" {
  criterion e "E" {
    a.x
    cite s "q"
  }
}
outcome g and h`, []string{"4:1: field a.x is declared twice", "cites unknown source t", "criterion c is declared twice", "group g is declared twice", "the outcome names h, which is not a group"}},
		{"syntax errors recover per declaration", `section d
source s "S" url "u" licence "l"
field a.x bool weight x
field a.y int
group g all "G" {
  criterion c "C" {
    a.x = true
    cite s "q"
  }
  criterion d "D" {
    a.y >= 1
    cite s "q"
  }
}
outcome g`, []string{"3:23: expected a whole number after weight", `7:9: unexpected "="`}},
		{"unclosed string", "section d\nname \"x\n", []string{"2:6: this string is not closed"}},
		{"bad names", "section D\n", []string{`"D" is not a valid name`}},
		{"no criteria", "section d\nsource s \"S\" url \"u\" licence \"l\"\nfield a.x bool\ngroup g all \"G\" {\n}\n", []string{"group g has no criteria"}},
		{"criterion without cite", fmt.Sprintf(strings.Replace(testfiles.OpsRules, `cite s "quote"`, "", 1), "a.b"), []string{"criterion k cites nothing"}},
		{"bad slug and widget", "ruleset \"US/x\"\nsection d\nsource s \"S\" url \"u\" licence \"l\"\nfield a.x bool\n  widget slider\ngroup g all \"G\" {\n  criterion c \"C\" {\n    a.x\n    cite s \"q\"\n  }\n}\n",
			[]string{`slug "US/x" must look like`, "unknown widget slider"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := Compile("ops.rules", []byte(tt.src))
			list, ok := err.(syntax.ErrorList)
			if !ok {
				t.Fatalf("err = %v, want an ErrorList", err)
			}
			text := list.Error()
			at := 0
			for _, w := range tt.want {
				i := strings.Index(text[at:], w)
				if i < 0 {
					t.Fatalf("errors do not contain %q (in order):\n%s", w, text)
				}
				at += i + len(w)
			}
			for _, e := range list {
				if e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Errorf("error without a position: %v", e)
				}
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	src := strings.Replace(groupsRules, "outcome all_of and any_of", "outcome all_of", 1) + "field a.unused int\n"
	_, warnings, err := Compile("w.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := warnings.Error()
	for _, w := range []string{"field a.unused is declared but no criterion reads it", "group any_of is not part of the outcome"} {
		if !strings.Contains(text, w) {
			t.Errorf("warnings do not contain %q:\n%s", w, text)
		}
	}
}

func TestDigest(t *testing.T) {
	t.Parallel()
	base := fmt.Sprintf(testfiles.OpsRules, "a.n >= 12 and a.b")
	r, _, err := Compile("d.rules", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	digest := r.ContentDigest()
	if !strings.HasPrefix(digest, "sha256:") || len(digest) != 71 {
		t.Fatalf("digest %q", digest)
	}
	same := []string{
		"# a comment\n" + strings.ReplaceAll(base, "\n", "\n\n"),
		fmt.Sprintf(testfiles.OpsRules, "(a.n >= 12.0) and (a.b)"),
		fmt.Sprintf(testfiles.OpsRules, "a.n >= 1.2e1 and a.b # trailing"),
	}
	for _, s := range same {
		r2, _, err := Compile("d.rules", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if r2.ContentDigest() != digest {
			t.Errorf("layout or comments changed the digest:\n%s", s)
		}
	}
	different := []string{
		fmt.Sprintf(testfiles.OpsRules, "a.n > 12 and a.b"),
		fmt.Sprintf(testfiles.OpsRules, "a.n >= 13 and a.b"),
		fmt.Sprintf(testfiles.OpsRules, "a.b and a.n >= 12"),
		strings.Replace(fmt.Sprintf(testfiles.OpsRules, "a.n >= 12 and a.b"), `"quote"`, `"other quote"`, 1),
		strings.Replace(fmt.Sprintf(testfiles.OpsRules, "a.n >= 12 and a.b"), `field a.n int`, `field a.n int weight 2`, 1),
	}
	for _, s := range different {
		r2, _, err := Compile("d.rules", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if r2.ContentDigest() == digest {
			t.Errorf("a change of meaning kept the digest:\n%s", s)
		}
	}
}

func TestDisplayExprJSON(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("d.rules", []byte(fmt.Sprintf(testfiles.OpsRules, `a.n >= 12 and a.e in ["red"] and a.born < date("2000-01-01") and a.d > 1`)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Groups[0].Criteria[0].Expr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"op","operator":"and","args":[` +
		`{"type":"op","operator":">=","args":[{"type":"field_ref","key":"a.n"},{"type":"const","sort":"int","value":12,"field_context":"a.n"}]},` +
		`{"type":"op","operator":"in","args":[{"type":"field_ref","key":"a.e"},{"type":"const","sort":"enum","value":"red","field_context":"a.e"}]},` +
		`{"type":"op","operator":"<","args":[{"type":"field_ref","key":"a.born"},{"type":"const","sort":"date","value":"2000-01-01","field_context":"a.born"}]},` +
		`{"type":"op","operator":">","args":[{"type":"field_ref","key":"a.d"},{"type":"const","sort":"decimal","value":1,"field_context":"a.d"}]}]}`
	if string(got) != want {
		t.Errorf("display.expr:\n%s\nwant:\n%s", got, want)
	}
}

func TestDefaultsAndMetadata(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("m.rules", []byte(`section uk_state_pension
source s "S" artefact "project-file-1" licence "OGL-3.0"
field a.x bool weight 4
  question "Q?"
  description "D"
  note why "Because." source s
  note legal_background "History."
  widget free_text
group g all "G" {
  criterion c "C" {
    a.x
    cite s "quote, with - & text"
  }
}
`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "Uk State Pension" || r.Slug != "" {
		t.Errorf("name %q slug %q", r.Name, r.Slug)
	}
	f := r.Fields[0]
	if f.Weight != 4 || f.Widget != "free_text" || f.Notes[0].Text != "WHY: Because." || f.Notes[1].Text != "LEGAL BACKGROUND: History." ||
		f.Notes[0].Metadata != (NoteMetadata{Type: "why", Section: "uk_state_pension"}) || f.Notes[0].Source != "s" {
		t.Errorf("field %+v", f)
	}
	if r.Outcome.Kind != ExprGroup || r.Outcome.Key != "g" {
		t.Errorf("default outcome %+v", r.Outcome)
	}
	refs := r.References(0)
	if refs[0].URL != "project-file-1" || refs[0].TargetKind != "artefact" || refs[0].SchemaVersion != 2 ||
		refs[0].DeepLink != "project-file-1#:~:text=quote%2C%20with%20%2D%20%26%20text" {
		t.Errorf("reference %+v", refs[0])
	}
}

func TestSyntaxErrorsDoNotCascade(t *testing.T) {
	t.Parallel()
	src := `section demo
source s "S" url "u"
field a.n int weight x
field a.m int
group g all "G" {
  criterion c "C" {
    a.n >= 1 and a.m >= 2
    cite s "q"
  }
}
outcome g
`
	_, _, err := Compile("c.rules", []byte(src))
	want := "c.rules:2:21: expected licence \"<licence>\": every source needs one, e.g. licence \"public-domain\"\n" +
		"c.rules:3:22: expected a whole number after weight, found \"x\""
	if err == nil || err.Error() != want {
		t.Errorf("errors:\n%v\nwant exactly:\n%s", err, want)
	}
}

func TestPrintKeepsNumberSpelling(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a.d >= 43759.80": "a.d >= 43759.80",
		"a.n >= 1e3":      "a.n >= 1e3",
		"a.n > - 5":       "a.n > -5",
		"a.n > - -5":      "a.n > 5",
		"a.n > -(5)":      "a.n > -5",
	} {
		f, errs := syntax.Parse("n.rules", fmt.Appendf(nil, testfiles.OpsRules, in))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if got := syntax.PrintExpr(f.Groups[0].Criteria[0].Expr); got != want {
			t.Errorf("%s printed as %s, want %s", in, got, want)
		}
		checkRoundTrip(t, in, f)
	}
}

// TestGrammarExample keeps syntax/GRAMMAR.md honest: its worked example compiles
// without warnings and is already in canonical form.
func TestGrammarExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("syntax/GRAMMAR.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(doc), "```")
	if len(parts) < 3 {
		t.Fatal("GRAMMAR.md has no code block")
	}
	example := strings.TrimPrefix(parts[1], "\n")
	_, warnings, err := Compile("GRAMMAR.md", []byte(example))
	if err != nil || len(warnings) > 0 {
		t.Fatalf("worked example: %v %v", err, warnings)
	}
	f, _ := syntax.Parse("GRAMMAR.md", []byte(example))
	if got := string(syntax.Print(f)); got != example {
		t.Errorf("worked example is not canonical; eligo fmt gives:\n%s", got)
	}
}
