package engine

import (
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/syntax"
)

func TestAddDaysMonthsYears(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr, values string
		want         Status
	}{
		// Month ends clamp; 29 February lands on 28 February.
		{`add_months(date("2024-01-31"), 1) == date("2024-02-29")`, `{}`, T},
		{`add_months(date("2023-01-31"), 1) == date("2023-02-28")`, `{}`, T},
		{`add_months(date("2024-03-31"), -1) == date("2024-02-29")`, `{}`, T},
		{`add_years(date("2024-02-29"), 1) == date("2025-02-28")`, `{}`, T},
		{`add_years(date("2024-02-29"), 4) == date("2028-02-29")`, `{}`, T},
		{`add_years(date("2024-02-29"), -1) == date("2023-02-28")`, `{}`, T},
		{`add_months(date("2024-11-30"), 3) == date("2025-02-28")`, `{}`, T},
		{`add_months(date("2024-05-15"), -17) == date("2022-12-15")`, `{}`, T},
		{`add_days(date("2024-03-01"), -1) == date("2024-02-29")`, `{}`, T},
		{`add_days(date("2023-12-31"), 1) == date("2024-01-01")`, `{}`, T},
		// Counts from answers, negative included; unknown stays unknown.
		{`add_days(a.born, a.n) == date("2024-01-11")`, `{"a.born": "2024-01-01", "a.n": 10}`, T},
		{`add_months(a.born, a.n) == date("2023-11-30")`, `{"a.born": "2024-01-31", "a.n": -2}`, T},
		{`add_years(a.born, a.n) > date("2024-01-01")`, `{"a.born": "2024-01-31"}`, U},
		// Attaining an age on the day before the birthday (SSR 63-15): born
		// on 1 July 1958, 66 is attained on 30 June 2024.
		{`years_between(add_days(a.born, -1), decision_date()) >= 66`, `{"a.born": "1958-06-15"}`, T},
		{`years_between(add_days(a.born, -1), decision_date()) >= 66`, `{"a.born": "1958-06-16"}`, T},
		{`years_between(add_days(a.born, -1), decision_date()) >= 66`, `{"a.born": "1958-06-17"}`, F},
		{`years_between(a.born, decision_date()) >= 66`, `{"a.born": "1958-06-16"}`, F},
	}
	for _, tt := range tests {
		if got := evalExpr(t, tt.expr, tt.values); got != tt.want {
			t.Errorf("%s on %s: got %s, want %s", tt.expr, tt.values, got, tt.want)
		}
	}
}

func TestAddDatesOutOfRange(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("ops.rules", []byte(strings.Replace(testfiles.OpsRules, "%s", `add_years(a.born, a.n) > date("2024-01-01")`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	in, err := r.Convert([]byte(`{"a.born": "9000-01-01", "a.n": 2000}`))
	if err != nil {
		t.Fatal(err)
	}
	res := r.Evaluate(in, Options{DecisionDate: 1})
	if res.Outcome != Undetermined || len(res.FieldErrors) != 1 {
		t.Errorf("a date past 9999-12-31: got %s with %v, want undetermined with one field error", res.Outcome, res.FieldErrors)
	}
}

func TestAddDatesCheckAndPrint(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		`add_days(a.n, 1) > a.born`:        "add_days adds to a date, but this is an int",
		`add_months(a.born, 1.5) > a.born`: "add_months adds a whole number, but this is a decimal",
		`add_years(a.born) > a.born`:       "add_years takes 2 argument(s), not 1",
		`add_days(a.born, a.d) > a.born`:   "add_days adds a whole number, but this is a decimal",
		`add_days(a.born, "x") > a.born`:   "can only be compared with an enum field",
		`add_weeks(a.born, 1) > a.born`:    "add_days, add_months, add_years",
	} {
		_, _, err := Compile("ops.rules", []byte(strings.Replace(testfiles.OpsRules, "%s", expr, 1)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", expr, err, want)
		}
	}
	src := strings.Replace(testfiles.OpsRules, "%s", `a.on >= add_months(add_years(a.born, 66), -a.n) and years_between(add_days(a.born, -1), decision_date()) >= 66`, 1)
	f, errs := syntax.Parse("ops.rules", []byte(src))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	checkRoundTrip(t, "shift", f)
	r, _, err := Compile("ops.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.CriterionAt(0)
	if !strings.Contains(c.Text, "add_months(add_years(a.born, 66), -a.n)") {
		t.Errorf("criterion text %q", c.Text)
	}
}
