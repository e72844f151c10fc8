package rulebook

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/engine/value"
)

// readerRules is a section that reads a yes/no fact, the way WIC reads
// "receives SNAP": met by the fact, or by an answer of its own; field is
// the fact's id.
func readerRules(tb testing.TB, section, field string) *engine.Ruleset {
	tb.Helper()
	return compileRules(tb, `section `+section+`
source s "Test source" url "https://example.org/s" licence "public-domain"
field `+field+` bool
  question "Does the applicant get the other programme?"
field `+section+`.other bool
group adjunct any "Adjunctive" {
  criterion by_fact "Gets the other programme" {
    `+field+` == true
    cite s "q"
  }
  criterion by_other "Other way" {
    `+section+`.other == true
    cite s "q"
  }
}
group excluded all "Not excluded" {
  criterion not_fact "Does not get it, or has the other way" {
    not (`+field+` == false and `+section+`.other == false)
    cite s "q"
  }
}
`)
}

func TestComposeSectionFactsRefusals(t *testing.T) {
	t.Parallel()
	snap := casebank(t, "us-snap-eligibility")
	wic := casebank(t, "us-wic")
	reader := readerRules(t, "reader", "fact.a")
	cycleA := tinyRules(t, "ca", "fact.b == true", "fact.b bool")
	cycleB := tinyRules(t, "cb", "fact.c == true", "fact.c bool")
	cycleC := tinyRules(t, "cc", "fact.d == true", "fact.d bool")
	presence := tinyRules(t, "presence", "(fact.a ?? false) == true", "fact.a bool")
	self := tinyRules(t, "self", "fact.a == true and x.y > 1", "fact.a bool", "x.y int")
	secs := func(rs ...*engine.Ruleset) []Section {
		out := make([]Section, len(rs))
		for i, r := range rs {
			out[i] = sectionOf(i, r)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		sections []Section
		facts    []SectionFact
		overlay  map[string]FieldOverlay
		want     string
	}{
		{"unknown field", secs(snap, reader), []SectionFact{{Field: "fact.b", Section: "A"}},
			nil, "section_facts[0].field: no section declares field fact.b"},
		{"not bool", secs(snap, reader), []SectionFact{{Field: "household.size", Section: "A"}},
			nil, "section_facts[0].field: field household.size is int: only a plain bool field"},
		{"unknown section", secs(snap, reader), []SectionFact{{Field: "fact.a", Section: "C"}},
			nil, "section_facts[0].section: there is no section C: this rulebook has 2 sections, A to B"},
		{"not a letter", secs(snap, reader), []SectionFact{{Field: "fact.a", Section: "a"}},
			nil, `section_facts[0].section: "a" is not a section letter`},
		{"bound to itself", secs(self, reader), []SectionFact{{Field: "fact.a", Section: "A"}},
			nil, "section_facts[0]: field fact.a is declared by section A (self) itself: a section is bound to itself"},
		{"duplicate", secs(snap, reader, snap2(t)), []SectionFact{{Field: "fact.a", Section: "A"}, {Field: "fact.a", Section: "C"}},
			nil, "section_facts[1].field: field fact.a is bound twice, to section A and to section C"},
		{"two-cycle", secs(cycleA, cycleB, reader), []SectionFact{{Field: "fact.b", Section: "B"}, {Field: "fact.c", Section: "A"}},
			nil, "section_facts form a cycle, A → B → A: section A's field fact.b is section B's outcome, and section B's field fact.c is section A's outcome"},
		{"three-cycle", secs(cycleA, cycleC, tinyRules(t, "cd", "fact.c == true", "fact.c bool")),
			[]SectionFact{{Field: "fact.b", Section: "B"}, {Field: "fact.d", Section: "C"}, {Field: "fact.c", Section: "A"}},
			nil, "section_facts form a cycle, A → B → C → A"},
		{"discretionary", secs(wic, reader), []SectionFact{{Field: "fact.a", Section: "A"}},
			nil, "section A (us_wic) cannot be a section fact: its criterion nutritional_risk is discretionary"},
		{"presence", secs(snap, presence), []SectionFact{{Field: "fact.a", Section: "A"}},
			nil, "criterion presence.c: it applies ?? to field fact.a"},
		{"overlay", secs(snap, reader), []SectionFact{{Field: "fact.a", Section: "A"}},
			map[string]FieldOverlay{"fact.a": {Question: ptr("Get it?")}}, "the field vocabulary overlay words field fact.a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compose(Spec{Name: "facts", Slug: "test/facts", Sections: tc.sections, Facts: tc.facts, Overlay: tc.overlay})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
	_, err := Compose(Spec{Name: "facts", Sections: secs(cycleA, cycleB, reader), Facts: []SectionFact{{Field: "fact.b", Section: "B"}, {Field: "fact.c", Section: "A"}}})
	var cycle *FactCycleError
	if !errors.As(err, &cycle) || !slices.Equal(cycle.Letters, []string{"A", "B", "A"}) || !slices.Equal(cycle.Fields, []string{"fact.b", "fact.c"}) {
		t.Fatalf("cycle error = %#v", err)
	}
}

// snap2 is a second, separate section with no field of the reader's: the
// other end of a duplicate binding.
func snap2(tb testing.TB) *engine.Ruleset {
	return tinyRules(tb, "other", "o.x == true", "o.x bool")
}

// TestComposeSectionFactsShape: the bound field is no field of the
// composition but a named value of the same id titled by its section; the
// criteria reading it list the section's fields instead; a rulebook
// without facts composes exactly as before (digest unchanged).
func TestComposeSectionFactsShape(t *testing.T) {
	t.Parallel()
	snap := casebank(t, "us-snap-eligibility")
	sections := []Section{sectionOf(0, snap), sectionOf(1, readerRules(t, "reader", "fact.snap"))}
	plain := mustCompose(t, Spec{Name: "facts", Sections: sections})
	again := mustCompose(t, Spec{Name: "facts", Sections: sections, Facts: []SectionFact{}})
	if plain.Rules.ContentDigest() != again.Rules.ContentDigest() {
		t.Fatal("an empty fact list changed the composition")
	}
	c := mustCompose(t, Spec{Name: "facts", Sections: sections, Outcome: &Node{Section: "B"},
		Facts: []SectionFact{{Field: "fact.snap", Section: "A"}}})
	if c.Rules.FieldIndex("fact.snap") >= 0 {
		t.Fatal("the bound field is still a field of the composition")
	}
	if _, ok := c.FieldSections["fact.snap"]; ok {
		t.Fatal("the bound field is still in FieldSections")
	}
	vi := c.Rules.ValueIndex("fact.snap")
	if vi < 0 {
		t.Fatal("no named value for the fact")
	}
	v := c.Rules.Values[vi]
	if v.Title != snap.Name+" (section A)" || v.Type != engine.SortBool || c.ValueSection[vi] != 0 || len(v.Citations) == 0 {
		t.Fatalf("fact value %+v, section %d", v, c.ValueSection[vi])
	}
	for _, f := range v.Fields {
		if snap.FieldIndex(f) < 0 {
			t.Fatalf("the fact reads %s, not a field of SNAP", f)
		}
	}
	cr, _ := c.Rules.CriterionAt(snap.NumCriteria())
	if cr.ID != "reader.by_fact" || !slices.Contains(cr.Fields, "income.earned") || slices.Contains(cr.Fields, "fact.snap") {
		t.Fatalf("criterion %s reads %v", cr.ID, cr.Fields)
	}
	if !slices.Equal(c.Facts, []SectionFact{{Field: "fact.snap", Section: "A"}}) {
		t.Fatalf("Facts = %v", c.Facts)
	}
	// The graph draws the fact as a value node of SNAP's section, titled
	// after it, with no node id twice.
	g := c.Graph(nil, nil)
	ids := map[string]bool{}
	drawn := false
	for _, n := range g.Nodes {
		if ids[n.ID] {
			t.Fatalf("node id %s twice", n.ID)
		}
		ids[n.ID] = true
		if n.Type == present.NodeTypeValue && n.Title == v.Title {
			drawn = n.SectionID == snap.SectionID
		}
	}
	if !drawn {
		t.Fatal("no value node of section A for the fact")
	}
	// Unanswered: the reader's fact criterion is pending and names SNAP's
	// questions, never the bound field.
	res := c.Rules.Evaluate(c.Rules.ConvertMap(map[string]any{"reader.other": false}), engine.Options{DecisionDate: c.Rules.Effective.From})
	if res.Outcome != engine.Undetermined || slices.Contains(res.MissingFields, "fact.snap") || !slices.Contains(res.MissingFields, "income.earned") {
		t.Fatalf("outcome %s, missing %v", res.Outcome, res.MissingFields)
	}
}

// factFolders are the casebank sections each composed as section A, the
// fact, under a reader section B and a second reader C that reads B.
var factFolders = []string{"us-snap-eligibility", "snap-income", "au-age-pension", "uk-child-benefit", "medicaid-adult-expansion-2026"}

// TestSectionFactMatchesSection is the differential test of section facts:
// over many answer sets, the fact value inside the composition is exactly
// section A's own three-valued decision alone (eligible true, not eligible
// false, undetermined unknown), and the reader sections decide in the
// composition what they decide alone with the fact answered as that
// decision (left unanswered when undetermined). C reads B's outcome, so
// a chain of two facts is checked too.
func TestSectionFactMatchesSection(t *testing.T) {
	t.Parallel()
	samples := 400
	if testing.Short() {
		samples = 60
	}
	for fi, folder := range factFolders {
		a := casebank(t, folder)
		b := readerRules(t, "reader", "fact.a")
		cr := readerRules(t, "chain", "fact.b")
		sections := []Section{sectionOf(0, a), sectionOf(1, b), sectionOf(2, cr)}
		c := mustCompose(t, Spec{Name: "facts", Sections: sections, Outcome: mustTree(t, `{"op": "or", "args": [{"section": "B"}, {"section": "C"}]}`, 3),
			Facts: []SectionFact{{Field: "fact.a", Section: "A"}, {Field: "fact.b", Section: "B"}}})
		va, vb := c.Rules.ValueIndex("fact.a"), c.Rules.ValueIndex("fact.b")
		sampler := enginetest.NewSampler(c.Rules, uint64(fi+1))
		counts := map[engine.Outcome]int{}
		for n := range samples {
			decision := inPeriod(c.Rules.Effective, sampler.DecisionDate())
			opts := engine.Options{DecisionDate: decision}
			answers := sampler.Answers([]float64{1, 0.9, 0.75, 0.5}[n%4], decision)
			res := c.Rules.Evaluate(c.Rules.ConvertMap(answers), opts)
			if len(res.FieldErrors) > 0 {
				continue // an answer the composition cannot apply decides nothing, alone or composed
			}
			fact := func(vi int) engine.Outcome {
				ref := &engine.Expr{Kind: engine.ExprValue, Sort: engine.SortBool, Key: c.Rules.Values[vi].ID, Slot: vi}
				return asOutcome[c.Rules.EvaluateExpr(ref, c.Rules.ConvertMap(answers), decision)]
			}
			own := a.Evaluate(a.ConvertMap(only(a, answers)), opts).Outcome
			counts[own]++
			if got := fact(va); got != own {
				t.Fatalf("%s on %v as of %s: fact value %s, section alone %s", folder, answers, value.FormatDate(decision), got, own)
			}
			withFact := func(r *engine.Ruleset, field string, o engine.Outcome) engine.Outcome {
				in := only(r, answers)
				if o != engine.Undetermined {
					in[field] = o == engine.Eligible
				}
				return r.Evaluate(r.ConvertMap(in), opts).Outcome
			}
			ownB := withFact(b, "fact.a", own)
			if got := fact(vb); got != ownB {
				t.Fatalf("%s on %v: fact.b %s, reader alone %s", folder, answers, got, ownB)
			}
			ownC := withFact(cr, "fact.b", ownB)
			results := c.SectionResults(res)
			if results[1].Decision != ownB || results[2].Decision != ownC {
				t.Fatalf("%s on %v: section results %v, alone B %s C %s", folder, answers, results, ownB, ownC)
			}
			if want := c.Outcome.Eval(map[string]engine.Outcome{"B": ownB, "C": ownC}); res.Outcome != want {
				t.Fatalf("%s on %v: composed %s, want %s", folder, answers, res.Outcome, want)
			}
		}
		if !testing.Short() && (counts[engine.Eligible] == 0 || counts[engine.NotEligible] == 0 || counts[engine.Undetermined] == 0) {
			t.Errorf("%s: section outcomes %v; the sampler misses one", folder, counts)
		}
		t.Logf("%s: section outcomes %v", folder, counts)
	}
}

// asOutcome reads a status as a decision: satisfied eligible, not
// satisfied not eligible, pending undetermined.
var asOutcome = map[engine.Status]engine.Outcome{
	engine.Satisfied: engine.Eligible, engine.NotSatisfied: engine.NotEligible, engine.Pending: engine.Undetermined,
}
