package rulebook

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/eligo/eligo/engine"
)

// answerSampler draws random field_values for a ruleset as a request
// would send them (JSON numbers, enum strings, "YYYY-MM-DD" dates, bools),
// biased toward the values where decisions flip: each constant the rules
// compare a field with, a unit either side; dates near the date constants
// and near the decision date less each whole number of years or months
// the rules count. Some fields are left unanswered. (solver/sample_test.go
// draws engine Values the same way; these are wire values, because each
// member converts them itself.)
type answerSampler struct {
	r   *engine.Ruleset
	rnd *rand.Rand
	// near[slot] are the constants compared with the field.
	near [][]engine.Value
	// counts are int constants with no field context that can count
	// years or months (ages), up to 1200.
	counts []int64
	// dates are the ruleset's date constants.
	dates []int64
}

func newAnswerSampler(r *engine.Ruleset, seed uint64) *answerSampler {
	s := &answerSampler{r: r, rnd: rand.New(rand.NewPCG(seed, 0xb00c)), near: make([][]engine.Value, len(r.Fields))}
	var walk func(x *engine.Expr)
	walk = func(x *engine.Expr) {
		if x == nil {
			return
		}
		if x.Kind == engine.ExprConst {
			switch {
			case x.Sort == engine.SortDate:
				s.dates = append(s.dates, x.Const.Num)
			case x.FieldContext != "" && x.Sort.Numeric():
				s.near[r.FieldIndex(x.FieldContext)] = append(s.near[r.FieldIndex(x.FieldContext)], x.Const)
			case x.Sort == engine.SortInt && x.Const.Num > 0 && x.Const.Num <= 1200:
				s.counts = append(s.counts, x.Const.Num) // years or months
			}
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		walk(c.Expr)
	}
	return s
}

// answers draws one field_values object: in one draw of four every field
// is answered, otherwise each with probability 3/4.
func (s *answerSampler) answers(decision int64) map[string]any {
	m := map[string]any{}
	all := s.rnd.IntN(4) == 0
	for i := range s.r.Fields {
		if !all && s.rnd.IntN(4) == 0 {
			continue
		}
		m[s.r.Fields[i].ID] = s.value(i, decision)
	}
	return m
}

func (s *answerSampler) value(slot int, decision int64) any {
	f := &s.r.Fields[slot]
	switch f.Type {
	case engine.SortBool:
		return s.rnd.IntN(2) == 1
	case engine.SortEnum:
		return f.EnumValues[s.rnd.IntN(len(f.EnumValues))]
	case engine.SortDate:
		return engine.FormatDate(s.date(decision))
	}
	v := engine.Value{Num: s.rnd.Int64N(400) - 20, Known: true}
	if near := s.near[slot]; len(near) > 0 && s.rnd.IntN(4) != 0 {
		v = near[s.rnd.IntN(len(near))]
		v.Num += int64(s.rnd.IntN(3) - 1)
	} else if f.Type == engine.SortDecimal && s.rnd.IntN(2) == 0 {
		v = engine.Value{Num: s.rnd.Int64N(500_000), Scale: 2, Known: true}
	}
	if f.Type == engine.SortInt && v.Scale != 0 {
		v = engine.Value{Num: v.Num / 100, Known: true}
	}
	return json.Number(v.NumberString())
}

// date draws a date near a date constant, near the decision date less a
// counted number of years or months, or anywhere from 1900 to 2030.
func (s *answerSampler) date(decision int64) int64 {
	jitter := int64(s.rnd.IntN(3) - 1)
	switch s.rnd.IntN(4) {
	case 0:
		if len(s.dates) > 0 {
			return s.dates[s.rnd.IntN(len(s.dates))] + jitter
		}
	case 1, 2:
		if len(s.counts) > 0 {
			y, m, d := engine.Civil(decision)
			n := int(s.counts[s.rnd.IntN(len(s.counts))])
			if n <= 130 && s.rnd.IntN(2) == 0 {
				y -= n // an age in years
			} else { // a count of months
				y, m = y-n/12, m-n%12
				if m < 1 {
					y, m = y-1, m+12
				}
			}
			return engine.DateOrdinal(y, m, min(d, 28)) + jitter
		}
	}
	return engine.DateOrdinal(1900, 1, 1) + s.rnd.Int64N(130*365)
}

// only keeps the answers to r's fields: what the member alone is asked.
func only(r *engine.Ruleset, answers map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range answers {
		if r.FieldIndex(k) >= 0 {
			out[k] = v
		}
	}
	return out
}

// TestComposedMatchesMembers is the differential property test of
// composition: for random answer sets, the composed ruleset decides what
// the outcome tree decides over the members' own decisions, each member
// evaluated alone on the answers to its own fields; each section result
// is that member's decision; and every composed group and criterion has
// the member's status.
func TestComposedMatchesMembers(t *testing.T) {
	t.Parallel()
	samples := 300
	if testing.Short() {
		samples = 50
	}
	for si, folders := range [][]string{threeFolders, sharedFolders, presenceFolders} {
		sections := casebankSections(t, folders...)
		counts := map[engine.Outcome]int{}
		for ti, js := range trees3 {
			c := mustCompose(t, Spec{Name: "differential", Sections: sections, Outcome: mustTree(t, js, 3)})
			sampler := newAnswerSampler(c.Rules, uint64(100*si+ti))
			for range samples {
				decision := engine.DateOrdinal(2010+sampler.rnd.IntN(20), 1+sampler.rnd.IntN(12), 1+sampler.rnd.IntN(28))
				opts := engine.Options{DecisionDate: decision}
				answers := sampler.answers(decision)
				in := c.Rules.ConvertMap(answers)
				if len(in.FieldErrors) > 0 {
					t.Fatalf("sampler drew bad answers %v: %v", answers, in.FieldErrors)
				}
				res := c.Rules.Evaluate(in, opts)
				decisions := map[string]engine.Outcome{}
				offset, crit := 0, 0
				for _, s := range sections {
					own := s.Rules.Evaluate(s.Rules.ConvertMap(only(s.Rules, answers)), opts)
					decisions[s.Letter] = own.Outcome
					for gi, st := range own.Groups {
						if res.Groups[offset+gi] != st {
							t.Fatalf("%v: group %s is %s composed, %s alone", answers, c.Rules.Groups[offset+gi].ID, res.Groups[offset+gi], st)
						}
					}
					for ci, st := range own.Criteria {
						if res.Criteria[crit+ci] != st {
							t.Fatalf("%v: criterion %d of %s is %s composed, %s alone", answers, ci, s.SectionID, res.Criteria[crit+ci], st)
						}
					}
					offset += len(s.Rules.Groups)
					crit += s.Rules.NumCriteria()
				}
				if want := c.Outcome.Eval(decisions); res.Outcome != want {
					t.Fatalf("%s on %v: composed %s, tree over %v gives %s", c.Outcome, answers, res.Outcome, decisions, want)
				}
				for _, sr := range c.SectionResults(res) {
					if sr.Decision != decisions[sr.Letter] {
						t.Fatalf("%v: section %s result %s, alone %s", answers, sr.Letter, sr.Decision, decisions[sr.Letter])
					}
				}
				counts[res.Outcome]++
			}
		}
		// A sampler that never reaches some outcome tests less than it
		// claims: over the trees, each of the three must come up.
		if !testing.Short() && (counts[engine.Eligible] == 0 || counts[engine.NotEligible] == 0 || counts[engine.Undetermined] == 0) {
			t.Errorf("%v: outcomes %v; the sampler misses one", folders, counts)
		}
		t.Logf("%v: outcomes %v", folders, counts)
	}
}

func TestSectionResultsFieldErrors(t *testing.T) {
	t.Parallel()
	c := mustCompose(t, Spec{Name: "x", Sections: casebankSections(t, threeFolders...),
		Outcome: mustTree(t, `{"op":"or","args":[{"section":"A"},{"section":"B"},{"section":"C"}]}`, 3)})
	in := c.Rules.ConvertMap(map[string]any{
		"employment.employer_type": "public_agency", "employment.months_employed": 24, "employment.hours_12_months": 2000,
		"worksite.employees_within_75_miles": 80, "person.date_of_birth": "last year",
	})
	res := c.Rules.Evaluate(in, engine.Options{DecisionDate: engine.DateOrdinal(2026, 1, 15)})
	if res.Outcome != engine.Undetermined || len(res.FieldErrors) != 1 {
		t.Fatalf("outcome %s, field errors %v", res.Outcome, res.FieldErrors)
	}
	for _, sr := range c.SectionResults(res) {
		if sr.Decision != engine.Undetermined {
			t.Errorf("section %s is %s despite a field error", sr.Letter, sr.Decision)
		}
	}
	ok := c.Rules.Evaluate(c.Rules.ConvertMap(map[string]any{
		"employment.employer_type": "public_agency", "employment.months_employed": 24, "employment.hours_12_months": 2000,
		"worksite.employees_within_75_miles": 80,
	}), engine.Options{})
	got := c.SectionResults(ok)
	if ok.Outcome != engine.Eligible || got[0].Decision != engine.Eligible || got[1].Decision != engine.Undetermined {
		t.Errorf("outcome %s, section results %+v", ok.Outcome, got)
	}
	if got[0].RulesetID != c.Sections[0].RulesetID || got[0].SectionID != "fmla_employee" || got[0].ContentDigest == "" {
		t.Errorf("section result %+v", got[0])
	}
	for _, sr := range c.SectionResults(nil) {
		if sr.Decision != engine.Undetermined {
			t.Errorf("no result: section %s is %s", sr.Letter, sr.Decision)
		}
	}
}
