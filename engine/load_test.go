package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
	"github.com/gowebpki/jcs"
)

// repositoryRulesets are every ruleset of the repository: the casebank
// and every .rules file under engine/ (testdata, and the graph's golden
// files in present/testdata), except the error fixtures of testdata/errors,
// which are written not to compile.
func repositoryRulesets(t testing.TB) []string {
	t.Helper()
	files := testfiles.Casebank(t)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path == filepath.Join("testdata", "errors") {
			return fs.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".rules") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// compilePath compiles a .rules file or fails the test.
func compilePath(t testing.TB, path string) *Ruleset {
	t.Helper()
	r, _, err := Compile(path, testfiles.Read(t, path))
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return r
}

// storedIR compiles a ruleset file and returns it with its IR JSON.
func storedIR(t testing.TB, path string) (*Ruleset, []byte) {
	t.Helper()
	r := compilePath(t, path)
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return r, js
}

// exportedIR is the exported part of a ruleset, what LoadIR must rebuild
// exactly (Criterion.Slots and Text included).
func exportedIR(r *Ruleset) Ruleset {
	return Ruleset{Slug: r.Slug, SectionID: r.SectionID, Name: r.Name, Description: r.Description,
		Sources: r.Sources, Fields: r.Fields, Groups: r.Groups, Outcome: r.Outcome, ReadsDecisionDate: r.ReadsDecisionDate}
}

// checkSameRuleset asserts that loaded is compiled in every respect: the
// exported IR, the digest, and everything finish derives.
func checkSameRuleset(t *testing.T, name string, compiled, loaded *Ruleset) {
	t.Helper()
	if loaded.ContentDigest() != compiled.ContentDigest() {
		t.Fatalf("%s: digest %s, compiled %s", name, loaded.ContentDigest(), compiled.ContentDigest())
	}
	if !reflect.DeepEqual(exportedIR(loaded), exportedIR(compiled)) {
		a, _ := json.MarshalIndent(exportedIR(compiled), "", " ")
		b, _ := json.MarshalIndent(exportedIR(loaded), "", " ")
		t.Fatalf("%s: loaded IR differs from the compiled one\ncompiled: %.2000s\nloaded: %.2000s", name, a, b)
	}
	for i := range compiled.NumCriteria() {
		want, _ := compiled.CriterionAt(i)
		got, _ := loaded.CriterionAt(i)
		if got.Text != want.Text || !reflect.DeepEqual(got.Slots, want.Slots) {
			t.Fatalf("%s: criterion %s: text %q slots %v, compiled %q %v", name, want.ID, got.Text, got.Slots, want.Text, want.Slots)
		}
	}
	if !reflect.DeepEqual(loaded, compiled) {
		t.Fatalf("%s: the loaded ruleset's derived state (program, references, index) differs from the compiled one", name)
	}
}

// checkSameDecisions evaluates both rulesets on the same answers and
// asserts the same result: outcome, statuses, missing fields, trace,
// explanation and report (present's tests compare the graphs).
func checkSameDecisions(t *testing.T, name string, compiled, loaded *Ruleset, in *Inputs, date int64) {
	t.Helper()
	opts := Options{DecisionDate: date, Trace: true, Explanation: true}
	want, got := compiled.Evaluate(in, opts), loaded.Evaluate(in, opts)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: loaded ruleset decides %+v, compiled %+v", name, got, want)
	}
	a, _ := json.Marshal(compiled.Report(want, ""))
	b, _ := json.Marshal(loaded.Report(got, ""))
	if !bytes.Equal(a, b) {
		t.Fatalf("%s: reports differ:\n%s\n%s", name, a, b)
	}
}

