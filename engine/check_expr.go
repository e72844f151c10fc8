package engine

import (
	"strings"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file is the checker's half that types expressions: operators,
// comparisons, enum resolution, defaults, calls, and the suggestions its
// messages make for unknown names.

func invalid() *Expr { return &Expr{Kind: ExprConst, Sort: SortInvalid} }

// unresolvedEnum marks a string literal not yet matched to an enum field.
const unresolvedEnum = -1

func (c *checker) expr(n *syntax.Node) *Expr {
	switch n.Kind {
	case syntax.NodeField:
		if m, ok := c.memberFields[n.Name]; ok {
			return c.memberRef(n, m)
		}
		if mv, ok := c.memberValues[n.Name]; ok {
			return c.memberValueRef(n, mv)
		}
		i, ok := c.fieldIndex[n.Name]
		if !ok {
			if c.f.Failed.Covers(syntax.FailedField, n.Name) {
				return invalid()
			}
			c.errorf(n.Pos, "unknown field %s: declare it with a field line%s", n.Name, c.suggest(n.Name, c.r.fieldIDs()))
			return invalid()
		}
		c.reads[i] = true
		return &Expr{Kind: ExprField, Sort: c.r.Fields[i].Type, Key: n.Name, Slot: i}
	case syntax.NodeIdent:
		if e, ok := c.valueRef(n); ok {
			return e
		}
		if c.f.Failed.Covers(syntax.FailedValue, n.Name) {
			return invalid()
		}
		if l := c.listByElement[n.Name]; l != nil {
			c.errorf(n.Pos, "%s is one member of a list: count, sum, any, all, min and max read the members, e.g. count(%s where ...)", n.Name, n.Name)
		} else if _, isGroup := c.groupIndex[n.Name]; isGroup {
			c.errorf(n.Pos, "%s is a group; groups are combined in the outcome line, not in criteria", n.Name)
		} else if hint := c.suggest(n.Name, c.r.valueIDs()); hint != "" {
			c.errorf(n.Pos, "unknown value %s: declare it with a value line%s", n.Name, hint)
		} else {
			c.errorf(n.Pos, "%s is neither a field nor a value: fields are written <group>.<name>, values are declared with a value line", n.Name)
		}
		return invalid()
	case syntax.NodeIf:
		return c.ifExpr(n)
	case syntax.NodeNumber:
		s := SortInt
		if n.Num.Scale > 0 {
			s = SortDecimal
		}
		return &Expr{Kind: ExprConst, Sort: s, Const: n.Num}
	case syntax.NodeBool:
		return &Expr{Kind: ExprConst, Sort: SortBool, Const: n.Num}
	case syntax.NodeString:
		return &Expr{Kind: ExprConst, Sort: SortEnum, Enum: n.Str, Const: value.Value{Num: unresolvedEnum, Known: true}}
	case syntax.NodeNot:
		x := c.expr(n.Args[0])
		c.wantBool(n.Args[0], x, "not")
		return &Expr{Kind: ExprOp, Sort: boolUnless(x), Op: OpNot, Args: []*Expr{x}}
	case syntax.NodeNeg:
		x := c.expr(n.Args[0])
		if !c.wantNumber(n.Args[0], x, "unary -") {
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: x.Sort, Op: OpNeg, Args: []*Expr{x}}
	case syntax.NodeBinary:
		return c.binary(n)
	case syntax.NodeIn:
		return c.in(n)
	case syntax.NodeCall:
		return c.call(n)
	case syntax.NodeAggregate:
		return c.aggregate(n)
	}
	return invalid()
}

func boolUnless(xs ...*Expr) Sort {
	for _, x := range xs {
		if x.Sort == SortInvalid {
			return SortInvalid
		}
	}
	return SortBool
}

func (c *checker) stray(n *syntax.Node, x *Expr) bool {
	if x.Kind == ExprConst && x.Sort == SortEnum && x.Const.Num == unresolvedEnum {
		c.errorf(n.Pos, "the string %s can only be compared with an enum field (==, != or in)", syntax.Quote(x.Enum))
		x.Sort = SortInvalid
		return true
	}
	return false
}

func (c *checker) wantBool(n *syntax.Node, x *Expr, what string) bool {
	if c.stray(n, x) || x.Sort == SortInvalid {
		return false
	}
	if x.Sort != SortBool {
		c.errorf(n.Pos, "%s needs a true/false condition, but this is %s", what, an(x.Sort))
		x.Sort = SortInvalid
		return false
	}
	return true
}

func (c *checker) wantNumber(n *syntax.Node, x *Expr, what string) bool {
	if c.stray(n, x) || x.Sort == SortInvalid {
		return false
	}
	if !x.Sort.Numeric() {
		hint := ""
		if x.Sort == SortDate {
			hint = "; use years_between, months_between or days_between to count between dates, add_days, add_months or add_years to move a date"
		}
		c.errorf(n.Pos, "%s needs a number, but this is %s%s", what, an(x.Sort), hint)
		return false
	}
	return true
}

func numericSort(a, b Sort) Sort {
	if a == SortDecimal || b == SortDecimal {
		return SortDecimal
	}
	return SortInt
}

func (c *checker) binary(n *syntax.Node) *Expr {
	op := Operator(n.Op)
	switch op {
	case OpAnd, OpOr:
		var args []*Expr
		ok := true
		for _, a := range n.Args {
			x := c.expr(a)
			ok = c.wantBool(a, x, string(op)) && ok
			// An aggregate's unrolled and/or is one operand, never merged
			// into the chain, so that it keeps its shape (AggregateOf).
			chained := x.Kind == ExprOp && x.Op == op && a.Kind != syntax.NodeAggregate
			switch {
			case chained && args == nil:
				// x is the chain so far, built for this node alone: take
				// its operands over rather than copy them at every link.
				args = x.Args
			case chained:
				args = append(args, x.Args...)
			default:
				args = append(args, x)
			}
		}
		s := SortBool
		if !ok {
			s = SortInvalid
		}
		return &Expr{Kind: ExprOp, Sort: s, Op: op, Args: args}
	case OpDefault:
		return c.defaultExpr(n)
	}
	x, y := c.expr(n.Args[0]), c.expr(n.Args[1])
	switch op {
	case OpAdd, OpSub, OpMul, OpDiv:
		okx := c.wantNumber(n.Args[0], x, string(op))
		oky := c.wantNumber(n.Args[1], y, string(op))
		if !okx || !oky {
			return invalid()
		}
		if op == OpMul && !c.consts.is(x) && !c.consts.is(y) {
			c.errorf(n.Pos, "* needs a constant number on one side (the language stays linear)")
			return invalid()
		}
		s := numericSort(x.Sort, y.Sort)
		if op == OpDiv {
			if y.Kind == ExprConst && y.Const.Num == 0 {
				c.errorf(n.Args[1].Pos, "division by zero")
				return invalid()
			}
			s = SortDecimal // 7 / 2 is 3.5
		}
		return &Expr{Kind: ExprOp, Sort: s, Op: op, Args: []*Expr{x, y}}
	}
	// Comparisons.
	if x.Sort == SortInvalid || y.Sort == SortInvalid {
		return invalid()
	}
	if !c.comparable(n, op, x, y) {
		return invalid()
	}
	return &Expr{Kind: ExprOp, Sort: SortBool, Op: op, Args: []*Expr{x, y}}
}

// fieldOf returns the field a value reads directly (a field_ref, or the
// field of `f ?? d`), or -1.
func fieldOf(x *Expr) int {
	switch {
	case x.Kind == ExprField:
		return x.Slot
	case x.Kind == ExprOp && x.Op == OpDefault:
		return x.Args[0].Slot
	}
	return -1
}

// comparable checks that x op y is allowed and resolves enum strings and
// the field_context of constants.
func (c *checker) comparable(n *syntax.Node, op Operator, x, y *Expr) bool {
	equality := op == OpEq || op == OpNe || op == OpIn || op == OpNotIn
	if c.isString(x) && c.isString(y) {
		c.errorf(n.Pos, "comparing two strings: one side must be an enum field")
		return false
	}
	if c.isString(x) {
		x, y = y, x
	}
	switch {
	case c.isString(y):
		if x.Sort != SortEnum {
			c.errorf(n.Pos, "the string %s is compared with %s; strings compare only with enum fields", syntax.Quote(y.Enum), an(x.Sort))
			return false
		}
		if !equality {
			c.errorf(n.Pos, "enum values compare only with ==, != and in, not %s", op)
			return false
		}
		fi := fieldOf(x)
		if fi < 0 {
			c.errorf(n.Pos, "an enum value must be compared with an enum field")
			return false
		}
		return c.resolveEnum(n, fi, y)
	case x.Sort.Numeric() && y.Sort.Numeric():
	case x.Sort == y.Sort && x.Sort == SortDate:
	case x.Sort == y.Sort && x.Sort == SortBool:
		if !equality {
			c.errorf(n.Pos, "true/false values compare only with == and !=")
			return false
		}
	case x.Sort == SortEnum && y.Sort == SortEnum:
		c.errorf(n.Pos, "two enum values cannot be compared with each other; compare a field with a listed value")
		return false
	default:
		hint := ""
		if x.Sort == SortDate || y.Sort == SortDate {
			hint = "; write a date as date(\"YYYY-MM-DD\") and compare it with another date"
		}
		c.errorf(n.Pos, "cannot compare %s with %s%s", an(x.Sort), an(y.Sort), hint)
		return false
	}
	c.setContext(x, y)
	c.setContext(y, x)
	return true
}

func (c *checker) isString(x *Expr) bool {
	return x.Kind == ExprConst && x.Sort == SortEnum && x.Const.Num == unresolvedEnum
}

func (c *checker) resolveEnum(n *syntax.Node, fi int, s *Expr) bool {
	f := &c.r.Fields[fi]
	for i, v := range f.EnumValues {
		if v == s.Enum {
			s.Const = value.Value{Num: int64(i), Known: true}
			s.FieldContext = f.ID
			return true
		}
	}
	c.errorf(n.Pos, "%s is not a value of %s; its values are %s", syntax.Quote(s.Enum), f.ID, quoteList(f.EnumValues))
	return false
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = syntax.Quote(v)
	}
	return strings.Join(q, ", ")
}

