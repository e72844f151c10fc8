package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/value"
)

// usesPresence reports whether e reads presence (present, absent, ??),
// the only operators allowed to make an unanswered field decide.
func usesPresence(e *Expr) bool {
	if e.Kind == ExprOp && (e.Op == OpPresent || e.Op == OpAbsent || e.Op == OpDefault) {
		return true
	}
	for _, a := range e.Args {
		if usesPresence(a) {
			return true
		}
	}
	return false
}

// randomValue draws an answer of field f's type near typical thresholds.
func randomValue(rng *rand.Rand, f *Field) value.Value {
	// An answer outside the field's range is a field error at conversion
	// and never reaches evaluation: draw again until one is inside.
	for range 100_000 {
		if v := anyValue(rng, f); f.Range == nil || f.Range.Contains(v) {
			return v
		}
	}
	if f.Range.Min.Known {
		return f.Range.Min // a range far from the draws: its end is an answer
	}
	return f.Range.Max
}

// anyValue draws an answer of f's type, whatever its range.
func anyValue(rng *rand.Rand, f *Field) value.Value {
	switch f.Type {
	case SortInt:
		return value.IntValue(rng.Int64N(300) - 20)
	case SortDecimal:
		return value.Value{Num: rng.Int64N(5_000_000), Scale: 2, Known: true}
	case SortBool:
		return value.BoolValue(rng.IntN(2) == 0)
	case SortEnum:
		return value.Value{Num: int64(rng.IntN(len(f.EnumValues))), Known: true}
	default:
		return value.Value{Num: value.DateOrdinal(1900, 1, 1) + rng.Int64N(130*366), Known: true}
	}
}

// TestKleeneMonotone checks the heart of three-valued evaluation on every
// casebank ruleset: answering more questions never flips a criterion that
// was already decided (unless it reads presence), and a decided outcome
// built only from such criteria stays decided the same way.
func TestKleeneMonotone(t *testing.T) {
	t.Parallel()
	files := append(testfiles.Casebank(t), filepath.Join("testdata", "large.rules"))
	rng := rand.New(rand.NewPCG(1, 2))
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := Compile(path, src)
		if err != nil {
			t.Fatal(err)
		}
		presence := make([]bool, r.NumCriteria())
		for i := range presence {
			c, _ := r.CriterionAt(i)
			presence[i] = c.Expr != nil && usesPresence(c.Expr)
		}
		opts := Options{DecisionDate: value.DateOrdinal(2025, 3, 1)}
		for trial := 0; trial < 300; trial++ {
			full := &Inputs{Values: make([]value.Value, len(r.Fields))}
			part := &Inputs{Values: make([]value.Value, len(r.Fields))}
			for s := range r.Fields {
				full.Values[s] = randomValue(rng, &r.Fields[s])
				if rng.IntN(3) > 0 {
					part.Values[s] = full.Values[s]
				}
			}
			fr, pr := r.Evaluate(full, opts), r.Evaluate(part, opts)
			for i, st := range pr.Criteria {
				if !presence[i] && st != Pending && fr.Criteria[i] != st {
					c, _ := r.CriterionAt(i)
					t.Fatalf("%s: criterion %s is %s with fewer answers but %s with more", path, c.ID, st, fr.Criteria[i])
				}
			}
			for i := range fr.Criteria {
				if fr.Criteria[i] == Pending && r.prog.roots[i] >= 0 && len(fr.FieldErrors) == 0 {
					c, _ := r.CriterionAt(i)
					t.Fatalf("%s: criterion %s is pending with every field answered", path, c.ID)
				}
			}
		}
	}
}

// TestReferencesMatchExplanation checks the References accessor against
// what an explanation carries for every casebank criterion, with or without
// answers: one citation per reference, in order, the same values.
func TestReferencesMatchExplanation(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, path := range testfiles.Casebank(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := Compile(path, src)
		if err != nil {
			t.Fatal(err)
		}
		answered := &Inputs{Values: make([]value.Value, len(r.Fields))}
		for s := range r.Fields {
			answered.Values[s] = randomValue(rng, &r.Fields[s])
		}
		for _, in := range []*Inputs{r.ConvertMap(nil), answered} {
			e := r.Evaluate(in, Options{Explanation: true, DecisionDate: value.DateOrdinal(2025, 3, 1)}).Explanation
			i := 0
			for _, g := range e.Groups {
				for _, ce := range g.Criteria {
					c, _ := r.CriterionAt(i)
					refs := r.References(i)
					if len(refs) != len(c.Citations) || !reflect.DeepEqual(refs, ce.SourceReferences) {
						t.Errorf("%s %s: References %+v, explanation %+v, %d citations", path, c.ID, refs, ce.SourceReferences, len(c.Citations))
					}
					i++
				}
			}
			if i != r.NumCriteria() {
				t.Errorf("%s: explanation has %d criteria, ruleset %d", path, i, r.NumCriteria())
			}
		}
	}
}
