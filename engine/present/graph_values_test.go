package present

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// valuesRules is the golden ruleset that computes: two values, one read
// by the other, and a table with keys and periods.
const valuesRules = "testdata/golden/values.rules"

// Values and tables are nodes of their own, between the fields and the
// criteria, each with its title, type, unit, table marker, the fields
// behind it, its definition in the rules language and its cite lines.
func TestGraphValueNodes(t *testing.T) {
	t.Parallel()
	r := compilePath(t, valuesRules)
	g := NewGraph(r, "", nil, nil)
	checkGraphShape(t, valuesRules, g)
	var ids []string
	byID := map[string]GraphNode{}
	for _, n := range g.Nodes {
		ids = append(ids, n.ID)
		byID[n.ID] = n
	}
	wantIDs := []string{"field:income.earned", "field:income.other", "field:household.size", "field:household.region", "field:person.resident",
		"value:gross", "value:net", "value:limit", "criterion:under", "criterion:resident", "group:money", "group:home", "outcome"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("node ids %v\nwant %v", ids, wantIDs)
	}
	for _, tt := range []struct {
		id, title, unit, definition, quote string
		sort                               engine.Sort
		table                              bool
		fields                             []string
	}{
		{"value:gross", "Gross income", "USD", "income.earned + income.other", "gross income", engine.SortDecimal, false,
			[]string{"income.earned", "income.other"}},
		{"value:net", "Net income", "USD", "max(gross - round(income.earned * 0.2, 0.01), 0)", "net income", engine.SortDecimal, false,
			[]string{"income.earned", "income.other"}},
		{"value:limit", "Income limit", "USD", `keys household.region, household.size
period 2025-01-01 until 2025-12-31 {
  "north", 1..3 => 1000 + 250 * household.size
  "north", 4.. => 2000
  "south", any => 900
}
period 2026-01-01 {
  "north", any => 1100
  "south", any => 950
}`, "income limits", engine.SortDecimal, true, []string{"household.size", "household.region"}},
	} {
		n := byID[tt.id]
		if n.Type != NodeTypeValue || n.Label != tt.title || n.Title != tt.title || n.SectionID != "bills" || n.Unit != tt.unit ||
			n.ValueType != tt.sort || n.Table != tt.table || !slices.Equal(n.Fields, tt.fields) || n.Overlay != nil {
			t.Errorf("%s: %+v", tt.id, n)
		}
		if n.Definition != tt.definition {
			t.Errorf("%s: definition\n%s\nwant\n%s", tt.id, n.Definition, tt.definition)
		}
		if !slices.Equal(n.Citations, []engine.Citation{{Source: "law", Quote: tt.quote}}) {
			t.Errorf("%s: citations %+v", tt.id, n.Citations)
		}
	}
	// Each edge is a direct read: under reads income.other itself and the
	// earned income only through net, so the field has no edge to it.
	var edges []string
	for _, e := range g.Edges {
		edges = append(edges, e.Source+" "+string(e.Type)+" "+e.Target)
	}
	wantEdges := []string{
		"field:income.earned field_to_value value:gross",
		"field:income.other field_to_value value:gross",
		"field:income.earned field_to_value value:net",
		"value:gross value_to_value value:net",
		"field:household.size field_to_value value:limit",
		"field:household.region field_to_value value:limit",
		"field:income.other field_to_criterion criterion:under",
		"value:net value_to_criterion criterion:under",
		"value:limit value_to_criterion criterion:under",
		"criterion:under criterion_to_group group:money",
		"field:person.resident field_to_criterion criterion:resident",
		"criterion:resident criterion_to_group group:home",
		"group:money group_to_outcome outcome",
		"group:home group_to_outcome outcome",
	}
	if !slices.Equal(edges, wantEdges) {
		t.Errorf("edges\n%s\nwant\n%s", strings.Join(edges, "\n"), strings.Join(wantEdges, "\n"))
	}
	// A criterion's fields member still lists every answer it rests on.
	if got := byID["criterion:under"].Fields; !slices.Equal(got, []string{"income.earned", "income.other", "household.size", "household.region"}) {
		t.Errorf("criterion fields %v", got)
	}
	if want := (GraphStats{TotalFields: 5, TotalCriteria: 2, TotalGroups: 2, Sections: 1, TotalValues: 3}); g.Stats != want {
		t.Errorf("stats %+v, want %+v", g.Stats, want)
	}
}

