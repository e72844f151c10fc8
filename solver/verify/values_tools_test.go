package verify

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/solvertest"
)

// TestToolsTakeComputingRules runs every verification tool over the
// rulesets that compute (named values, if, division, rounding, tables,
// households): none may fail on them. The analysis gets budgets far above
// the service's, so that a loaded machine does not leave a check
// undecided.
func TestToolsTakeComputingRules(t *testing.T) {
	for _, cb := range solvertest.ValuesTestdata(t) {
		ctx := context.Background()
		if _, err := Analyze(ctx, cb.Rules, AnalyzeOptions{Timeout: 5 * time.Minute, CheckTimeout: time.Minute}); err != nil {
			t.Errorf("%s: analyze: %v", cb.Name, err)
		}
		if _, err := SuggestCases(ctx, cb.Rules, nil, SuggestOptions{DecisionDate: "2025-06-01"}); err != nil {
			t.Errorf("%s: suggest: %v", cb.Name, err)
		}
		if _, err := MutationScore(ctx, cb.Rules, cb.Cases); err != nil {
			t.Errorf("%s: mutation: %v", cb.Name, err)
		}
		if _, err := Diff(ctx, cb.Rules, cb.Rules, DiffOptions{DecisionDate: value.DateOrdinal(2025, 6, 1)}); err != nil {
			t.Errorf("%s: diff: %v", cb.Name, err)
		}
	}
}

// TestMutantsOfValues: the mutation score edits named values and tables
// too (a figure a step off, a rounding the other way, an if's branches
// swapped), describes each in the rules language, and a case on the
// edited figure kills it.
func TestMutantsOfValues(t *testing.T) {
	src := `section net
source law "Act" url "https://example.org/act" licence "public-domain"
field income.earned decimal
  range 0..
field household.elderly bool
value deduction decimal "Earned income deduction" {
  round(income.earned * 0.2, 0.01)
  cite law "deduction"
}
value standard int "Standard deduction" {
  if household.elderly then 250 else 200
  cite law "standard"
}
group g all "Net" {
  criterion under "Net income at or below 1000" {
    income.earned - deduction - standard <= 1000
    cite law "net"
  }
}
`
	r, _, err := engine.Compile("net.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	// At the boundary for a household that is not elderly: 1500 - 300 -
	// 200 = 1000. It pins the rate from one side only, the rounding of an
	// exact figure not at all, and the elderly branch not at all.
	cases := []engine.Case{{Name: "at the limit", FieldValues: json.RawMessage(`{"income.earned": 1500, "household.elderly": false}`), ExpectedOutcome: "eligible"}}
	rep, err := MutationScore(context.Background(), r, cases)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	descriptions := map[string]string{}
	for _, m := range append(append([]Mutant{}, rep.Survivors...), rep.Equivalent...) {
		kinds[m.Kind] = true
		descriptions[m.ID] = m.Description
	}
	for _, id := range []string{"standard/swap_branches/1", "deduction/swap_rounding/1"} {
		if _, ok := descriptions[id]; !ok {
			t.Errorf("mutant %s does not survive the weak suite: %v", id, descriptions)
		}
	}
	if d := descriptions["standard/swap_branches/1"]; d != "if household.elderly then 250 else 200 becomes if household.elderly then 200 else 250 in standard" {
		t.Errorf("description %q", d)
	}
	if rep.Total <= len(rep.Survivors) {
		t.Errorf("the case at the limit killed nothing: %d of %d survive", len(rep.Survivors), rep.Total)
	}
	// A lower rate makes the case at the limit ineligible: killed. A
	// higher one keeps it eligible: the suite needs a case above the limit.
	var lower, higher bool
	for _, m := range rep.Survivors {
		lower = lower || strings.HasPrefix(m.Description, "income.earned * 0.2 becomes income.earned * 0.1") || m.Description == "0.2 becomes 0.1 in deduction"
		higher = higher || m.Description == "0.2 becomes 0.3 in deduction"
	}
	if lower || !higher {
		t.Errorf("the rate a step down survives: %t, a step up survives: %t (%v)", lower, higher, rep.Survivors)
	}
}

// TestDiffNamesChangedFigures: a yearly update of a table's rows and a
// value's rate shows row by row, with both figures, and the solver finds
// the applicant it affects.
func TestDiffNamesChangedFigures(t *testing.T) {
	old := `section limits
effective 2025-10-01
source law "Act" url "https://example.org/act" licence "public-domain"
field household.size int
  range 1..
field income.gross decimal
  range 0..
value rate decimal "Rate" {
  0.2
  cite law "rate"
}
table limit decimal "Limit" {
  keys household.size
  1..4 => 1000 + 300 * household.size
  5..  => 2200
  cite law "limit"
}
group g all "G" {
  criterion under "Under the limit" {
    income.gross * (1 - rate) <= limit
    cite law "under"
  }
}
`
	newer := strings.Replace(strings.Replace(old, "1..4 => 1000 + 300", "1..4 => 1050 + 300", 1), "  0.2\n", "  0.25\n", 1)
	o, _, err := engine.Compile("old.rules", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := engine.Compile("new.rules", []byte(newer))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Diff(context.Background(), o, n, DiffOptions{DecisionDate: value.DateOrdinal(2026, 1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range d.Figures {
		got = append(got, f.Message)
	}
	want := []string{"value rate: 0.2 became 0.25", "table limit, row 1..4: 1000 + 300 * household.size became 1050 + 300 * household.size"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("figure changes %q, want %q", got, want)
	}
	if d.Equivalent || len(d.Changes) == 0 {
		t.Errorf("the solver finds no applicant the new figures affect: %+v", d)
	}
}

// TestAnalyzeFollowsValues: a field that criteria read only through named
// values and table keys is read; the analysis says no field never matters
// for it (it did, for every such field, before values were followed).
// Every check must be decided, whatever the load (the race detector on a
// shared machine), so the budgets are raised far above the service's.
func TestAnalyzeFollowsValues(t *testing.T) {
	for _, cb := range solvertest.ValuesTestdata(t) {
		findings, err := Analyze(context.Background(), cb.Rules, AnalyzeOptions{Timeout: 5 * time.Minute, CheckTimeout: time.Minute})
		if err != nil {
			t.Fatalf("%s: %v", cb.Name, err)
		}
		for _, f := range findings {
			if f.Kind == FindingFieldNeverMatters && strings.HasPrefix(f.Message, "No criterion reads") {
				t.Errorf("%s: %s", cb.Name, f.Message)
			}
		}
	}
}
