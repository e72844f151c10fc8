package plan

import (
	"slices"

	"github.com/eligo/eligo/engine"
)

// This file computes supports: for a criterion (or a way, or the whole
// outcome) and a wanted status, the minimal sets of unanswered fields one of
// which must be answered for the status to be reachable. It reads only the
// structure of the expressions and the engine's three-valued statuses, never
// the solver, so it is cheap; it is an over-approximation (a set it lists may
// still be infeasible, which the solver then decides), never an
// under-approximation: every set of answers that reaches the status contains
// one of the supports. That is what lets the search skip, without a solver
// call, every candidate that contains none.

// maxSupports bounds a support family; a larger one is replaced by its
// intersection, which is still an over-approximation.
const maxSupports = 64

// supportFamily is a family of minimal field sets. nil (or empty) means the status
// is unreachable; a family holding the empty set means nothing is required.
type supportFamily []fieldSet

var noRequirement = supportFamily{fieldSet{}}

// minimal removes duplicates and supersets of other members, and caps the
// family's size.
func (f supportFamily) minimal() supportFamily {
	out := f[:0:0]
	for i, s := range f {
		keep := true
		for j, t := range f {
			if i != j && t.subsetOf(s) && (t != s || j < i) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, s)
		}
	}
	if len(out) > maxSupports {
		inter := out[0]
		for _, s := range out[1:] {
			inter = inter.intersect(s)
		}
		return supportFamily{inter}
	}
	return out
}

// and is the family of "both": unions of one member of each.
func (f supportFamily) and(g supportFamily) supportFamily {
	var out supportFamily
	for _, s := range f {
		for _, t := range g {
			out = append(out, s.union(t))
		}
	}
	return out.minimal()
}

// or is the family of "either".
func (f supportFamily) or(g supportFamily) supportFamily {
	return append(slices.Clone(f), g...).minimal()
}

// within keeps the members inside allowed (fields the applicant may still
// answer).
func (f supportFamily) within(allowed fieldSet) supportFamily {
	var out supportFamily
	for i, s := range f {
		if s.subsetOf(allowed) {
			if out == nil {
				// One allocation, room for every member left.
				out = make(supportFamily, 0, len(f)-i)
			}
			out = append(out, s)
		}
	}
	return out
}

func (f supportFamily) hasEmpty() bool { return slices.Contains(f, fieldSet{}) }

// satisfiedBy reports whether some member is a subset of s.
func (f supportFamily) satisfiedBy(s fieldSet) bool {
	return slices.ContainsFunc(f, func(t fieldSet) bool { return t.subsetOf(s) })
}

// supportState is what supports depend on for one request.
type supportState struct {
	// m is the ruleset's way model.
	m *wayModel
	// unanswered are the fields without an answer; askable those of them
	// the applicant has not declined.
	unanswered, askable fieldSet
	// status[c] is the engine's status of criterion c for the answers.
	status []engine.Status
	// memo caches criterion supports: index 2c for satisfied, 2c+1 for not.
	memo []supportFamily
	// done[k] says memo[k] is computed (an empty family is a valid
	// result).
	done []bool
}

func newSupportState(m *wayModel, unanswered, askable fieldSet, status []engine.Status) *supportState {
	n := len(m.crits)
	return &supportState{m: m, unanswered: unanswered, askable: askable, status: status,
		memo: make([]supportFamily, 2*n), done: make([]bool, 2*n)}
}

// criterion returns the supports of criterion c reaching want.
func (st *supportState) criterion(c int, want engine.Status) supportFamily {
	k := 2 * c
	if want != engine.Satisfied {
		k++
	}
	if st.done[k] {
		return st.memo[k]
	}
	f := st.criterionUncached(c, want)
	st.memo[k], st.done[k] = f, true
	return f
}

func (st *supportState) criterionUncached(c int, want engine.Status) supportFamily {
	crit := st.m.crits[c]
	if crit.Discretionary {
		return nil
	}
	cur := st.status[c]
	if cur == want {
		// Asking nothing of this criterion keeps it as it is.
		return noRequirement
	}
	if cur != engine.Pending && !st.m.critPresence[c] {
		// Kleene's logic is monotone without presence operators: a
		// settled criterion stays settled whatever else is answered.
		return nil
	}
	f := st.expr(crit.Expr, want == engine.Satisfied).within(st.askable)
	if f.hasEmpty() {
		// The structure does not see why the criterion is not yet want,
		// but leaving its fields alone keeps its status: some field of it
		// must be answered.
		var touch supportFamily
		for _, s := range st.m.critFields[c].intersect(st.askable).slots() {
			touch = append(touch, fieldSet{}.with(s))
		}
		f = f.without(fieldSet{}).or(touch)
	}
	return f
}

