package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// The vocabulary an editor completes from is the one the checker uses:
// every type and function it reads is in it, every function listed compiles
// as a call, and an unknown call's message lists them all.
func TestVocabularyChecker(t *testing.T) {
	kw, fns := syntax.Keywords(), syntax.Functions()
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
		"present": "present(a.n)", "absent": "absent(a.n)", "date": `date("2024-01-01") > a.d`,
		"count": "count(m where m.n > 1) >= 1", "sum": "sum(m.n) >= a.n", "any": "any(m where m.n > a.n)", "all": "all(m where m.n > 0)"}
	rules := func(expr string) []byte {
		return []byte("section s\nsource law \"Law\" url \"https://example.org/law\" licence \"CC0\"\nfield a.n int\nfield a.d date\n" +
			"list m \"Members\" up to 3\n  question \"How many?\"\nfield m.n int\n" +
			"group g all \"G\" {\n  criterion c \"C\" {\n    " + expr + "\n    cite law \"text\"\n  }\n}\noutcome g\n")
	}
	// min and max are also aggregates over a list's members.
	for _, expr := range []string{"min(m.n where m.n > 1 else 0) >= 1", "max(m.n else 0) >= a.n"} {
		if _, _, err := Compile("v.rules", rules(expr)); err != nil {
			t.Errorf("%s does not compile: %v", expr, err)
		}
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
	if err == nil || !strings.Contains(err.Error(), "the functions are min, max, floor, ceil, round, abs, years_between, months_between, days_between, add_days, add_months, add_years, decision_date, present, absent, date, count, sum, any and all") {
		t.Errorf("an unknown function's message: %v", err)
	}
}
