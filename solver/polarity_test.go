package solver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/solvertest"
)

// polarityRules wraps criteria (already indented group bodies) and an
// outcome into a small ruleset with fields a.x (int), a.y (int), a.b (bool)
// and a.d (date).
func polarityRules(groups, outcome string) string {
	return `section p
source law "Law" url "https://example.org" licence "public-domain"
field a.x int
field a.y int
field a.b bool
field a.d date
` + groups + "\noutcome " + outcome + "\n"
}

// TestPresencePolarityCases decides the gate on small rulesets whose
// answer is worked out by hand: which (field, criterion) pairs are
// findings, "" standing for the outcome.
func TestPresencePolarityCases(t *testing.T) {
	tests := []struct {
		name    string
		groups  string
		outcome string
		want    []string // "field/criterion"
	}{
		{"default zero under a ceiling", solvertest.Group("g", "all", "a.x ?? 0 <= 100"), "g",
			[]string{"a.x/g_c", "a.x/"}},
		{"absent or under the ceiling", solvertest.Group("g", "all", "absent(a.x) or a.x <= 100"), "g",
			[]string{"a.x/g_c", "a.x/"}},
		{"required with present", solvertest.Group("g", "all", "present(a.x) and a.x <= 100"), "g", nil},
		{"least favourable default", solvertest.Group("g", "all", "a.x ?? 1000 <= 100"), "g", nil},
		{"default false for an exemption", solvertest.Group("g", "any", "a.b ?? false"), "g", nil},
		{"default true for a condition", solvertest.Group("g", "any", "a.b ?? true"), "g",
			[]string{"a.b/g_c", "a.b/"}},
		{"exclusion under not, default clean", solvertest.Group("g", "all", "a.x ?? 0 > 100"), "not g",
			[]string{"a.x/"}},
		{"exclusion under not, required", solvertest.Group("g", "all", "present(a.x) and a.x > 100"), "not g",
			[]string{"a.x/"}},
		{"default only matters with another answer", solvertest.Group("g", "all", "a.y > 5 and (a.x ?? 0) + a.y <= 100"), "g",
			[]string{"a.x/g_c", "a.x/"}},
		{"default never reachable", solvertest.Group("g", "all", "a.y > 5 and a.y < 3 and a.x ?? 0 <= 100"), "g", nil},
		{"date default", solvertest.Group("g", "all", "a.d ?? date(\"2000-01-01\") < date(\"2010-01-01\")"), "g",
			[]string{"a.d/g_c", "a.d/"}},
		{"plain reads are monotone", solvertest.Group("g", "all", "a.x <= 100 or a.y > 3"), "g", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := solvertest.Compile(t, polarityRules(tc.groups, tc.outcome))
			got, err := CheckPresencePolarity(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, f := range got {
				keys = append(keys, f.Field+"/"+f.Criterion)
				checkWitness(t, r, f)
			}
			if !slices.Equal(keys, tc.want) {
				t.Errorf("findings %v, want %v", keys, tc.want)
			}
		})
	}
}

// checkWitness replays a finding's witness through the engine's own JSON
// conversion, the way a publisher would, and checks that it shows what the
// finding claims.
func checkWitness(t *testing.T, r *engine.Ruleset, f PolarityFinding) {
	t.Helper()
	w := f.Witness
	values := map[string]json.RawMessage{}
	for _, a := range w.OtherAnswers {
		values[a.Field] = a.Value
	}
	var date int64
	if w.DecisionDate != "" {
		date, _ = value.ParseDate(w.DecisionDate)
	}
	run := func() *engine.Result {
		raw, err := json.Marshal(values)
		if err != nil {
			t.Fatal(err)
		}
		in, err := r.Convert(raw)
		if err != nil || len(in.FieldErrors) > 0 {
			t.Fatalf("witness %s does not convert: %v %v", raw, err, in.FieldErrors)
		}
		return r.Evaluate(in, engine.Options{DecisionDate: date})
	}
	without := run()
	values[w.Field] = w.Value
	with := run()
	if f.Criterion == "" {
		if without.Outcome.String() != w.Unanswered || with.Outcome.String() != w.Answered || w.Answered != "not_eligible" {
			t.Errorf("%s: outcome without %s, with %s; witness says %s / %s", f.Field, without.Outcome, with.Outcome, w.Unanswered, w.Answered)
		}
	} else {
		i := solvertest.CriterionIndex(r, f.Criterion)
		if without.Criteria[i].String() != w.Unanswered || with.Criteria[i].String() != w.Answered || w.Answered != "not_satisfied" {
			t.Errorf("%s/%s: criterion without %s, with %s; witness says %s / %s", f.Field, f.Criterion, without.Criteria[i], with.Criteria[i], w.Unanswered, w.Answered)
		}
	}
	if !strings.Contains(f.Message, f.Field) || !strings.Contains(f.Message, string(w.Value)) {
		t.Errorf("message does not name the field and value: %s", f.Message)
	}
}