// TestLoadIRMatchesCompile is the differential test of the loader: for
// every ruleset of the repository, loading the compiled IR gives the same
// ruleset and the same decisions, on random answers and on the casebank
// cases.
func TestLoadIRMatchesCompile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, path := range repositoryRulesets(t) {
		compiled, js := storedIR(t, path)
		loaded, err := LoadIR(IRVersion, js)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		checkSameRuleset(t, path, compiled, loaded)
		date := value.DateOrdinal(2025, 3, 1)
		checkSameDecisions(t, path+" with no answers", compiled, loaded, compiled.ConvertMap(nil), date)
		for trial := range 300 {
			in := &Inputs{Values: make([]value.Value, len(compiled.Fields))}
			for s := range compiled.Fields {
				if rng.IntN(4) > 0 {
					in.Values[s] = randomValue(rng, &compiled.Fields[s])
				}
			}
			checkSameDecisions(t, fmt.Sprintf("%s trial %d", path, trial), compiled, loaded, in, date)
		}
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), "cases.json"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var cases []Case
		if err := json.Unmarshal(raw, &cases); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, c := range cases {
			want, got := compiled.RunCase(c), loaded.RunCase(c)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s case %s: loaded %+v, compiled %+v", path, c.Name, got, want)
			}
			if !got.Pass {
				t.Errorf("%s case %s: %v", path, c.Name, got.Mismatches)
			}
		}
	}
}

// TestTextFromIR pins what Criterion.Text is on every ruleset of the
// repository: the source's expression as `eligo fmt` prints it, with
// numbers spelled from their value (the IR keeps no spelling), so a stored
// ruleset and its source show the same text in traces.
func TestTextFromIR(t *testing.T) {
	t.Parallel()
	var clearLit func(n *syntax.Node)
	clearLit = func(n *syntax.Node) {
		n.Lit = ""
		for _, a := range n.Args {
			clearLit(a)
		}
	}
	for _, path := range repositoryRulesets(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, errs := syntax.Parse(path, src)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		r := compilePath(t, path)
		for gi, g := range f.Groups {
			for ci, c := range g.Criteria {
				got := r.Groups[gi].Criteria[ci].Text
				if c.Expr == nil {
					if got != "" {
						t.Errorf("%s %s: discretionary criterion has text %q", path, c.ID, got)
					}
					continue
				}
				clearLit(c.Expr)
				if want := syntax.PrintExpr(c.Expr); got != want {
					t.Errorf("%s %s: text %q, source prints %q", path, c.ID, got, want)
				}
			}
		}
	}
}

// jsonbStyle writes a decoded JSON document as a database might hand it
// back: keys in another order, other white space, numbers respelled.
type jsonbStyle struct {
	// b receives the document.
	b bytes.Buffer
	// n counts the numbers written, to alternate their spellings.
	n int
}

func (w *jsonbStyle) write(v any, indent string) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		w.b.WriteString("{\n")
		for i, k := range keys {
			if i > 0 {
				w.b.WriteString(",\n")
			}
			w.b.WriteString(indent + "\t")
			q, _ := json.Marshal(k)
			w.b.Write(q)
			w.b.WriteString(" :  ")
			w.write(v[k], indent+"\t")
		}
		w.b.WriteString("\n" + indent + "}")
	case []any:
		w.b.WriteString("[ ")
		for i, x := range v {
			if i > 0 {
				w.b.WriteString(" , ")
			}
			w.write(x, indent)
		}
		w.b.WriteString(" ]")
	case json.Number:
		w.b.WriteString(w.respell(string(v)))
	default:
		q, _ := json.Marshal(v)
		w.b.Write(q)
	}
}

// respell writes a number in another spelling of the same value: with an
// exponent (1250.5 as 1.2505e3) or with trailing zeros (1250.50).
func (w *jsonbStyle) respell(s string) string {
	w.n++
	v, err := value.ParseNumber(s)
	if err != nil {
		return s
	}
	if w.n%2 == 0 {
		if v.Scale == 0 {
			return v.NumberString() + ".0"
		}
		return v.NumberString() + "00"
	}
	sign, digits := "", strconv.FormatInt(v.Num, 10)
	if v.Num < 0 {
		sign, digits = "-", digits[1:]
	}
	return fmt.Sprintf("%s%s.%se%d", sign, digits[:1], digits[1:]+"0", len(digits)-1-int(v.Scale))
}

