package engine

import (
	"slices"
	"sort"
	"strings"

	"github.com/eligo/eligo/engine/syntax"
)

// This file is the checker's half for named values: their declarations,
// the order they are checked in (each after the values it reads, so a
// cycle is one error that names it), and the fields each reads through
// the others.

// valueTypes are the types a value may declare: an enum value would need
// its own list of values, which a field declares, not a computation.
var valueTypes = map[string]Sort{"int": SortInt, "decimal": SortDecimal, "bool": SortBool, "date": SortDate}

// reserved are the words an expression gives a meaning of its own, so no
// value may be named by one.
var reserved = map[string]bool{"and": true, "or": true, "not": true, "in": true, "true": true, "false": true,
	"if": true, "then": true, "else": true}

// memberValue is a value declared under a list's element (`value
// member.countable_income`): one declaration standing for one value per
// member, as a member field does. Its copies are the values first to
// first + the list's bound - 1, named "member[i].countable_income".
type memberValue struct {
	list  *listDecl
	first int
}

// values declares every value, then checks their expressions in an order
// where each comes after the values it reads. A member's value is declared
// once per member of its list, each copy checked as that member's.
func (c *checker) values() {
	c.valueIndex = map[string]int{}
	c.memberValues = map[string]*memberValue{}
	var decls []*syntax.ValueDecl
	var member []int // per value: the member a copy is for, or -1
	declaredAt := map[string]int{}
	for _, vd := range c.f.Values {
		b := vd.Body
		if b.ID == "" {
			continue // its header failed before the name; the parser said so
		}
		if line, dup := declaredAt[b.ID]; dup {
			c.errorf(b.Pos, "value %s is declared twice (first at line %d)", b.ID, line)
			continue
		}
		declaredAt[b.ID] = b.Pos.Line
		ids, list := []string{b.ID}, (*listDecl)(nil)
		if strings.Contains(b.ID, ".") {
			l, name := c.memberOf(b.ID)
			switch {
			case l == nil:
				c.errorf(b.Pos, "value %s: a value's name has a dot only when it is each member's value, named after a list (value member.countable_income)%s", b.ID, c.elementHint())
				continue
			case l.failed:
				continue
			case c.memberFields[b.ID] != nil:
				c.errorf(b.Pos, "value %s has the name of a member's field", b.ID)
				continue
			}
			if vd.Output {
				// A decision's outputs are the household's figures; a
				// member beyond the household would show as unknown.
				c.errorf(b.Pos, "value %s is each %s's own, and only a household's figure can be an output: output a sum, count, min or max of it instead", b.ID, l.decl.Name)
			}
			if total := len(c.r.Values) + l.max; total > syntax.MaxValues {
				c.errorf(b.Pos, "value %s is one value for each of up to %d members, which makes %d values in all, and a ruleset holds at most %d: lower the list's bound or name fewer values of each member",
					b.ID, l.max, total, syntax.MaxValues)
				continue
			}
			list, ids = l, make([]string, l.max)
			for k := range ids {
				ids[k] = MemberFieldID(l.decl.Name, k, name)
			}
			c.memberValues[b.ID] = &memberValue{list: l, first: len(c.r.Values)}
		}
		if reserved[b.ID] || isFunction(b.ID) {
			c.errorf(b.Pos, "%s cannot name a value: it is a word of the language", b.ID)
		}
		sort, ok := valueTypes[vd.Type]
		if !ok {
			c.errorf(vd.TypePos, "unknown type %q for value %s: use int, decimal, bool or date", vd.Type, b.ID)
		}
		if vd.Table && ok && !sort.Numeric() {
			c.errorf(vd.TypePos, "table %s holds figures: its type is int or decimal, not %s", b.ID, vd.Type)
		}
		if vd.Unit != "" && !sort.Numeric() {
			c.errorf(vd.TypePos, "unit on %s value %s: only a number has a unit", vd.Type, b.ID)
		}
		for k, id := range ids {
			who := k
			if list == nil {
				c.valueIndex[id], who = len(c.r.Values), -1
			}
			c.r.Values = append(c.r.Values, NamedValue{ID: id, Title: b.Title, Type: sort, Unit: vd.Unit,
				Output: vd.Output, Table: vd.Table, Citations: []Citation{}, Fields: []string{}})
			decls, member = append(decls, vd), append(member, who)
		}
	}
	c.valueUsed = make([]bool, len(decls))
	c.valueSlots = make([][]int, len(decls))
	c.valueDecls = decls
	order, ok := c.valueOrder(decls, member)
	if !ok {
		return
	}
	for _, i := range order {
		if member[i] < 0 {
			c.value(i, decls[i])
			continue
		}
		// Each member's copy is the first one again with another
		// index: what the first said about the text is not said again.
		errs, warnings := len(c.errs), len(c.warnings)
		c.within = &within{list: c.memberValues[decls[i].Body.ID].list, index: member[i]}
		c.value(i, decls[i])
		c.within = nil
		if member[i] > 0 {
			c.errs, c.warnings = c.errs[:errs], c.warnings[:warnings]
		}
	}
}

