package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file is the checker's half for lists of members
// (docs/language.md#households). A list is compiled into fields the rest
// of the engine already knows: one int field holding how many members
// there are (named as the list, "member"), and for each member up to the
// list's bound, one field per member field ("member[1].age"). An aggregate is
// unrolled to the bound over those fields, each member's part guarded by
// "the list has more than i members", so evaluation, the solver, the
// planner and explanations read it as any other expression: three-valued
// by Kleene's rules, linear where its parts are.

// listDecl is a checked list: its declaration, the slot of the field
// holding its length, and its member fields.
type listDecl struct {
	decl *syntax.ListDecl
	// slot is the list field's slot; max the bound.
	slot, max int
	// members are the list's member fields in declaration order.
	members []*memberField
	// failed is set when the list's fields could not be made (an error
	// says why), so that its uses are not reported again.
	failed bool
}

// memberField is a field declared under a list's element (`field
// member.age`): one declaration standing for one field per member.
type memberField struct {
	list *listDecl
	decl *syntax.FieldDecl
	// name is the field's name within a member ("age").
	name string
	// template is the field as declared; each member's is a copy named
	// and worded for that member.
	template Field
	// slots[i] is the field's slot for the i-th member.
	slots []int
}

// memberKey names one member's answer: its list, the member's index and
// the field's name within a member.
type memberKey struct {
	list  string
	index int
	name  string
}

// within is the member an expression is being checked for, inside an
// aggregate: the list and the member's index.
type within struct {
	list  *listDecl
	index int
}

// declareLists checks the list declarations and indexes them by name,
// before the fields are read; their fields are made by listFields once
// the ordinary fields have their slots.
func (c *checker) declareLists() {
	c.listByElement = map[string]*listDecl{}
	for _, ld := range c.f.Lists {
		switch {
		case !syntax.ValidIdent(ld.Name) || strings.Contains(ld.Name, "."):
			c.errorf(ld.Pos, "list name %q must be lower-case letters, digits and _", ld.Name)
			continue
		case c.listByElement[ld.Name] != nil:
			c.errorf(ld.Pos, "list %s is declared twice (first at line %d)", ld.Name, c.listByElement[ld.Name].decl.Pos.Line)
			continue
		}
		max, err := strconv.Atoi(ld.Max)
		if err != nil || max < 2 || max > syntax.MaxListMembers {
			c.errorf(ld.MaxPos, "up to %s: a list holds from 2 to %d members", ld.Max, syntax.MaxListMembers)
			continue
		}
		if strings.TrimSpace(ld.Question) == "" {
			c.errorf(ld.Pos, "list %s has no question: add `question \"How many ...?\"` to ask how many there are", ld.Name)
		}
		c.listByElement[ld.Name] = &listDecl{decl: ld, max: max}
	}
}

// memberOf returns the list whose element a field id names
// ("member.age" under `list members of member`), and the field's name
// within a member.
func (c *checker) memberOf(id string) (*listDecl, string) {
	element, name, ok := strings.Cut(id, ".")
	if !ok {
		return nil, ""
	}
	return c.listByElement[element], name
}

// listFields appends, for each list in declaration order, the field
// holding its length (named as the list) and then each member's fields, member by member.
func (c *checker) listFields() {
	for _, ld := range c.f.Lists {
		l := c.listByElement[ld.Name]
		if l == nil || l.decl != ld {
			continue
		}
		noun := ld.Noun
		if noun == "" {
			noun = "person"
		}
		if total := len(c.r.Fields) + 1 + l.max*len(l.members); total > syntax.MaxFields {
			c.errorf(ld.MaxPos, "list %s of up to %d members, each answering %d fields, makes %d fields in all, and a ruleset holds at most %d: lower the bound or ask fewer questions of each member",
				ld.Name, l.max, len(l.members), total, syntax.MaxFields)
			l.failed = true
			continue
		}
		l.slot = len(c.r.Fields)
		c.addField(ld.Name, ld.Pos, Field{ID: ld.Name, Type: SortInt, Question: ld.Question, Description: ld.Description,
			Weight: int(ld.Weight), Notes: []Note{}, Label: ld.Label,
			Range: &Range{Min: value.IntValue(0), Max: value.IntValue(int64(l.max))},
			List:  &ListInfo{Title: ld.Title, Max: l.max, Noun: noun}})
		for i := range l.max {
			who := fmt.Sprintf("%s %d", strings.ToUpper(noun[:1])+noun[1:], i+1)
			for _, m := range l.members {
				f := m.template
				f.ID = MemberFieldID(ld.Name, i, m.name)
				f.Member = &MemberOf{List: ld.Name, Index: i, Name: m.name}
				if f.Question != "" {
					f.Question = who + ": " + f.Question
				}
				if f.Label != "" {
					f.Label = who + ": " + f.Label
				}
				m.slots = append(m.slots, len(c.r.Fields))
				c.addField(m.decl.ID, m.decl.Pos, f)
			}
		}
	}
}