// jsonb returns the document js as jsonbStyle writes it.
func jsonb(t *testing.T, js []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var w jsonbStyle
	w.write(doc, "")
	return w.b.Bytes()
}

// TestLoadIRFromJSONB loads every repository ruleset's IR as jsonb might
// return it and gets the same digest and the same ruleset.
func TestLoadIRFromJSONB(t *testing.T) {
	t.Parallel()
	for _, path := range repositoryRulesets(t) {
		compiled, js := storedIR(t, path)
		stored := jsonb(t, js)
		if bytes.Equal(stored, js) {
			t.Fatalf("%s: the jsonb form changes nothing", path)
		}
		loaded, err := LoadIR(IRVersion, stored)
		if err != nil {
			t.Fatalf("%s: %v\n%.500s", path, err, stored)
		}
		checkSameRuleset(t, path+" (jsonb)", compiled, loaded)
	}
	// Spellings of one number: each loads to the same digest.
	compiled, js := storedIR(t, "../casebank/eu-blue-card-de/eu-blue-card-de.rules")
	for _, spelling := range []string{"43759.80", "4.37598e4", "4375980e-2", "0.437598E+5", "43759.800000000"} {
		respelled := bytes.ReplaceAll(js, []byte(":43759.8,"), []byte(":"+spelling+","))
		if bytes.Equal(respelled, js) {
			t.Fatal("43759.8 is no longer in the IR of eu-blue-card-de")
		}
		loaded, err := LoadIR(IRVersion, respelled)
		if err != nil {
			t.Fatalf("%s: %v", spelling, err)
		}
		checkSameRuleset(t, spelling, compiled, loaded)
	}
}

// refusalRules is a small ruleset whose IR the refusal cases edit.
const refusalRules = `section refuse
source s "S" url "https://example.org/s" licence "public-domain"
field a.n int
field a.e enum ["red", "green"]
field a.born date
group g all "G" {
  criterion k "K" {
    a.n >= 12 and a.e == "red"
    cite s "quote"
  }
  criterion d "D" discretionary {
    cite s "may"
  }
}
group h any "H" {
  criterion old "Old" {
    years_between(a.born, decision_date()) >= 18 and a.born > date("1900-01-01")
    cite s "quote"
  }
}
`

// The display.expr of criterion k and of the outcome in refusalRules.
const (
	refusalTenure  = `{"type":"op","operator":">=","args":[{"type":"field_ref","key":"a.n"},{"type":"const","sort":"int","value":12,"field_context":"a.n"}]}`
	refusalExprK   = `{"type":"op","operator":"and","args":[` + refusalTenure + `,{"type":"op","operator":"==","args":[{"type":"field_ref","key":"a.e"},{"type":"const","sort":"enum","value":"red","field_context":"a.e"}]}]}`
	refusalOutcome = `{"type":"op","operator":"and","args":[{"type":"group_ref","key":"g"},{"type":"group_ref","key":"h"}]}`
)

