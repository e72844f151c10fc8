package engine_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
)

// TestBoundsAgreeWithCompletions checks that ranges never decide a
// comparison another answer could turn (engine/bounds.go): over random
// household rulesets (enginetest.HouseholdRules: counts, sums, the least
// and greatest of members, constant factors of either sign, subtraction,
// abs, rounding, if, min, max and ?? over fields whose ranges span zero,
// have one end or none), a criterion decided on part of the answers keeps
// its status when more are given and when every one is, and no criterion
// is pending once everything is answered. household.opt, read only under
// ??, keeps its partial answer: a default is what an unanswered field
// reads, so answering it is meant to change what the rules see. The
// seeds are fixed, so a failure names the ruleset and answers.
func TestBoundsAgreeWithCompletions(t *testing.T) {
	t.Parallel()
	const rulesets, draws, completions = 60, 10, 8
	early := 0 // criteria decided while a field they read is unanswered
	for seed := range uint64(rulesets) {
		rnd := rand.New(rand.NewPCG(seed, 0xb0))
		src := enginetest.HouseholdRules(rnd, 6)
		r, _, err := engine.Compile("households.rules", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		opt := r.FieldIndex("household.opt")
		for draw := range draws {
			part := enginetest.HouseholdAnswers(rnd, r, []float64{0.2, 0.5, 0.8}[draw%3])
			pr := r.Evaluate(part, engine.Options{})
			if len(pr.FieldErrors) > 0 {
				continue
			}
			for i, st := range pr.Criteria {
				c, _ := r.CriterionAt(i)
				if st != engine.Pending && slices.ContainsFunc(c.Slots, func(s int) bool { return !part.Values[s].Known }) {
					early++
				}
			}
			for range completions {
				more := extend(rnd, r, part, opt, 0.5)
				full := extend(rnd, r, more, opt, 1)
				mr, fr := r.Evaluate(more, engine.Options{}), r.Evaluate(full, engine.Options{})
				for i, st := range pr.Criteria {
					c, _ := r.CriterionAt(i)
					if len(fr.FieldErrors) == 0 && fr.Criteria[i] == engine.Pending {
						t.Fatalf("seed %d: criterion %s (%s) is pending with every field answered: %s\n%s",
							seed, c.ID, engine.ExprText(c.Expr), answers(r, full), src)
					}
					if st == engine.Pending {
						continue
					}
					for _, later := range []struct {
						what string
						in   *engine.Inputs
						res  *engine.Result
					}{{"more answers", more, mr}, {"every answer", full, fr}} {
						if len(later.res.FieldErrors) == 0 && later.res.Criteria[i] != st {
							t.Fatalf("seed %d: criterion %s (%s) is %s on %s but %s on %s (%s)\n%s",
								seed, c.ID, engine.ExprText(c.Expr), st, answers(r, part), later.res.Criteria[i], later.what, answers(r, later.in), src)
						}
					}
				}
			}
		}
	}
	// A comparison decided with an operand's field unanswered was decided
	// by ranges (or an if's known condition, or a default): about two in
	// each draw are, and the test means something only if many are.
	if early < rulesets*draws/2 {
		t.Fatalf("only %d criteria decided with a field they read unanswered: the draws do not exercise ranges", early)
	}
}

// extend answers each field in answers unanswered, but field keep, with
// probability p (the list's length first, then the members it holds).
func extend(rnd *rand.Rand, r *engine.Ruleset, in *engine.Inputs, keep int, p float64) *engine.Inputs {
	out := &engine.Inputs{Values: append([]value.Value(nil), in.Values...), Provided: in.Provided}
	for i := range r.Fields {
		if i != keep && !out.Values[i].Known && rnd.Float64() < p && r.InList(i, out) {
			out.Values[i] = enginetest.HouseholdValue(rnd, &r.Fields[i])
			out.Provided++
		}
	}
	return out
}

// answers lists the known answers of in, for a failure's message.
func answers(r *engine.Ruleset, in *engine.Inputs) string {
	var b strings.Builder
	for i, v := range in.Values {
		if v.Known {
			b.WriteString(r.Fields[i].ID + "=" + v.NumberString() + " ")
		}
	}
	return b.String()
}

// TestBoundsDeepRules checks that ranges are worked out once per
// comparison and per named value in an evaluation
// (enginetest.DeepHouseholdRules): comparisons nested forty deep in the
// conditions of ifs, and forty values each reading the one before twice,
// decide as ranges say. Worked out afresh wherever they are read, each
// level evaluated its condition again for its range (and that
// condition's own range again), and each value's range read the one
// before's twice: at this depth neither would finish.
func TestBoundsDeepRules(t *testing.T) {
	t.Parallel()
	r, in := enginetest.DeepHousehold(t, 40)
	res := r.Evaluate(in, engine.Options{})
	for i, want := range []engine.Status{engine.Satisfied, engine.NotSatisfied} {
		if c, _ := r.CriterionAt(i); res.Criteria[i] != want {
			t.Errorf("criterion %s is %s, want %s", c.ID, res.Criteria[i], want)
		}
	}
}
