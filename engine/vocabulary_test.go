package engine

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The vocabulary an editor completes from is the one the parser and the
// checker use: every table they read is in it, every function listed
// compiles as a call, and an unknown call's message lists them all.
func TestVocabulary(t *testing.T) {
	kw, fns := Keywords(), Functions()
	for _, table := range []map[string]bool{topLevel, fieldAttr} {
		for word := range table {
			if !slices.Contains(kw, word) {
				t.Errorf("keyword %q is missing from Keywords", word)
			}
		}
	}
	for word := range typeNames {
		if !slices.Contains(kw, word) {
			t.Errorf("type %q is missing from Keywords", word)
		}
	}
	for name := range callArity {
		if !slices.Contains(fns, name) {
			t.Errorf("function %q is missing from Functions", name)
		}
	}
	calls := map[string]string{"min": "min(a.n, 2) >= 1", "max": "max(a.n, 2) >= 1", "floor": "floor(a.n / 3) >= 1",
		"ceil": "ceil(a.n / 3, 0.5) >= 1", "round": "round(a.n * 0.2, 0.01) >= 1", "abs": "abs(a.n - 2) >= 1", "years_between": "years_between(a.d, a.d) >= 1",
		"months_between": "months_between(a.d, a.d) >= 1", "days_between": "days_between(a.d, a.d) >= 1", "add_days": "add_days(a.d, 1) > a.d",
		"add_months": "add_months(a.d, 1) > a.d", "add_years": "add_years(a.d, 1) > a.d", "decision_date": "decision_date() > a.d",
		"present": "present(a.n)", "absent": "absent(a.n)", "date": `date("2024-01-01") > a.d`}
	rules := func(expr string) []byte {
		return []byte("section s\nsource law \"Law\" url \"https://example.org/law\" licence \"CC0\"\nfield a.n int\nfield a.d date\n" +
			"group g all \"G\" {\n  criterion c \"C\" {\n    " + expr + "\n    cite law \"text\"\n  }\n}\noutcome g\n")
	}
	for _, name := range fns {
		expr, ok := calls[name]
		if !ok {
			t.Errorf("function %q has no call in this test", name)
			continue
		}
		if _, _, err := Compile("v.rules", rules(expr)); err != nil {
			t.Errorf("function %s does not compile as %s: %v", name, expr, err)
		}
	}
	_, _, err := Compile("v.rules", rules("nosuch(a.n) >= 1"))
	if err == nil || !strings.Contains(err.Error(), "the functions are min, max, floor, ceil, round, abs, years_between, months_between, days_between, add_days, add_months, add_years, decision_date, present, absent and date") {
		t.Errorf("an unknown function's message: %v", err)
	}
	kw[0], fns[0] = "changed", "changed"
	if Keywords()[0] == "changed" || Functions()[0] == "changed" {
		t.Error("the lists are shared with their callers")
	}
}

// TestDescribeFunction keeps the hover's words GRAMMAR.md's: every
// function has a FunctionDoc whose signature names it, and the table of
// calls has a row with that signature, type and meaning.
func TestDescribeFunction(t *testing.T) {
	doc, err := os.ReadFile("GRAMMAR.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // signature -> its row
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, " | ")
		for _, sig := range strings.Split(strings.TrimPrefix(cells[0], "| "), ", `") {
			rows[strings.Trim(sig, "`")] = line
		}
	}
	for _, name := range Functions() {
		d, ok := DescribeFunction(name)
		if !ok {
			t.Errorf("%s has no FunctionDoc", name)
			continue
		}
		if !strings.HasPrefix(d.Signature, name+"(") {
			t.Errorf("%s: signature %q does not call it", name, d.Signature)
		}
		row, ok := rows[d.Signature]
		if !ok {
			t.Errorf("%s: GRAMMAR.md's table of calls has no row for %q", name, d.Signature)
			continue
		}
		if want := " | " + d.Result + " | " + d.Meaning + " |"; !strings.HasSuffix(row, want) {
			t.Errorf("%s: GRAMMAR.md's row %q does not end %q", name, row, want)
		}
	}
	if _, ok := DescribeFunction("sqrt"); ok {
		t.Error("DescribeFunction describes sqrt, which the language lacks")
	}
}
