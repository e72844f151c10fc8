package solver

// The vocabulary the queries speak over an encoding: its parts, its
// statuses as Bool terms, and the terms that state answers.

import (
	"fmt"
	"math/big"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/z3"
)

// Context is the z3 context the encoding lives in.
func (e *Encoding) Context() *z3.Context { return e.c }

// Ruleset is the ruleset encoded.
func (e *Encoding) Ruleset() *engine.Ruleset { return e.r }

// Axioms are the constraints every model must meet for its values to be
// engine values: enums within their list, dates valid calendar dates tied to
// their ordinals, numbers within the engine's 18 digits. Assert them (NewSolver
// does) before any query.
func (e *Encoding) Axioms() []*z3.Expr { return e.axioms }

// NewSolver returns a solver of e's context, bounded by timeout (z3's
// default when zero), with e's axioms asserted.
func (e *Encoding) NewSolver(timeout time.Duration) (*z3.Solver, error) {
	s, err := e.c.NewSolver(timeout)
	if err != nil {
		return nil, fmt.Errorf("solver: new z3 solver: %w", err)
	}
	for _, a := range e.axioms {
		if err := s.Assert(a); err != nil {
			s.Close()
			return nil, fmt.Errorf("solver: assert axioms: %w", err)
		}
	}
	return s, nil
}

// Criterion is the Tri status of criterion i (in Ruleset.CriterionAt order).
func (e *Encoding) Criterion(i int) Tri { return e.criteria[i] }

// Outcome is the Tri status of the outcome: Value true means eligible.
func (e *Encoding) Outcome() Tri { return e.outcome }

// Is is the Bool term "t has status st".
func (t Tri) Is(c *z3.Context, st engine.Status) *z3.Expr {
	switch st {
	case engine.Satisfied:
		return c.And(t.Known, t.Value)
	case engine.NotSatisfied:
		return c.And(t.Known, c.Not(t.Value))
	}
	return c.Not(t.Known)
}

// CriterionIs is the Bool term "criterion i has status st".
func (e *Encoding) CriterionIs(i int, st engine.Status) *z3.Expr { return e.criteria[i].Is(e.c, st) }

// GroupIs is the Bool term "group g has status st".
func (e *Encoding) GroupIs(g int, st engine.Status) *z3.Expr { return e.groups[g].Is(e.c, st) }

// OutcomeIs is the Bool term "the outcome is o". Field errors, which make
// the evaluator's outcome undetermined whatever the criteria say, are not
// modelled: answers stated through the encoding are always readable.
func (e *Encoding) OutcomeIs(o engine.Outcome) *z3.Expr {
	return e.outcome.Is(e.c, outcomeStatus(o))
}

func outcomeStatus(o engine.Outcome) engine.Status {
	switch o {
	case engine.Eligible:
		return engine.Satisfied
	case engine.NotEligible:
		return engine.NotSatisfied
	}
	return engine.Pending
}

// Present is field slot's presence Bool: true when it is answered.
func (e *Encoding) Present(slot int) *z3.Expr { return e.fields[slot].present }

// Complete is field slot as an applicant who answers every question
// leaves it: answered, or for a member, answered exactly when the list is
// known to hold that member (engine.Ruleset.Complete). Asserted for every
// slot, it describes the complete answer sets, with the household's size
// free; asserting Present for every slot instead would fill every list to
// its bound.
func (e *Encoding) Complete(slot int) *z3.Expr {
	m := e.r.Fields[slot].Member
	if m == nil {
		return e.fields[slot].present
	}
	c, l := e.c, e.fields[e.r.FieldIndex(m.List)]
	return c.Eq(e.fields[slot].present, c.And(l.present, c.Gt(l.val, c.Int(int64(m.Index)))))
}

// Value is field slot's value term (Int, Real or Bool; a date's ordinal, an
// enum's index), meaningful when Present holds.
func (e *Encoding) Value(slot int) *z3.Expr { return e.fields[slot].val }

// Unanswered is the Bool term "field slot is not answered".
func (e *Encoding) Unanswered(slot int) *z3.Expr { return e.c.Not(e.fields[slot].present) }