// setContext records on constant k the field it is compared with, and
// widens an integral constant compared with a decimal field to decimal.
func (c *checker) setContext(k, other *Expr) {
	if k.Kind != ExprConst {
		return
	}
	fi := fieldOf(other)
	if fi < 0 {
		return
	}
	k.FieldContext = c.r.Fields[fi].ID
	if k.Sort == SortInt && c.r.Fields[fi].Type == SortDecimal {
		k.Sort = SortDecimal
	}
}

func (c *checker) defaultExpr(n *syntax.Node) *Expr {
	if n.Args[0].Kind != syntax.NodeField {
		c.errorf(n.Pos, "the left side of ?? must be a field: `f ?? default`")
		c.expr(n.Args[1])
		return invalid()
	}
	f := c.expr(n.Args[0])
	d := c.expr(n.Args[1])
	if f.Sort == SortInvalid || d.Sort == SortInvalid {
		return invalid()
	}
	switch {
	case c.isString(d):
		if f.Sort != SortEnum || !c.resolveEnum(n, f.Slot, d) {
			if f.Sort != SortEnum {
				c.errorf(n.Pos, "the default of %s must be %s, not a string", f.Key, an(f.Sort))
			}
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: SortEnum, Op: OpDefault, Args: []*Expr{f, d}}
	case f.Sort.Numeric() && d.Sort.Numeric():
		c.setContext(d, f)
		return &Expr{Kind: ExprOp, Sort: numericSort(f.Sort, d.Sort), Op: OpDefault, Args: []*Expr{f, d}}
	case f.Sort == d.Sort && f.Sort != SortEnum:
		c.setContext(d, f)
		return &Expr{Kind: ExprOp, Sort: f.Sort, Op: OpDefault, Args: []*Expr{f, d}}
	}
	c.errorf(n.Pos, "the default of %s must be %s, but it is %s", f.Key, an(f.Sort), an(d.Sort))
	return invalid()
}

