package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/value"
)

// compilePath compiles a .rules file or fails the test.
func compilePath(t testing.TB, path string) *engine.Ruleset {
	t.Helper()
	r, _, err := engine.Compile(path, testfiles.Read(t, path))
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return r
}

// graphRulesets are the casebank rulesets plus the large test ruleset.
func graphRulesets(t testing.TB) []string {
	return append(testfiles.Casebank(t), testfiles.Large(t))
}

// checkGraphShape asserts the invariants of every graph (docs/api.md#the-graph):
// unique ids, one outcome, edges between existing nodes of the right types,
// stats that count the nodes.
func checkGraphShape(t *testing.T, name string, g *Graph) {
	t.Helper()
	types := map[string]GraphNodeType{}
	count := map[GraphNodeType]int{}
	for _, n := range g.Nodes {
		if _, dup := types[n.ID]; dup {
			t.Errorf("%s: duplicate node id %q", name, n.ID)
		}
		types[n.ID] = n.Type
		count[n.Type]++
		if n.Label == "" {
			t.Errorf("%s: node %q has no label", name, n.ID)
		}
		if n.Type == NodeTypeCriterion && (n.Display == nil || n.Display.Sentence == "" || n.Display.Expr == nil) {
			t.Errorf("%s: criterion %q lacks a sentence or expr", name, n.ID)
		}
	}
	if count[NodeTypeOutcome] != 1 {
		t.Errorf("%s: %d outcome nodes, want 1", name, count[NodeTypeOutcome])
	}
	ends := map[GraphEdgeType][2]GraphNodeType{
		EdgeFieldToCriterion: {NodeTypeField, NodeTypeCriterion},
		EdgeFieldToValue:     {NodeTypeField, NodeTypeValue},
		EdgeValueToValue:     {NodeTypeValue, NodeTypeValue},
		EdgeValueToCriterion: {NodeTypeValue, NodeTypeCriterion},
		EdgeCriterionToGroup: {NodeTypeCriterion, NodeTypeGroup},
		EdgeGroupToOutcome:   {NodeTypeGroup, NodeTypeOutcome},
	}
	for _, e := range g.Edges {
		want, ok := ends[e.Type]
		if !ok {
			t.Errorf("%s: edge %v has unknown type", name, e)
			continue
		}
		if types[e.Source] != want[0] || types[e.Target] != want[1] {
			t.Errorf("%s: edge %v joins %q to %q", name, e, types[e.Source], types[e.Target])
		}
	}
	st := g.Stats
	if st.TotalFields != count[NodeTypeField] || st.TotalCriteria != count[NodeTypeCriterion] ||
		st.TotalGroups != count[NodeTypeGroup] || st.TotalValues != count[NodeTypeValue] || st.Sections != len(g.Sections) {
		t.Errorf("%s: stats %+v do not match node counts %v and sections %v", name, st, count, g.Sections)
	}
}

func TestGraphShapeCasebank(t *testing.T) {
	t.Parallel()
	for _, path := range graphRulesets(t) {
		r := compilePath(t, path)
		g := NewGraph(r, "", nil, nil)
		checkGraphShape(t, path, g)
		if g.Stats.SharedFields != 0 {
			t.Errorf("%s: shared_fields %d on a single ruleset", path, g.Stats.SharedFields)
		}
		// Every criterion has one edge to its group and a path from each
		// field it reads: an edge of its own for a field it reads
		// directly, through value nodes for one it reads through a
		// named value.
		edges := map[GraphEdge]bool{}
		into := map[string][]string{}
		for _, e := range g.Edges {
			edges[e] = true
			into[e.Target] = append(into[e.Target], e.Source)
		}
		for i := range r.NumCriteria() {
			c, gi := r.CriterionAt(i)
			cid := "criterion:" + c.ID
			if !edges[GraphEdge{cid, "group:" + r.Groups[gi].ID, EdgeCriterionToGroup}] {
				t.Errorf("%s: no edge from criterion %s to its group", path, c.ID)
			}
			reached := upstream(into, cid)
			for _, f := range c.Fields {
				if !reached["field:"+f] {
					t.Errorf("%s: no path from field %s to criterion %s", path, f, c.ID)
				}
			}
			if len(r.Values) == 0 && len(into[cid]) != len(c.Fields) {
				t.Errorf("%s: criterion %s has %d edges into it, reads %d fields", path, c.ID, len(into[cid]), len(c.Fields))
			}
		}
	}
}