// valueOrder sorts the values so that each comes after every value its
// expression names, reporting each cycle once (by the first value of it
// in declaration order) with the path that closes it.
func (c *checker) valueOrder(decls []*syntax.ValueDecl, member []int) (order []int, ok bool) {
	deps := make([][]int, len(decls))
	for i, vd := range decls {
		for _, n := range declNodes(vd) {
			deps[i] = c.namedValues(n, member[i], deps[i])
		}
	}
	const (
		unseen = iota
		open
		done
	)
	state := make([]uint8, len(decls))
	ok = true
	var path []int
	var visit func(i int)
	visit = func(i int) {
		switch state[i] {
		case done:
			return
		case open:
			start := slices.Index(path, i)
			names := make([]string, 0, len(path)-start+1)
			for _, j := range path[start:] {
				names = append(names, decls[j].Body.ID)
			}
			names = append(names, decls[i].Body.ID)
			c.errorf(decls[i].Body.Pos, "value %s depends on itself: %s; a value cannot be defined from itself",
				decls[i].Body.ID, strings.Join(names, " → "))
			ok = false
			return
		}
		state[i] = open
		path = append(path, i)
		for _, j := range deps[i] {
			visit(j)
		}
		path = path[:len(path)-1]
		state[i] = done
		order = append(order, i)
	}
	for i := range decls {
		visit(i)
	}
	return order, ok
}