// TestPresencePolarityCasebank runs the gate over the whole casebank: the
// seeded non-conservative ruleset is caught on its income criterion and on
// the outcome, with a witness one answer above the limit at most a step
// away; every other ruleset passes.
func TestPresencePolarityCasebank(t *testing.T) {
	for _, cb := range append(solvertest.Casebank(t), solvertest.Testdata(t)...) {
		t.Run(cb.Name, func(t *testing.T) {
			got, err := CheckPresencePolarity(context.Background(), cb.Rules)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range got {
				checkWitness(t, cb.Rules, f)
			}
			switch cb.Name {
			case "testdata/operators.rules":
				// Defaults of every sort, some favourable on purpose: the
				// witnesses (checked above) matter, not their number.
				if len(got) == 0 {
					t.Error("no findings on the operator ruleset's favourable defaults")
				}
				for _, f := range got {
					t.Logf("%s/%s: %s", f.Field, f.Criterion, f.Witness.Value)
				}
				return
			case "polarity-nonconservative":
			default:
				if strings.HasPrefix(cb.Name, "testdata/") {
					return // other test rulesets: the witnesses are what is checked
				}
				if len(got) > 0 {
					t.Errorf("unexpected findings: %+v", got)
				}
				return
			}
			if len(got) != 2 || got[0].Field != "household.income" || got[0].Criterion != "net_income" || got[1].Criterion != "" {
				t.Fatalf("findings %+v, want household.income on net_income and on the outcome", got)
			}
			for _, f := range got {
				v, err := value.ParseNumber(string(f.Witness.Value))
				if err != nil {
					t.Fatal(err)
				}
				if ValueRat(v).Cmp(ValueRat(value.IntValue(1305))) <= 0 {
					t.Errorf("witness value %s is not above the limit", f.Witness.Value)
				}
			}
			if o := got[1].Witness.OtherAnswers; len(o) != 1 || o[0].Field != "household.size" || string(o[0].Value) != "1" {
				t.Errorf("outcome witness needs exactly household.size = 1, got %+v", o)
			}
			t.Logf("message: %s", got[0].Message)
		})
	}
}

// TestPresencePolarityCancelled checks that the gate honours its context:
// a cancelled one is an error, never an empty (passing) result.
func TestPresencePolarityCancelled(t *testing.T) {
	r := solvertest.Compile(t, polarityRules(solvertest.Group("g", "all", "a.x ?? 0 <= 100"), "g"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := CheckPresencePolarity(ctx, r)
	if !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("cancelled gate: %v %v", got, err)
	}
}

// A ruleset with an effective period is judged only on dates within it:
// the witness's decision date falls in the period, as every real decision
// does (a date outside makes every outcome undetermined).
func TestPresencePolarityWitnessWithinTheEffectivePeriod(t *testing.T) {
	src := strings.Replace(polarityRules(solvertest.Group("g", "all", "a.x ?? 0 <= 100 and a.d ?? decision_date() <= decision_date()"), "g"),
		"field a.x int", "effective 2024-01-01 until 2024-12-31\nfield a.x int", 1)
	r := solvertest.Compile(t, src)
	got, err := CheckPresencePolarity(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no finding: the default zero under a ceiling should be one")
	}
	from, _ := value.ParseDate("2024-01-01")
	until, _ := value.ParseDate("2024-12-31")
	for _, f := range got {
		checkWitness(t, r, f)
		d, ok := value.ParseDate(f.Witness.DecisionDate)
		if !ok || d < from || d > until {
			t.Errorf("%s/%s: the witness is decided on %q, outside the effective period", f.Field, f.Criterion, f.Witness.DecisionDate)
		}
	}
}