// upstream is every node with a path to id along the edges (into maps a
// node to the sources of its incoming edges).
func upstream(into map[string][]string, id string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{id}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range into[n] {
			if !seen[s] {
				seen[s] = true
				stack = append(stack, s)
			}
		}
	}
	return seen
}

// The outcome is linked only to the groups its expression reads.
func TestGraphOutcomeEdges(t *testing.T) {
	t.Parallel()
	src := `section s
source s "S" url "https://example.org/s" licence "public-domain"
field a.x int
group one all "One" { criterion c1 "C1" { a.x > 1  cite s "q" } }
group two all "Two" { criterion c2 "C2" { a.x > 2  cite s "q" } }
group three all "Three" { criterion c3 "C3" { a.x > 3  cite s "q" } }
outcome one or not three
`
	r, _, err := engine.Compile("s.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range NewGraph(r, "", nil, nil).Edges {
		if e.Type == EdgeGroupToOutcome {
			got = append(got, e.Source)
		}
	}
	if strings.Join(got, ",") != "group:one,group:three" {
		t.Errorf("group_to_outcome sources %v, want group:one and group:three", got)
	}
}

func TestGraphSections(t *testing.T) {
	t.Parallel()
	const noSlug = `section plain_section
source s "S" url "https://example.org/s" licence "public-domain"
field a.x int
group g all "G" { criterion c "C" { a.x > 1  cite s "q" } }
`
	r, _, err := engine.Compile("s.rules", []byte(noSlug))
	if err != nil {
		t.Fatal(err)
	}
	withSlug, _, err := engine.Compile("s.rules", []byte("ruleset \"x/declared\"\n"+noSlug))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		r    *engine.Ruleset
		slug string
		want string
	}{
		{r, "", "plain_section"},
		{r, "x/stored", "x/stored"},
		{withSlug, "", "x/declared"},
		{withSlug, "x/stored", "x/stored"},
	} {
		if got := NewGraph(tt.r, tt.slug, nil, nil).Sections; len(got) != 1 || got[0] != tt.want {
			t.Errorf("Graph(%q).Sections = %v, want [%s]", tt.slug, got, tt.want)
		}
	}
}

