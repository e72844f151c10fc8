package resource

import (
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
)

// Graph is the graph on the wire (docs/api.md#the-graph): the graph member of GET
// /rulesets/{ruleset_id}/graph and the graph_overlay of /decide. The
// engine's encoders write it; Schema describes what they write.
type Graph struct {
	// Graph is the engine's graph, shared and read-only.
	Graph *present.Graph
}

// MarshalJSON writes the engine's graph.
func (g Graph) MarshalJSON() ([]byte, error) { return json.Marshal(g.Graph) }

// Schema refers to the Graph component.
func (Graph) Schema(registry huma.Registry) *huma.Schema { return graphSchema(registry) }

// This file declares the schema of the graph (docs/api.md#the-graph; present.Graph on the
// wire), the graph member of GET /rulesets/{ruleset_id}/graph and the
// graph_overlay of /decide. The engine writes its nodes, expressions and
// routes with custom encoders, so huma cannot infer them from the Go types:
// the schemas below describe the JSON those encoders write. The node and
// expression shapes are separate components joined by a oneOf with a
// discriminator on "type", so a client generator gets one type per shape;
// expressions and routes are recursive and so must be components.

// componentPrefix is where components live in the document.
const componentPrefix = "#/components/schemas/"

// graphComponents returns the graph's component schemas by name; Graph is
// the root. Every object is a component, so a client generator names it.
func graphComponents(registry huma.Registry) map[string]*huma.Schema {
	ref := Ref
	str := func(doc string) *huma.Schema { return &huma.Schema{Type: huma.TypeString, Description: doc} }
	stringList := func(doc string) *huma.Schema {
		return &huma.Schema{Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString}, Description: doc}
	}
	integer := func(doc string) *huma.Schema {
		return &huma.Schema{Type: huma.TypeInteger, Minimum: new(0.0), Description: doc}
	}
	constant := func(value, doc string) *huma.Schema {
		return &huma.Schema{Type: huma.TypeString, Enum: []any{value}, Description: doc}
	}
	object := func(doc string, props map[string]*huma.Schema, required ...string) *huma.Schema {
		return &huma.Schema{Type: huma.TypeObject, Description: doc, Properties: props, Required: required}
	}
	const overlayDoc = "The node's state in one evaluation: null on GET /graph, set on every node and route of /decide's graph_overlay."
	// overlay is the Overlay component's schema, built afresh for each use
	// since huma writes into schemas. A member holding it is a nullable
	// copy (huma validates null only beside a type), published as a
	// reference.
	overlay := func(doc string, nullable bool) *huma.Schema {
		s := object(doc, map[string]*huma.Schema{
			"status": StatusSchema(),
			"figure": {Description: "On a value node only: its figure in the evaluation (a number with its exact digits, true/false, or YYYY-MM-DD), " +
				"null while the status is pending. Absent on every other node and on routes."},
			"supporting_facts": {Type: huma.TypeArray, Description: "The answers the node rests on, as in the explanation.",
				Items: registry.Schema(reflect.TypeFor[engine.Fact](), true, "")},
		}, "status", "supporting_facts")
		s.Nullable = nullable
		return s
	}
	sortSchema := func(doc string) *huma.Schema {
		return &huma.Schema{Type: huma.TypeString, Enum: []any{"int", "decimal", "bool", "enum", "date"}, Description: doc}
	}
	const routeDoc = "One node of a criterion's route tree: the ways the criterion can be met."
	// route is the GraphRoute component's schema, a nullable copy where
	// a member may hold null (as overlay).
	route := func(nullable bool) *huma.Schema {
		s := object(routeDoc, map[string]*huma.Schema{
			"id":       str("The criterion node id plus /route, then .<child index> per level, e.g. criterion:contract/route.1.0."),
			"kind":     {Ref: componentPrefix + "RouteKind", Description: "leaf, or all_of / any_of for an and / or."},
			"label":    str("The subexpression in plain language."),
			"expr":     ref("GraphExpr"),
			"children": {Type: huma.TypeArray, Items: ref("GraphRoute"), Description: "The routes of the operands, in order; absent on a leaf."},
			"overlay":  overlay(overlayDoc, true),
		}, "id", "kind", "label", "expr", "overlay")
		s.Nullable = nullable
		return s
	}
	node := func(nodeType, doc string, props map[string]*huma.Schema, required ...string) *huma.Schema {
		props["id"] = str("Unique in the graph: field:<field id>, value:<name>, criterion:<id>, group:<id> or outcome, prefixed by <section slug>: on a composed graph.")
		props["type"] = constant(nodeType, "The node type.")
		props["label"] = str("The short text a diagram shows.")
		props["section_id"] = str("The section the node belongs to.")
		props["overlay"] = overlay(overlayDoc, true)
		return object(doc, props, append([]string{"id", "type", "label", "section_id", "overlay"}, required...)...)
	}
	oneOfByType := func(doc string, mapping map[string]string) *huma.Schema {
		s := &huma.Schema{Description: doc, Discriminator: &huma.Discriminator{PropertyName: "type", Mapping: map[string]string{}}}
		for _, value := range []string{"field", "value", "criterion", "group", "outcome", "op", "field_ref", "value_ref", "group_ref", "const"} {
			if name, ok := mapping[value]; ok {
				s.OneOf = append(s.OneOf, ref(name))
				s.Discriminator.Mapping[value] = componentPrefix + name
			}
		}
		return s
	}

	return map[string]*huma.Schema{
		"Graph": object("The ruleset's graph: every field, named value, criterion and group of the ruleset and its one outcome, joined by edges the way a decision flows.",
			map[string]*huma.Schema{
				"nodes": {Type: huma.TypeArray, Description: "Field nodes in declaration order, then value nodes (named values and tables) in declaration order, then criterion nodes, then group nodes, then the one outcome node.",
					Items: oneOfByType("One node; type says which shape.", map[string]string{
						"field": "GraphFieldNode", "value": "GraphValueNode", "criterion": "GraphCriterionNode", "group": "GraphGroupNode", "outcome": "GraphOutcomeNode"})},
				"edges": {Type: huma.TypeArray, Description: "Directed edges between node ids, one for each direct read: a criterion that reads a field only through a named value has an edge from the value, not the field. A group the outcome does not read has no edge to it; the outcome reads groups only.",
					Items: ref("GraphEdge")},
				"sections": stringList("Slugs of the sections drawn: one for a ruleset."),
				"stats":    {Ref: componentPrefix + "GraphStats", Description: "Counts for a summary line."},
			}, "nodes", "edges", "sections", "stats"),
		"GraphEdge": object("A directed edge between two node ids.", map[string]*huma.Schema{
			"source": str("Id of the upstream node."),
			"target": str("Id of the downstream node."),
			"type": {Type: huma.TypeString, Enum: []any{
				string(present.EdgeFieldToCriterion), string(present.EdgeFieldToValue), string(present.EdgeValueToValue),
				string(present.EdgeValueToCriterion), string(present.EdgeCriterionToGroup), string(present.EdgeGroupToOutcome)},
				Description: "The kinds of node joined: a field or value read by a value or criterion, a criterion into its group, a group into the outcome."},
		}, "source", "target", "type"),
		"GraphStats": object("Counts for a summary line.", map[string]*huma.Schema{
			"total_fields":   integer("Field nodes."),
			"shared_fields":  integer("Fields read by more than one section: 0 except on a composed rulebook graph."),
			"total_criteria": integer("Criterion nodes."),
			"total_groups":   integer("Group nodes."),
			"sections":       integer("Sections drawn: 1 for a ruleset."),
			"total_values":   integer("Value nodes (named values and tables); absent when the ruleset declares none."),
		}, "total_fields", "shared_fields", "total_criteria", "total_groups", "sections"),
		"Overlay": overlay("A node's state in one evaluation: null on GET /graph, set on every node and route of /decide's graph_overlay.", false),
		"GraphFieldNode": node("field", "A field the ruleset reads.", map[string]*huma.Schema{
			"key":        str("The field id."),
			"field_type": sortSchema("The field's type."),
			"question":   str("Text to ask the applicant; empty when the ruleset gives none."),
		}, "key", "field_type", "question"),
		"GraphValueNode": node("value", "A named value or a table: a figure the law works out from the answers before it compares.", map[string]*huma.Schema{
			"title":      str("The value's declared title."),
			"value_type": {Type: huma.TypeString, Enum: []any{"int", "decimal", "bool", "date"}, Description: "The value's type."},
			"unit":       str("What the figure counts (USD); empty when the rules give none."),
			"table":      {Type: huma.TypeBoolean, Description: "true for a table (looked up by its keys, or by the decision date's period), false for a value defined by an expression."},
			"fields":     stringList("Field ids the value reads, directly or through other values, in declaration order."),
			"definition": str("The definition in the rules language: the expression, or a table's keys line, rows and periods, one per line."),
			"citations": {Type: huma.TypeArray, Description: "The value's cite lines as the rules declare them.",
				Items: ref("GraphCitation")},
		}, "title", "value_type", "unit", "table", "fields", "definition", "citations"),
		"GraphCitation": object("A cite line: the declared source it cites and the quoted words.", map[string]*huma.Schema{
			"source": str("The id of a source the ruleset declares."),
			"quote":  str("The cited words, exactly as the rules quote them."),
		}, "source", "quote"),
		"GraphCriterionNode": node("criterion", "A criterion.", map[string]*huma.Schema{
			"title":   str("The criterion's declared title."),
			"group":   str("The id of the criterion's group, as declared (not a node id)."),
			"fields":  stringList("Field ids the criterion reads, directly or through named values, in declaration order."),
			"display": {Ref: componentPrefix + "CriterionDisplay", Description: "How the criterion reads."},
		}, "title", "group", "fields", "display"),
		"CriterionDisplay": object("How the criterion reads: a sentence, the compiled expression and its route tree.", map[string]*huma.Schema{
			"sentence": str("The criterion in plain language; never empty."),
			"expr":     ref("GraphExpr"),
			"routes":   route(true),
		}, "sentence", "expr", "routes"),
		"GraphGroupNode": node("group", "A group of criteria.", map[string]*huma.Schema{
			"title": str("The group's declared title."),
			"kind":  {Type: huma.TypeString, Enum: []any{"all", "any"}, Description: "all: every criterion must hold; any: one suffices."},
		}, "title", "kind"),
		"GraphOutcomeNode": node("outcome", "The ruleset's one outcome.", map[string]*huma.Schema{
			"expr": ref("GraphExpr"),
		}, "expr"),
		"GraphRoute": route(false),
		"RouteKind":  {Type: huma.TypeString, Enum: []any{"leaf", "all_of", "any_of"}},
		"GraphExpr": oneOfByType("A compiled expression node, as display.expr shows it.", map[string]string{
			"op": "GraphExprOp", "field_ref": "GraphExprFieldRef", "value_ref": "GraphExprValueRef", "group_ref": "GraphExprGroupRef", "const": "GraphExprConst"}),
		"GraphExprOp": object("An operation over its args.", map[string]*huma.Schema{
			"type":     constant("op", ""),
			"operator": str("The operator as written in the rules language (and, or, not, ==, >=, in, years_between, ??...); discretionary for a criterion an official decides."),
			"args":     {Type: huma.TypeArray, Items: ref("GraphExpr"), Description: "The operands, in operator order."},
		}, "type", "operator", "args"),
		"GraphExprFieldRef": object("A field's answer.", map[string]*huma.Schema{
			"type": constant("field_ref", ""), "key": str("The field id."),
		}, "type", "key"),
		"GraphExprValueRef": object("A named value's figure.", map[string]*huma.Schema{
			"type": constant("value_ref", ""), "key": str("The value's name."),
		}, "type", "key"),
		"GraphExprGroupRef": object("A group's status (outcome expressions only).", map[string]*huma.Schema{
			"type": constant("group_ref", ""), "key": str("The group id."),
		}, "type", "key"),
		"GraphExprConst": object("A constant.", map[string]*huma.Schema{
			"type":  constant("const", ""),
			"sort":  sortSchema("The constant's type."),
			"value": {Description: "A number for int and decimal (exact digits), true/false for bool, the listed string for enum, YYYY-MM-DD for date."},
			"field_context": {Type: huma.TypeString, Nullable: true,
				Description: "The field the constant is compared with or defaults; null when it stands alone."},
		}, "type", "sort", "value", "field_context"),
	}
}

