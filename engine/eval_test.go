package engine

import (
	"fmt"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/value"
)

// statusOf compiles expr as the only criterion and evaluates it on values
// (field_values JSON) with decision date 2024-06-15.
func evalExpr(t *testing.T, expr, values string) Status {
	t.Helper()
	r, _, err := Compile("ops.rules", fmt.Appendf(nil, testfiles.OpsRules, expr))
	if err != nil {
		t.Fatalf("compile %q: %v", expr, err)
	}
	in, err := r.Convert([]byte(values))
	if err != nil {
		t.Fatalf("convert %s: %v", values, err)
	}
	if len(in.FieldErrors) > 0 {
		t.Fatalf("convert %s: field errors %v", values, in.FieldErrors)
	}
	d, _ := value.ParseDate("2024-06-15")
	return r.Evaluate(in, Options{DecisionDate: d}).Criteria[0]
}

const (
	T = Satisfied
	F = NotSatisfied
	U = Pending
)

func TestOperators(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr, values string
		want         Status
	}{
		// Comparisons, int and decimal mixed, exact.
		{"a.n >= 12", `{"a.n": 12}`, T},
		{"a.n >= 12", `{"a.n": 11}`, F},
		{"a.n > 12", `{"a.n": 12}`, F},
		{"a.n < 12", `{"a.n": 11}`, T},
		{"a.n <= 12", `{"a.n": 13}`, F},
		{"a.n == 12", `{"a.n": 1.2e1}`, T},
		{"a.n != 12", `{"a.n": 12}`, F},
		{"a.d >= 1250", `{"a.d": 1249.99}`, F},
		{"a.d >= 1250", `{"a.d": 1250.00}`, T},
		{"a.d == 0.3", `{"a.d": 0.30}`, T},
		{"a.d + 0.2 == 0.3", `{"a.d": 0.1}`, T},
		{"a.d > 1249.5", `{"a.d": 1249.51}`, T},
		{"a.n >= 12", `{}`, U},
		// Arithmetic.
		{"a.n + a.m == 10", `{"a.n": 3, "a.m": 7}`, T},
		{"a.n - a.m == -4", `{"a.n": 3, "a.m": 7}`, T},
		{"a.n * 2 == 14", `{"a.n": 7}`, T},
		{"0.5 * a.d == 0.75", `{"a.d": 1.5}`, T},
		{"-a.n == -3", `{"a.n": 3}`, T},
		{"a.n - -3 == 6", `{"a.n": 3}`, T},
		{"a.n + a.m > 0", `{"a.n": 3}`, U},
		{"a.n * 1000000000000 > 0", `{"a.n": 1000000}`, T},
		{"a.n * 1000000000000 > 0", `{"a.n": 100000000000}`, U}, // overflow
		// min and max.
		{"min(a.n, a.m, 5) == 2", `{"a.n": 2, "a.m": 9}`, T},
		{"max(a.n, a.m, 5) == 9", `{"a.n": 2, "a.m": 9}`, T},
		{"max(a.n, a.d) == 2.5", `{"a.n": 2, "a.d": 2.5}`, T},
		{"min(a.n, a.m) == 2", `{"a.n": 2}`, U},
		// Kleene and.
		{"a.b and a.c", `{"a.b": true, "a.c": true}`, T},
		{"a.b and a.c", `{"a.b": true, "a.c": false}`, F},
		{"a.b and a.c", `{"a.b": false, "a.c": true}`, F},
		{"a.b and a.c", `{"a.b": false}`, F},
		{"a.b and a.c", `{"a.c": false}`, F},
		{"a.b and a.c", `{"a.b": true}`, U},
		{"a.b and a.c", `{}`, U},
		// Kleene or.
		{"a.b or a.c", `{"a.b": false, "a.c": false}`, F},
		{"a.b or a.c", `{"a.b": true}`, T},
		{"a.b or a.c", `{"a.c": true}`, T},
		{"a.b or a.c", `{"a.b": false}`, U},
		{"a.b or a.c", `{}`, U},
		// Kleene not.
		{"not a.b", `{"a.b": true}`, F},
		{"not a.b", `{"a.b": false}`, T},
		{"not a.b", `{}`, U},
		// Short-circuit: the unknown (and the overflowing) side never decides.
		{"a.b and a.n * 1000000000000 > 0", `{"a.b": false, "a.n": 100000000000}`, F},
		{"a.b or a.n > 1", `{"a.b": true}`, T},
		// Precedence: not binds looser than comparison, and tighter than and.
		{"not a.n > 5 and a.b", `{"a.n": 3, "a.b": true}`, T},
		{"a.b or a.c and false", `{"a.b": true, "a.c": true}`, T},
		// Bools compared.
		{"a.b == true", `{"a.b": true}`, T},
		{"a.b != a.c", `{"a.b": true, "a.c": false}`, T},
		// Enums and in.
		{`a.e == "red"`, `{"a.e": "red"}`, T},
		{`a.e != "red"`, `{"a.e": "blue"}`, T},
		{`a.e in ["green", "blue"]`, `{"a.e": "green"}`, T},
		{`a.e in ["green", "blue"]`, `{"a.e": "red"}`, F},
		{`a.e not in ["green", "blue"]`, `{"a.e": "red"}`, T},
		{`a.e in ["green"]`, `{}`, U},
		{`a.n in [1, 2, 3]`, `{"a.n": 2}`, T},
		{`a.d in [1.5, -2]`, `{"a.d": -2.0}`, T},
		// Presence operators are never unknown.
		{"present(a.n)", `{"a.n": 0}`, T},
		{"present(a.n)", `{}`, F},
		{"present(a.n)", `{"a.n": null}`, F},
		{"absent(a.n)", `{}`, T},
		{"absent(a.n)", `{"a.n": 4}`, F},
		{"absent(a.b) or a.b", `{}`, T},
		// ?? gives the default only when unanswered.
		{"a.n ?? 0 >= 1", `{}`, F},
		{"a.n ?? 0 >= 1", `{"a.n": 5}`, T},
		{"a.b ?? false", `{}`, F},
		{`a.e ?? "red" == "red"`, `{}`, T},
		{"a.n ?? a.m > 1", `{}`, U},
		{"a.n ?? 2 * 3 == 6", `{}`, T},
		// Dates.
		{`a.born < date("2000-01-01")`, `{"a.born": "1999-12-31"}`, T},
		{`a.born == date("2024-02-29")`, `{"a.born": 738945}`, T},
		{"a.born < a.on", `{"a.born": "2020-01-01", "a.on": "2020-01-02"}`, T},
		// years_between: completed whole years, 29 February birthdays.
		{"years_between(a.born, a.on) == 18", `{"a.born": "2006-06-15", "a.on": "2024-06-15"}`, T},
		{"years_between(a.born, a.on) == 17", `{"a.born": "2006-06-16", "a.on": "2024-06-15"}`, T},
		{"years_between(a.born, a.on) == 0", `{"a.born": "2004-02-29", "a.on": "2005-02-28"}`, T},
		{"years_between(a.born, a.on) == 1", `{"a.born": "2004-02-29", "a.on": "2005-03-01"}`, T},
		{"years_between(a.born, a.on) == 4", `{"a.born": "2004-02-29", "a.on": "2008-02-29"}`, T},
		{"years_between(a.born, a.on) == 3", `{"a.born": "2004-02-29", "a.on": "2008-02-28"}`, T},
		{"years_between(a.born, a.on) == 1", `{"a.born": "2003-03-01", "a.on": "2004-02-29"}`, F},
		{"years_between(a.born, a.on) == -1", `{"a.born": "2005-01-01", "a.on": "2004-01-01"}`, T},
		{"years_between(a.born, a.on) >= 0", `{"a.born": "2005-01-01"}`, U},
		// months_between.
		{"months_between(a.born, a.on) == 0", `{"a.born": "2023-01-31", "a.on": "2023-02-28"}`, T},
		{"months_between(a.born, a.on) == 1", `{"a.born": "2023-01-31", "a.on": "2023-03-01"}`, T},
		{"months_between(a.born, a.on) == 12", `{"a.born": "2023-05-10", "a.on": "2024-05-10"}`, T},
		// days_between.
		{"days_between(a.born, a.on) == 366", `{"a.born": "2024-01-01", "a.on": "2025-01-01"}`, T},
		{"days_between(a.born, a.on) == -1", `{"a.born": "2024-03-01", "a.on": "2024-02-29"}`, T},
		{`days_between(date("1900-02-28"), date("1900-03-01")) == 1`, `{}`, T},
		// decision_date() (2024-06-15 in these tests).
		{`decision_date() == date("2024-06-15")`, `{}`, T},
		{"years_between(a.born, decision_date()) >= 18", `{"a.born": "2006-06-15"}`, T},
		{"years_between(a.born, decision_date()) >= 18", `{"a.born": "2006-06-16"}`, F},
	}
	for _, tt := range tests {
		t.Run(tt.expr+" "+tt.values, func(t *testing.T) {
			t.Parallel()
			if got := evalExpr(t, tt.expr, tt.values); got != tt.want {
				t.Errorf("%s with %s = %s, want %s", tt.expr, tt.values, got, tt.want)
			}
		})
	}
}