// Without an evaluation every overlay, route overlays included, is JSON
// null; display.expr is the engine's own display.expr serialisation.
func TestGraphJSONWithoutOverlay(t *testing.T) {
	t.Parallel()
	r := compilePath(t, "../../casebank/eu-blue-card-de/eu-blue-card-de.rules")
	raw, err := json.Marshal(NewGraph(r, "", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []map[string]json.RawMessage `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"field":     {"id", "type", "label", "section_id", "key", "field_type", "question", "overlay"},
		"criterion": {"id", "type", "label", "title", "section_id", "group", "fields", "display", "overlay"},
		"group":     {"id", "type", "label", "title", "section_id", "kind", "overlay"},
		"outcome":   {"id", "type", "label", "section_id", "expr", "overlay"},
	}
	routes := 0
	for _, n := range doc.Nodes {
		var typ string
		_ = json.Unmarshal(n["type"], &typ)
		if len(n) != len(want[typ]) {
			t.Errorf("%s node has %d members, want %v", typ, len(n), want[typ])
		}
		for _, k := range want[typ] {
			if _, ok := n[k]; !ok {
				t.Errorf("%s node lacks %q", typ, k)
			}
		}
		if string(n["overlay"]) != "null" {
			t.Errorf("%s node overlay %s, want null", typ, n["overlay"])
		}
		if typ != "criterion" {
			continue
		}
		var id string
		_ = json.Unmarshal(n["id"], &id)
		var d struct {
			Expr   json.RawMessage `json:"expr"`
			Routes json.RawMessage `json:"routes"`
		}
		if err := json.Unmarshal(n["display"], &d); err != nil {
			t.Fatal(err)
		}
		var c *engine.Criterion
		for i := range r.NumCriteria() {
			if ci, _ := r.CriterionAt(i); "criterion:"+ci.ID == id {
				c = ci
			}
		}
		if c.Discretionary {
			continue // no expression: an official decides it
		}
		// json.Marshal escapes < and > inside a Marshaler's output too.
		exprJSON, _ := c.Expr.MarshalJSON()
		var escaped bytes.Buffer
		json.HTMLEscape(&escaped, exprJSON)
		if !bytes.Equal(d.Expr, escaped.Bytes()) {
			t.Errorf("%s: display.expr %s, want %s", id, d.Expr, exprJSON)
		}
		if string(d.Routes) != "null" {
			routes++
			if strings.Contains(string(d.Routes), `"overlay":{`) {
				t.Errorf("%s: route overlay set without an evaluation: %s", id, d.Routes)
			}
		}
	}
	if routes == 0 {
		t.Error("no criterion of eu-blue-card-de has routes, though some combine conditions with and/or")
	}
}

func TestGraphRoutes(t *testing.T) {
	t.Parallel()
	r := compilePath(t, "../../casebank/eu-blue-card-de/eu-blue-card-de.rules")
	in, err := r.Convert([]byte(`{"job.contract_type": "fixed_term", "job.fixed_term_months": 8}`))
	if err != nil {
		t.Fatal(err)
	}
	res := r.Evaluate(in, engine.Options{})
	g := NewGraph(r, "", in, res)
	var rt *Route
	for _, n := range g.Nodes {
		if n.ID == "criterion:contract_6_months" {
			rt = n.Display.Routes
		}
		if n.ID == "criterion:travel_document" && n.Display.Routes != nil {
			t.Errorf("a single comparison has routes: %+v", n.Display.Routes)
		}
	}
	// job.contract_type == "permanent" or (job.contract_type == "fixed_term" and job.fixed_term_months >= 6)
	if rt == nil || rt.Kind != RouteAnyOf || len(rt.Children) != 2 {
		t.Fatalf("routes %+v, want an any_of of two", rt)
	}
	leaf, both := rt.Children[0], rt.Children[1]
	checks := []struct {
		rt     *Route
		id     string
		kind   RouteKind
		status engine.Status
		facts  int
	}{
		{rt, "criterion:contract_6_months/route", RouteAnyOf, engine.Satisfied, 2},
		{leaf, "criterion:contract_6_months/route.0", RouteLeaf, engine.NotSatisfied, 1},
		{both, "criterion:contract_6_months/route.1", RouteAllOf, engine.Satisfied, 2},
		{both.Children[1], "criterion:contract_6_months/route.1.1", RouteLeaf, engine.Satisfied, 1},
	}
	for _, c := range checks {
		if c.rt.ID != c.id || c.rt.Kind != c.kind || c.rt.Overlay == nil ||
			c.rt.Overlay.Status != c.status || len(c.rt.Overlay.SupportingFacts) != c.facts {
			t.Errorf("route %s: got id %s kind %s overlay %+v; want %s %s with %d facts",
				c.id, c.rt.ID, c.rt.Kind, c.rt.Overlay, c.kind, c.status, c.facts)
		}
	}
	if leaf.Label != "contract type is permanent" {
		t.Errorf("leaf label %q", leaf.Label)
	}
}

// With an evaluation, every criterion and group overlay carries the
// status the evaluator decided, and the outcome the decision; route roots
// agree with their criterion. Checked over every casebank case.
func TestGraphOverlayMatchesEvaluation(t *testing.T) {
	t.Parallel()
	for _, path := range testfiles.Casebank(t) {
		r := compilePath(t, path)
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), "cases.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cases []engine.Case
		if err := json.Unmarshal(raw, &cases); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, c := range cases {
			in, err := r.Convert(c.FieldValues)
			if err != nil {
				t.Fatalf("%s %s: %v", path, c.Name, err)
			}
			var date int64
			if c.DecisionDate != "" {
				date, _ = value.ParseDate(c.DecisionDate)
			}
			res := r.Evaluate(in, engine.Options{DecisionDate: date, Explanation: true})
			g := NewGraph(r, "", in, res)
			checkOverlay(t, path+" "+c.Name, r, in, res, g)
			// Without a ready explanation the overlay is the same.
			plain := r.Evaluate(in, engine.Options{DecisionDate: date})
			a, _ := json.Marshal(g)
			b, _ := json.Marshal(NewGraph(r, "", in, plain))
			if !bytes.Equal(a, b) {
				t.Errorf("%s %s: overlay differs with and without Options.Explanation", path, c.Name)
			}
		}
	}
}

func checkOverlay(t *testing.T, name string, r *engine.Ruleset, in *engine.Inputs, res *engine.Result, g *Graph) {
	t.Helper()
	crit, grp := map[string]engine.Status{}, map[string]engine.Status{}
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		crit["criterion:"+c.ID] = res.Criteria[i]
	}
	for gi := range r.Groups {
		grp["group:"+r.Groups[gi].ID] = res.Groups[gi]
	}
	outcome := map[engine.Outcome]engine.Status{engine.Eligible: engine.Satisfied, engine.NotEligible: engine.NotSatisfied, engine.Undetermined: engine.Pending}[res.Outcome]
	for _, n := range g.Nodes {
		if n.Overlay == nil || n.Overlay.SupportingFacts == nil {
			t.Fatalf("%s: node %s has no overlay", name, n.ID)
		}
		var want engine.Status
		switch n.Type {
		case NodeTypeCriterion:
			want = crit[n.ID]
			if rt := n.Display.Routes; rt != nil && rt.Overlay.Status != want {
				t.Errorf("%s: %s route root %s, criterion %s", name, n.ID, rt.Overlay.Status, want)
			}
		case NodeTypeGroup:
			want = grp[n.ID]
		case NodeTypeValue:
			want = engine.Pending
			if v := r.ValueIndex(strings.TrimPrefix(n.ID, "value:")); res.Values[v].Known {
				want = engine.Satisfied
			}
		case NodeTypeOutcome:
			want = outcome
		case NodeTypeField:
			want = engine.Pending
			if in.Values[r.FieldIndex(n.Key)].Known {
				want = engine.Satisfied
			}
			for _, fe := range in.FieldErrors {
				if fe.Field == n.Key {
					want = engine.NotSatisfied
				}
			}
		}
		if n.Overlay.Status != want {
			t.Errorf("%s: %s overlay %s, want %s", name, n.ID, n.Overlay.Status, want)
		}
		for _, f := range n.Overlay.SupportingFacts {
			if s := r.FieldIndex(f.Field); s < 0 || !in.Values[s].Known {
				t.Errorf("%s: %s cites %s, which was not answered", name, n.ID, f.Field)
			}
		}
	}
}

func TestGraphOverlayFacts(t *testing.T) {
	t.Parallel()
	r := compilePath(t, "../../casebank/us-fmla-employee/us-fmla-employee.rules")
	in, err := r.Convert([]byte(`{"employment.months_employed": 13, "employment.hours_12_months": "lots"}`))
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(r, "", in, r.Evaluate(in, engine.Options{}))
	byID := map[string]*GraphNode{}
	for i := range g.Nodes {
		byID[g.Nodes[i].ID] = &g.Nodes[i]
	}
	months := byID["field:employment.months_employed"].Overlay
	if months.Status != engine.Satisfied || len(months.SupportingFacts) != 1 || string(months.SupportingFacts[0].Value) != "13" {
		t.Errorf("answered field overlay %+v", months)
	}
	if o := byID["field:employment.hours_12_months"].Overlay; o.Status != engine.NotSatisfied || len(o.SupportingFacts) != 0 {
		t.Errorf("field with a field error: overlay %+v", o)
	}
	if o := byID["outcome"].Overlay; o.Status != engine.Pending {
		t.Errorf("outcome with a field error: %+v, want pending", o)
	}
}

// A discretionary criterion shows the discretionary operator, no routes.
func TestGraphDiscretionary(t *testing.T) {
	t.Parallel()
	r, _, err := engine.Compile("sentences.rules", fmt.Appendf(nil, sentenceRules, "person.us_citizen"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range NewGraph(r, "", nil, nil).Nodes {
		if n.ID != "criterion:official" {
			continue
		}
		raw, _ := json.Marshal(n.Display)
		want := `{"sentence":"decided by an official: exceptional hardship shown","expr":{"type":"op","operator":"discretionary","args":[]},"routes":null}`
		if string(raw) != want {
			t.Errorf("display %s\nwant %s", raw, want)
		}
		return
	}
	t.Fatal("no node criterion:official")
}

func BenchmarkGraph(b *testing.B) {
	r := enginetest.LargestRuleset(b)
	b.ReportAllocs()
	for b.Loop() {
		NewGraph(r, "", nil, nil)
	}
}

func BenchmarkGraphOverlay(b *testing.B) {
	r := enginetest.LargestRuleset(b)
	in := r.ConvertMap(enginetest.Answers(r))
	res := r.Evaluate(in, engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 15)})
	b.ReportAllocs()
	for b.Loop() {
		NewGraph(r, "", in, res)
	}
}

func BenchmarkGraphJSON(b *testing.B) {
	r := enginetest.LargestRuleset(b)
	g := NewGraph(r, "", nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(g); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMermaid(b *testing.B) {
	r := enginetest.LargestRuleset(b)
	g := NewGraph(r, "", nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		_ = g.Mermaid()
	}
}