// graphSchema registers the graph components in registry, once, and
// returns a reference to the root.
func graphSchema(registry huma.Registry) *huma.Schema {
	return Components(registry, "Graph", func() map[string]*huma.Schema { return graphComponents(registry) })
}

// Components registers the component schemas build returns in registry,
// unless root is there already, and returns a reference to root: how a
// hand-written schema (one huma cannot infer from the Go types) names each
// of its objects, as huma names each Go struct.
func Components(registry huma.Registry, root string, build func() map[string]*huma.Schema) *huma.Schema {
	schemas := registry.Map()
	if _, done := schemas[root]; !done {
		for name, s := range build() {
			s.PrecomputeMessages()
			schemas[name] = s
		}
	}
	return Ref(root)
}

// Ref is a reference to the component name.
func Ref(name string) *huma.Schema { return &huma.Schema{Ref: componentPrefix + name} }

// NullableCopy is a member that holds the component member refers to, or
// null, described as member is: a copy of the component's schema marked
// nullable, since huma can neither mark a reference nullable nor validate
// a oneOf with null. The published document refers to the component
// instead (package openapi).
func NullableCopy(registry huma.Registry, member *huma.Schema) *huma.Schema {
	copied := *registry.SchemaFromRef(member.Ref)
	copied.Nullable = true
	copied.Description = member.Description
	return &copied
}

// The shared member schemas are built afresh for every use: huma writes
// into a schema when it registers one (PrecomputeMessages), so a
// package-level *huma.Schema would be written by every Server built, a data
// race when servers are built concurrently.

// StatusSchema is a criterion or group status: satisfied, not_satisfied or
// pending.
func StatusSchema() *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Enum: []any{"satisfied", "not_satisfied", "pending"}}
}

// OutcomeSchema is a decision outcome.
func OutcomeSchema() *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Enum: []any{"eligible", "not_eligible", "undetermined"}}
}

// AnswerSchema is an answer as sent in field_values.
func AnswerSchema() *huma.Schema {
	return &huma.Schema{Description: "The answer as JSON: a number, true/false, the enum string or YYYY-MM-DD."}
}
