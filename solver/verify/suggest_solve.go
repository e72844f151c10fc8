package verify

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/z3"
)

// This file asks Z3 for an answer set meeting one goal: a context holding
// the ruleset and its probe, tried from the most readable answers to the
// least, each model replayed in the evaluator before it is accepted.

// goalSolver finds answer sets meeting the probe's goals, with every field
// answered and the decision date fixed.
type goalSolver struct {
	// c owns everything below.
	c *z3.Context
	// probe and rules encode the probe and the ruleset over the same
	// variables.
	probe, rules *solver.Encoding
	// s holds the axioms, every field answered and the decision date.
	s *z3.Solver
	// plain (magnitudes from 0 to a power of ten above every constant,
	// two decimals or the constants' own, dates from 1900 to 2100), signed
	// (the same magnitudes either sign, the same dates) and fine (decimals
	// with four more places) are tracked literals for the tries of solve.
	plain, signed, fine *z3.Expr
	// small is "every list holds at most two members", tracked, or nil
	// for a ruleset without lists: each shape is tried with it first.
	small *z3.Expr
}

func newGoalSolver(ctx context.Context, r, probe *engine.Ruleset, date int64, timeout time.Duration) (gs *goalSolver, err error) {
	c, err := z3.NewContext()
	if err != nil {
		return nil, fmt.Errorf("solver: suggest cases: %w", err)
	}
	gs = &goalSolver{c: c}
	// made outlives the named result, which a failing return sets to nil
	// before this deferred call runs.
	made := gs
	defer func() {
		if err != nil {
			made.close()
		}
	}()
	if gs.probe, err = solver.EncodeContext(ctx, c, probe); err != nil {
		return nil, err
	}
	if gs.rules, err = solver.EncodeContext(ctx, c, r); err != nil {
		return nil, err
	}
	if gs.s, err = gs.probe.NewSolver(timeout); err != nil {
		return nil, err
	}
	e := gs.probe
	hard := append([]*z3.Expr{e.DecisionDateIs(date)}, gs.rules.Axioms()...)
	scale, bound := 2, big.NewRat(100, 1)
	for i := 0; i < probe.NumCriteria(); i++ {
		cr, _ := probe.CriterionAt(i)
		solver.WalkExpr(cr.Expr, func(x *engine.Expr) {
			if x.Kind == engine.ExprConst && x.Sort.Numeric() {
				scale = max(scale, int(x.Const.Scale))
				for v := new(big.Rat).Abs(solver.ValueRat(x.Const)); bound.Cmp(v) < 0; {
					bound.Mul(bound, big.NewRat(10, 1))
				}
			}
		})
	}
	var plain, signed, small []*z3.Expr
	low, high := value.DateOrdinal(1900, 1, 1), value.DateOrdinal(2100, 12, 31)
	for i, f := range probe.Fields {
		hard = append(hard, e.Complete(i))
		v := e.Value(i)
		if f.List != nil {
			small = append(small, c.Le(v, c.Int(smallHousehold)))
		}
		switch f.Type {
		case engine.SortInt, engine.SortDecimal:
			if f.Type == engine.SortInt {
				v = c.ToReal(v)
			}
			plain = append(plain, c.Ge(v, c.Real("0")), c.Le(v, c.RealRat(bound)))
			signed = append(signed, c.Ge(v, c.Neg(c.RealRat(bound))), c.Le(v, c.RealRat(bound)))
		case engine.SortDate:
			plain = append(plain, c.Ge(v, c.Int(low)), c.Le(v, c.Int(high)))
			signed = append(signed, plain[len(plain)-2:]...)
		}
	}
	if err = solver.AssertAll(gs.s, hard); err != nil {
		return nil, err
	}
	track := func(name string, fs []*z3.Expr) *z3.Expr {
		var lit *z3.Expr
		if err == nil {
			lit, err = e.Track(gs.s, name, c.And(append(fs, c.Bool(true))...))
		}
		return lit
	}
	gs.plain, gs.signed = track("plain", append(plain, e.DecimalGrid(scale)...)), track("signed", signed)
	gs.fine = track("fine", e.DecimalGrid(min(scale+4, 18)))
	if len(small) > 0 {
		gs.small = track("small", small)
	}
	return gs, err
}

// smallHousehold is the most members of a list the first tries of solve
// allow: a student and the child she cares for, as the analysis's first
// try (smallLists).
const smallHousehold = 2

