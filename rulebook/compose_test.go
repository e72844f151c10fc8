package rulebook

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/engine/value"
)

// trees3 are outcome trees over three sections used across the tests:
// and, or, not and nested, one repeating a section and one leaving a
// section out.
var trees3 = []string{
	`null`,
	`{"op":"or","args":[{"section":"A"},{"section":"B"},{"section":"C"}]}`,
	`{"op":"not","args":[{"section":"B"}]}`,
	`{"op":"and","args":[{"section":"A"},{"op":"or","args":[{"section":"B"},{"op":"not","args":[{"section":"C"}]}]}]}`,
	`{"op":"or","args":[{"op":"not","args":[{"op":"or","args":[{"section":"A"},{"section":"B"}]}]},{"section":"C"}]}`,
	`{"op":"and","args":[{"op":"or","args":[{"section":"A"},{"section":"B"}]},{"op":"not","args":[{"op":"and","args":[{"section":"B"},{"section":"C"}]}]}]}`,
	`{"op":"or","args":[{"section":"C"},{"section":"A"}]}`,
}

func TestComposeCasebank(t *testing.T) {
	t.Parallel()
	sections := casebankSections(t, threeFolders...)
	before := make([]string, len(sections))
	for i, s := range sections {
		before[i] = irJSON(t, s.Rules)
	}
	for _, js := range trees3 {
		overlay := map[string]FieldOverlay{
			"employment.months_employed": {Question: ptr("How many months have you worked there?")},
			"child.date_of_birth":        {Weight: ptr(7)},
			"person.date_of_birth":       {Description: ptr("Your own date of birth.")},
		}
		spec := Spec{Name: "Family support", Slug: "test/family-support", Sections: sections, Outcome: mustTree(t, js, 3), Overlay: overlay}
		c := mustCompose(t, spec)
		r := c.Rules
		if r.SectionID != SectionID || r.Name != spec.Name || r.Slug != spec.Slug {
			t.Errorf("composed header %q %q %q", r.SectionID, r.Name, r.Slug)
		}
		if want := spec.Outcome; want == nil && c.Outcome.String() != "A and B and C" || want != nil && c.Outcome != want {
			t.Errorf("%s: composed outcome tree %s", js, c.Outcome)
		}
		if !r.ReadsDecisionDate {
			t.Error("composed ruleset does not read the decision date, though two members do")
		}
		var nFields, nGroups, nSources, nCriteria int
		for _, s := range sections {
			nFields += len(s.Rules.Fields)
			nGroups += len(s.Rules.Groups)
			nSources += len(s.Rules.Sources)
			nCriteria += s.Rules.NumCriteria()
		}
		if len(r.Fields) != nFields || len(r.Groups) != nGroups || len(r.Sources) != nSources || r.NumCriteria() != nCriteria {
			t.Errorf("composed %d fields, %d groups, %d sources, %d criteria; want %d, %d, %d, %d",
				len(r.Fields), len(r.Groups), len(r.Sources), r.NumCriteria(), nFields, nGroups, nSources, nCriteria)
		}
		checkPrefixes(t, c)
		if c.SharedFields() != 0 {
			t.Errorf("%d shared fields among sections with none in common", c.SharedFields())
		}
		// The digest is a function of the content: the same spec composes
		// to the same digest every time, whatever the overlay map's order
		// (Go randomises it on every iteration; the maps are also built in
		// another order).
		for range 5 {
			again := spec
			again.Overlay = map[string]FieldOverlay{}
			for _, k := range []string{"person.date_of_birth", "child.date_of_birth", "employment.months_employed"} {
				again.Overlay[k] = overlay[k]
			}
			for _, sp := range []Spec{spec, again} {
				if c2 := mustCompose(t, sp); c2.Rules.ContentDigest() != r.ContentDigest() {
					t.Fatalf("%s: digest %s then %s", js, r.ContentDigest(), c2.Rules.ContentDigest())
				}
			}
		}
	}
	for i, s := range sections {
		if irJSON(t, s.Rules) != before[i] {
			t.Errorf("Compose changed member %s", s.SectionID)
		}
	}
}

