package verify

import (
	"slices"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
)

// This file walks compiled expressions as the rules wrote them, for the
// tools that make one goal or one mutant per written part: an aggregate
// over a list's members is read through its first member's part.

// walkPath calls visit on x and every node below it as the rules wrote
// them, with the operand indexes that lead there. An aggregate over a
// list's members is unrolled to the list's bound; only member 0's part is
// walked (engine.AggregateOf), standing for every member's, for mutants
// as for suggested cases (walkWritten): a mutant per member up to the bound would be a
// survivor for every member beyond the households the cases hold, each
// costing an equivalence check, and an author's slip is in what was
// written once.
func walkPath(x *engine.Expr, path []int, visit func(*engine.Expr, []int)) {
	if x == nil {
		return
	}
	visit(x, path)
	if a, ok := engine.AggregateOf(x); ok {
		for _, part := range []*engine.Expr{a.Where, a.Term, a.Else} {
			if at, found := pathTo(x, part); found {
				walkPath(part, append(slices.Clone(path), at...), visit)
			}
		}
		return
	}
	for i, a := range x.Args {
		walkPath(a, append(path, i), visit)
	}
}

// pathTo is the operand indexes that lead from x to node y (the same
// pointer), found when y is under x.
func pathTo(x, y *engine.Expr) ([]int, bool) {
	if x == nil || y == nil {
		return nil, false
	}
	if x == y {
		return []int{}, true
	}
	for i, a := range x.Args {
		if at, ok := pathTo(a, y); ok {
			return append([]int{i}, at...), true
		}
	}
	return nil, false
}

// walkNodes lists x and every node below it.
func walkNodes(x *engine.Expr) []*engine.Expr {
	var out []*engine.Expr
	solver.WalkExpr(x, func(y *engine.Expr) { out = append(out, y) })
	return out
}

func isDecisionDate(x *engine.Expr) bool {
	return x.Kind == engine.ExprOp && x.Op == engine.OpDecisionDate
}