// decisive is "flipping criterion i of the rules flips the outcome".
func (gs *goalSolver) decisive(i int) (*z3.Expr, error) {
	c, e := gs.c, gs.rules
	crits := make([]solver.Tri, e.Ruleset().NumCriteria())
	for j := range crits {
		crits[j] = e.Criterion(j)
	}
	crits[i].Value = c.Not(crits[i].Value)
	alt, err := e.WithCriteria(crits)
	if err != nil {
		return nil, err
	}
	o, a := e.Outcome(), alt.Outcome()
	return c.And(o.Known, a.Known, c.Xor(o.Value, a.Value)), nil
}

// errNoCase is solve's answer when answer sets meet the goal but accept
// took none of them (the evaluator could not read any as a case): the goal
// is then undecided, not unreachable.
var errNoCase = errors.New("answer sets meet the goal, but none makes a case the evaluator reads")

// solve looks for an answer set meeting goal k that accept takes, trying
// the preferred shapes first (see SuggestCases). found is false when no
// answer set meets the goal; the error is errNoCase when some did but
// accept took none. An unsat core lets it skip the tries that cannot
// succeed: with an empty core, none can.
func (gs *goalSolver) solve(ctx context.Context, k int, g caseGoal, accept func(*engine.Inputs) (bool, error)) (found bool, err error) {
	if err := gs.s.Push(); err != nil {
		return false, err
	}
	defer func() {
		if perr := gs.s.Pop(1); perr != nil && err == nil {
			err = perr
		}
	}()
	if err := gs.s.Assert(gs.probe.CriterionIs(k, engine.Satisfied)); err != nil {
		return false, err
	}
	cond, err := gs.decisive(g.crit)
	if err != nil {
		return false, err
	}
	decisive, err := gs.probe.Track(gs.s, fmt.Sprintf("decisive|%d", k), cond)
	if err != nil {
		return false, err
	}
	tries := [][]*z3.Expr{{decisive, gs.plain}, {gs.plain}, {gs.signed, gs.fine}, {gs.fine}}
	if g.prefer != nil {
		t, err := gs.probe.Term(g.prefer) // prefer is linked: r's side, typed constants
		if err != nil {
			return false, err
		}
		prefer, err := gs.probe.Track(gs.s, fmt.Sprintf("prefer|%d", k), gs.c.And(t.Known, t.Value))
		if err != nil {
			return false, err
		}
		tries = append([][]*z3.Expr{{prefer, decisive, gs.plain}}, tries...)
	}
	if gs.small != nil {
		// A household of one or two first, in each shape: it meets
		// nearly every goal (a goal reads member 0, standing for every
		// member) and is the easier question for Z3 by far, each member
		// up to the bound bringing its own calendar; and it is the
		// plainer case to read.
		withSmall := make([][]*z3.Expr, len(tries))
		for i, as := range tries {
			withSmall[i] = append(slices.Clone(as), gs.small)
		}
		tries = append(withSmall, tries...)
	}
	var cores [][]*z3.Expr
	refused := false
	for _, as := range tries {
		if slices.ContainsFunc(cores, func(core []*z3.Expr) bool { return containsAll(as, core) }) {
			continue
		}
		res, err := gs.s.CheckAssumptions(ctx, as...)
		if err != nil {
			return false, err
		}

		if res == z3.Unsat {
			core, err := gs.s.UnsatCore()
			if err != nil || len(core) == 0 {
				return false, err
			}
			cores = append(cores, core)
			continue
		}
		if ok, err := gs.accept(accept); ok || err != nil {
			return ok, err
		}
		refused = true
	}
	if refused {
		return false, errNoCase
	}
	return false, nil
}

// accept decodes the current model and hands it to accept.
func (gs *goalSolver) accept(accept func(*engine.Inputs) (bool, error)) (bool, error) {
	m, err := gs.s.Model()
	if err != nil {
		return false, err
	}
	defer m.Close()
	in, _, err := gs.probe.Decode(m)
	if err != nil {
		return false, err
	}
	return accept(in)
}

// containsAll reports whether every literal of sub is in set.
func containsAll(set, sub []*z3.Expr) bool {
	for _, x := range sub {
		if !slices.ContainsFunc(set, func(y *z3.Expr) bool { return y.ID() == x.ID() }) {
			return false
		}
	}
	return true
}

func (gs *goalSolver) close() {
	if gs.s != nil {
		gs.s.Close()
	}
	gs.c.Close()
}
