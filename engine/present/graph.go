package present

import (
	"encoding/json"
	"strconv"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// This file builds the ruleset graph (docs/api.md#the-graph): the fields a ruleset reads,
// the named values and tables it computes from them, its criteria, its
// groups and its one outcome, joined by edges in the direction a decision
// flows. Clients draw it (see Mermaid) and, with an
// evaluation, colour it by status (the overlay).

// GraphNodeType says which part of a ruleset a graph node stands for.
type GraphNodeType string

// The five node types of the graph (docs/api.md#the-graph). A table is a
// value node too (its table member is true): it is a named value looked up
// by keys, read the same way.
const (
	NodeTypeField     GraphNodeType = "field"
	NodeTypeValue     GraphNodeType = "value"
	NodeTypeCriterion GraphNodeType = "criterion"
	NodeTypeGroup     GraphNodeType = "group"
	NodeTypeOutcome   GraphNodeType = "outcome"
)

// GraphEdgeType says which two kinds of node an edge joins; edges always
// point the way a decision flows: answers into values and criteria, values
// into other values and criteria, criteria into groups, groups into the
// outcome. Each edge stands for a direct read: a criterion that reads a
// field only through a value has an edge from the value, not the field, so
// the computation between them is drawn. The outcome reads groups only,
// so no value has an edge to it.
type GraphEdgeType string

// The six edge types of the graph (docs/api.md#the-graph).
const (
	EdgeFieldToCriterion GraphEdgeType = "field_to_criterion"
	EdgeFieldToValue     GraphEdgeType = "field_to_value"
	EdgeValueToValue     GraphEdgeType = "value_to_value"
	EdgeValueToCriterion GraphEdgeType = "value_to_criterion"
	EdgeCriterionToGroup GraphEdgeType = "criterion_to_group"
	EdgeGroupToOutcome   GraphEdgeType = "group_to_outcome"
)

// OpDiscretionary is the operator of the display.expr shown for a
// discretionary criterion, which has no compiled expression: display.expr is
// always populated (docs/api.md#expressions-displayexpr), and an operator no evaluator knows is more
// honest than a constant that pretends to decide. It never appears in a
// compiled Ruleset.
const OpDiscretionary engine.Operator = "discretionary"

// Node id prefixes. Ids are "<kind>:<declared id>" (and "outcome" for the
// one outcome node), so they are stable across versions of a ruleset that
// keep their ids, unique within a ruleset because each kind has its own
// namespace, and readable in a diagram or a log.
const (
	fieldNodePrefix     = "field:"
	valueNodePrefix     = "value:"
	criterionNodePrefix = "criterion:"
	groupNodePrefix     = "group:"
	outcomeNodeID       = "outcome"
)

// Graph is the graph object (docs/api.md#the-graph): every node and edge of one ruleset (or,
// composed by a rulebook, of several), the sections it covers and counts
// for a summary. Build one with NewGraph.
type Graph struct {
	// Nodes are the field nodes in declaration order, then the value
	// nodes in declaration order, then each group's criterion nodes, then
	// the group nodes, then the outcome node.
	Nodes []GraphNode `json:"nodes"`
	// Edges join node ids the way a decision flows; a group the outcome
	// does not read has no edge to it.
	Edges []GraphEdge `json:"edges"`
	// Sections are the slugs of the sections drawn: one for a ruleset
	// (its publish slug, else its own slug, else its section id).
	Sections []string `json:"sections"`
	// Stats are the counts for a summary line.
	Stats GraphStats `json:"stats"`
}

// GraphStats are the counts graph.stats reports (docs/api.md#the-graph).
type GraphStats struct {
	// TotalFields counts the field nodes.
	TotalFields int `json:"total_fields"`
	// SharedFields counts fields read by more than one section; it is
	// always 0 for a single ruleset and is set by rulebook composition.
	SharedFields int `json:"shared_fields"`
	// TotalCriteria counts the criterion nodes.
	TotalCriteria int `json:"total_criteria"`
	// TotalGroups counts the group nodes.
	TotalGroups int `json:"total_groups"`
	// Sections counts the sections drawn: 1 for a single ruleset.
	Sections int `json:"sections"`
	// TotalValues counts the value nodes (named values and tables). It is
	// left out when there are none, so the graph of a ruleset without
	// values is byte for byte what it was before values existed.
	TotalValues int `json:"total_values,omitempty"`
}

// GraphEdge is a directed edge {source, target, type} between node ids.
type GraphEdge struct {
	// Source is the id of the node the edge leaves (upstream).
	Source string `json:"source"`
	// Target is the id of the node the edge enters (downstream).
	Target string `json:"target"`
	// Type names the kinds of node the edge joins.
	Type GraphEdgeType `json:"type"`
}

// GraphNode is one node. Which members are meaningful depends on Type, and
// MarshalJSON writes exactly the members of that type (see there), so one
// Go type serves all five shapes without empty keys leaking between them.
type GraphNode struct {
	// ID is unique in the graph: "field:<field id>", "value:<name>",
	// "criterion:<id>", "group:<id>" or "outcome"; a rulebook's composed graph prefixes
	// every id but the outcome's with "<section slug>:" (rulebook's
	// Composed.Graph).
	ID string `json:"id"`
	// Type is what the node stands for; it says which members below are
	// meaningful.
	Type GraphNodeType `json:"type"`
	// Label is the short text a diagram shows: a field's plain name, a
	// value's, criterion's or group's title, the ruleset's name for the
	// outcome.
	Label string `json:"label"`
	// SectionID is the section the node belongs to.
	SectionID string `json:"section_id"`

	// Title is a value's, criterion's or group's declared title.
	Title string `json:"title"`
	// Group is a criterion's group id (as declared, not a node id).
	Group string `json:"group"`
	// Fields are the field ids a criterion or value reads, directly or
	// through named values, in declaration order: the answers it rests
	// on. The edges draw only its direct reads.
	Fields []string `json:"fields"`
	// Display is how a criterion reads: sentence, expression and routes.
	Display *Display `json:"display"`

	// Kind is a group's all/any.
	Kind engine.GroupKind `json:"kind"`

	// Key is a field node's field id.
	Key string `json:"key"`
	// FieldType is a field node's sort.
	FieldType engine.Sort `json:"field_type"`
	// Question is a field node's question text; empty when the rules
	// file gives none.
	Question string `json:"question"`

	// Expr is the outcome node's expression over group ids.
	Expr *engine.Expr `json:"expr"`

	// ValueType is a value node's type: int, decimal, bool or date.
	ValueType engine.Sort `json:"value_type"`
	// Unit is what a value node's figure counts ("USD"); empty when the
	// rules give none.
	Unit string `json:"unit"`
	// Table marks a value node that is a table (looked up by keys, or by
	// the decision date's period) rather than a value with an expression.
	Table bool `json:"table"`
	// Definition is a value node's definition in the rules language: its
	// expression as `eligo fmt` prints it, or a table's keys line, rows
	// and periods (see tableDefinition).
	Definition string `json:"definition"`
	// Citations are a value node's cite lines as the rules declare them
	// (source id and quote), shared read-only with the ruleset. They are
	// not source references: those are converted for each caller, with
	// what publishing verified, where references reach one (the
	// explanation's values carry them, docs/api.md#source-references).
	Citations []engine.Citation `json:"citations"`

	// Overlay is the node's state in one evaluation, nil (JSON null)
	// when the graph was built without one.
	Overlay *Overlay `json:"overlay"`
}

// Display is a criterion node's display object.
type Display struct {
	// Sentence is the criterion in plain language; never empty.
	Sentence string `json:"sentence"`
	// Expr is the compiled expression exactly as display.expr shows it;
	// for a discretionary criterion an OpDiscretionary node with no args.
	Expr *engine.Expr `json:"expr"`
	// Routes is the criterion's and/or structure as a tree, or nil (JSON
	// null) when there is no choice to show: a discretionary criterion or
	// an expression whose top is not "and" or "or".
	Routes *Route `json:"routes"`
}

// RouteKind is how a route node combines its children.
type RouteKind string

// Route kinds: a single condition, all children, or any child.
const (
	RouteLeaf  RouteKind = "leaf"
	RouteAllOf RouteKind = "all_of"
	RouteAnyOf RouteKind = "any_of"
)

// Route is one node of a criterion's route tree: the ways the criterion can
// be met, so a client can show "either this, or both of these". Only "and"
// and "or" branch; anything else is a leaf.
type Route struct {
	// ID is the criterion node id plus "/route", then ".<child index>"
	// per level: "criterion:contract/route.1.0".
	ID string `json:"id"`
	// Kind is leaf, or all_of / any_of for an "and" / "or" node.
	Kind RouteKind `json:"kind"`
	// Label is Expr in plain language (Ruleset.Sentence).
	Label string `json:"label"`
	// Expr is the subexpression this route node stands for.
	Expr *engine.Expr `json:"expr"`
	// Children are the routes of Expr's operands, in order; nil for a
	// leaf.
	Children []*Route `json:"children,omitempty"`
	// Overlay is Expr's status in one evaluation and the answered fields
	// it reads; nil (JSON null) without an evaluation.
	Overlay *Overlay `json:"overlay"`
}

// Overlay is a node's state in one evaluation: {status,
// supporting_facts[]} (docs/api.md#the-graph). On a field node Status says whether the answer can
// be used: satisfied when answered, not_satisfied when sent but unusable (a
// field error), pending when unanswered; its fact is the answer itself. On
// a value node Status says whether the figure is known: satisfied when the
// decision computed it (Figure holds it; for a bool value satisfied means
// known, whether true or false), pending when it did not (the answers do
// not settle it, or the decision did not need it); its facts are the
// answered fields the value rests on.
type Overlay struct {
	// Status is the node's status in the evaluation (for the outcome
	// node: satisfied, not_satisfied or pending for eligible,
	// not_eligible or undetermined).
	Status engine.Status `json:"status"`
	// Figure is a value node's figure in the evaluation: a number,
	// true/false or a "YYYY-MM-DD" date, JSON null while pending. Nil, and
	// so left out, on every other node and on routes.
	Figure json.RawMessage `json:"figure,omitempty"`
	// SupportingFacts are the answers the node rests on, as in the
	// explanation; never nil.
	SupportingFacts []engine.Fact `json:"supporting_facts"`
}

// MarshalJSON writes the members of the node's type, in the documented order
// (the OpenAPI document's GraphNode), with overlay always present (null without an evaluation):
//
//	field:     id type label section_id key field_type question overlay
//	value:     id type label title section_id value_type unit table fields definition citations overlay
//	criterion: id type label title section_id group fields display overlay
//	group:     id type label title section_id kind overlay
//	outcome:   id type label section_id expr overlay
func (n GraphNode) MarshalJSON() ([]byte, error) {
	switch n.Type {
	case NodeTypeField:
		return json.Marshal(struct {
			ID        string        `json:"id"`
			Type      GraphNodeType `json:"type"`
			Label     string        `json:"label"`
			SectionID string        `json:"section_id"`
			Key       string        `json:"key"`
			FieldType engine.Sort   `json:"field_type"`
			Question  string        `json:"question"`
			Overlay   *Overlay      `json:"overlay"`
		}{n.ID, n.Type, n.Label, n.SectionID, n.Key, n.FieldType, n.Question, n.Overlay})
	case NodeTypeValue:
		citations := n.Citations
		if citations == nil {
			citations = []engine.Citation{}
		}
		return json.Marshal(struct {
			ID         string            `json:"id"`
			Type       GraphNodeType     `json:"type"`
			Label      string            `json:"label"`
			Title      string            `json:"title"`
			SectionID  string            `json:"section_id"`
			ValueType  engine.Sort       `json:"value_type"`
			Unit       string            `json:"unit"`
			Table      bool              `json:"table"`
			Fields     []string          `json:"fields"`
			Definition string            `json:"definition"`
			Citations  []engine.Citation `json:"citations"`
			Overlay    *Overlay          `json:"overlay"`
		}{n.ID, n.Type, n.Label, n.Title, n.SectionID, n.ValueType, n.Unit, n.Table, nonNil(n.Fields),
			n.Definition, citations, n.Overlay})
	case NodeTypeCriterion:
		return json.Marshal(struct {
			ID        string        `json:"id"`
			Type      GraphNodeType `json:"type"`
			Label     string        `json:"label"`
			Title     string        `json:"title"`
			SectionID string        `json:"section_id"`
			Group     string        `json:"group"`
			Fields    []string      `json:"fields"`
			Display   *Display      `json:"display"`
			Overlay   *Overlay      `json:"overlay"`
		}{n.ID, n.Type, n.Label, n.Title, n.SectionID, n.Group, nonNil(n.Fields), n.Display, n.Overlay})
	case NodeTypeGroup:
		return json.Marshal(struct {
			ID        string           `json:"id"`
			Type      GraphNodeType    `json:"type"`
			Label     string           `json:"label"`
			Title     string           `json:"title"`
			SectionID string           `json:"section_id"`
			Kind      engine.GroupKind `json:"kind"`
			Overlay   *Overlay         `json:"overlay"`
		}{n.ID, n.Type, n.Label, n.Title, n.SectionID, n.Kind, n.Overlay})
	default:
		return json.Marshal(struct {
			ID        string        `json:"id"`
			Type      GraphNodeType `json:"type"`
			Label     string        `json:"label"`
			SectionID string        `json:"section_id"`
			Expr      *engine.Expr  `json:"expr"`
			Overlay   *Overlay      `json:"overlay"`
		}{n.ID, n.Type, n.Label, n.SectionID, n.Expr, n.Overlay})
	}
}

// nonNil is fields, or an empty list for nil, so JSON shows [] rather than
// null.
func nonNil(fields []string) []string {
	if fields == nil {
		return []string{}
	}
	return fields
}

// Graph builds the graph of the ruleset (docs/api.md#the-graph). slug is the slug the
// ruleset is published under; when empty, the ruleset's own `ruleset` header
// is used, and when that is empty too, its section id, so graph.sections
// always names the section.
//
// Without an evaluation (in and res nil) every overlay is null: that is the
// GET /rulesets/{id}/graph body. With one (the graph_overlay of /decide),
// pass the Inputs and the Result they were evaluated into; every node and
// route then carries {status, supporting_facts}. res.Explanation is used for
// the supporting facts when present and computed otherwise, so the overlay
// and the decision's explanation always cite the same facts.
func NewGraph(ruleset *engine.Ruleset, slug string, in *engine.Inputs, res *engine.Result) *Graph {
	r := rules{ruleset}
	if slug == "" {
		slug = r.Slug
	}
	if slug == "" {
		slug = r.SectionID
	}
	var ov *overlayer
	if res != nil {
		ov = newOverlayer(ruleset, in, res)
	}
	nc, nv := r.NumCriteria(), len(r.Values)
	g := &Graph{
		Nodes:    make([]GraphNode, 0, len(r.Fields)+nv+nc+len(r.Groups)+1),
		Edges:    make([]GraphEdge, 0, 2*nc+2*nv+len(r.Groups)),
		Sections: []string{slug},
		Stats: GraphStats{
			TotalFields:   len(r.Fields),
			TotalCriteria: nc,
			TotalGroups:   len(r.Groups),
			Sections:      1,
			TotalValues:   nv,
		},
	}
	for s := range r.Fields {
		f := &r.Fields[s]
		g.Nodes = append(g.Nodes, GraphNode{
			ID: fieldNodePrefix + f.ID, Type: NodeTypeField, Label: r.fieldNoun(s), SectionID: r.SectionID,
			Key: f.ID, FieldType: f.Type, Question: f.Question, Overlay: ov.field(s),
		})
	}
	reads := newDirectReads(r.Ruleset)
	for vi := range r.Values {
		v := &r.Values[vi]
		vid := valueNodePrefix + v.ID
		g.Nodes = append(g.Nodes, GraphNode{
			ID: vid, Type: NodeTypeValue, Label: v.Title, Title: v.Title, SectionID: r.SectionID,
			ValueType: v.Type, Unit: v.Unit, Table: v.Table, Fields: v.Fields, Definition: valueDefinition(v),
			Citations: v.Citations, Overlay: ov.value(vi),
		})
		g.Edges = reads.edges(g.Edges, vid, v.Slots, EdgeFieldToValue, EdgeValueToValue, v.Exprs()...)
	}
	for gi := range r.Groups {
		grp := &r.Groups[gi]
		gid := groupNodePrefix + grp.ID
		for ci := range grp.Criteria {
			c := &grp.Criteria[ci]
			cid := criterionNodePrefix + c.ID
			g.Nodes = append(g.Nodes, GraphNode{
				ID: cid, Type: NodeTypeCriterion, Label: c.Title, Title: c.Title, SectionID: r.SectionID,
				Group: grp.ID, Fields: c.Fields, Display: r.display(cid, c, ov), Overlay: ov.criterion(r.CriterionIndex(gi, ci)),
			})
			g.Edges = reads.edges(g.Edges, cid, c.Slots, EdgeFieldToCriterion, EdgeValueToCriterion, c.Expr)
			g.Edges = append(g.Edges, GraphEdge{Source: cid, Target: gid, Type: EdgeCriterionToGroup})
		}
	}
	used := outcomeGroups(r.Outcome, make([]bool, len(r.Groups)))
	for gi := range r.Groups {
		grp := &r.Groups[gi]
		gid := groupNodePrefix + grp.ID
		g.Nodes = append(g.Nodes, GraphNode{
			ID: gid, Type: NodeTypeGroup, Label: grp.Title, Title: grp.Title, SectionID: r.SectionID,
			Kind: grp.Kind, Overlay: ov.group(gi),
		})
		if used[gi] {
			g.Edges = append(g.Edges, GraphEdge{Source: gid, Target: outcomeNodeID, Type: EdgeGroupToOutcome})
		}
	}
	g.Nodes = append(g.Nodes, GraphNode{
		ID: outcomeNodeID, Type: NodeTypeOutcome, Label: r.Name, SectionID: r.SectionID,
		Expr: r.Outcome, Overlay: ov.outcome(),
	})
	return g
}

// outcomeGroups marks the groups the outcome expression reads: only those
// get an edge to the outcome (a group the outcome leaves out is drawn but
// decides nothing).
func outcomeGroups(e *engine.Expr, used []bool) []bool {
	if e == nil {
		return used
	}
	if e.Kind == engine.ExprGroup && e.Slot >= 0 && e.Slot < len(used) {
		used[e.Slot] = true
	}
	for _, a := range e.Args {
		outcomeGroups(a, used)
	}
	return used
}

// discretionaryExpr stands in display.expr for a criterion with none.
var discretionaryExpr = engine.Expr{Kind: engine.ExprOp, Sort: engine.SortBool, Op: OpDiscretionary}

// display builds a criterion node's display object.
func (r rules) display(nodeID string, c *engine.Criterion, ov *overlayer) *Display {
	d := &Display{Sentence: CriterionSentence(r.Ruleset, c), Expr: c.Expr}
	if c.Expr == nil {
		d.Expr = &discretionaryExpr
		return d
	}
	if c.Expr.Kind == engine.ExprOp && (c.Expr.Op == engine.OpAnd || c.Expr.Op == engine.OpOr) {
		d.Routes = r.route(nodeID+"/route", c.Expr, ov)
	}
	return d
}

// route builds the route tree of e: "and" and "or" branch, anything else
// is a leaf labelled with its sentence.
func (r rules) route(id string, e *engine.Expr, ov *overlayer) *Route {
	rt := &Route{ID: id, Kind: RouteLeaf, Label: Sentence(r.Ruleset, e), Expr: e, Overlay: ov.expr(e)}
	if e.Kind != engine.ExprOp || (e.Op != engine.OpAnd && e.Op != engine.OpOr) {
		return rt
	}
	rt.Kind = RouteAllOf
	if e.Op == engine.OpOr {
		rt.Kind = RouteAnyOf
	}
	rt.Children = make([]*Route, len(e.Args))
	for i, a := range e.Args {
		rt.Children[i] = r.route(id+"."+strconv.Itoa(i), a, ov)
	}
	return rt
}

// overlayer computes overlays for one evaluation. A nil *overlayer stands
// for "no evaluation" and yields nil overlays, so the builder needs no
// branches.
type overlayer struct {
	// r is the ruleset the graph is built from.
	r *engine.Ruleset
	// in are the evaluated inputs; all unknown when the caller passed
	// none or a mismatched set.
	in *engine.Inputs
	// res is the evaluation being overlaid.
	res *engine.Result
	// exp is res.Explanation, or one computed for the overlay when the
	// evaluation did not ask for it.
	exp *engine.Explanation
	// crit holds each criterion's facts (flat index), from exp.
	crit [][]engine.Fact
	// groupFacts holds each group's criteria's facts, without repeats.
	groupFacts [][]engine.Fact
	// bad holds the ids of fields with a field error: their overlay is
	// not_satisfied.
	bad map[string]bool
}

func newOverlayer(r *engine.Ruleset, in *engine.Inputs, res *engine.Result) *overlayer {
	if in == nil || len(in.Values) != len(r.Fields) {
		in = &engine.Inputs{Values: make([]value.Value, len(r.Fields))}
	}
	ov := &overlayer{r: r, in: in, res: res, exp: res.Explanation, bad: map[string]bool{}}
	if ov.exp == nil || len(ov.exp.Groups) != len(r.Groups) {
		ov.exp = r.Explain(in, res)
	}
	ov.groupFacts = make([][]engine.Fact, len(r.Groups))
	for gi, ge := range ov.exp.Groups {
		for _, ce := range ge.Criteria {
			ov.crit = append(ov.crit, ce.SupportingFacts)
			ov.groupFacts[gi] = appendFacts(ov.groupFacts[gi], ce.SupportingFacts)
		}
	}
	for _, fe := range res.FieldErrors {
		ov.bad[fe.Field] = true
	}
	return ov
}

// appendFacts adds the facts of add not already in facts, keeping order.
func appendFacts(facts, add []engine.Fact) []engine.Fact {
	for _, f := range add {
		seen := false
		for _, g := range facts {
			if g.Field == f.Field {
				seen = true
				break
			}
		}
		if !seen {
			facts = append(facts, f)
		}
	}
	return facts
}

func overlay(st engine.Status, facts []engine.Fact) *Overlay {
	if facts == nil {
		facts = []engine.Fact{}
	}
	return &Overlay{Status: st, SupportingFacts: facts}
}

func (ov *overlayer) field(slot int) *Overlay {
	if ov == nil {
		return nil
	}
	v := ov.in.Values[slot]
	switch {
	case ov.bad[ov.r.Fields[slot].ID]:
		return overlay(engine.NotSatisfied, nil)
	case v.Known:
		return overlay(engine.Satisfied, []engine.Fact{{Field: ov.r.Fields[slot].ID, Value: ov.r.ValueJSON(slot, v)}})
	}
	return overlay(engine.Pending, nil)
}

func (ov *overlayer) criterion(i int) *Overlay {
	if ov == nil {
		return nil
	}
	var facts []engine.Fact
	if i < len(ov.crit) {
		facts = ov.crit[i]
	}
	return overlay(ov.res.Criteria[i], facts)
}

func (ov *overlayer) group(gi int) *Overlay {
	if ov == nil {
		return nil
	}
	return overlay(ov.res.Groups[gi], ov.groupFacts[gi])
}

// outcome is satisfied for eligible, not_satisfied for not_eligible and
// pending for undetermined; its facts are those of the groups on the
// decision path (the groups that decided).
func (ov *overlayer) outcome() *Overlay {
	if ov == nil {
		return nil
	}
	st := engine.Pending
	switch ov.res.Outcome {
	case engine.Eligible:
		st = engine.Satisfied
	case engine.NotEligible:
		st = engine.NotSatisfied
	}
	var facts []engine.Fact
	for _, id := range ov.exp.DecisionPath {
		for gi := range ov.r.Groups {
			if ov.r.Groups[gi].ID == id {
				facts = appendFacts(facts, ov.groupFacts[gi])
			}
		}
	}
	return overlay(st, facts)
}

// expr evaluates one route's expression with the evaluator's own machine,
// under the decision date the evaluation used; its facts are the answered
// fields the expression reads, directly or through named values.
func (ov *overlayer) expr(e *engine.Expr) *Overlay {
	if ov == nil {
		return nil
	}
	st := ov.r.EvaluateExpr(e, ov.in, ov.res.DecisionDate)
	return overlay(st, ov.answered(exprSlots(ov.r, e, nil)))
}

// answered are the facts of the answered fields among slots, in their
// order.
func (ov *overlayer) answered(slots []int) []engine.Fact {
	var facts []engine.Fact
	for _, s := range slots {
		if v := ov.in.Values[s]; v.Known {
			facts = append(facts, engine.Fact{Field: ov.r.Fields[s].ID, Value: ov.r.ValueJSON(s, v)})
		}
	}
	return facts
}

// exprSlots appends the field slots e reads, each once, in reading order;
// a named value reads the fields behind it (NamedValue.Slots), as the
// criterion's own facts do.
func exprSlots(r *engine.Ruleset, e *engine.Expr, slots []int) []int {
	switch e.Kind {
	case engine.ExprField:
		return appendSlot(slots, e.Slot)
	case engine.ExprValue:
		if e.Slot >= 0 && e.Slot < len(r.Values) {
			for _, s := range r.Values[e.Slot].Slots {
				slots = appendSlot(slots, s)
			}
		}
		return slots
	}
	for _, a := range e.Args {
		slots = exprSlots(r, a, slots)
	}
	return slots
}

// appendSlot appends slot unless slots holds it already.
func appendSlot(slots []int, slot int) []int {
	for _, s := range slots {
		if s == slot {
			return slots
		}
	}
	return append(slots, slot)
}

// rules is a compiled ruleset as this package reads it: the methods that
// build a graph and its sentences hang on it, so they read the ruleset's
// fields as the engine's own methods would.
type rules struct{ *engine.Ruleset }
