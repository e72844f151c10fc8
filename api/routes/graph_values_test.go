package routes

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/resource"
)

// computingRules work out a figure before they compare: a named value read
// by another and by a criterion, and a table looked up by region.
const computingRules = `section computing
name "Computing"
effective 2025-01-01

source law "Act" url "https://example.org/act" licence "public-domain"

field income.earned decimal weight 1
  range 0..
field household.region enum ["north", "south"] weight 1

value gross decimal "Gross income" unit "USD" output {
  income.earned * 1.5
  cite law "gross income"
}

value net decimal "Net income" unit "USD" {
  max(gross - 100, 0)
  cite law "net income"
}

table limit int "Income limit" unit "USD" {
  keys household.region
  "north" => 1000
  "south" => 900
  cite law "income limits"
}

group money all "Money" {
  criterion under "Net income under the limit" {
    net <= limit
    cite law "under the limit"
  }
}
`

// GET /rulesets/{id}/graph of rules with named values and a table lists
// them as value nodes, joined by their direct reads, and both that graph
// and /decide's graph_overlay (where a value's overlay carries its figure)
// match the published Graph schema.
func TestGraphOfValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "demo", "demo/computing", []byte(computingRules), true)
	doc := f.Server.OpenAPI()
	registry := doc.Components.Schemas
	graphOp := operationFor(t, doc, http.MethodGet, "/rulesets/x/graph")

	r := f.Do(t, http.MethodGet, apitest.RulesetPath("demo/computing", "/graph"), nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("graph: %d %s", r.Status, r.Raw)
	}
	for _, e := range validateAgainst(registry, "GET /graph", graphOp.Responses["200"].Content["application/json"].Schema, r.Body) {
		t.Error(e)
	}
	graph := r.Field(t, "graph").(map[string]any)
	values := map[string]map[string]any{}
	for _, n := range graph["nodes"].([]any) {
		if node := n.(map[string]any); node["type"] == "value" {
			values[node["id"].(string)] = node
		}
	}
	limit := apitest.JSONValue(t, `{"id": "value:limit", "type": "value", "label": "Income limit", "title": "Income limit",
	  "section_id": "computing", "value_type": "int", "unit": "USD", "table": true, "fields": ["household.region"],
	  "definition": "keys household.region\n\"north\" => 1000\n\"south\" => 900",
	  "citations": [{"source": "law", "quote": "income limits"}], "overlay": null}`)
	if len(values) != 3 || values["value:net"]["definition"] != "max(gross - 100, 0)" || !reflect.DeepEqual(values["value:limit"], limit) {
		t.Errorf("value nodes %v", values)
	}
	edges := map[string]bool{}
	for _, e := range graph["edges"].([]any) {
		edge := e.(map[string]any)
		edges[edge["source"].(string)+" "+edge["type"].(string)+" "+edge["target"].(string)] = true
	}
	for _, want := range []string{"field:income.earned field_to_value value:gross", "value:gross value_to_value value:net",
		"value:net value_to_criterion criterion:under", "value:limit value_to_criterion criterion:under"} {
		if !edges[want] {
			t.Errorf("no edge %s in %v", want, edges)
		}
	}
	if edges["field:income.earned field_to_criterion criterion:under"] {
		t.Error("a field the criterion reads only through a value has an edge to it")
	}
	if stats := graph["stats"].(map[string]any); stats["total_values"] != 3.0 {
		t.Errorf("stats %v", stats)
	}

	d := f.Decide(t, "", `{"ruleset_id":"demo/computing","field_values":{"income.earned":500,"household.region":"south"},"include_graph_overlay":true}`)
	if d.Status != http.StatusOK {
		t.Fatalf("decide: %d %s", d.Status, d.Raw)
	}
	overlay := d.Field(t, "graph_overlay").(map[string]any)
	for _, e := range validateAgainst(registry, "graph_overlay", resource.Graph{}.Schema(registry), overlay) {
		t.Error(e)
	}
	figures := map[string]any{}
	for _, n := range overlay["nodes"].([]any) {
		if node := n.(map[string]any); node["type"] == "value" {
			o := node["overlay"].(map[string]any)
			figures[node["id"].(string)] = o["status"].(string) + " " + fmt.Sprint(o["figure"])
		}
	}
	want := map[string]any{"value:gross": "satisfied 750", "value:net": "satisfied 650", "value:limit": "satisfied 900"}
	if !reflect.DeepEqual(figures, want) {
		t.Errorf("value overlays %v, want %v", figures, want)
	}
}