func (c *checker) in(n *syntax.Node) *Expr {
	x := c.expr(n.Args[0])
	out := &Expr{Kind: ExprOp, Sort: SortBool, Op: Operator(n.Op), Args: []*Expr{x}}
	ok := x.Sort != SortInvalid && !c.stray(n.Args[0], x)
	for _, item := range n.Args[1:] {
		y := c.expr(item)
		if y.Kind != ExprConst && !(y.Kind == ExprOp && y.Op == OpNeg && c.consts.is(y)) {
			c.errorf(item.Pos, "the list after in may hold only constant values")
			ok = false
			continue
		}
		if ok && y.Sort != SortInvalid && !c.comparable(item, out.Op, x, y) {
			ok = false
		}
		out.Args = append(out.Args, y)
	}
	if !ok {
		out.Sort = SortInvalid
	}
	return out
}

var callArity = map[string]int{
	"years_between": 2, "months_between": 2, "days_between": 2,
	"add_days": 2, "add_months": 2, "add_years": 2,
	"decision_date": 0, "present": 1, "absent": 1, "date": 1,
}

func (c *checker) call(n *syntax.Node) *Expr {
	name := n.Name
	if want, ok := callArity[name]; ok && len(n.Args) != want {
		c.errorf(n.Pos, "%s takes %d argument(s), not %d", name, want, len(n.Args))
		return invalid()
	}
	switch name {
	case "date":
		a := n.Args[0]
		if a.Kind != syntax.NodeString {
			c.errorf(n.Pos, "date takes a string: date(\"YYYY-MM-DD\")")
			return invalid()
		}
		ord, ok := value.ParseDate(a.Str)
		if !ok {
			c.errorf(a.Pos, "%s is not a valid date: write date(\"YYYY-MM-DD\") with a real calendar date", syntax.Quote(a.Str))
			return invalid()
		}
		return &Expr{Kind: ExprConst, Sort: SortDate, Const: value.Value{Num: ord, Known: true}}
	case "decision_date":
		c.r.ReadsDecisionDate = true
		return &Expr{Kind: ExprOp, Sort: SortDate, Op: OpDecisionDate, Args: []*Expr{}}
	case "present", "absent":
		if n.Args[0].Kind != syntax.NodeField {
			c.errorf(n.Pos, "%s takes a field: %s(<group>.<name>)", name, name)
			return invalid()
		}
		f := c.expr(n.Args[0])
		return &Expr{Kind: ExprOp, Sort: boolUnless(f), Op: Operator(name), Args: []*Expr{f}}
	case "years_between", "months_between", "days_between":
		args := make([]*Expr, 2)
		ok := true
		for i, a := range n.Args {
			args[i] = c.expr(a)
			if c.stray(a, args[i]) || args[i].Sort == SortInvalid {
				ok = false
			} else if args[i].Sort != SortDate {
				c.errorf(a.Pos, "%s needs two dates, but this is %s", name, an(args[i].Sort))
				ok = false
			}
		}
		if !ok {
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: SortInt, Op: Operator(name), Args: args}
	case "add_days", "add_months", "add_years":
		d, k := c.expr(n.Args[0]), c.expr(n.Args[1])
		ok := true
		if !c.stray(n.Args[0], d) && d.Sort != SortInvalid && d.Sort != SortDate {
			c.errorf(n.Args[0].Pos, "%s adds to a date, but this is %s", name, an(d.Sort))
			ok = false
		}
		if !c.stray(n.Args[1], k) && k.Sort != SortInvalid && k.Sort != SortInt {
			c.errorf(n.Args[1].Pos, "%s adds a whole number, but this is %s", name, an(k.Sort))
			ok = false
		}
		if !ok || d.Sort == SortInvalid || k.Sort == SortInvalid {
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: SortDate, Op: Operator(name), Args: []*Expr{d, k}}
	case "floor", "ceil", "round":
		return c.roundCall(n)
	case "abs":
		if len(n.Args) != 1 {
			c.errorf(n.Pos, "abs takes 1 argument, not %d", len(n.Args))
			return invalid()
		}
		x := c.expr(n.Args[0])
		if !c.wantNumber(n.Args[0], x, name) {
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: x.Sort, Op: OpAbs, Args: []*Expr{x}}
	case "min", "max":
		if len(n.Args) < 2 {
			c.errorf(n.Pos, "%s takes two or more numbers", name)
			return invalid()
		}
		out := &Expr{Kind: ExprOp, Sort: SortInt, Op: Operator(name)}
		ok := true
		for _, a := range n.Args {
			x := c.expr(a)
			if !c.wantNumber(a, x, name) {
				ok = false
				continue
			}
			out.Sort = numericSort(out.Sort, x.Sort)
			out.Args = append(out.Args, x)
		}
		if !ok {
			return invalid()
		}
		return out
	}
	for _, a := range n.Args {
		c.expr(a)
	}
	c.errorf(n.Pos, "unknown function %s: the functions are %s", name, syntax.FunctionList())
	return invalid()
}

