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

// Schema describes the trace on the wire, one component per object.
func (traceJSON) Schema(registry huma.Registry) *huma.Schema {
	return resource.Components(registry, "Trace", func() map[string]*huma.Schema { return traceComponents(registry) })
}

// traceComponents are the trace's component schemas by name.
func traceComponents(registry huma.Registry) map[string]*huma.Schema {
	const pairDoc = "A pair: the group id (a string), then the list of failure items."
	two := 2
	return map[string]*huma.Schema{
		"Trace": {
			Type:        huma.TypeObject,
			Description: "How the decision was reached, for debugging rules. Not a citation.",
			Properties: map[string]*huma.Schema{
				"status":         resource.OutcomeSchema(),
				"path":           {Type: huma.TypeArray, Description: "Every criterion in evaluation order.", Items: resource.Ref("TraceStep")},
				"answered":       {Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: "Answered fields in declaration order."},
				"group_statuses": {Type: huma.TypeObject, AdditionalProperties: resource.StatusSchema()},
				"failure_reasons": {Type: huma.TypeArray, Description: "One [group, items] pair per not-satisfied group.",
					Items: &huma.Schema{Ref: resource.Ref("TraceFailureReason").Ref, Description: pairDoc}},
				"values": {Type: huma.TypeArray, Items: registry.Schema(reflect.TypeFor[engine.OutputValue](), true, ""),
					Description: "The named values the decision computed, each with its figure, in declaration order: the figures the answer rests on (the explanation adds their law). Absent when it computed none."},
			},
			Required: []string{"status", "path", "answered", "group_statuses", "failure_reasons"},
		},
		"TraceStep": {Type: huma.TypeObject, Description: "One criterion in evaluation order.", Properties: map[string]*huma.Schema{
			"group": {Type: huma.TypeString}, "criterion": {Type: huma.TypeString}, "status": resource.StatusSchema(),
		}, Required: []string{"group", "criterion", "status"}},
		"TraceFailureReason": {
			Type:        huma.TypeArray,
			Description: pairDoc,
			Items:       &huma.Schema{OneOf: []*huma.Schema{{Type: huma.TypeString}, {Type: huma.TypeArray, Items: resource.Ref("TraceFailureItem")}}},
			MinItems:    &two, MaxItems: &two,
		},
		"TraceFailureItem": {Type: huma.TypeObject,
			Description: "Why a criterion failed: an answer it read (type answer: field, value) or its condition (type condition: expression).",
			Properties: map[string]*huma.Schema{
				"type":       {Type: huma.TypeString, Enum: []any{"answer", "condition"}},
				"field":      {Type: huma.TypeString, Description: "type answer: the field read."},
				"value":      resource.AnswerSchema(),
				"expression": {Type: huma.TypeString, Description: "type condition: the criterion's condition as written."},
			}, Required: []string{"type"}},
	}
}

// explanationJSON is the envelope's explanation.
type explanationJSON struct{ e *engine.Explanation }

// MarshalJSON writes the engine's explanation.
func (e explanationJSON) MarshalJSON() ([]byte, error) { return json.Marshal(e.e) }

// Schema describes the explanation on the wire, one component per object.
func (explanationJSON) Schema(registry huma.Registry) *huma.Schema {
	return resource.Components(registry, "Explanation", func() map[string]*huma.Schema { return explanationComponents(registry) })
}

// explanationComponents are the explanation's component schemas by name.
// Its facts are engine.Fact's, and its references GET /explain's,
// converted by the same function, so they share their schemas.
func explanationComponents(registry huma.Registry) map[string]*huma.Schema {
	return map[string]*huma.Schema{
		"Explanation": {
			Type:        huma.TypeObject,
			Description: "Which groups and criteria decided, the facts each rests on and the law each cites.",
			Properties: map[string]*huma.Schema{
				"decision": resource.OutcomeSchema(),
				"decision_path": {Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: "The ids of the groups (requirements) the decision rests on, in ruleset order: " +
					"the satisfied groups of an eligible decision, the not-satisfied groups of a not_eligible one, the pending groups of an undetermined one. " +
					"The reference describes it as the satisfied requirement's name; it is a list because an outcome over several groups rests on all of them at once."},
				"groups": {Type: huma.TypeArray, Items: resource.Ref("ExplanationGroup")},
				"unused_facts": {Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: "Supplied fields the ruleset declares but no criterion reads: a typo signal. " +
					"Keys the ruleset does not declare at all are not listed here: they are field_errors (and make the outcome undetermined)."},
			},
			Required: []string{"decision", "decision_path", "groups", "unused_facts"},
		},
		"ExplanationGroup": {Type: huma.TypeObject, Description: "One group of the explanation, with its criteria.", Properties: map[string]*huma.Schema{
			"group":    {Type: huma.TypeString},
			"title":    {Type: huma.TypeString},
			"kind":     {Type: huma.TypeString, Enum: []any{"all", "any"}},
			"status":   resource.StatusSchema(),
			"criteria": {Type: huma.TypeArray, Items: resource.Ref("ExplanationCriterion")},
		}, Required: []string{"group", "status", "criteria"}},
		"ExplanationCriterion": {Type: huma.TypeObject,
			Description: "One criterion of the explanation: its status, the facts it rests on and the law it cites.",
			Properties: map[string]*huma.Schema{
				"criterion_id": {Type: huma.TypeString},
				"title":        {Type: huma.TypeString},
				"status":       resource.StatusSchema(),
				"supporting_facts": {Type: huma.TypeArray, Items: registry.Schema(reflect.TypeFor[engine.Fact](), true, ""),
					Description: "For a satisfied any-group only the satisfied branch's facts."},
				"values": {Type: huma.TypeArray, Items: resource.ValueFact{}.Schema(registry),
					Description: "The named values and tables the criterion rests on (directly or through other values) that the decision computed, with their figures and their law, in declaration order; as supporting_facts, for a satisfied any-group only the satisfied branch's. Absent when the criterion reads none."},
				"source_references": {Type: huma.TypeArray, Items: registry.Schema(reflect.TypeFor[catalog.SourceReference](), true, "SourceReference")},
			}, Required: []string{"criterion_id", "title", "status", "supporting_facts", "source_references"}},
	}
}
