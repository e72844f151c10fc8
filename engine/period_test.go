package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// periodRules is a one-criterion ruleset with an effective header (%s).
const periodRules = `ruleset "demo/period"
section period
name "Period"
%s

source s "S" url "https://example.org/s" licence "public-domain"

field a.n int weight 1

group g all "G" {
  criterion k "K" {
    a.n >= 12
    cite s "quote"
  }
}
`

func compilePeriod(t *testing.T, header string) *Ruleset {
	t.Helper()
	r, _, err := Compile("period.rules", []byte(strings.Replace(periodRules, "%s", header, 1)))
	if err != nil {
		t.Fatalf("compile %q: %v", header, err)
	}
	return r
}

func date(t *testing.T, s string) int64 {
	t.Helper()
	d, ok := value.ParseDate(s)
	if !ok {
		t.Fatalf("bad date %s", s)
	}
	return d
}

func TestEffectivePeriodParsesAndPrints(t *testing.T) {
	t.Parallel()
	for _, header := range []string{"effective 2025-10-01 until 2026-09-30", "effective 2025-10-01", "# FY2026\neffective 2025-10-01 until 2026-09-30"} {
		src := strings.Replace(periodRules, "%s", header, 1)
		f, errs := syntax.Parse("p.rules", []byte(src))
		if len(errs) > 0 {
			t.Fatalf("%q: %v", header, errs)
		}
		if !strings.Contains(string(syntax.Print(f)), header+"\n") {
			t.Errorf("printed form lost %q:\n%s", header, syntax.Print(f))
		}
		checkRoundTrip(t, header, f)
	}
	// Out of place, the line still prints after the description.
	f, errs := syntax.Parse("p.rules", []byte("effective 2025-10-01\n"+strings.Replace(periodRules, "%s", "", 1)))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := string(syntax.Print(f)); !strings.Contains(got, "name \"Period\"\neffective 2025-10-01\n") {
		t.Errorf("effective not in canonical place:\n%s", got)
	}
}

func TestEffectivePeriodErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ header, want string }{
		{"effective 2025-02-30", "period.rules:4:11: effective 2025-02-30 is not a calendar date"},
		{"effective 2025-10-01 until 2025-09-30", "4:28: the period ends (2025-09-30) before it begins (2025-10-01)"},
		{"effective 2025 - 10-01", "expected the first day the ruleset holds"},
		{`effective "2025-10-01"`, "a date written YYYY-MM-DD"},
		{"effective 2025-10-01 until", "expected the last day the ruleset holds"},
		{"effective 2025-10-01\neffective 2026-10-01", "effective is declared twice"},
	}
	for _, tt := range tests {
		_, _, err := Compile("period.rules", []byte(strings.Replace(periodRules, "%s", tt.header, 1)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error containing %q", tt.header, err, tt.want)
		}
	}
}

func TestEffectivePeriodDecisions(t *testing.T) {
	t.Parallel()
	r := compilePeriod(t, "effective 2025-10-01 until 2026-09-30")
	open := compilePeriod(t, "effective 2025-10-01")
	in, err := r.Convert([]byte(`{"a.n": 12}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		r       *Ruleset
		on      string
		want    Outcome
		outside bool
	}{
		{r, "2025-09-30", Undetermined, true},
		{r, "2025-10-01", Eligible, false},
		{r, "2026-09-30", Eligible, false},
		{r, "2026-10-01", Undetermined, true},
		{open, "2025-09-30", Undetermined, true},
		{open, "9999-12-31", Eligible, false},
	}
	for _, tt := range tests {
		res := tt.r.Evaluate(in, Options{DecisionDate: date(t, tt.on), Trace: true, Explanation: true})
		if res.Outcome != tt.want || res.OutsidePeriod != tt.outside {
			t.Errorf("%s on %s: got %s (outside %v), want %s (outside %v)", tt.r.Effective, tt.on, res.Outcome, res.OutsidePeriod, tt.want, tt.outside)
		}
		// The criteria still say what the period's law would.
		if res.Criteria[0] != Satisfied || res.DecisionDate != date(t, tt.on) {
			t.Errorf("%s: criterion %s, decision date %d", tt.on, res.Criteria[0], res.DecisionDate)
		}
		if res.Explanation.Decision != tt.want {
			t.Errorf("%s: explanation decision %s, want %s", tt.on, res.Explanation.Decision, tt.want)
		}
	}
	msg := r.PeriodWarning(date(t, "2026-11-23"))
	for _, part := range []string{"2026-11-23", "2025-10-01 until 2026-09-30"} {
		if !strings.Contains(msg, part) {
			t.Errorf("warning %q does not name %s", msg, part)
		}
	}
	if !r.DependsOnDate() || compilePeriod(t, "").DependsOnDate() {
		t.Error("DependsOnDate: a period makes decisions depend on the date, and only then (here)")
	}
}

func TestEffectivePeriodCaseDate(t *testing.T) {
	t.Parallel()
	r := compilePeriod(t, "effective 2025-10-01 until 2026-09-30")
	// A case without a date is decided on the period's first day.
	if res := r.RunCase(Case{Name: "in", FieldValues: json.RawMessage(`{"a.n": 12}`), ExpectedOutcome: "eligible"}); !res.Pass {
		t.Errorf("undated case: %v", res.Mismatches)
	}
	if res := r.RunCase(Case{Name: "after", FieldValues: json.RawMessage(`{"a.n": 12}`), ExpectedOutcome: "undetermined", DecisionDate: "2026-10-01"}); !res.Pass {
		t.Errorf("dated case: %v", res.Mismatches)
	}
	if d, err := compilePeriod(t, "").CaseDate(Case{}); d != 0 || err != nil {
		t.Errorf("no period, no date: %d %v", d, err)
	}
}

func TestEffectivePeriodIR(t *testing.T) {
	t.Parallel()
	none := compilePeriod(t, "")
	r := compilePeriod(t, "effective 2025-10-01 until 2026-09-30")
	open := compilePeriod(t, "effective 2025-10-01")
	if r.ContentDigest() == none.ContentDigest() || r.ContentDigest() == open.ContentDigest() {
		t.Error("the period is content: it must change the digest")
	}
	for _, x := range []*Ruleset{none, r, open} {
		js, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if x == none && strings.Contains(string(js), "effective") {
			t.Errorf("a ruleset without a period writes no effective member: %s", js)
		}
		got, err := LoadIR(IRVersion, js)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		if got.ContentDigest() != x.ContentDigest() || (x.Effective == nil) != (got.Effective == nil) ||
			x.Effective != nil && *x.Effective != *got.Effective {
			t.Errorf("load lost the period: %v vs %v", x.Effective, got.Effective)
		}
	}
	js, _ := json.Marshal(r)
	if !strings.Contains(string(js), `"effective":{"from":"2025-10-01","until":"2026-09-30"}`) {
		t.Errorf("IR shape: %s", js)
	}
	for _, bad := range []string{
		`"effective":{"from":"2025-10-01","until":"2024-09-30"}`,
		`"effective":{"from":"2025-13-01"}`,
		`"effective":{"until":"2025-10-01"}`,
		`"effective":{"from":"2025-10-01","to":"2026-01-01"}`,
	} {
		doc := strings.Replace(string(js), `"effective":{"from":"2025-10-01","until":"2026-09-30"}`, bad, 1)
		if _, err := LoadIR(IRVersion, []byte(doc)); err == nil || !strings.Contains(err.Error(), "effective") {
			t.Errorf("%s: got %v, want an error naming effective", bad, err)
		}
	}
}