// TestLoadIRRefuses checks that broken IR is refused with a message that
// says where, and never loads.
func TestLoadIRRefuses(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("refuse.rules", []byte(refusalRules))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // so that the cases can write >= as >=
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(buf.String(), "\n")
	for _, s := range []string{refusalExprK, refusalOutcome} {
		if !strings.Contains(base, s) {
			t.Fatalf("the IR of refusalRules no longer contains %s:\n%s", s, base)
		}
	}
	tests := []struct {
		name string
		// version is the IR version to load as; 0 means IRVersion.
		version int
		// old and new edit the IR: the first old becomes new.
		old, new string
		// doc replaces the whole IR when not empty.
		doc  string
		want []string
	}{
		{name: "newer version", version: 7, want: []string{"compiled IR version 7 is not one this engine reads (it reads versions 1 to 3)"}},
		{name: "negative version", version: -1, want: []string{"compiled IR version -1 is not one"}},
		{name: "malformed JSON", doc: `{"slug":`, want: []string{"malformed JSON"}},
		{name: "trailing data", old: `"reads_decision_date":true}`, new: `"reads_decision_date":true} {}`, want: []string{"more data after the document"}},
		{name: "not an object", doc: `[]`, want: []string{"the IR document: must be an object, not a list"}},
		{name: "invalid UTF-8", old: `"title":"K"`, new: "\"title\":\"K\xff\"", want: []string{"not canonicalisable JSON (RFC 8785)", "Invalid UTF-8"}},
		{name: "duplicate member", old: `"slug":""`, new: `"slug":"","slug":""`, want: []string{"not canonicalisable JSON (RFC 8785)", "Duplicate key"}},
		{name: "unknown top-level member", old: `{"slug"`, new: `{"colour":"red","slug"`, want: []string{`the IR document: unknown member "colour"`}},
		{name: "unknown criterion member", old: `"discretionary":false`, new: `"discretionary":false,"weight":1`, want: []string{`groups[0].criteria[0]: unknown member "weight"`}},
		{name: "missing member", old: `,"reads_decision_date":true}`, new: `}`, want: []string{`the IR document: missing required member "reads_decision_date"`}},
		{name: "string for a number", old: `"weight":1`, new: `"weight":"1"`, want: []string{"fields[0].weight: must be a number, not a string"}},
		{name: "fractional weight", old: `"weight":1`, new: `"weight":1.5`, want: []string{"fields[0].weight: 1.5 is not a whole number"}},
		{name: "empty omitted member", old: `"field_type":"int"`, new: `"field_type":"int","question":""`, want: []string{"fields[0].question: empty"}},
		{name: "unknown field type", old: `"field_type":"int"`, new: `"field_type":"integer"`, want: []string{`fields[0].field_type: unknown field type "integer"`}},
		{name: "unknown node type", old: `"type":"field_ref","key":"a.n"`, new: `"type":"field","key":"a.n"`, want: []string{`groups[0].criteria[0].expr.args[0].args[0].type: unknown node type "field"`}},
		{name: "unknown operator", old: `"operator":">="`, new: `"operator":"~="`, want: []string{`groups[0].criteria[0].expr.args[0]: unknown operator "~="`}},
		{name: "wrong arity", old: refusalTenure, new: `{"type":"op","operator":">=","args":[{"type":"field_ref","key":"a.n"}]}`, want: []string{"groups[0].criteria[0].expr.args[0]: >= takes 2 operand(s), not 1"}},
		{name: "and of one", old: refusalExprK, new: `{"type":"op","operator":"and","args":[` + refusalTenure + `]}`, want: []string{"groups[0].criteria[0].expr: and takes at least 2 operands, not 1"}},
		{name: "null args", old: `"operator":"decision_date","args":[]`, new: `"operator":"decision_date","args":null`, want: []string{"groups[1].criteria[0].expr.args[0].args[0].args[1].args: must be a list, not null"}},
		{name: "undeclared field", old: `"key":"a.n"`, new: `"key":"a.x"`, want: []string{`groups[0].criteria[0].expr.args[0].args[0]: field_ref names "a.x", which is not a declared field`}},
		{name: "enum value not listed", old: `"value":"red"`, new: `"value":"purple"`, want: []string{`groups[0].criteria[0].expr.args[1].args[1]: "purple" is not a value of a.e; its values are "red", "green"`}},
		{name: "enum value of another field", old: `"value":"red","field_context":"a.e"`, new: `"value":"red","field_context":"a.n"`, want: []string{"expr.args[1].args[1]: the enum constant \"red\" has field_context a.n, which is an int field"}},
		{name: "enum value without field", old: `"value":"red","field_context":"a.e"`, new: `"value":"red","field_context":null`, want: []string{"expr.args[1].args[1]: the enum constant \"red\" has no field_context"}},
		{name: "int constant with a fraction", old: `"value":12,`, new: `"value":12.5,`, want: []string{"groups[0].criteria[0].expr.args[0].args[1].value: an int constant has no fraction, but this is 12.5"}},
		{name: "number too long", old: `"value":12,`, new: `"value":1234567890123456789012,`, want: []string{"expr.args[0].args[1].value: cannot read 1234567890123456789012 as a number: more than 18 significant digits"}},
		{name: "impossible date", old: `"value":"1900-01-01"`, new: `"value":"1900-02-30"`, want: []string{`groups[1].criteria[0].expr.args[1].args[1].value: "1900-02-30" is not a YYYY-MM-DD calendar date`}},
		{name: "incomparable sorts", old: `"sort":"int","value":12`, new: `"sort":"bool","value":true`, want: []string{"groups[0].criteria[0].expr.args[0]: cannot compare an int with a bool"}},
		{name: "non-bool criterion", old: refusalExprK, new: `{"type":"field_ref","key":"a.n"}`, want: []string{"groups[0].criteria[0].expr: the condition of criterion k is an int, not true/false"}},
		{name: "group_ref in a criterion", old: `{"type":"field_ref","key":"a.n"}`, new: `{"type":"group_ref","key":"g"}`, want: []string{"groups[0].criteria[0].expr.args[0].args[0]: a group_ref (g) may appear only in the outcome"}},
		{name: "outcome reads a field", old: refusalOutcome, new: `{"type":"op","operator":"and","args":[{"type":"field_ref","key":"a.n"},{"type":"group_ref","key":"h"}]}`, want: []string{"outcome.args[0]: the outcome combines group_refs with and, or and not only"}},
		{name: "outcome names no group", old: `{"type":"group_ref","key":"h"}`, new: `{"type":"group_ref","key":"x"}`, want: []string{`outcome.args[1]: group_ref names "x", which is not a group`}},
		{name: "no outcome", old: `"outcome":` + refusalOutcome, new: `"outcome":null`, want: []string{"outcome: missing"}},
		{name: "reads_decision_date wrong", old: `"reads_decision_date":true`, new: `"reads_decision_date":false`, want: []string{"reads_decision_date: is false, but some criterion calls decision_date()"}},
		{name: "fields out of order", old: `"fields":["a.n","a.e"]`, new: `"fields":["a.e","a.n"]`, want: []string{`groups[0].criteria[0].fields: lists ["a.e" "a.n"], but the expression reads ["a.n" "a.e"]`}},
		{name: "undeclared source", old: `"source":"s","quote":"may"`, new: `"source":"t","quote":"may"`, want: []string{"groups[0].criteria[1].citations[0].source: t is not a declared source"}},
		{name: "discretionary with an expression", old: `"title":"K","discretionary":false`, new: `"title":"K","discretionary":true`, want: []string{"groups[0].criteria[0].expr: a discretionary criterion has no expression"}},
		{name: "criterion without an expression", old: `"expr":` + refusalExprK, new: `"expr":null`, want: []string{"groups[0].criteria[0].expr: missing: criterion k is not discretionary"}},
		{name: "duplicate criterion id", old: `"id":"old"`, new: `"id":"k"`, want: []string{"groups[1].criteria[0].id: criterion k is declared twice"}},
		{name: "unknown group kind", old: `"kind":"any"`, new: `"kind":"some"`, want: []string{`groups[1].kind: "some" is neither all nor any`}},
		{name: "enum compared with <", old: `"operator":"==","args":[{"type":"field_ref","key":"a.e"}`, new: `"operator":"<","args":[{"type":"field_ref","key":"a.e"}`, want: []string{"groups[0].criteria[0].expr.args[1]: enum values compare only with ==, != and in, not <"}},
		{name: "present of a constant", old: refusalTenure, new: `{"type":"op","operator":"present","args":[{"type":"const","sort":"int","value":1,"field_context":null}]}`, want: []string{"groups[0].criteria[0].expr.args[0].args[0]: present takes a field_ref"}},
		{name: "product of two fields", old: refusalTenure, new: `{"type":"op","operator":">=","args":[{"type":"op","operator":"*","args":[{"type":"field_ref","key":"a.n"},{"type":"field_ref","key":"a.n"}]},{"type":"const","sort":"int","value":12,"field_context":null}]}`, want: []string{"groups[0].criteria[0].expr.args[0].args[0]: * needs a constant number on one side"}},
		{name: "in with a field in the list", old: refusalTenure, new: `{"type":"op","operator":"in","args":[{"type":"field_ref","key":"a.n"},{"type":"field_ref","key":"a.n"}]}`, want: []string{"groups[0].criteria[0].expr.args[0].args[1]: the list after in may hold only constant values"}},
		{name: "enum field without values", old: `"enum_values":["red","green"]`, new: `"enum_values":[]`, want: []string{"fields[1].enum_values: enum field a.e lists no values"}},
		{name: "values on an int field", old: `"field_type":"int","weight":1,"enum_values":null`, new: `"field_type":"int","weight":1,"enum_values":["x"]`, want: []string{"fields[0].enum_values: only an enum field lists values"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc, version := base, tc.version
			if version == 0 {
				version = IRVersion
			}
			switch {
			case tc.doc != "":
				doc = tc.doc
			case tc.old != "":
				if !strings.Contains(doc, tc.old) {
					t.Fatalf("the IR does not contain %s:\n%s", tc.old, doc)
				}
				doc = strings.Replace(doc, tc.old, tc.new, 1)
			}
			loaded, err := LoadIR(version, []byte(doc))
			if err == nil {
				t.Fatalf("loaded %s", loaded.ContentDigest())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if isVersion := strings.Contains(tc.name, "version"); errors.Is(err, ErrUnknownIRVersion) != isVersion {
				t.Errorf("errors.Is(%v, ErrUnknownIRVersion) = %t", err, !isVersion)
			}
		})
	}
}

// TestEncodesBack checks the loader's last guard, that the loaded ruleset
// encodes back to the stored document. The decoder keeps everything it
// reads, so no stored document trips it today; it is checked directly,
// with the canonical form of a document that says something else.
func TestEncodesBack(t *testing.T) {
	t.Parallel()
	r, js := storedIR(t, "../casebank/us-fmla-employee/us-fmla-employee.rules")
	canon, err := jcs.Transform(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := encodesBack(r, canon); err != nil {
		t.Fatalf("the compiled ruleset does not encode back to its own IR: %v", err)
	}
	other, err := jcs.Transform(bytes.Replace(js, []byte(`"weight":1`), []byte(`"weight":5`), 1))
	if err != nil {
		t.Fatal(err)
	}
	err = encodesBack(r, other)
	at := bytes.Index(other, []byte(`"weight":5`)) + len(`"weight":`)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d of the canonical form", at)) {
		t.Errorf("error %v does not point at byte %d", err, at)
	}
}

// TestLoadIREditedContent loads IR that today's compiler would never make
// from the source (an edited threshold and title): it loads, decides by
// the edited IR, and its digest is the hash of the edited bytes.
func TestLoadIREditedContent(t *testing.T) {
	t.Parallel()
	compiled, _, err := Compile("refuse.rules", []byte(refusalRules))
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(compiled)
	edited := bytes.Replace(js, []byte(`"value":12,`), []byte(`"value":24,`), 1)
	edited = bytes.Replace(edited, []byte(`"title":"K"`), []byte(`"title":"K, edited"`), 1)
	if bytes.Equal(edited, js) {
		t.Fatal("nothing edited")
	}
	loaded, err := LoadIR(IRVersion, edited)
	if err != nil {
		t.Fatal(err)
	}
	canon, err := jcs.Transform(edited)
	if err != nil {
		t.Fatal(err)
	}
	if want := digestOf(canon); loaded.ContentDigest() != want || want == compiled.ContentDigest() {
		t.Errorf("digest %s, want the edited bytes' %s (compiled %s)", loaded.ContentDigest(), want, compiled.ContentDigest())
	}
	c, _ := loaded.CriterionAt(0)
	if c.Title != "K, edited" || c.Text != `a.n >= 24 and a.e == "red"` {
		t.Errorf("criterion %q: %s", c.Title, c.Text)
	}
	in, err := loaded.Convert([]byte(`{"a.n": 20, "a.e": "red"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Evaluate(in, Options{}).Criteria[0]; got != NotSatisfied {
		t.Errorf("edited threshold 24 with 20: %s", got)
	}
	if got := compiled.Evaluate(in, Options{}).Criteria[0]; got != Satisfied {
		t.Errorf("compiled threshold 12 with 20: %s", got)
	}
}

// TestBuild checks Build on a ruleset assembled in memory: it recomputes
// sorts, slots and derived members whatever the input says, gives the
// compiled ruleset back, and leaves its input alone.
func TestBuild(t *testing.T) {
	t.Parallel()
	for _, path := range repositoryRulesets(t) {
		compiled := compilePath(t, path)
		in, err := cloneRuleset(compiled)
		if err != nil {
			t.Fatal(err)
		}
		var scramble func(e *Expr)
		scramble = func(e *Expr) {
			if e.Kind != ExprConst {
				e.Sort = SortInvalid
			}
			e.Slot = 99
			if e.Kind == ExprConst && e.Sort == SortEnum {
				e.Const.Num = 42
			}
			for _, a := range e.Args {
				scramble(a)
			}
		}
		for gi := range in.Groups {
			for ci := range in.Groups[gi].Criteria {
				c := &in.Groups[gi].Criteria[ci]
				c.Slots, c.Text = []int{7}, "stale"
				if c.Expr != nil {
					scramble(c.Expr)
				}
			}
		}
		scramble(in.Outcome)
		before, _ := cloneRuleset(in)
		for gi := range before.Groups {
			for ci := range before.Groups[gi].Criteria {
				before.Groups[gi].Criteria[ci].Slots, before.Groups[gi].Criteria[ci].Text = []int{7}, "stale"
			}
		}
		built, err := Build(in)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		checkSameRuleset(t, path, compiled, built)
		if !reflect.DeepEqual(in, before) {
			t.Fatalf("%s: Build changed its input", path)
		}
	}
	if _, err := Build(nil); err == nil {
		t.Error("Build(nil) succeeded")
	}
	cyclic := compilePath(t, "../casebank/us-fmla-employee/us-fmla-employee.rules")
	in, _ := cloneRuleset(cyclic)
	loop := &Expr{Kind: ExprOp, Op: OpNot}
	loop.Args = []*Expr{loop}
	in.Groups[0].Criteria[0].Expr = loop
	if _, err := Build(in); err == nil || !strings.Contains(err.Error(), "groups[0].criteria[0].expr: nested deeper than 5000 levels") {
		t.Errorf("a cyclic expression: %v", err)
	}
}

// TestLoadIRMutations is a structured complement to FuzzLoadIR, which
// rarely gets past JSON syntax: it edits well-formed IR at random (another
// operator, sort, key or value, a subtree moved, an operand dropped or
// null) and checks the FuzzLoadIR property on each result, so that Build's
// checks are exercised on IR that is almost right.
func TestLoadIRMutations(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 9))
	docs := [][]byte{}
	for _, src := range []string{groupsRules, refusalRules,
		fmt.Sprintf(testfiles.OpsRules, `not (a.n ?? -1 > 2 or a.e not in ["red"]) and a.d * 2 <= max(a.n, 1.5) and a.born ?? decision_date() in [date("2024-02-29")] and a.m - -a.n > min(1, 2, 3.5) and (a.b == true) != a.c`),
	} {
		r, _, err := Compile("m.rules", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(r)
		docs = append(docs, js)
	}
	_, js := storedIR(t, "../casebank/eu-blue-card-de/eu-blue-card-de.rules")
	docs = append(docs, js)
	// words are the strings a mutation may put anywhere.
	words := []any{"op", "field_ref", "const", "group_ref", "int", "decimal", "bool", "enum", "date",
		"all", "any", "a.n", "a.e", "a.d", "a.b", "a.born", "g", "all_of", "red", "purple", "s", "2024-02-29", "",
		json.Number("0"), json.Number("-1.5"), json.Number("2"), true, false, nil, []any{}, map[string]any{}}
	for _, op := range []Operator{OpAnd, OpOr, OpNot, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpIn, OpNotIn, OpAdd,
		OpSub, OpMul, OpNeg, OpMin, OpMax, OpYearsBetween, OpMonthsBetween, OpDaysBetween, OpDecisionDate,
		OpPresent, OpAbsent, OpDefault} {
		words = append(words, string(op))
	}
	loaded := 0
	for trial := range 4000 {
		data := docs[trial%len(docs)]
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		for range 1 + rng.IntN(2) {
			doc = mutate(rng, doc, words)
		}
		edited, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if checkLoadIR(t, edited) {
			loaded++
		}
	}
	t.Logf("%d of 4000 edited documents loaded", loaded)
	if loaded == 0 {
		t.Error("no edited document loaded: the mutations test only refusals")
	}
}

// mutate returns doc with one random value replaced: by a word, by another
// value of the document, or, in a list, by dropping or repeating an item.
func mutate(rng *rand.Rand, doc any, words []any) any {
	var values []any
	var setters []func(any)
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		values, setters = append(values, v), append(setters, set)
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(x, func(y any) { v[k] = y })
			}
		case []any:
			for i, x := range v {
				walk(x, func(y any) { v[i] = y })
			}
		}
	}
	walk(doc, func(y any) { doc = y })
	i := rng.IntN(len(values))
	switch v := values[i].(type) {
	case []any:
		if len(v) > 0 && rng.IntN(2) == 0 {
			k := rng.IntN(len(v))
			if rng.IntN(2) == 0 {
				setters[i](append(v[:k:k], v[k+1:]...))
			} else {
				setters[i](append(v[:k+1:k+1], v[k:]...))
			}
			return doc
		}
	}
	if rng.IntN(3) == 0 {
		setters[i](copyJSON(values[rng.IntN(len(values))]))
	} else {
		setters[i](copyJSON(words[rng.IntN(len(words))]))
	}
	return doc
}

// copyJSON copies a decoded JSON value deeply, so that a value moved by
// mutate is never shared (nor made its own ancestor).
func copyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = copyJSON(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = copyJSON(x)
		}
		return l
	}
	return v
}

// BuildUnhashed links a ruleset as Build does but leaves the digest out:
// the same decisions on every casebank case, and an empty ContentDigest.
func TestBuildUnhashed(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../casebank/us-fmla-employee/us-fmla-employee.rules")
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := Compile("fmla.rules", text)
	if err != nil {
		t.Fatal(err)
	}
	u, err := BuildUnhashed(r)
	if err != nil {
		t.Fatal(err)
	}
	if u.ContentDigest() != "" || r.ContentDigest() == "" {
		t.Fatalf("digests: unhashed %q, compiled %q", u.ContentDigest(), r.ContentDigest())
	}
	raw, err := os.ReadFile("../casebank/us-fmla-employee/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if a, b := r.RunCase(c), u.RunCase(c); a.Pass != b.Pass || a.Result.Outcome != b.Result.Outcome {
			t.Errorf("%s: compiled %v/%s, unhashed %v/%s", c.Name, a.Pass, a.Result.Outcome, b.Pass, b.Result.Outcome)
		}
	}
}
