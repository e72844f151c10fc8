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

// aggregateNode is the aggregate e unrolls, printed as written, or nil
// when e is not one.
func aggregateNode(e *Expr) *syntax.Node {
	if e.Kind != ExprOp {
		return nil
	}
	switch e.Op {
	case OpOr, OpAnd:
		var list string
		var conds []*Expr
		for i, part := range e.Args {
			guard, cond := part, (*Expr)(nil)
			if part.Kind == ExprOp && part.Op == OpAnd && e.Op == OpOr && len(part.Args) == 2 {
				guard, cond = part.Args[0], part.Args[1]
			} else if part.Kind == ExprOp && part.Op == OpOr && e.Op == OpAnd && len(part.Args) == 2 &&
				part.Args[0].Kind == ExprOp && part.Args[0].Op == OpNot {
				guard, cond = part.Args[0].Args[0], part.Args[1]
			}
			l, at, ok := guardIndex(guard)
			if !ok || cond == nil || at != int64(i) || (list != "" && l != list) {
				return nil
			}
			list = l
			conds = append(conds, cond)
		}
		name := "any"
		if e.Op == OpAnd {
			name = "all"
		}
		return &syntax.Node{Kind: syntax.NodeAggregate, Name: name, Args: []*syntax.Node{
			{Kind: syntax.NodeIdent, Name: list}, exprNode(conds[0])}}
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
		var list string
		var first *Expr
		for i, part := range parts {
			if part.Kind != ExprOp || part.Op != OpIf {
				return nil
			}
			guard := part.Args[0]
			if guard.Kind == ExprOp && guard.Op == OpAnd && len(guard.Args) == 2 {
				guard = guard.Args[0]
			}
			l, at, ok := guardIndex(guard)
			if !ok || at != int64(i) || (list != "" && l != list) {
				return nil
			}
			if i == 0 {
				first = part
			}
			list = l
		}
		term, counted := first.Args[1], first.Args[0]
		n := &syntax.Node{Kind: syntax.NodeAggregate, Name: "sum", Args: []*syntax.Node{exprNode(term)}}
		if term.Kind == ExprConst && term.Const.Num == 1 && term.Const.Scale == 0 {
			n.Name, n.Args = "count", []*syntax.Node{{Kind: syntax.NodeIdent, Name: list}}
		}
		if counted.Op == OpAnd {
			n.Args = append(n.Args, exprNode(counted.Args[1]))
		}
		return n
	}
	return nil
}