// namedValues appends to out the indexes of the declared values n names,
// each once, in the order first named: a member's value is member k's copy
// in member k's value, and every copy elsewhere (an aggregate reads them
// all).
func (c *checker) namedValues(n *syntax.Node, k int, out []int) []int {
	if n == nil {
		return out
	}
	add := func(i int) {
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	if i, ok := c.valueIndex[n.Name]; ok && n.Kind == syntax.NodeIdent {
		add(i)
	}
	if mv := c.memberValues[n.Name]; mv != nil && n.Kind == syntax.NodeField {
		for j := range mv.list.max {
			if k < 0 || j == k {
				add(mv.first + j)
			}
		}
	}
	for _, a := range n.Args {
		out = c.namedValues(a, k, out)
	}
	return out
}

// declNodes are the expressions of a value or table declaration: its
// expression, or its keys and the figures of its rows.
func declNodes(vd *syntax.ValueDecl) []*syntax.Node {
	var out []*syntax.Node
	if vd.Body.Expr != nil {
		out = append(out, vd.Body.Expr)
	}
	out = append(out, vd.Keys...)
	rows := vd.Rows
	for _, p := range vd.Periods {
		rows = append(rows, p.Rows...)
	}
	for _, r := range rows {
		if r.Value != nil {
			out = append(out, r.Value)
		}
	}
	return out
}

// value checks the expression and cite lines of value i, whose values
// have all been checked, and records the fields it reads through them.
func (c *checker) value(i int, vd *syntax.ValueDecl) {
	v := &c.r.Values[i]
	v.Citations = c.cites(vd.Body)
	if vd.Table {
		c.reads = map[int]bool{}
		c.table(v, vd)
		c.valueRead(i, v)
		return
	}
	if vd.Body.Expr == nil {
		if !vd.Body.Failed {
			c.errorf(vd.Body.Pos, "value %s has no expression: write how it is computed", v.ID)
		}
		return
	}
	c.reads = map[int]bool{}
	e := c.expr(vd.Body.Expr)
	v.Expr = e
	switch {
	case e.Sort == SortInvalid || v.Type == SortInvalid:
	case e.Sort == v.Type, v.Type == SortDecimal && e.Sort == SortInt:
	case v.Type == SortInt && e.Sort == SortDecimal:
		c.errorf(vd.Body.Expr.Pos, "value %s is declared int but its expression is a decimal: round it to a whole number (round, floor or ceil) or declare it decimal", v.ID)
	default:
		c.errorf(vd.Body.Expr.Pos, "value %s is declared %s but its expression is %s", v.ID, v.Type, an(e.Sort))
	}
	if v.Type == SortDecimal && e.Sort == SortInt {
		e.Sort = SortDecimal
	}
	c.valueRead(i, v)
}

// valueRead records the fields value i's expressions read.
func (c *checker) valueRead(i int, v *NamedValue) {
	v.Slots = c.slotsRead()
	c.valueSlots[i] = v.Slots
	for _, s := range v.Slots {
		v.Fields = append(v.Fields, c.r.Fields[s].ID)
	}
}

// figure checks a value's or table row's expression n against the
// value's type: an int may define a decimal, not the other way.
func (c *checker) figure(v *NamedValue, n *syntax.Node) *Expr {
	e := c.expr(n)
	switch {
	case e.Sort == SortInvalid || v.Type == SortInvalid:
	case e.Sort == v.Type, v.Type == SortDecimal && e.Sort == SortInt:
	case v.Type == SortInt && e.Sort == SortDecimal:
		c.errorf(n.Pos, "%s %s is declared int but this is a decimal: round it to a whole number (round, floor or ceil) or declare it decimal", kindOf(v), v.ID)
	default:
		c.errorf(n.Pos, "%s %s is declared %s but this is %s", kindOf(v), v.ID, v.Type, an(e.Sort))
	}
	if v.Type == SortDecimal && e.Sort == SortInt && e.Kind == ExprConst {
		e.Sort = SortDecimal
	}
	return e
}

// kindOf names a value for messages: "value" or "table".
func kindOf(v *NamedValue) string {
	if v.Table {
		return "table"
	}
	return "value"
}

// slotsRead returns the field slots the expression just checked reads,
// directly or through values, in declaration order.
func (c *checker) slotsRead() []int {
	slots := make([]int, 0, len(c.reads))
	for s := range c.reads {
		slots = append(slots, s)
	}
	sort.Ints(slots)
	return slots
}

// valueRef resolves a bare name in a criterion or value to a named value,
// counting the fields that value reads as read here too. ok is false when
// the name is no value.
func (c *checker) valueRef(n *syntax.Node) (e *Expr, ok bool) {
	i, ok := c.valueIndex[n.Name]
	if !ok {
		return nil, false
	}
	return c.valueAt(i), true
}

// valueAt is a read of value i, counting the fields it reads as read
// here too.
func (c *checker) valueAt(i int) *Expr {
	v := &c.r.Values[i]
	c.valueUsed[i] = true
	if i < len(c.valueSlots) {
		for _, s := range c.valueSlots[i] {
			c.reads[s] = true
		}
	}
	if v.Type == SortInvalid {
		return invalid()
	}
	return &Expr{Kind: ExprValue, Sort: v.Type, Key: v.ID, Slot: i}
}

// memberValueRef is a member's value read at n: the copy of the member
// being checked, or an error outside an aggregate over its list.
func (c *checker) memberValueRef(n *syntax.Node, mv *memberValue) *Expr {
	if c.within == nil || c.within.list != mv.list {
		el := mv.list.decl.Name
		c.errorf(n.Pos, "%s is each %s's own value: read it inside count, sum, any, all, min or max, e.g. sum(%s where ...)",
			n.Name, el, n.Name)
		return invalid()
	}
	return c.valueAt(mv.first + c.within.index)
}

// isFunction reports whether name is one of the language's calls.
func isFunction(name string) bool { return slices.Contains(syntax.Functions(), name) }