// addField gives field f the next slot; name is what a warning about it
// calls it (a member field's declared id, for every member).
func (c *checker) addField(name string, pos syntax.Pos, f Field) {
	c.fieldIndex[f.ID] = len(c.r.Fields)
	c.fieldPos = append(c.fieldPos, pos)
	c.fieldName = append(c.fieldName, name)
	c.fieldUsed = append(c.fieldUsed, false)
	c.r.Fields = append(c.r.Fields, f)
}

// memberRef is a member field read at n: the field of the member being
// checked, or an error outside an aggregate over its list.
func (c *checker) memberRef(n *syntax.Node, m *memberField) *Expr {
	if m.list.failed {
		return invalid()
	}
	if c.within == nil || c.within.list != m.list {
		el := m.list.decl.Name
		c.errorf(n.Pos, "%s is about one %s: read it inside count, sum, any, all, min or max, e.g. any(%s where %s ...)",
			n.Name, el, el, n.Name)
		return invalid()
	}
	slot := m.slots[c.within.index]
	c.reads[slot] = true
	return &Expr{Kind: ExprField, Sort: c.r.Fields[slot].Type, Key: c.r.Fields[slot].ID, Slot: slot}
}

// aggregate checks count, sum, any, all, min or max over a list and unrolls it to
// the list's bound: member i's part holds only when the list has more
// than i members, so a member not in the list counts for nothing, and
// the whole is unknown while the list's length is.
func (c *checker) aggregate(n *syntax.Node) *Expr {
	if c.within != nil {
		c.errorf(n.Pos, "%s inside another count, sum, any, all, min or max: name a value for the inner one and compare members with it instead", n.Name)
		return invalid()
	}
	l := c.aggregated(n)
	if l == nil || l.failed {
		return invalid()
	}
	list := &Expr{Kind: ExprField, Sort: SortInt, Key: l.decl.Name, Slot: l.slot}
	c.reads[l.slot] = true
	if n.Name == "count" && len(n.Args) == 1 {
		return list
	}
	parts := make([]*Expr, 0, l.max)
	errs, warnings := len(c.errs), len(c.warnings)
	for i := range l.max {
		c.within = &within{list: l, index: i}
		part := c.memberPart(n, list, i)
		c.within = nil
		if i == 0 {
			if len(c.errs) > errs {
				return invalid()
			}
			errs, warnings = len(c.errs), len(c.warnings)
		}
		// Each member's part is the first one again with another index:
		// what the first said about the text is not said again.
		c.errs, c.warnings = c.errs[:errs], c.warnings[:warnings]
		parts = append(parts, part)
	}
	switch n.Name {
	case "any":
		return &Expr{Kind: ExprOp, Sort: SortBool, Op: OpOr, Args: parts}
	case "all":
		return &Expr{Kind: ExprOp, Sort: SortBool, Op: OpAnd, Args: parts}
	case "min", "max":
		return c.extremum(n, parts)
	}
	return sumTree(parts)
}

// extremum is min or max over the members' parts (memberPart): the least
// or greatest term of the members counted, or the value after else when
// none is. A part not counted holds a number beyond every value the
// engine reaches, which never wins.
func (c *checker) extremum(n *syntax.Node, parts []*Expr) *Expr {
	_, otherwise := syntax.AggregateParts(n)
	dflt := c.expr(otherwise)
	if !c.wantNumber(otherwise, dflt, n.Name+"(... else") {
		return invalid()
	}
	counted := make([]*Expr, len(parts))
	for i, part := range parts {
		if part.Kind != ExprOp {
			return invalid() // a member's part that failed, said once for the first
		}
		counted[i] = part.Args[0]
	}
	sort := numericSort(parts[0].Sort, dflt.Sort)
	return &Expr{Kind: ExprOp, Sort: sort, Op: OpIf, Args: []*Expr{
		{Kind: ExprOp, Sort: SortBool, Op: OpOr, Args: counted},
		{Kind: ExprOp, Sort: parts[0].Sort, Op: Operator(n.Name), Args: parts},
		dflt}}
}

// uncountedNum is the number min and max give a member they do not count:
// the largest number of 18 digits, the most the engine holds
// (docs/limits.md), so that no counted member's number is beyond it and
// the least or greatest of the parts is always a counted member's.
const uncountedNum = 999_999_999_999_999_999