// checkPrefixes checks that every group, criterion and source of the
// composition carries its section's prefix, that citations and notes name
// composed sources, and that the composed outcome names composed groups.
func checkPrefixes(t *testing.T, c *Composed) {
	t.Helper()
	r := c.Rules
	offset := 0
	for si, s := range c.Sections {
		m := s.Rules
		for gi := range m.Groups {
			g := &r.Groups[offset+gi]
			if want := s.SectionID + "." + m.Groups[gi].ID; g.ID != want {
				t.Errorf("group %d is %s, want %s", offset+gi, g.ID, want)
			}
			if got, ok := c.SectionOf(offset + gi); !ok || got.Letter != Letter(si) {
				t.Errorf("group %s belongs to section %v", g.ID, got)
			}
			for ci := range g.Criteria {
				cr := &g.Criteria[ci]
				if want := s.SectionID + "." + m.Groups[gi].Criteria[ci].ID; cr.ID != want {
					t.Errorf("criterion %s, want %s", cr.ID, want)
				}
				for _, cit := range cr.Citations {
					if !strings.HasPrefix(cit.Source, s.SectionID+".") {
						t.Errorf("criterion %s cites %s", cr.ID, cit.Source)
					}
				}
			}
		}
		offset += len(m.Groups)
	}
	sources := map[string]bool{}
	for _, src := range r.Sources {
		sources[src.ID] = true
	}
	for _, f := range r.Fields {
		for _, n := range f.Notes {
			if n.Source != "" && !sources[n.Source] {
				t.Errorf("field %s's note cites %s, not a composed source", f.ID, n.Source)
			}
		}
		if len(c.FieldSections[f.ID]) == 0 {
			t.Errorf("field %s belongs to no section", f.ID)
		}
	}
	var walk func(e *engine.Expr)
	walk = func(e *engine.Expr) {
		if e.Kind == engine.ExprGroup && r.Groups[e.Slot].ID != e.Key {
			t.Errorf("outcome names group %s at slot %d, which is %s", e.Key, e.Slot, r.Groups[e.Slot].ID)
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(r.Outcome)
}

func TestComposeOutcomeShape(t *testing.T) {
	t.Parallel()
	sections := casebankSections(t, threeFolders...)
	c := mustCompose(t, Spec{Name: "x", Sections: sections,
		Outcome: mustTree(t, `{"op":"or","args":[{"section":"C"},{"op":"not","args":[{"section":"A"}]}]}`, 3)})
	got := c.Rules.Outcome
	if got.Op != engine.OpOr || len(got.Args) != 2 || got.Args[1].Op != engine.OpNot {
		t.Fatalf("outcome %s", got.Op)
	}
	// Leaf C is au_age_pension's own outcome, pension_age and residence.
	if c0 := got.Args[0]; c0.Op != engine.OpAnd || c0.Args[0].Key != "au_age_pension.pension_age" || c0.Args[1].Key != "au_age_pension.residence" {
		t.Errorf("leaf C composed as %+v", c0)
	}
	if a := got.Args[1].Args[0]; a.Op != engine.OpAnd || len(a.Args) != 3 || a.Args[0].Key != "fmla_employee.employer" {
		t.Errorf("leaf A composed as %+v", a)
	}
	// A single section under the default outcome is that ruleset's logic,
	// renamed: it decides as the member does.
	one := mustCompose(t, Spec{Name: "one", Sections: sections[:1]})
	if one.Outcome.String() != "A" || len(one.Rules.Outcome.Args) != 3 {
		t.Errorf("single section composes as %s", one.Outcome)
	}
}

func TestComposeSharedFields(t *testing.T) {
	t.Parallel()
	a := tinyRules(t, "age_rules", `applicant.age >= 18 and applicant.region == "north"`, `applicant.age int`, `applicant.region enum ["north", "south"]`)
	for _, tc := range []struct {
		name  string
		other *engine.Ruleset
		want  string
	}{
		{"type", tinyRules(t, "pension", "applicant.age >= 66.5", "applicant.age decimal"),
			"field applicant.age is int in section age_rules (A) but decimal in section pension (B)"},
		{"enum values", tinyRules(t, "pension", `applicant.region == "east"`, `applicant.region enum ["north", "east"]`),
			`field applicant.region is enum ["north", "south"] in section age_rules (A) but enum ["north", "east"] in section pension (B)`},
		{"enum order", tinyRules(t, "pension", `applicant.region == "north"`, `applicant.region enum ["south", "north"]`),
			`field applicant.region is enum ["north", "south"] in section age_rules (A) but enum ["south", "north"] in section pension (B)`},
		{"enum and string-like", tinyRules(t, "pension", "applicant.region", "applicant.region bool"),
			`field applicant.region is enum ["north", "south"] in section age_rules (A) but bool in section pension (B)`},
	} {
		_, err := Compose(Spec{Name: "x", Slug: "test/x", Sections: []Section{sectionOf(0, a), sectionOf(1, tc.other)}})
		var conflict *FieldConflictError
		if !errors.As(err, &conflict) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "compose rulebook test/x: ") {
			t.Errorf("%s: %v, want a conflict saying %q", tc.name, err, tc.want)
		}
	}

	// Same type: one field, asked once, worded by the first section; the
	// second section's criterion reads it with its own field declared
	// earlier in the member but later in the composition.
	b := tinyRules(t, "pension", "pension.years >= 10 and applicant.age >= 66", "pension.years int", "applicant.age int weight 5")
	c := mustCompose(t, Spec{Name: "x", Sections: []Section{sectionOf(0, a), sectionOf(1, b)}})
	var ids []string
	for _, f := range c.Rules.Fields {
		ids = append(ids, f.ID)
	}
	if want := []string{"applicant.age", "applicant.region", "pension.years"}; !slices.Equal(ids, want) {
		t.Errorf("fields %v, want %v", ids, want)
	}
	if w := c.Rules.Fields[0].Weight; w != 1 {
		t.Errorf("shared field has weight %d, want the first section's 1", w)
	}
	if got := c.FieldSections["applicant.age"]; !slices.Equal(got, []string{"age_rules", "pension"}) {
		t.Errorf("applicant.age belongs to %v", got)
	}
	if c.SharedFields() != 1 {
		t.Errorf("SharedFields = %d", c.SharedFields())
	}
	cr := &c.Rules.Groups[1].Criteria[0]
	if !slices.Equal(cr.Fields, []string{"applicant.age", "pension.years"}) || !slices.Equal(cr.Slots, []int{0, 2}) {
		t.Errorf("pension.c reads %v at %v", cr.Fields, cr.Slots)
	}

	// Casebank: three rulesets share person.date_of_birth (a date each);
	// two disagree on household.region's values.
	shared := mustCompose(t, Spec{Name: "pensions", Sections: casebankSections(t, sharedFolders...)})
	if got := shared.FieldSections["person.date_of_birth"]; len(got) != 3 {
		t.Errorf("person.date_of_birth belongs to %v", got)
	}
	_, err := Compose(Spec{Name: "x", Sections: casebankSections(t, "medicaid-adult-expansion", "snap-income")})
	if err == nil || !strings.Contains(err.Error(), "field household.region is enum") {
		t.Errorf("medicaid and snap: %v", err)
	}
}

func TestComposeOverlay(t *testing.T) {
	t.Parallel()
	sections := casebankSections(t, sharedFolders...)
	notes := []engine.Note{{Text: "WHY: Both pensions depend on it.", Source: "au_age_pension.ssa1991_s43",
		Metadata: engine.NoteMetadata{Type: "why", Section: "au_age_pension"}}}
	c := mustCompose(t, Spec{Name: "x", Sections: sections, Overlay: map[string]FieldOverlay{
		"person.date_of_birth": {Question: ptr("When were you born?"), Weight: ptr(0), Notes: notes},
		"person.sex":           {Description: ptr("")},
	}})
	dob := &c.Rules.Fields[c.Rules.FieldIndex("person.date_of_birth")]
	if dob.Question != "When were you born?" || dob.Weight != 0 || len(dob.Notes) != 1 || dob.Notes[0].Text != notes[0].Text {
		t.Errorf("overlaid field %+v", dob)
	}
	if sex := &c.Rules.Fields[c.Rules.FieldIndex("person.sex")]; sex.Description != "" || sex.Question == "" {
		t.Errorf("overlay on person.sex gave %+v", sex)
	}
	plain := mustCompose(t, Spec{Name: "x", Sections: sections})
	if plain.Rules.ContentDigest() == c.Rules.ContentDigest() {
		t.Error("the overlay does not change the composed digest")
	}
	if q := plain.Rules.Fields[0].Question; q != sections[0].Rules.Fields[0].Question {
		t.Errorf("without an overlay the shared question is %q", q)
	}
	for _, tc := range []struct {
		overlay map[string]FieldOverlay
		want    string
	}{
		{map[string]FieldOverlay{"person.age": {Question: ptr("?")}}, "overlay names field person.age, which no section declares"},
		{map[string]FieldOverlay{"person.sex": {Weight: ptr(-1)}}, "weight -1"},
		{map[string]FieldOverlay{"person.sex": {Notes: []engine.Note{{Text: "WHY: x", Source: "ssa1991_s43"}}}}, "ssa1991_s43 is not a declared source"},
	} {
		if _, err := Compose(Spec{Name: "x", Sections: sections, Overlay: tc.overlay}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("overlay %v: %v, want %q", tc.overlay, err, tc.want)
		}
	}
}

func TestComposeRefusals(t *testing.T) {
	t.Parallel()
	secs := casebankSections(t, threeFolders...)
	mod := func(f func(s []Section) []Section) []Section { return f(slices.Clone(secs)) }
	var many []Section
	for i := range MaxSections + 1 {
		many = append(many, Section{Letter: string(rune('A' + i%26)), SectionID: "s", Rules: secs[0].Rules})
	}
	for _, tc := range []struct {
		name     string
		sections []Section
		outcome  *Node
		want     string
	}{
		{"none", nil, nil, "no sections"},
		{"too many", many, nil, "27 sections: a rulebook composes at most 26"},
		{"letter", mod(func(s []Section) []Section { s[1].Letter = "C"; return s }), nil, `section 2 is lettered "C"`},
		{"nil rules", mod(func(s []Section) []Section { s[2].Rules = nil; return s }), nil, "section C (au_age_pension): no compiled ruleset"},
		{"empty id", mod(func(s []Section) []Section { s[0].SectionID = ""; return s }), nil, "section A: empty section id"},
		{"id mismatch", mod(func(s []Section) []Section { s[0].SectionID = "fmla"; return s }), nil, "does not match its ruleset's, fmla_employee"},
		{"twice", mod(func(s []Section) []Section { s[2] = sectionOf(2, s[0].Rules); return s }), nil,
			"sections A and C are both section fmla_employee"},
		{"bad tree", secs, &Node{Op: OpAnd, Args: []*Node{{Section: "A"}, {Section: "D"}}}, "no section D"},
	} {
		_, err := Compose(Spec{Name: "Family", Sections: tc.sections, Outcome: tc.outcome})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), `compose rulebook "Family": `) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestComposedGraph(t *testing.T) {
	t.Parallel()
	c := mustCompose(t, Spec{Name: "Pensions", Slug: "test/pensions", Sections: casebankSections(t, sharedFolders...)})
	in := c.Rules.ConvertMap(map[string]any{"person.date_of_birth": "1950-01-01"})
	for _, res := range []*engine.Result{nil, c.Rules.Evaluate(in, engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 15)})} {
		g := c.Graph(in, res)
		if !slices.Equal(g.Sections, []string{"au/age-pension", "uk/state-pension-age", "us/medicaid-adult-expansion"}) {
			t.Errorf("graph sections %v", g.Sections)
		}
		if g.Stats.Sections != 3 || g.Stats.SharedFields != 1 || g.Stats.TotalFields != len(c.Rules.Fields) {
			t.Errorf("graph stats %+v", g.Stats)
		}
		ids := map[string]bool{}
		outcomes := 0
		for _, n := range g.Nodes {
			ids[n.ID] = true
			switch n.Type {
			case present.NodeTypeOutcome:
				outcomes++
				if n.ID != "outcome" || n.SectionID != SectionID {
					t.Errorf("outcome node %s in %s", n.ID, n.SectionID)
				}
			case present.NodeTypeField:
				if n.Key == "person.date_of_birth" && (n.ID != "au/age-pension:field:person.date_of_birth" || n.SectionID != "au_age_pension") {
					t.Errorf("shared field node %s in %s", n.ID, n.SectionID)
				}
			default:
				prefix := strings.SplitN(n.ID, ":", 2)[0]
				i := slices.Index(g.Sections, prefix)
				if i < 0 || c.Sections[i].SectionID != n.SectionID {
					t.Errorf("node %s in section %s", n.ID, n.SectionID)
				}
				if n.Display != nil && n.Display.Routes != nil && !strings.HasPrefix(n.Display.Routes.ID, n.ID) {
					t.Errorf("route %s of node %s", n.Display.Routes.ID, n.ID)
				}
			}
			if (res == nil) != (n.Overlay == nil) {
				t.Errorf("node %s overlay %v with result %v", n.ID, n.Overlay, res != nil)
			}
		}
		if outcomes != 1 {
			t.Errorf("%d outcome nodes", outcomes)
		}
		for _, e := range g.Edges {
			if !ids[e.Source] || !ids[e.Target] {
				t.Errorf("edge %s -> %s joins no nodes", e.Source, e.Target)
			}
		}
	}
}

