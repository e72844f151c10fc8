package api

import (
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/engine"
)

// The /decide wire types whose JSON is not what huma would infer from the
// Go type: raw JSON objects kept as bytes (so field_values reaches the
// engine without a decode into Go values), and the engine's trace and
// explanation, whose statuses marshal as strings and whose failure reasons
// marshal as pairs. Each declares its schema so the OpenAPI document
// describes the wire, not the Go type.

// jsonObject is a JSON object kept as its raw bytes.
type jsonObject []byte

// UnmarshalJSON keeps a copy of the bytes.
func (o *jsonObject) UnmarshalJSON(b []byte) error {
	*o = append((*o)[:0], b...)
	return nil
}

// MarshalJSON writes the bytes back, or null when empty.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	if len(o) == 0 {
		return []byte("null"), nil
	}
	return o, nil
}

// Schema declares an object with any members.
func (jsonObject) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: true}
}

// The shared member schemas are built afresh for every use: huma writes
// into a schema when it registers one (PrecomputeMessages), so a
// package-level *huma.Schema would be written by every Server built, a data
// race when servers are built concurrently.

func statusSchema() *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Enum: []any{"satisfied", "not_satisfied", "pending"}}
}

func outcomeSchema() *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Enum: []any{"eligible", "not_eligible", "undetermined"}}
}

func anyValue() *huma.Schema {
	return &huma.Schema{Description: "The answer as JSON: a number, true/false, the enum string or YYYY-MM-DD."}
}

// traceJSON is the envelope's trace.
type traceJSON struct{ t *engine.Trace }

// MarshalJSON writes the engine's trace.
func (t traceJSON) MarshalJSON() ([]byte, error) { return json.Marshal(t.t) }

// Schema describes the trace on the wire.
func (traceJSON) Schema(huma.Registry) *huma.Schema {
	failureItem := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"type":       {Type: huma.TypeString, Enum: []any{"answer", "condition"}},
		"field":      {Type: huma.TypeString, Description: "type answer: the field read."},
		"value":      anyValue(),
		"expression": {Type: huma.TypeString, Description: "type condition: the criterion's condition as written."},
	}, Required: []string{"type"}}
	return &huma.Schema{
		Type:        huma.TypeObject,
		Description: "How the decision was reached, for debugging rules. Not a citation.",
		Properties: map[string]*huma.Schema{
			"status": outcomeSchema(),
			"path": {Type: huma.TypeArray, Description: "Every criterion in evaluation order.", Items: &huma.Schema{
				Type: huma.TypeObject, Properties: map[string]*huma.Schema{
					"group": {Type: huma.TypeString}, "criterion": {Type: huma.TypeString}, "status": statusSchema(),
				}, Required: []string{"group", "criterion", "status"}}},
			"answered":       {Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: "Answered fields in declaration order."},
			"group_statuses": {Type: huma.TypeObject, AdditionalProperties: statusSchema()},
			"failure_reasons": {Type: huma.TypeArray, Description: "One [group, items] pair per not-satisfied group.", Items: &huma.Schema{
				Type:        huma.TypeArray,
				Description: "A pair: the group id (a string), then the list of failure items.",
				Items:       &huma.Schema{OneOf: []*huma.Schema{{Type: huma.TypeString}, {Type: huma.TypeArray, Items: failureItem}}},
				MinItems:    ptr(2), MaxItems: ptr(2),
			}},
		},
		Required: []string{"status", "path", "answered", "group_statuses", "failure_reasons"},
	}
}

// explanationJSON is the envelope's explanation.
type explanationJSON struct{ e *engine.Explanation }

// MarshalJSON writes the engine's explanation.
func (e explanationJSON) MarshalJSON() ([]byte, error) { return json.Marshal(e.e) }

// Schema describes the explanation on the wire.
func (explanationJSON) Schema(registry huma.Registry) *huma.Schema {
	fact := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"field": {Type: huma.TypeString}, "value": anyValue(),
	}, Required: []string{"field", "value"}}
	// The references are GET /explain's, converted by the same function,
	// so they share its schema.
	reference := registry.Schema(reflect.TypeFor[sourceReference](), true, "SourceReference")
	criterion := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"criterion_id":      {Type: huma.TypeString},
		"title":             {Type: huma.TypeString},
		"status":            statusSchema(),
		"supporting_facts":  {Type: huma.TypeArray, Items: fact, Description: "For a satisfied any-group only the satisfied branch's facts."},
		"source_references": {Type: huma.TypeArray, Items: reference},
	}, Required: []string{"criterion_id", "title", "status", "supporting_facts", "source_references"}}
	group := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"group":    {Type: huma.TypeString},
		"title":    {Type: huma.TypeString},
		"kind":     {Type: huma.TypeString, Enum: []any{"all", "any"}},
		"status":   statusSchema(),
		"criteria": {Type: huma.TypeArray, Items: criterion},
	}, Required: []string{"group", "status", "criteria"}}
	return &huma.Schema{
		Type:        huma.TypeObject,
		Description: "Which groups and criteria decided, the facts each rests on and the law each cites.",
		Properties: map[string]*huma.Schema{
			"decision": outcomeSchema(),
			"decision_path": {Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: "The ids of the groups (requirements) the decision rests on, in ruleset order: " +
				"the satisfied groups of an eligible decision, the not-satisfied groups of a not_eligible one, the pending groups of an undetermined one. " +
				"The reference describes it as the satisfied requirement's name; it is a list because an outcome over several groups rests on all of them at once."},
			"groups": {Type: huma.TypeArray, Items: group},
			"unused_facts": {Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: "Supplied fields the ruleset declares but no criterion reads: a typo signal. " +
				"Keys the ruleset does not declare at all are not listed here: they are field_errors (and make the outcome undetermined)."},
		},
		Required: []string{"decision", "decision_path", "groups", "unused_facts"},
	}
}

func ptr[T any](v T) *T { return &v }

// graphJSON is the spec's Graph on the wire: the graph member of GET
// /rulesets/{ruleset_id}/graph, and the graph_overlay of /decide. The
// engine's encoders write it; Schema describes what they write (see
// openapi_graph.go).
type graphJSON struct{ g *engine.Graph }

// MarshalJSON writes the engine's graph.
func (g graphJSON) MarshalJSON() ([]byte, error) { return json.Marshal(g.g) }

// Schema refers to the Graph component.
func (graphJSON) Schema(registry huma.Registry) *huma.Schema { return graphSchema(registry) }
