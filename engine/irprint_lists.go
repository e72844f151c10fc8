package engine

import (
	"strings"

	"github.com/eligo/eligo/engine/syntax"
)

// This file prints the aggregates of a list back as they were written
// (docs/language.md#households). The compiler unrolls count, sum, any and
// all to the list's bound, member i's part guarded by `list > i`; the IR
// keeps that form, which the evaluator and the solver read as it is. The
// printer recognises it from the expression alone, which it can because a
// list's field is the only field whose id has no dot and a member's field
// is "<list>[<i>].<name>": member 0's part, with its fields named as the
// rules name them, stands for every member's.

// listField reports whether e reads a list's length: the field named as
// the list.
func listField(e *Expr) bool {
	return e.Kind == ExprField && !strings.Contains(e.Key, ".")
}

// memberFieldName is the rules' name of a member's field,
// "member.age" for "member[0].age"; ok is false for any other field.
func memberFieldName(key string) (string, bool) {
	open := strings.IndexByte(key, '[')
	shut := strings.Index(key, "].")
	if open <= 0 || shut < open {
		return "", false
	}
	return key[:open] + "." + key[shut+2:], true
}

// guardIndex returns the list and i of `list > i`, member i's guard.
func guardIndex(e *Expr) (string, int64, bool) {
	if e.Kind != ExprOp || e.Op != OpGt || !listField(e.Args[0]) || e.Args[1].Kind != ExprConst {
		return "", 0, false
	}
	return e.Args[0].Key, e.Args[1].Const.Num, true
}

// Aggregate is an unrolled count, sum, any, all, min or max recognised in
// a compiled expression (AggregateOf): what the rules wrote, for the tools
// that show it to people.
type Aggregate struct {
	// Kind is "count", "sum", "any", "all", "min" or "max".
	Kind string
	// List is the list's name.
	List string
	// Where is member 0's condition, standing for every member's; nil
	// when the aggregate has none (count or sum over every member).
	Where *Expr
	// Term is member 0's summed or compared expression; nil for count,
	// any and all.
	Term *Expr
	// Else is min's or max's value when no member is counted; nil for
	// the others.
	Else *Expr
}

// AggregateOf recognises e as the unrolled form of an aggregate over a
// list; ok is false for any other expression. `count(member)` with no
// condition is the list's own field.
func AggregateOf(e *Expr) (a Aggregate, ok bool) {
	if listField(e) {
		return Aggregate{Kind: "count", List: e.Key}, true
	}
	if e.Kind != ExprOp {
		return Aggregate{}, false
	}
	switch e.Op {
	case OpIf:
		return extremumOf(e)
	case OpOr, OpAnd:
		for i, part := range e.Args {
			guard, cond := part, (*Expr)(nil)
			if part.Kind == ExprOp && part.Op == OpAnd && e.Op == OpOr && len(part.Args) == 2 {
				guard, cond = part.Args[0], part.Args[1]
			} else if part.Kind == ExprOp && part.Op == OpOr && e.Op == OpAnd && len(part.Args) == 2 &&
				part.Args[0].Kind == ExprOp && part.Args[0].Op == OpNot {
				guard, cond = part.Args[0].Args[0], part.Args[1]
			}
			l, at, ok := guardIndex(guard)
			if !ok || cond == nil || at != int64(i) || (a.List != "" && l != a.List) {
				return Aggregate{}, false
			}
			if i == 0 {
				a = Aggregate{Kind: "any", List: l, Where: cond}
			}
		}
		if e.Op == OpAnd {
			a.Kind = "all"
		}
		return a, a.List != ""
	case OpAdd:
		var parts []*Expr
		var flatten func(x *Expr)
		flatten = func(x *Expr) {
			if x.Kind == ExprOp && x.Op == OpAdd {
				flatten(x.Args[0])
				flatten(x.Args[1])
				return
			}
			parts = append(parts, x)
		}
		flatten(e)
		a, ok := memberParts("sum", parts, func(x *Expr) bool { return x.Kind == ExprConst && x.Const.Num == 0 })
		if !ok {
			return Aggregate{}, false
		}
		if t := a.Term; t.Kind == ExprConst && t.Const.Num == 1 && t.Const.Scale == 0 {
			a.Kind, a.Term = "count", nil
		}
		return a, true
	}
	return Aggregate{}, false
}

// MemberGuards lists the guards `list > i` the compiler put before each
// member's part of the aggregate e unrolls (AggregateOf), so that a tool
// reading comparisons in the compiled form can tell them from the
// comparisons the rules wrote; nil when e is no aggregate, or a bare
// count (the list's own field). Inside an aggregate every `list > i` of
// its list is a guard: an aggregate cannot hold another.
func MemberGuards(e *Expr) []*Expr {
	a, ok := AggregateOf(e)
	if !ok || listField(e) {
		return nil
	}
	var out []*Expr
	var visit func(x *Expr)
	visit = func(x *Expr) {
		if l, _, ok := guardIndex(x); ok && l == a.List {
			out = append(out, x)
			return
		}
		for _, arg := range x.Args {
			visit(arg)
		}
	}
	visit(e)
	return out
}

// extremumOf recognises `if any counted then min or max of the parts
// else the value`, min's or max's unrolled form.
func extremumOf(e *Expr) (Aggregate, bool) {
	pick := e.Args[1]
	if pick.Kind != ExprOp || (pick.Op != OpMin && pick.Op != OpMax) {
		return Aggregate{}, false
	}
	a, ok := memberParts(string(pick.Op), pick.Args, isUncounted)
	a.Else = e.Args[2]
	return a, ok
}

// memberParts recognises parts as the members' parts of a sum or of min
// or max, in member order: `if <guard> [and <condition>] then <term> else
// <other>`, other being what a member not counted adds (0, or a number
// that never wins).
func memberParts(kind string, parts []*Expr, other func(*Expr) bool) (a Aggregate, ok bool) {
	for i, part := range parts {
		if part.Kind != ExprOp || part.Op != OpIf || !other(part.Args[2]) {
			return Aggregate{}, false
		}
		guard, cond := part.Args[0], (*Expr)(nil)
		if guard.Kind == ExprOp && guard.Op == OpAnd && len(guard.Args) == 2 {
			guard, cond = guard.Args[0], guard.Args[1]
		}
		l, at, ok := guardIndex(guard)
		if !ok || at != int64(i) || (a.List != "" && l != a.List) {
			return Aggregate{}, false
		}
		if i == 0 {
			a = Aggregate{Kind: kind, List: l, Where: cond, Term: part.Args[1]}
		}
	}
	return a, len(parts) > 0
}

// aggregateNode is the aggregate e unrolls, printed as written, or nil
// when e is not one.
func aggregateNode(e *Expr) *syntax.Node {
	a, ok := AggregateOf(e)
	if !ok {
		return nil
	}
	n := &syntax.Node{Kind: syntax.NodeAggregate, Name: a.Kind, Args: []*syntax.Node{{Kind: syntax.NodeIdent, Name: a.List}}}
	if a.Term != nil {
		n.Args[0] = exprNode(a.Term)
	}
	if a.Where != nil {
		n.Args = append(n.Args, exprNode(a.Where))
	}
	if a.Else != nil {
		n.Args = append(n.Args, exprNode(a.Else))
	}
	return n
}