// valueSection is a section that computes: a named value, a table with a
// figure per period and an output, each named as the other section's are.
func valueSection(tb testing.TB, section string, rate string) *engine.Ruleset {
	tb.Helper()
	return compileRules(tb, `section `+section+`
effective 2025-01-01 until 2026-12-31
source s "Test source" url "https://example.org/s" licence "public-domain"
field income.earned decimal
  range 0..
field household.size int
  range 1..
value net decimal "Net income" unit "USD" output {
  round(income.earned * `+rate+`, 0.01)
  cite s "net"
}
table limit int "Limit" unit "USD" {
  keys household.size
  period 2025-01-01 until 2025-12-31 {
    1..2 => 1000
    3.. => 1000 + 300 * (household.size - 2)
  }
  period 2026-01-01 until 2026-12-31 {
    1.. => 1100 + 300 * household.size
  }
  cite s "limit"
}
group g all "G" {
  criterion under "Under the limit" {
    net <= limit
    cite s "net"
  }
}
`)
}

// TestComposeValues: sections that compute compose, each keeping its own
// named values under its prefix (both call theirs net and limit), and the
// composed decision computes every figure and criterion as the section
// does alone.
func TestComposeValues(t *testing.T) {
	t.Parallel()
	a, b := valueSection(t, "alpha", "0.8"), valueSection(t, "beta", "0.5")
	c := mustCompose(t, Spec{Name: "values", Sections: []Section{sectionOf(0, a), sectionOf(1, b)}})
	var ids []string
	for _, v := range c.Rules.Values {
		ids = append(ids, v.ID)
	}
	if got := strings.Join(ids, " "); got != "alpha.net alpha.limit beta.net beta.limit" {
		t.Fatalf("composed values %s", got)
	}
	for _, tt := range []struct {
		answers, date string
	}{
		{`{"income.earned": 1500, "household.size": 2}`, "2025-06-01"},
		{`{"income.earned": 1500, "household.size": 4}`, "2025-06-01"},
		{`{"income.earned": 2500, "household.size": 4}`, "2026-06-01"},
		{`{"household.size": 4}`, "2026-06-01"},
	} {
		d, _ := value.ParseDate(tt.date)
		opts := engine.Options{DecisionDate: d}
		in, err := c.Rules.Convert([]byte(tt.answers))
		if err != nil {
			t.Fatal(err)
		}
		res := c.Rules.Evaluate(in, opts)
		for si, s := range []*engine.Ruleset{a, b} {
			own := s.Evaluate(s.ConvertMap(only(s, mapOf(t, tt.answers))), opts)
			if res.Criteria[si] != own.Criteria[0] {
				t.Errorf("%s on %s: %s's criterion %s composed, %s alone", tt.answers, tt.date, s.SectionID, res.Criteria[si], own.Criteria[0])
			}
			composed, alone := c.Rules.Outputs(res)[si], s.Outputs(own)[0]
			if string(composed.Figure) != string(alone.Figure) || composed.Value != s.SectionID+".net" {
				t.Errorf("%s on %s: output %s=%s composed, %s alone", tt.answers, tt.date, composed.Value, composed.Figure, alone.Figure)
			}
		}
	}
	if irJSON(t, a) != irJSON(t, valueSection(t, "alpha", "0.8")) {
		t.Error("composing changed a section's own rules")
	}
}

