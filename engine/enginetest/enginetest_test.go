package enginetest_test

import (
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
)

// every uses each field type, constants compared with numeric fields, date
// constants, and stand-alone counts of years and months, among them ones
// that take the decision date out of the calendar (20000, -20000) and
// date constants at its ends.
const every = `section every
source law "Law" url "https://example.org/law" licence "public-domain"
field p.children int
field p.hours int
field p.income decimal
field p.disabled bool
field p.status enum ["single", "married", "widowed"]
field p.born date
field p.moved date
group g all "G" {
  criterion money "Money" {
    p.income ?? 0 <= 1250.50 and p.children * 2 + p.hours >= 7 and p.hours < 2.5
    cite law "money"
  }
  criterion who "Who" {
    p.disabled ?? false or p.status in ["married", "widowed"]
    cite law "who"
  }
  criterion dates "Dates" {
    years_between(p.born, decision_date()) >= 67 and months_between(p.born, decision_date()) < 20000
      and months_between(p.moved, decision_date()) > -20000 and months_between(p.moved, decision_date()) > -5
      and p.moved > date("2024-02-29") and p.born > date("0001-01-01") and p.moved < date("9999-12-31")
    cite law "dates"
  }
}
`

func compile(t *testing.T, src string) *engine.Ruleset {
	t.Helper()
	r, _, err := engine.Compile("every.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAnswersAreInputs checks that the two forms agree: from the same seed,
// the wire answers convert (as a request's would) without a field error to
// exactly the Values Inputs draws. The rulebook's differential test relies
// on the first; the second means it samples what the solver's tests do.
func TestAnswersAreInputs(t *testing.T) {
	r := compile(t, every)
	for seed := range uint64(50) {
		wire, vals := enginetest.NewSampler(r, seed), enginetest.NewSampler(r, seed)
		for n := range 200 {
			decision := wire.DecisionDate()
			if d := vals.DecisionDate(); d != decision {
				t.Fatalf("seed %d: decision dates %d and %d", seed, decision, d)
			}
			answered := []float64{0, 0.5, 1}[n%3]
			answers := wire.Answers(answered, decision)
			want := vals.Inputs(answered, decision)
			got := r.ConvertMap(answers)
			if len(got.FieldErrors) > 0 {
				t.Fatalf("seed %d: answers %v: %v", seed, answers, got.FieldErrors)
			}
			if got.Provided != want.Provided || len(answers) != want.Provided {
				t.Fatalf("seed %d: %d answers, %d converted, Inputs provided %d", seed, len(answers), got.Provided, want.Provided)
			}
			for i, v := range want.Values {
				if r.Fields[i].Type.Numeric() && v.Known {
					// Conversion drops trailing zeros: 1.50 is 1.5.
					v = number(t, v.NumberString())
				}
				if got.Values[i] != v {
					t.Fatalf("seed %d: %s is %v on the wire (%v), %v from Inputs", seed, r.Fields[i].ID, got.Values[i], answers[r.Fields[i].ID], v)
				}
			}
		}
	}
}

// TestInputsAnswered checks the answered probability: none at 0, all at 1.
func TestInputsAnswered(t *testing.T) {
	r := compile(t, every)
	s := enginetest.NewSampler(r, 1)
	if in := s.Inputs(0, s.DecisionDate()); in.Provided != 0 {
		t.Errorf("answered 0: %d provided", in.Provided)
	}
	in := s.Inputs(1, s.DecisionDate())
	if in.Provided != len(r.Fields) {
		t.Errorf("answered 1: %d of %d provided", in.Provided, len(r.Fields))
	}
	for i, v := range in.Values {
		if !v.Known {
			t.Errorf("answered 1: %s unknown", r.Fields[i].ID)
		}
	}
}

// TestSeeded checks that a seed reproduces its draws and another seed
// draws others, so a failure's seed names it.
func TestSeeded(t *testing.T) {
	r := compile(t, every)
	draw := func(seed uint64) []value.Value {
		s := enginetest.NewSampler(r, seed)
		var out []value.Value
		for range 20 {
			out = append(out, s.Inputs(1, s.DecisionDate()).Values...)
		}
		return out
	}
	a, b, c := draw(7), draw(7), draw(8)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 7 drew %v, then %v", a[i], b[i])
		}
		same = same && a[i] == c[i]
	}
	if same {
		t.Error("seeds 7 and 8 drew the same")
	}
}

// TestBoundaries checks the bias: each boundary of the ruleset every comes
// up, and a unit either side of it, at a rate no uniform draw would reach.
func TestBoundaries(t *testing.T) {
	r := compile(t, every)
	slot := func(id string) int { return r.FieldIndex(id) }
	num := func(s string) value.Value { return number(t, s) }
	type want struct {
		field string
		value value.Value
	}
	seen := map[want]int{}
	decision := value.DateOrdinal(2026, 10, 15)
	s := enginetest.NewSampler(r, 3)
	const draws = 20000
	for range draws {
		for _, id := range []string{"p.children", "p.hours", "p.income"} {
			v := s.Value(slot(id), decision)
			if r.Fields[slot(id)].Type == engine.SortInt && v.Scale != 0 {
				t.Fatalf("%s drew %s, not a whole number", id, v.NumberString())
			}
			seen[want{id, num(v.NumberString())}]++ // whatever its scale
		}
		for _, id := range []string{"p.born", "p.moved"} {
			seen[want{id, s.Value(slot(id), decision)}]++
		}
	}
	date := func(y, m, d int) value.Value { return value.Value{Num: value.DateOrdinal(y, m, d), Known: true} }
	for _, w := range []want{
		// 1250.50 at scale 2 and at scale 1 (1250.5 ± 0.1).
		{"p.income", num("1250.49")}, {"p.income", num("1250.5")}, {"p.income", num("1250.51")},
		{"p.income", num("1250.4")}, {"p.income", num("1250.6")},
		// The default 0.
		{"p.income", num("-1")}, {"p.income", num("0")}, {"p.income", num("1")},
		// An int field compared with 2.5: the whole numbers either side.
		{"p.hours", num("1")}, {"p.hours", num("2")}, {"p.hours", num("3")},
		// 67 years before the decision date, a day either side.
		{"p.born", date(1959, 10, 14)}, {"p.born", date(1959, 10, 15)}, {"p.born", date(1959, 10, 16)},
		// 5 months after it (less -5 months), into the next year.
		{"p.moved", date(2027, 3, 14)}, {"p.moved", date(2027, 3, 15)}, {"p.moved", date(2027, 3, 16)},
		// The date constant.
		{"p.moved", date(2024, 2, 28)}, {"p.moved", date(2024, 2, 29)}, {"p.moved", date(2024, 3, 1)},
	} {
		// A boundary value comes up in about one draw in 70 or more;
		// a uniform draw would give it one in 250 at most.
		if seen[w] < draws/100 {
			t.Errorf("%s drew %s %d times in %d", w.field, show(r, w.field, w.value), seen[w], draws)
		}
	}
	// p.children has no constant of its own: it is compared with nothing.
	if seen[want{"p.children", num("7")}] > draws/20 {
		t.Errorf("p.children drew 7 %d times in %d: biased toward a constant it is not compared with", seen[want{"p.children", num("7")}], draws)
	}
}

// number reads s as the engine reads a number, its trailing zeros dropped.
func number(t *testing.T, s string) value.Value {
	t.Helper()
	v, err := value.ParseNumber(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func show(r *engine.Ruleset, id string, v value.Value) string {
	if r.Fields[r.FieldIndex(id)].Type == engine.SortDate {
		return value.FormatDate(v.Num)
	}
	return v.NumberString()
}