// without drops the member s.
func (f supportFamily) without(s fieldSet) supportFamily {
	return slices.DeleteFunc(slices.Clone(f), func(t fieldSet) bool { return t == s })
}

// expr is the structural family of e evaluating to want.
func (st *supportState) expr(e *engine.Expr, want bool) supportFamily {
	if e.Kind == engine.ExprOp {
		switch e.Op {
		case engine.OpNot:
			return st.expr(e.Args[0], !want)
		case engine.OpAnd, engine.OpOr:
			product := (e.Op == engine.OpAnd) == want
			acc := st.expr(e.Args[0], want)
			for _, a := range e.Args[1:] {
				if product {
					acc = acc.and(st.expr(a, want))
				} else {
					acc = acc.or(st.expr(a, want))
				}
			}
			return acc
		case engine.OpEq, engine.OpNe:
			// x == true is x, x == false not x, under Kleene's logic as
			// much as under two values, so a yes/no value compared with
			// a constant keeps its structure (see ExprValue below).
			if x, c, ok := boolConstSide(e); ok {
				return st.expr(x, want == ((c.Const.Num != 0) == (e.Op == engine.OpEq)))
			}
		case engine.OpPresent, engine.OpAbsent:
			s := e.Args[0].Slot
			answered := !st.unanswered.has(s)
			holds := want == (e.Op == engine.OpPresent)
			switch {
			case answered && holds, !answered && !holds:
				// present(answered) holds, absent(unanswered) holds
				// unless the field is answered later: nothing needed.
				return noRequirement
			case answered:
				return nil
			default:
				return supportFamily{fieldSet{}.with(s)}
			}
		}
	}
	if e.Kind == engine.ExprValue && e.Sort == engine.SortBool {
		// A yes/no named value is its expression (a section fact is a
		// whole section's outcome, docs/language.md#rulebooks): its
		// and/or structure gives supports as fine as its criteria's
		// would, where one atom over all its fields would leave the
		// search to grow them a field at a time.
		if v := &st.m.rs.Values[e.Slot]; !v.Table && v.Expr != nil {
			return st.expr(v.Expr, want)
		}
	}
	// An atom: known exactly when every field it reads outside a ??
	// default is answered; with those answered it may take either value.
	var need fieldSet
	st.needed(e, &need)
	return supportFamily{need.intersect(st.unanswered)}
}

// needed collects the fields e cannot be known without (neededFields),
// through the named values it reads.
func (st *supportState) needed(e *engine.Expr, need *fieldSet) {
	neededFields(st.m.rs, e, func(v int) fieldSet { return st.m.valueNeeds[v] }, need)
}

// way returns the supports of every literal of r holding at once.
func (st *supportState) way(r way) supportFamily {
	if st.m.whole {
		return nil // the caller uses outcome instead
	}
	acc := noRequirement
	for _, l := range r.lits {
		acc = acc.and(st.criterion(l.crit, l.want))
		if len(acc) == 0 {
			return nil
		}
	}
	return acc
}

// outcome returns the supports of the outcome expression being want, for
// rulesets whose disjunctive form is too large to enumerate.
func (st *supportState) outcome(e *engine.Expr, want bool) supportFamily {
	switch {
	case e.Kind == engine.ExprGroup:
		g := st.m.rs.Groups[e.Slot]
		status := engine.NotSatisfied
		if want {
			status = engine.Satisfied
		}
		every := (g.Kind == engine.GroupAll) == want
		var acc supportFamily
		first := true
		for c := range st.m.crits {
			if st.m.critGroup[c] != e.Slot {
				continue
			}
			f := st.criterion(c, status)
			switch {
			case first:
				acc, first = f, false
			case every:
				acc = acc.and(f)
			default:
				acc = acc.or(f)
			}
		}
		return acc
	case e.Op == engine.OpNot:
		return st.outcome(e.Args[0], !want)
	default:
		product := (e.Op == engine.OpAnd) == want
		acc := st.outcome(e.Args[0], want)
		for _, a := range e.Args[1:] {
			if product {
				acc = acc.and(st.outcome(a, want))
			} else {
				acc = acc.or(st.outcome(a, want))
			}
		}
		return acc
	}
}

// boolConstSide splits a comparison of two yes/no operands, one of them a
// constant, into the other operand and the constant.
func boolConstSide(e *engine.Expr) (x, c *engine.Expr, ok bool) {
	if len(e.Args) != 2 || e.Args[0].Sort != engine.SortBool || e.Args[1].Sort != engine.SortBool {
		return nil, nil, false
	}
	switch {
	case e.Args[1].Kind == engine.ExprConst:
		return e.Args[0], e.Args[1], true
	case e.Args[0].Kind == engine.ExprConst:
		return e.Args[1], e.Args[0], true
	}
	return nil, nil, false
}
