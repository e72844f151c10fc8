package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// valueRules is testfiles.ValueRules: named values computing a net income.
const valueRules = testfiles.ValueRules

func compileValues(t *testing.T) *Ruleset {
	t.Helper()
	r, warnings, err := Compile("values.rules", []byte(valueRules))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	return r
}

func TestValuesEvaluate(t *testing.T) {
	t.Parallel()
	r := compileValues(t)
	opts := Options{DecisionDate: value.DateOrdinal(2026, 1, 5)}
	for _, tt := range []struct {
		name    string
		answers string
		outcome Outcome
		values  map[string]string // value id -> figure, "?" for unknown
		errs    []string
	}{
		{"computes each deduction", `{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`,
			Eligible, map[string]string{"gross_income": "1150.5", "net_income": "746.5", "per_person": "373.25"}, nil},
		{"the larger household's deduction and limit", `{"income.earned": 3000, "income.unearned": 0, "household.size": 4, "household.elderly": false}`,
			NotEligible, map[string]string{"net_income": "2183", "per_person": "545.75"}, nil},
		{"rounds the per-person figure down to the cent", `{"income.earned": 1000, "income.unearned": 0, "household.size": 3, "household.elderly": true}`,
			Eligible, map[string]string{"net_income": "596", "per_person": "198.66"}, nil},
		{"cannot go below zero", `{"income.earned": 100, "income.unearned": 0, "household.size": 1, "household.elderly": false}`,
			Eligible, map[string]string{"net_income": "0", "per_person": "0"}, nil},
		{"unknown exactly while what it needs is", `{"income.earned": 1000, "household.size": 2}`,
			Undetermined, map[string]string{"gross_income": "?", "net_income": "?", "per_person": "?"}, nil},
		{"an if whose branches agree needs no condition", `{"income.earned": 1000, "income.unearned": 0, "household.size": 2}`,
			Undetermined, map[string]string{"net_income": "596", "per_person": "298"}, nil},
		{"a division by zero names the value and what it reads", `{"income.earned": 1000, "income.unearned": 0, "household.size": 0, "household.elderly": true}`,
			Undetermined, map[string]string{"per_person": "?"}, []string{"value per_person: it divides by zero; it reads income.earned, income.unearned, household.size"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := r.Convert([]byte(tt.answers))
			if err != nil {
				t.Fatal(err)
			}
			res := r.Evaluate(in, opts)
			if res.Outcome != tt.outcome {
				t.Errorf("outcome %s, want %s (errors %v)", res.Outcome, tt.outcome, res.FieldErrors)
			}
			for id, want := range tt.values {
				i := valueSlot(t, r, id)
				got := "?"
				if v := res.Values[i]; v.Known {
					got = v.NumberString()
				}
				if got != want {
					t.Errorf("%s = %s, want %s", id, got, want)
				}
			}
			var msgs []string
			for _, fe := range res.FieldErrors {
				msgs = append(msgs, fe.Message)
			}
			if strings.Join(msgs, "|") != strings.Join(tt.errs, "|") {
				t.Errorf("field errors %q, want %q", msgs, tt.errs)
			}
		})
	}
}

func valueSlot(t *testing.T, r *Ruleset, id string) int {
	t.Helper()
	for i := range r.Values {
		if r.Values[i].ID == id {
			return i
		}
	}
	t.Fatalf("no value %s", id)
	return -1
}

// A criterion reads the fields behind the values it names, so the planner
// and missing_fields see them; a value lists what it reads likewise.
func TestValuesCountTheFieldsBehindThem(t *testing.T) {
	t.Parallel()
	r := compileValues(t)
	c, _ := r.CriterionAt(0)
	if got := strings.Join(c.Fields, ","); got != "income.earned,income.unearned,household.size,household.elderly" {
		t.Errorf("criterion fields %s", got)
	}
	if got := strings.Join(r.Values[valueSlot(t, r, "earned_deduction")].Fields, ","); got != "income.earned" {
		t.Errorf("earned_deduction fields %s", got)
	}
	in, _ := r.Convert([]byte(`{"income.earned": 1000}`))
	res := r.Evaluate(in, Options{DecisionDate: value.DateOrdinal(2026, 1, 5)})
	if got := strings.Join(res.MissingFields, ","); got != "income.unearned,household.size,household.elderly" {
		t.Errorf("missing fields %s", got)
	}
}

