package rulebook

import (
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
)

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
			sampler := enginetest.NewSampler(c.Rules, uint64(100*si+ti))
			for n := range samples {
				// Every other date is drawn where the composition's
				// period holds, so that the criteria decide often; the
				// rest fall anywhere from 1990 to 2059, mostly outside
				// some section's period.
				decision := sampler.DecisionDate()
				if n%2 == 0 {
					decision = inPeriod(c.Rules.Effective, decision)
				}
				opts := engine.Options{DecisionDate: decision}
				// One answer set in four answers every field; the
				// rest leave about one field in four unanswered.
				answers := sampler.Answers([]float64{1, 0.75, 0.75, 0.75}[n%4], decision)
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
				// Outside the common period the composition decides
				// nothing, though an or of the sections still in force
				// might; inside it, every section is in force.
				inForce := c.Rules.Effective == nil || c.Rules.Effective.Covers(decision)
				want := engine.Undetermined
				if inForce {
					want = c.Outcome.Eval(decisions)
				}
				if res.Outcome != want || res.OutsidePeriod == inForce {
					t.Fatalf("%s on %v as of %s: composed %s (outside its period %v), tree over %v gives %s (in force %v)",
						c.Outcome, answers, value.FormatDate(decision), res.Outcome, res.OutsidePeriod, decisions, want, inForce)
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

// inPeriod maps a drawn date into period p (ten years from its start when
// it is open-ended), keeping it as drawn when p is nil.
func inPeriod(p *engine.Period, drawn int64) int64 {
	if p == nil {
		return drawn
	}
	until := p.Until
	if until == 0 {
		until = p.From + 3652
	}
	return p.From + drawn%(until-p.From+1)
}

func TestSectionResultsFieldErrors(t *testing.T) {
	t.Parallel()
	c := mustCompose(t, Spec{Name: "x", Sections: casebankSections(t, threeFolders...),
		Outcome: mustTree(t, `{"op":"or","args":[{"section":"A"},{"section":"B"},{"section":"C"}]}`, 3)})
	in := c.Rules.ConvertMap(map[string]any{
		"employment.employer_type": "public_agency", "employment.months_employed": 24, "employment.hours_12_months": 2000,
		"worksite.employees_within_75_miles": 80, "person.date_of_birth": "last year",
	})
	res := c.Rules.Evaluate(in, engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 15)})
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
	}), engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 15)})
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
