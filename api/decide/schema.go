package decide

import (
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
)

// The /decide wire types whose JSON is not what huma would infer from the
// Go type: the engine's trace and explanation, whose statuses marshal as
// strings and whose failure reasons marshal as pairs. Each declares its schema so the OpenAPI document
// describes the wire, not the Go type.

// traceJSON is the envelope's trace.
type traceJSON struct{ t *engine.Trace }

// MarshalJSON writes the engine's trace.
func (t traceJSON) MarshalJSON() ([]byte, error) { return json.Marshal(t.t) }

// Schema describes the trace on the wire.
func (traceJSON) Schema(huma.Registry) *huma.Schema {
	two := 2
	failureItem := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"type":       {Type: huma.TypeString, Enum: []any{"answer", "condition"}},
		"field":      {Type: huma.TypeString, Description: "type answer: the field read."},
		"value":      resource.AnswerSchema(),
		"expression": {Type: huma.TypeString, Description: "type condition: the criterion's condition as written."},
	}, Required: []string{"type"}}
	return &huma.Schema{
		Type:        huma.TypeObject,
		Description: "How the decision was reached, for debugging rules. Not a citation.",
		Properties: map[string]*huma.Schema{
			"status": resource.OutcomeSchema(),
			"path": {Type: huma.TypeArray, Description: "Every criterion in evaluation order.", Items: &huma.Schema{
				Type: huma.TypeObject, Properties: map[string]*huma.Schema{
					"group": {Type: huma.TypeString}, "criterion": {Type: huma.TypeString}, "status": resource.StatusSchema(),
				}, Required: []string{"group", "criterion", "status"}}},
			"answered":       {Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: "Answered fields in declaration order."},
			"group_statuses": {Type: huma.TypeObject, AdditionalProperties: resource.StatusSchema()},
			"failure_reasons": {Type: huma.TypeArray, Description: "One [group, items] pair per not-satisfied group.", Items: &huma.Schema{
				Type:        huma.TypeArray,
				Description: "A pair: the group id (a string), then the list of failure items.",
				Items:       &huma.Schema{OneOf: []*huma.Schema{{Type: huma.TypeString}, {Type: huma.TypeArray, Items: failureItem}}},
				MinItems:    &two, MaxItems: &two,
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
		"field": {Type: huma.TypeString}, "value": resource.AnswerSchema(),
	}, Required: []string{"field", "value"}}
	// The references are GET /explain's, converted by the same function,
	// so they share its schema.
	reference := registry.Schema(reflect.TypeFor[catalog.SourceReference](), true, "SourceReference")
	criterion := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"criterion_id":      {Type: huma.TypeString},
		"title":             {Type: huma.TypeString},
		"status":            resource.StatusSchema(),
		"supporting_facts":  {Type: huma.TypeArray, Items: fact, Description: "For a satisfied any-group only the satisfied branch's facts."},
		"source_references": {Type: huma.TypeArray, Items: reference},
	}, Required: []string{"criterion_id", "title", "status", "supporting_facts", "source_references"}}
	group := &huma.Schema{Type: huma.TypeObject, Properties: map[string]*huma.Schema{
		"group":    {Type: huma.TypeString},
		"title":    {Type: huma.TypeString},
		"kind":     {Type: huma.TypeString, Enum: []any{"all", "any"}},
		"status":   resource.StatusSchema(),
		"criteria": {Type: huma.TypeArray, Items: criterion},
	}, Required: []string{"group", "status", "criteria"}}
	return &huma.Schema{
		Type:        huma.TypeObject,
		Description: "Which groups and criteria decided, the facts each rests on and the law each cites.",
		Properties: map[string]*huma.Schema{
			"decision": resource.OutcomeSchema(),
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