// A value node's JSON has exactly its documented members; the stats name
// total_values only when there are values.
func TestGraphValueNodeJSON(t *testing.T) {
	t.Parallel()
	raw, err := json.Marshal(NewGraph(compilePath(t, valuesRules), "", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []map[string]json.RawMessage `json:"nodes"`
		Stats map[string]json.RawMessage   `json:"stats"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "type", "label", "title", "section_id", "value_type", "unit", "table", "fields", "definition", "citations", "overlay"}
	values := 0
	for _, n := range doc.Nodes {
		if string(n["type"]) != `"value"` {
			continue
		}
		values++
		var keys []string
		for k := range n {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		sorted := slices.Sorted(slices.Values(want))
		if !slices.Equal(keys, sorted) {
			t.Errorf("value node members %v, want %v", keys, want)
		}
	}
	if values != 3 || string(doc.Stats["total_values"]) != "3" {
		t.Errorf("%d value nodes, stats %v", values, doc.Stats)
	}
	plain, _ := json.Marshal(NewGraph(compilePath(t, "../../casebank/us-fmla-employee/us-fmla-employee.rules"), "", nil, nil))
	if strings.Contains(string(plain), "total_values") {
		t.Error("a ruleset without values reports total_values")
	}
}

// With an evaluation a value node's overlay carries its figure: satisfied
// with the figure when the decision computed it, pending with null when
// the answers do not settle it; its facts are the answers behind it.
func TestGraphValueOverlay(t *testing.T) {
	t.Parallel()
	r := compilePath(t, valuesRules)
	type want struct {
		status engine.Status
		figure string
		facts  int
	}
	for _, tt := range []struct {
		name, answers string
		date          int64
		values        map[string]want
		under         engine.Status
	}{
		{"all answered", `{"income.earned": 1000, "income.other": 100, "household.size": 2, "household.region": "north"}`, value.DateOrdinal(2025, 6, 1),
			map[string]want{"gross": {engine.Satisfied, "1100", 2}, "net": {engine.Satisfied, "900", 2}, "limit": {engine.Satisfied, "1500", 2}},
			engine.Satisfied},
		{"the next period's row", `{"income.earned": 1000, "income.other": 100, "household.size": 2, "household.region": "north"}`, value.DateOrdinal(2026, 3, 1),
			map[string]want{"gross": {engine.Satisfied, "1100", 2}, "net": {engine.Satisfied, "900", 2}, "limit": {engine.Satisfied, "1100", 2}},
			engine.Satisfied},
		{"cents", `{"income.earned": 1234.56, "income.other": 0, "household.size": 5, "household.region": "north"}`, value.DateOrdinal(2025, 6, 1),
			map[string]want{"gross": {engine.Satisfied, "1234.56", 2}, "net": {engine.Satisfied, "987.65", 2}, "limit": {engine.Satisfied, "2000", 2}},
			engine.Satisfied},
		{"a key unknown", `{"household.region": "north", "income.other": 700}`, value.DateOrdinal(2025, 6, 1),
			map[string]want{"gross": {engine.Pending, "null", 1}, "net": {engine.Pending, "null", 1}, "limit": {engine.Pending, "null", 1}},
			engine.NotSatisfied},
		{"nothing answered", `{}`, value.DateOrdinal(2025, 6, 1),
			map[string]want{"gross": {engine.Pending, "null", 0}, "net": {engine.Pending, "null", 0}, "limit": {engine.Pending, "null", 0}},
			engine.Pending},
	} {
		in, err := r.Convert([]byte(tt.answers))
		if err != nil {
			t.Fatal(err)
		}
		res := r.Evaluate(in, engine.Options{DecisionDate: tt.date})
		g := NewGraph(r, "", in, res)
		checkOverlay(t, tt.name, r, in, res, g)
		for _, n := range g.Nodes {
			switch {
			case n.Type == NodeTypeValue:
				w := tt.values[strings.TrimPrefix(n.ID, "value:")]
				o := n.Overlay
				if o == nil || o.Status != w.status || string(o.Figure) != w.figure || len(o.SupportingFacts) != w.facts {
					t.Errorf("%s: %s overlay %+v (figure %s), want %s %s with %d facts", tt.name, n.ID, o, o.Figure, w.status, w.figure, w.facts)
				}
			case n.ID == "criterion:under":
				if n.Overlay.Status != tt.under {
					t.Errorf("%s: under %s, want %s", tt.name, n.Overlay.Status, tt.under)
				}
				// The route comparing the two values cites the answers behind them.
				leaf := n.Display.Routes.Children[0]
				if tt.name == "all answered" && len(leaf.Overlay.SupportingFacts) != 4 {
					t.Errorf("%s: route %s cites %v", tt.name, leaf.Label, leaf.Overlay.SupportingFacts)
				}
			case n.Overlay.Figure != nil:
				t.Errorf("%s: %s node has a figure", tt.name, n.ID)
			}
		}
		raw, _ := json.Marshal(g)
		if tt.name == "a key unknown" && !strings.Contains(string(raw), `"overlay":{"status":"pending","figure":null,"supporting_facts":[{"field":"household.region","value":"north"}]}`) {
			t.Errorf("%s: no pending table overlay with a null figure in %s", tt.name, raw)
		}
	}
}

// The diagram draws values as hexagons, labelled by title (a table says
// so), with the edges of their direct reads.
func TestMermaidValueNodes(t *testing.T) {
	t.Parallel()
	m := NewGraph(compilePath(t, valuesRules), "", nil, nil).Mermaid()
	checkMermaid(t, "values", m)
	lines := strings.Split(m, "\n")
	for _, tt := range []struct {
		line string
		want bool
	}{
		{`  value_gross{{"Gross income"}}`, true},
		{`  value_net{{"Net income"}}`, true},
		{`  value_limit{{"Income limit (table)"}}`, true},
		{`  criterion_under["Net income under the limit"]`, true},
		{`  field_income_earned --> value_gross`, true},
		{`  value_gross --> value_net`, true},
		{`  value_net --> criterion_under`, true},
		{`  value_limit --> criterion_under`, true},
		{`  field_income_other --> criterion_under`, true},
		{`  field_income_earned --> criterion_under`, false},
		{`  field_household_size --> criterion_under`, false},
	} {
		if got := slices.Contains(lines, tt.line); got != tt.want {
			t.Errorf("line %q present %v, want %v:\n%s", tt.line, got, tt.want, m)
		}
	}
}