// roundCall checks floor(x), ceil(x) or round(x) and their forms with a
// step, round(x, 0.01): the step is a positive constant, and the result is
// an int when the step is a whole number.
func (c *checker) roundCall(n *syntax.Node) *Expr {
	name := n.Name
	if len(n.Args) < 1 || len(n.Args) > 2 {
		c.errorf(n.Pos, "%s takes a number and, optionally, the step to round to: %s(x) or %s(x, 0.01)", name, name, name)
		return invalid()
	}
	x := c.expr(n.Args[0])
	ok := c.wantNumber(n.Args[0], x, name)
	step := &Expr{Kind: ExprConst, Sort: SortInt, Const: value.IntValue(1)}
	if len(n.Args) == 2 {
		a := n.Args[1]
		if a.Kind != syntax.NodeNumber || a.Num.Num <= 0 {
			c.errorf(a.Pos, "the step of %s is a positive number written out, e.g. 1 for whole units or 0.01 for cents", name)
			ok = false
		} else {
			step = c.expr(a)
		}
	}
	if !ok {
		return invalid()
	}
	s := SortInt
	if step.Sort == SortDecimal {
		s = SortDecimal
	}
	return &Expr{Kind: ExprOp, Sort: s, Op: Operator(name), Args: []*Expr{x, step}}
}

