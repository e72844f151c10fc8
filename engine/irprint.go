package engine

import (
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file prints a compiled expression in the rules language. It is where
// Criterion.Text comes from on both paths into a Ruleset, Compile and
// Build (LoadIR), so a stored ruleset and a freshly compiled one show the
// same text in traces. It does not print on its own: it rebuilds the
// syntax tree the parser would have produced and hands it to PrintExpr, so
// there is one set of precedence and parenthesis rules.

// exprText prints a checked expression canonically. It reads as the
// source's expression printed by `eligo fmt`, except that numbers are
// spelled from their value (43759.8 where the source wrote 43759.80, 1000
// for 1e3): the IR keeps a number's value, not its spelling.
func exprText(e *Expr) string { return syntax.PrintExpr(exprNode(e)) }

// ExprText prints a compiled expression in the rules language, as
// Criterion.Text prints a whole criterion: for tools that name a part of
// one (the solver's diff names what a moved threshold is compared with).
func ExprText(e *Expr) string { return exprText(e) }

// exprNode returns the syntax tree that prints as e. An n-ary and/or
// becomes the left-leaning chain the parser builds for `a and b and c`; a
// constant becomes a literal, or a date("YYYY-MM-DD") call.
func exprNode(e *Expr) *syntax.Node {
	switch e.Kind {
	case ExprField:
		if n := aggregateNode(e); n != nil {
			return n
		}
		if name, ok := memberFieldName(e.Key); ok {
			return &syntax.Node{Kind: syntax.NodeField, Name: name}
		}
		return &syntax.Node{Kind: syntax.NodeField, Name: e.Key}
	case ExprValue:
		if name, ok := memberFieldName(e.Key); ok {
			return &syntax.Node{Kind: syntax.NodeField, Name: name} // a member's value
		}
		return &syntax.Node{Kind: syntax.NodeIdent, Name: e.Key}
	case ExprGroup:
		return &syntax.Node{Kind: syntax.NodeIdent, Name: e.Key}
	case ExprConst:
		return constNode(e)
	}
	if n := aggregateNode(e); n != nil {
		return n
	}
	args := make([]*syntax.Node, len(e.Args))
	for i, a := range e.Args {
		args[i] = exprNode(a)
	}
	switch e.Op {
	case OpAnd, OpOr:
		if len(args) == 0 {
			break
		}
		n := args[0]
		for _, a := range args[1:] {
			n = &syntax.Node{Kind: syntax.NodeBinary, Op: string(e.Op), Args: []*syntax.Node{n, a}}
		}
		return n
	case OpNot:
		return &syntax.Node{Kind: syntax.NodeNot, Args: args}
	case OpNeg:
		return &syntax.Node{Kind: syntax.NodeNeg, Args: args}
	case OpIn, OpNotIn:
		return &syntax.Node{Kind: syntax.NodeIn, Op: string(e.Op), Args: args}
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpAdd, OpSub, OpMul, OpDiv, OpDefault:
		return &syntax.Node{Kind: syntax.NodeBinary, Op: string(e.Op), Args: args}
	case OpIf:
		return &syntax.Node{Kind: syntax.NodeIf, Args: args}
	case OpFloor, OpCeil, OpRound:
		if s := e.Args[1]; s.Kind == ExprConst && s.Const.Num == 1 && s.Const.Scale == 0 {
			args = args[:1] // a step of 1 is the one the text may leave out
		}
	}
	// min, max, floor, ceil, round, abs, years_between, months_between,
	// days_between, add_days, add_months, add_years, decision_date,
	// present and absent are calls of the same name.
	return &syntax.Node{Kind: syntax.NodeCall, Name: string(e.Op), Args: args}
}

// constNode is the literal of a constant.
func constNode(e *Expr) *syntax.Node {
	switch e.Sort {
	case SortBool:
		return &syntax.Node{Kind: syntax.NodeBool, Num: e.Const}
	case SortEnum:
		return &syntax.Node{Kind: syntax.NodeString, Str: e.Enum}
	case SortDate:
		return &syntax.Node{Kind: syntax.NodeCall, Name: "date", Args: []*syntax.Node{{Kind: syntax.NodeString, Str: value.FormatDate(e.Const.Num)}}}
	}
	return &syntax.Node{Kind: syntax.NodeNumber, Num: e.Const}
}