// mapOf decodes answers for only().
func mapOf(tb testing.TB, answers string) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(answers), &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestComposedGraphValues: a rulebook of sections that compute draws each
// section's named values and tables as value nodes under the section's
// slug and section id, joined to that section's criteria, and with an
// evaluation each carries its own section's figure.
func TestComposedGraphValues(t *testing.T) {
	t.Parallel()
	a, b := valueSection(t, "alpha", "0.8"), valueSection(t, "beta", "0.5")
	sa, sb := sectionOf(0, a), sectionOf(1, b)
	sa.Slug, sb.Slug = "demo/alpha", "demo/beta"
	c := mustCompose(t, Spec{Name: "values", Sections: []Section{sa, sb}})
	in, err := c.Rules.Convert([]byte(`{"income.earned": 1500, "household.size": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	res := c.Rules.Evaluate(in, engine.Options{DecisionDate: value.DateOrdinal(2025, 6, 1)})
	g := c.Graph(in, res)
	type valueNode struct{ section, figure string }
	got := map[string]valueNode{}
	ids := map[string]bool{}
	for _, n := range g.Nodes {
		ids[n.ID] = true
		if n.Type == present.NodeTypeValue {
			got[n.ID] = valueNode{n.SectionID, string(n.Overlay.Figure)}
		}
	}
	want := map[string]valueNode{
		"demo/alpha:value:alpha.net": {"alpha", "1200"}, "demo/alpha:value:alpha.limit": {"alpha", "1000"},
		"demo/beta:value:beta.net": {"beta", "750"}, "demo/beta:value:beta.limit": {"beta", "1000"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("value nodes %v\nwant %v", got, want)
	}
	edges := map[string]bool{}
	for _, e := range g.Edges {
		if !ids[e.Source] || !ids[e.Target] {
			t.Errorf("edge %s -> %s joins no nodes", e.Source, e.Target)
		}
		edges[e.Source+" "+string(e.Type)+" "+e.Target] = true
	}
	for _, e := range []string{
		"demo/alpha:value:alpha.net value_to_criterion demo/alpha:criterion:alpha.under",
		"demo/beta:value:beta.limit value_to_criterion demo/beta:criterion:beta.under",
		"demo/alpha:field:income.earned field_to_value demo/alpha:value:alpha.net",
		"demo/alpha:field:income.earned field_to_value demo/beta:value:beta.net",
	} {
		if !edges[e] {
			t.Errorf("no edge %s", e)
		}
	}
	if g.Stats.TotalValues != 4 {
		t.Errorf("stats %+v", g.Stats)
	}
}

// Two sections may share a household: one list, asked once, with each
// member's fields shared by id; a list bounded differently in each is a
// conflict named as such.
func TestComposeSharesAList(t *testing.T) {
	t.Parallel()
	household := func(section, bound, cond string) *engine.Ruleset {
		src := "section " + section + "\nsource law \"Act\" url \"https://example.org/act\" licence \"public-domain\"\n" +
			"list member \"People in the household\" up to " + bound + "\n  question \"How many people?\"\n" +
			"field member.age int\nfield member.earnings decimal\n" +
			"group g all \"G\" {\n  criterion c \"C\" {\n    " + cond + "\n    cite law \"Act\"\n  }\n}\n"
		r, _, err := engine.Compile(section+".rules", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	child := household("child", "4", "any(member where member.age < 5)")
	income := household("income", "4", "sum(member.earnings) <= 2000")
	c := mustCompose(t, Spec{Name: "x", Sections: []Section{sectionOf(0, child), sectionOf(1, income)}})
	if n := len(c.Rules.Fields); n != 1+4*2 {
		t.Errorf("%d fields, want the list and two fields for each of 4 members", n)
	}
	in, err := c.Rules.Convert([]byte(`{"member": [{"age": 3, "earnings": 0}, {"age": 30, "earnings": 1500}]}`))
	if err != nil || len(in.FieldErrors) > 0 {
		t.Fatal(err, in.FieldErrors)
	}
	if got := c.Rules.Evaluate(in, engine.Options{}).Outcome; got != engine.Eligible {
		t.Errorf("the household is %s, want eligible under both sections", got)
	}
	_, err = Compose(Spec{Name: "x", Slug: "test/x", Sections: []Section{sectionOf(0, child), sectionOf(1, household("income", "6", "sum(member.earnings) <= 2000"))}})
	var conflict *FieldConflictError
	if want := "field member is a list of up to 4 in section child (A) but a list of up to 6 in section income (B)"; !errors.As(err, &conflict) || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want a conflict saying %q", err, want)
	}
}