// uncounted is the part of a member that min or max does not count: for
// max the least number the engine holds, for min the greatest.
func uncounted(op string, sort Sort) *Expr {
	v := value.IntValue(uncountedNum)
	if op == "max" {
		v.Num = -uncountedNum
	}
	return &Expr{Kind: ExprConst, Sort: sort, Const: v}
}

// isUncounted reports whether e is uncounted's number.
func isUncounted(e *Expr) bool {
	return e.Kind == ExprConst && e.Const.Scale == 0 && (e.Const.Num == uncountedNum || e.Const.Num == -uncountedNum)
}

// aggregated is the list an aggregate at n is over: the element its first
// argument names (count, any, all), or the one whose fields the sum reads.
func (c *checker) aggregated(n *syntax.Node) *listDecl {
	term := n.Args[0]
	if n.Name == "count" || n.Name == "any" || n.Name == "all" {
		if term.Kind != syntax.NodeIdent || c.listByElement[term.Name] == nil {
			c.errorf(n.Pos, "%s( takes the name of one member of a list, e.g. %s(member where member.age < 5)%s",
				n.Name, n.Name, c.elementHint())
			return nil
		}
		if n.Name != "count" && len(n.Args) == 1 {
			c.errorf(n.Pos, "%s(%s) needs a condition: %s(%s where ...)", n.Name, term.Name, n.Name, term.Name)
			return nil
		}
		return c.listByElement[term.Name]
	}
	var found *listDecl
	var walk func(x *syntax.Node)
	walk = func(x *syntax.Node) {
		if x.Kind == syntax.NodeField {
			if l, _ := c.memberOf(x.Name); l != nil && found == nil {
				found = l
			}
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(term)
	if found == nil {
		what := "adds up a member field over a list's members, e.g. sum(member.income)"
		if n.Name != "sum" {
			what = fmt.Sprintf("compares a member field over a list's members, e.g. %s(member.income else 0)", n.Name)
		}
		c.errorf(n.Pos, "%s( %s; this one reads none%s", n.Name, what, c.elementHint())
	}
	return found
}

// elementHint names the lists' elements for an aggregate's message.
func (c *checker) elementHint() string {
	var names []string
	for _, ld := range c.f.Lists {
		if c.listByElement[ld.Name] != nil {
			names = append(names, ld.Name)
		}
	}
	if len(names) == 0 {
		return "; the ruleset declares no list: add `list member \"People in the household\" up to 16`"
	}
	return "; the ruleset's members are " + strings.Join(names, ", ")
}

// memberPart is member i's part of the aggregate n: its condition for any
// and all (any: "is a member and meets it"; all: "is no member, or meets
// it"), its term or 0 for sum, 1 or 0 for count.
func (c *checker) memberPart(n *syntax.Node, list *Expr, i int) *Expr {
	inList := &Expr{Kind: ExprOp, Sort: SortBool, Op: OpGt, Args: []*Expr{list,
		{Kind: ExprConst, Sort: SortInt, Const: value.IntValue(int64(i)), FieldContext: list.Key}}}
	var cond *Expr
	if where, _ := syntax.AggregateParts(n); where != nil {
		cond = c.expr(where)
		if !c.wantBool(where, cond, n.Name+"(... where") {
			return invalid()
		}
	}
	switch n.Name {
	case "any":
		return &Expr{Kind: ExprOp, Sort: SortBool, Op: OpAnd, Args: []*Expr{inList, cond}}
	case "all":
		return &Expr{Kind: ExprOp, Sort: SortBool, Op: OpOr, Args: []*Expr{
			{Kind: ExprOp, Sort: SortBool, Op: OpNot, Args: []*Expr{inList}}, cond}}
	}
	term := &Expr{Kind: ExprConst, Sort: SortInt, Const: value.IntValue(1)}
	if n.Name != "count" {
		term = c.expr(n.Args[0])
		if !c.wantNumber(n.Args[0], term, n.Name+"(") {
			return invalid()
		}
	}
	counted := inList
	if cond != nil {
		counted = &Expr{Kind: ExprOp, Sort: SortBool, Op: OpAnd, Args: []*Expr{inList, cond}}
	}
	other := &Expr{Kind: ExprConst, Sort: term.Sort, Const: value.IntValue(0)}
	if n.Name == "min" || n.Name == "max" {
		other = uncounted(n.Name, term.Sort)
	}
	return &Expr{Kind: ExprOp, Sort: term.Sort, Op: OpIf, Args: []*Expr{counted, term, other}}
}

// sumTree adds parts as a balanced tree, so that the sum of a list's
// members nests as deep as the logarithm of its bound, not the bound.
func sumTree(parts []*Expr) *Expr {
	if len(parts) == 1 {
		return parts[0]
	}
	left, right := sumTree(parts[:len(parts)/2]), sumTree(parts[len(parts)/2:])
	return &Expr{Kind: ExprOp, Sort: numericSort(left.Sort, right.Sort), Op: OpAdd, Args: []*Expr{left, right}}
}

// InList reports whether field slot can be answered given in: any field
// but a member's, and a member's only once its list is known to hold that
// member. A member beyond the list's length is no one to ask about, and no
// request can answer for one.
func (r *Ruleset) InList(slot int, in *Inputs) bool {
	m := r.Fields[slot].Member
	if m == nil {
		return true
	}
	n := in.Values[r.FieldIndex(m.List)]
	return n.Known && int64(m.Index) < n.Num
}

// Complete reports whether in answers every question an applicant can be
// asked: every field is answered except the members beyond their list's
// length, which no request can answer. It is what "every question
// answered" means for a ruleset with a household: a complete household of
// two leaves the third member's fields empty.
func (r *Ruleset) Complete(in *Inputs) bool {
	for s := range in.Values {
		if !r.CompleteAt(s, in) {
			return false
		}
	}
	return true
}

// CompleteAt reports whether in answers field slot as a complete answer
// set does (Complete): answered, but a member's only while its list holds
// it.
func (r *Ruleset) CompleteAt(slot int, in *Inputs) bool {
	return in.Values[slot].Known == r.InList(slot, in)
}

// WireAnswers writes values, one per field of r, as the field_values of a
// request: every field, unanswered ones as null, or with knownOnly only
// the answered ones. A list is written as /decide reads it, a JSON list of
// one object per member holding that member's answers by name, as long as
// its length says; a list whose length is unknown is null (or left out),
// and its members' answers with it. The solver's examples (diff
// witnesses, suggested cases) are written so, to be sent as they are.
func (r *Ruleset) WireAnswers(values []value.Value, knownOnly bool) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	member := func(slot int) {
		f := &r.Fields[slot]
		v := values[slot]
		if knownOnly && !v.Known {
			return
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		name := f.ID
		if f.Member != nil {
			name = f.Member.Name
		}
		key, _ := json.Marshal(name) // a string always marshals
		b.Write(key)
		b.WriteByte(':')
		b.Write(r.ValueJSON(slot, v))
	}
	for slot := range r.Fields {
		f := &r.Fields[slot]
		switch {
		case f.Member != nil:
			continue
		case f.List == nil:
			member(slot)
			continue
		}
		n := values[slot]
		if !n.Known {
			if !knownOnly {
				member(slot)
			}
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(f.ID)
		b.Write(key)
		b.WriteString(":[")
		for i := range int(n.Num) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('{')
			first = true
			for s := range r.Fields {
				if m := r.Fields[s].Member; m != nil && m.List == f.ID && m.Index == i {
					member(s)
				}
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
		first = false
	}
	b.WriteByte('}')
	return b.Bytes()
}

// NestMembers returns answers written flat, as a spreadsheet's columns
// are ("member" = 2, "member[0].age" = 34), in the shape /decide reads a
// household: each list's count becomes a list of that many objects, and
// each member's answer goes into its member's object (an answer about a
// member beyond the count is dropped). Answers with nothing flat about a
// list are returned as they are.
func (r *Ruleset) NestMembers(answers map[string]any) map[string]any {
	flat := false
	for k, v := range answers {
		s := r.FieldIndex(k)
		if s < 0 {
			continue
		}
		if f := &r.Fields[s]; f.Member != nil || f.List != nil && isNumber(v) {
			flat = true
			break
		}
	}
	if !flat {
		return answers
	}
	out := make(map[string]any, len(answers))
	for k, v := range answers {
		s := r.FieldIndex(k)
		if s >= 0 && r.Fields[s].Member != nil {
			continue
		}
		if s >= 0 && r.Fields[s].List != nil && isNumber(v) {
			n, _ := numberText(v)
			count, err := strconv.Atoi(n)
			if err != nil || count < 0 || count > r.Fields[s].List.Max {
				out[k] = v // left for Convert to refuse
				continue
			}
			members := make([]any, count)
			for i := range members {
				members[i] = map[string]any{}
			}
			v = members
		}
		out[k] = v
	}
	for k, v := range answers {
		s := r.FieldIndex(k)
		if s < 0 || r.Fields[s].Member == nil {
			continue
		}
		m := r.Fields[s].Member
		if members, ok := out[m.List].([]any); ok && m.Index < len(members) {
			members[m.Index].(map[string]any)[m.Name] = v
		}
	}
	return out
}

// isNumber reports whether v is a number as a decoded answer holds one.
func isNumber(v any) bool {
	_, ok := numberText(v)
	return ok
}