// ifExpr checks `if c then a else b`: a true/false condition and two
// branches of one sort (numbers mix, as in arithmetic).
func (c *checker) ifExpr(n *syntax.Node) *Expr {
	cond := c.expr(n.Args[0])
	ok := c.wantBool(n.Args[0], cond, "if")
	yes, no := c.expr(n.Args[1]), c.expr(n.Args[2])
	if c.stray(n.Args[1], yes) || c.stray(n.Args[2], no) || yes.Sort == SortInvalid || no.Sort == SortInvalid || !ok {
		return invalid()
	}
	s := yes.Sort
	switch {
	case yes.Sort.Numeric() && no.Sort.Numeric():
		s = numericSort(yes.Sort, no.Sort)
	case yes.Sort == SortEnum || no.Sort == SortEnum:
		c.errorf(n.Pos, "the branches of if cannot be enum values: compare the enum field in the condition instead")
		return invalid()
	case yes.Sort != no.Sort:
		c.errorf(n.Pos, "the branches of if give %s and %s: both must give the same kind of value", an(yes.Sort), an(no.Sort))
		return invalid()
	}
	return &Expr{Kind: ExprOp, Sort: s, Op: OpIf, Args: []*Expr{cond, yes, no}}
}

// suggest is the hint " (did you mean x?)" for an unknown name, x being
// the nearest of the names the file declares (Nearest), or "". Only the
// first maxSuggestions unknown names get one: each costs an edit distance
// to every candidate, and a text can name thousands of unknown names.
func (c *checker) suggest(name string, names []string) string {
	if c.suggested++; c.suggested > maxSuggestions {
		return ""
	}
	if best := Nearest(name, names); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}