const groupsRules = `section groups
source s "S" url "https://example.org/s" licence "public-domain"
field a.x bool
field a.y bool
field a.z bool
group all_of all "All" {
  criterion x "X" {
    a.x
    cite s "q"
  }
  criterion y "Y" {
    a.y
    cite s "q"
  }
}
group any_of any "Any" {
  criterion z "Z" {
    a.z
    cite s "q"
  }
  criterion ask "Officer decides" discretionary {
    cite s "may"
  }
}
outcome all_of and any_of
`

func TestGroupsAndOutcome(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("groups.rules", []byte(groupsRules))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		values       string
		allOf, anyOf Status
		outcome      Outcome
		missing      []string
	}{
		{`{"a.x": true, "a.y": true, "a.z": true}`, T, T, Eligible, nil},
		{`{"a.x": false, "a.z": true}`, F, T, NotEligible, []string{"a.y"}},
		{`{"a.x": true, "a.z": true}`, U, T, Undetermined, []string{"a.y"}},
		{`{"a.x": true, "a.y": true, "a.z": false}`, T, U, Undetermined, nil}, // the discretionary alternative stays open
		{`{"a.x": false}`, F, U, NotEligible, []string{"a.y", "a.z"}},         // short-circuit over groups
		{`{"a.x": true, "a.y": true, "a.z": true, "a.q": 1}`, T, T, Undetermined, nil},
		{`{"a.x": true, "a.y": "yes", "a.z": true}`, U, T, Undetermined, []string{"a.y"}},
	}
	for _, tt := range tests {
		in, err := r.Convert([]byte(tt.values))
		if err != nil {
			t.Fatal(err)
		}
		res := r.Evaluate(in, Options{})
		if res.Groups[0] != tt.allOf || res.Groups[1] != tt.anyOf || res.Outcome != tt.outcome {
			t.Errorf("%s: groups %s %s outcome %s, want %s %s %s", tt.values, res.Groups[0], res.Groups[1], res.Outcome, tt.allOf, tt.anyOf, tt.outcome)
		}
		if res.Criteria[3] != Pending {
			t.Errorf("%s: discretionary criterion is %s, want pending", tt.values, res.Criteria[3])
		}
		if fmt.Sprint(res.MissingFields) != fmt.Sprint(tt.missing) && !(len(res.MissingFields) == 0 && len(tt.missing) == 0) {
			t.Errorf("%s: missing %v, want %v", tt.values, res.MissingFields, tt.missing)
		}
	}
}

func TestEvaluateForeignInputs(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("groups.rules", []byte(groupsRules))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []*Inputs{nil, {Values: make([]value.Value, 1)}} {
		res := r.Evaluate(in, Options{Trace: true, Explanation: true})
		if res.Outcome != Undetermined || len(res.FieldErrors) != 1 {
			t.Errorf("inputs %+v: outcome %s, errors %v", in, res.Outcome, res.FieldErrors)
		}
	}
}

// TestParseOutcome checks ParseOutcome against String: every outcome reads
// back from its own spelling, and other spellings (a status, another case,
// nothing) are refused.
func TestParseOutcome(t *testing.T) {
	for _, o := range []Outcome{Undetermined, Eligible, NotEligible} {
		if got, ok := ParseOutcome(o.String()); !ok || got != o {
			t.Errorf("ParseOutcome(%q) = %v, %v", o.String(), got, ok)
		}
	}
	for _, s := range []string{"", "Eligible", "not eligible", "pending", "satisfied", "eligible "} {
		if got, ok := ParseOutcome(s); ok {
			t.Errorf("ParseOutcome(%q) = %v, accepted", s, got)
		}
	}
}