// Stored and loaded, a ruleset with values keeps its digest and decides
// the same; it is IR version 2, which version 1 does not read.
func TestValuesLoadFromIR(t *testing.T) {
	t.Parallel()
	r := compileValues(t)
	if r.FormatVersion() != 2 {
		t.Fatalf("format version %d", r.FormatVersion())
	}
	ir, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIR(2, ir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ContentDigest() != r.ContentDigest() {
		t.Errorf("digest changed on load")
	}
	if loaded.Values[valueSlot(t, loaded, "net_income")].Text != "max(gross_income - earned_deduction - standard_deduction, 0)" {
		t.Errorf("text %q", loaded.Values[valueSlot(t, loaded, "net_income")].Text)
	}
	in, _ := loaded.Convert([]byte(`{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`))
	if res := loaded.Evaluate(in, Options{DecisionDate: value.DateOrdinal(2026, 1, 5)}); res.Outcome != Eligible {
		t.Errorf("loaded ruleset decides %s", res.Outcome)
	}
	if _, err := LoadIR(1, ir); err == nil || !strings.Contains(err.Error(), "stored as version 1") {
		t.Errorf("version 1 with values: %v", err)
	}
	for _, tt := range []struct{ from, to, want string }{
		{`{"type":"value_ref","key":"gross_income"}`, `{"type":"value_ref","key":"net_income"}`, "depends on itself"},
		{`{"type":"value_ref","key":"gross_income"}`, `{"type":"value_ref","key":"gross"}`, "not a declared value"},
		{`"operator":"round"`, `"operator":"rnd"`, "unknown operator"},
	} {
		doc := strings.Replace(string(ir), tt.from, tt.to, 1)
		if doc == string(ir) {
			t.Fatalf("%s is not in the IR", tt.from)
		}
		if _, err := LoadIR(2, []byte(doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s -> %s: %v, want %q", tt.from, tt.to, err, tt.want)
		}
	}
}

func TestValuesPrint(t *testing.T) {
	t.Parallel()
	f, errs := syntax.Parse("values.rules", []byte(valueRules))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	out := string(syntax.Print(f))
	for _, want := range []string{
		"value gross_income decimal \"Gross monthly income\" unit \"USD\" output {\n  income.earned + income.unearned\n  cite law \"all income\"\n}",
		"  if household.size <= 3 then 204 else 217\n",
		"  floor(net_income / household.size, 0.01)\n",
		"  if household.elderly then 2000 else 1000 + 300 * (household.size - 1)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("printed form lacks %q:\n%s", want, out)
		}
	}
	checkRoundTrip(t, "values", f)
	for _, src := range []string{"(if a.b then 1 else 2) + 3", "if a.b then if a.c then 1 else 2 else 3", "a.n / (a.m / 2)", "a.n / 2 * 3"} {
		n := parseExprText(t, src)
		if got := syntax.PrintExpr(n); got != src {
			t.Errorf("%s prints as %s", src, got)
		}
	}
}

// parseExprText parses src as the condition of a criterion and returns
// its syntax tree.
func parseExprText(t *testing.T, src string) *syntax.Node {
	t.Helper()
	text := "section s\ngroup g all \"G\" {\n  criterion c \"C\" {\n    " + src + "\n    cite law \"x\"\n  }\n}\n"
	f, errs := syntax.Parse("e.rules", []byte(text))
	if len(errs) > 0 {
		t.Fatalf("%s: %v", src, errs)
	}
	return f.Groups[0].Criteria[0].Expr
}

func TestValueErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, from, to, want string }{
		{"a cycle is one error that names it", "income.earned + income.unearned", "net_income + 1",
			"value gross_income depends on itself: gross_income → net_income → gross_income"},
		{"a misspelt value", "net_income <= limit", "net_incme <= limit", "unknown value net_incme: declare it with a value line (did you mean net_income?)"},
		{"an int value given a decimal", `value per_person decimal "Income per person"`, `value per_person int "Income per person"`,
			"value per_person is declared int but its expression is a decimal"},
		{"a word of the language", "value limit decimal", "value round decimal", "round cannot name a value"},
		{"a step that is not a constant", "round(income.earned * 0.2, 0.01)", "round(income.earned * 0.2, household.size)",
			"the step of round is a positive number written out"},
		{"branches of two kinds", "if household.size <= 3 then 204 else 217", "if household.size <= 3 then 204 else household.elderly",
			"the branches of if give an int and a bool"},
		{"a condition that is a number", "if household.elderly then 2000", "if household.size then 2000", "if needs a true/false condition, but this is an int"},
		{"a division by a constant zero", "net_income / household.size", "net_income / 0", "division by zero"},
		{"an if without else", "if household.size <= 3 then 204 else 217", "if household.size <= 3 then 204", "expected else"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(valueRules, tt.from, tt.to, 1)
			if src == valueRules {
				t.Fatalf("%q is not in the rules", tt.from)
			}
			_, _, err := Compile("values.rules", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	_, warnings, err := Compile("values.rules", []byte(strings.Replace(valueRules, `"Income per person" unit "USD" output`, `"Income per person" unit "USD"`, 1)))
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "value per_person is declared but nothing reads it") {
		t.Errorf("unused value: %v %v", warnings, err)
	}
}

// An explanation shows each value a criterion rests on with its figure,
// its definition and its law; a ruleset without values explains as before.
func TestValuesExplain(t *testing.T) {
	t.Parallel()
	r := compileValues(t)
	in, _ := r.Convert([]byte(`{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`))
	res := r.Evaluate(in, Options{DecisionDate: value.DateOrdinal(2026, 1, 5), Explanation: true})
	ce := res.Explanation.Groups[0].Criteria[0]
	var got []string
	for _, v := range ce.Values {
		got = append(got, v.Value+"="+string(v.Figure))
	}
	if want := "gross_income=1150.5 earned_deduction=200 standard_deduction=204 net_income=746.5 limit=1300"; strings.Join(got, " ") != want {
		t.Errorf("values %s, want %s", strings.Join(got, " "), want)
	}
	net := ce.Values[3]
	if net.Title != "Net monthly income" || net.Unit != "USD" || net.Definition != "max(gross_income - earned_deduction - standard_deduction, 0)" ||
		len(net.SourceReferences) != 1 || net.SourceReferences[0].Quote.Exact != "net income" {
		t.Errorf("net income fact %+v", net)
	}
	js, err := json.Marshal(ce)
	if err != nil || !strings.Contains(string(js), `"values":[{"value":"gross_income","title":"Gross monthly income","figure":1150.5,"unit":"USD"`) {
		t.Errorf("wire form %s (%v)", js, err)
	}
	plain := compilePeriod(t, "effective 2025-10-01")
	in, _ = plain.Convert([]byte(`{"a.n": 13}`))
	js, _ = json.Marshal(plain.Evaluate(in, Options{DecisionDate: value.DateOrdinal(2026, 1, 5), Explanation: true}).Explanation)
	if strings.Contains(string(js), `"values"`) {
		t.Errorf("a ruleset without values explains with a values member: %s", js)
	}
}

// A test case asserts named values as well as the outcome; a failing value
// names the value and both figures, and a value the outcome did not need
// is computed for the check.
func TestValuesInCases(t *testing.T) {
	t.Parallel()
	r := compileValues(t)
	answers := json.RawMessage(`{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`)
	for _, tt := range []struct {
		name   string
		values string
		want   []string
	}{
		{"figures that match, spelt either way", `{"net_income": 746.50, "gross_income": 1150.5, "per_person": 373.25}`, nil},
		{"a figure that differs", `{"net_income": 746.49}`, []string{"value net_income: expected 746.49, got 746.5"}},
		{"unknown expected", `{"net_income": null}`, []string{"value net_income: expected null, got 746.5"}},
		{"a value the rules lack", `{"net_incom": 1}`, []string{"expectations name value net_incom, which the ruleset does not have"}},
		{"the wrong kind of figure", `{"net_income": true}`, []string{"value net_income: the expectation true is not a decimal"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var vals map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.values), &vals); err != nil {
				t.Fatal(err)
			}
			res := r.RunCase(Case{Name: tt.name, FieldValues: answers, ExpectedOutcome: "eligible", Expectations: &Expectations{Values: vals}})
			if strings.Join(res.Mismatches, "|") != strings.Join(tt.want, "|") || res.Pass != (len(tt.want) == 0) {
				t.Errorf("mismatches %q, want %q", res.Mismatches, tt.want)
			}
		})
	}
	// per_person is not needed when the household is elderly... it is
	// still computed for a case that asserts it.
	res := r.RunCase(Case{Name: "unneeded", FieldValues: json.RawMessage(`{"income.earned": 100, "income.unearned": 0, "household.size": 4, "household.elderly": true}`),
		ExpectedOutcome: "eligible", Expectations: &Expectations{Values: map[string]json.RawMessage{"per_person": json.RawMessage("0")}}})
	if !res.Pass {
		t.Errorf("an unneeded value: %v", res.Mismatches)
	}
}

// The trace lists every value the decision computed with its figure, so a
// rules author debugging a decision sees the arithmetic; a ruleset without
// values traces as before.
func TestValuesTrace(t *testing.T) {
	t.Parallel()
	r := compileValues(t)
	in, _ := r.Convert([]byte(`{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`))
	res := r.Evaluate(in, Options{DecisionDate: value.DateOrdinal(2026, 1, 5), Trace: true})
	var got []string
	for _, v := range res.Trace.Values {
		got = append(got, v.Value+"="+string(v.Figure))
	}
	if want := "gross_income=1150.5 earned_deduction=200 standard_deduction=204 net_income=746.5 per_person=373.25 limit=1300"; strings.Join(got, " ") != want {
		t.Errorf("trace values %s, want %s", strings.Join(got, " "), want)
	}
	plain := compilePeriod(t, "effective 2025-10-01")
	in, _ = plain.Convert([]byte(`{"a.n": 13}`))
	js, _ := json.Marshal(plain.Evaluate(in, Options{DecisionDate: value.DateOrdinal(2026, 1, 5), Trace: true}).Trace)
	if strings.Contains(string(js), `"values"`) {
		t.Errorf("a ruleset without values traces with a values member: %s", js)
	}
}