// Answered is the Bool term "field slot is answered with v"; for an
// unknown v it is Unanswered. v is read as the engine reads an answer of
// the field's sort (see value.Value).
func (e *Encoding) Answered(slot int, v value.Value) *z3.Expr {
	if !v.Known {
		return e.Unanswered(slot)
	}
	return e.c.And(e.fields[slot].present, e.HasValue(slot, v))
}

// HasValue is the Bool term "field slot, if answered, has value v", without
// saying whether it is answered: the value half of Answered, for queries that
// keep presence separate.
func (e *Encoding) HasValue(slot int, v value.Value) *z3.Expr {
	fv := e.fields[slot]
	return e.sameValue(term{sort: e.r.Fields[slot].Type, val: fv.val, date: fv.date}, e.constant(e.r.Fields[slot].Type, v))
}

// sameValue is "t equals the constant k"; for dates it states the year,
// month and day as well as the ordinal, which spares Z3 from solving the
// calendar for them.
func (e *Encoding) sameValue(t, k term) *z3.Expr {
	c := e.c
	eq := c.Eq(t.val, k.val)
	if t.date != nil && k.date != nil {
		eq = c.And(eq, c.Eq(t.date.y, k.date.y), c.Eq(t.date.m, k.date.m), c.Eq(t.date.d, k.date.d))
	}
	return eq
}

// Facts states every answer of in, one term per field slot: Answered for an
// answered field, Unanswered otherwise. Inputs converted for another ruleset
// are an error.
func (e *Encoding) Facts(in *engine.Inputs) ([]*z3.Expr, error) {
	if in == nil || len(in.Values) != len(e.fields) {
		return nil, fmt.Errorf("solver: the answers were converted for a different ruleset")
	}
	out := make([]*z3.Expr, len(in.Values))
	for i, v := range in.Values {
		out[i] = e.Answered(i, v)
	}
	return out, nil
}

// InEffectivePeriod is the constraint that decision_date() falls within
// the ruleset's effective period, as every real decision on it does; true
// when the ruleset declares no period.
func (e *Encoding) InEffectivePeriod() *z3.Expr {
	p := e.r.Effective
	if p == nil || e.decision == nil {
		return e.c.Bool(true)
	}
	in := e.c.Ge(e.decision.val, e.c.Int(p.From))
	if p.Until != 0 {
		in = e.c.And(in, e.c.Le(e.decision.val, e.c.Int(p.Until)))
	}
	return in
}

// DecisionDateIs fixes decision_date() to the ordinal ord; it is true when
// the ruleset does not read the decision date.
func (e *Encoding) DecisionDateIs(ord int64) *z3.Expr {
	if e.decision == nil {
		return e.c.Bool(true)
	}
	return e.sameValue(*e.decision, e.constant(engine.SortDate, value.Value{Num: ord, Known: true}))
}

// DecimalGrid is the constraint that every decimal field's value has at
// most scale digits after the point and at most 18 digits in all. Models
// over the rationals may pick values such as 1/3 that no answer can spell;
// queries whose models become answers (witnesses, examples) assert the grid
// so that Decode always succeeds.
func (e *Encoding) DecimalGrid(scale int) []*z3.Expr {
	c := e.c
	unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	var out []*z3.Expr
	for i, f := range e.r.Fields {
		if f.Type != engine.SortDecimal {
			continue
		}
		steps := c.IntConst(fmt.Sprintf("grid%d|%s%s", scale, e.tag, f.ID))
		// Steps of at most 18 digits: the value then has at most 18
		// significant digits, as the engine's decimals do.
		out = append(out, c.Eq(e.fields[i].val, c.Mul(c.ToReal(steps), c.RealRat(unit))),
			c.Lt(steps, c.Int(maxMagnitude)), c.Gt(steps, c.Int(-maxMagnitude)))
	}
	return out
}

// Track makes a fresh Bool literal named name, asserts in s that it implies
// cond, and returns it: pass the literal as an assumption of
// CheckAssumptions to make cond hold for one check and to find it in the
// unsat core (match by ID) when it is to blame.
func (e *Encoding) Track(s *z3.Solver, name string, cond *z3.Expr) (*z3.Expr, error) {
	lit := e.c.BoolConst("track|" + name)
	if err := s.Assert(e.c.Implies(lit, cond)); err != nil {
		return nil, fmt.Errorf("solver: track %s: %w", name, err)
	}
	return lit, nil
}
