package solver

// The second question explain-failure answers: not which criteria stand
// in the way (minimalCore, explain.go) but how few of the settled ones
// must change for the expected outcome to be reached.

import (
	"context"
	"fmt"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/z3"
)

// fewestChanges returns a smallest set of settled criteria (satisfied or
// not_satisfied under the answers; ascending) whose statuses, changed
// while every other settled criterion keeps its status, let the expected
// outcome be reached: a minimum correction set, found by a binary search
// on how many settled criteria may be left free. Pending criteria are
// free at no cost: their questions are open, or an official decides, so
// they are not changes to what the answers settled. One member of a
// failed `any` group is enough, every failed member of an `all` group is
// needed, and the outcome's and/or over groups adds or takes the cheaper
// side in the same way. The set is empty when only pending criteria stand
// in the way. It runs after minimalCore has found the outcome reachable
// with every criterion released, so the search has an answer.
func (x *explainer) fewestChanges(ctx context.Context) ([]int, error) {
	terms := []*z3.Expr{x.c.Int(0)}
	for i, st := range x.actual {
		if st != engine.Pending {
			terms = append(terms, x.freed[i])
		}
	}
	changed := x.c.Add(terms...)
	var best []int
	lo, hi := 0, len(terms)-1
	for lo <= hi {
		k := (lo + hi) / 2
		set, err := x.changesWithin(ctx, changed, k)
		if err != nil {
			return nil, err
		}
		if set == nil {
			lo = k + 1
			continue
		}
		best, hi = set, len(set)-1
	}
	if best == nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", ErrUnreachable)
	}
	return best, nil
}

// changesWithin returns the settled criteria a model changes when at most
// k of them may leave their status under the answers (changed counts
// those left free), or nil when the expected outcome cannot be reached so.
func (x *explainer) changesWithin(ctx context.Context, changed *z3.Expr, k int) ([]int, error) {
	if err := x.skeleton.Push(); err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	defer func() { _ = x.skeleton.Pop(1) }()
	if err := x.skeleton.Assert(x.c.Le(changed, x.c.Int(int64(k)))); err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	res, err := x.skeleton.CheckAssumptions(ctx, x.goal)
	if err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	if res != z3.Sat { // Unknown comes with its error, returned above
		return nil, nil
	}
	m, err := x.skeleton.Model()
	if err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	defer m.Close()
	set := []int{}
	for i := range x.statuses {
		if x.actual[i] == engine.Pending {
			continue
		}
		st, err := triStatus(m, x.statuses[i])
		if err != nil {
			return nil, fmt.Errorf("solver: explain-failure: %w", err)
		}
		if st != x.actual[i] {
			set = append(set, i)
		}
	}
	return set, nil
}
