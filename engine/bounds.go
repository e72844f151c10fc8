package engine

import "github.com/eligo/eligo/engine/value"

// Bounds decide comparisons about a household before every answer is in
// (engine/syntax/GRAMMAR.md#three-valued-meaning). By Kleene's rule a
// comparison is unknown while an operand is, so `count(member where
// member.age < 5) >= 1` would wait for every member's age although the
// first child under five settles it. A comparison of numbers that reads
// how many members a list has (every count, sum, min and max over members
// does) is therefore decided as soon as the ranges its two sides can
// still take settle it: a side's range follows from the answers given,
// the ranges fields declare (a list's length is 0 to its bound) and the
// arithmetic between them. Every other comparison keeps Kleene's rule, so
// rulesets without lists decide exactly as they always have. The solver
// encodes the same ranges (solver/encode_bounds.go) and the differential
// test holds the two equal.

// interval is the range of numbers an expression can still take: from lo
// to hi, both included, each side unbounded when it is not Known.
type interval struct {
	lo, hi value.Value
}

// point is the range of a known number.
func point(v value.Value) interval { return interval{v, v} }

// BoundedComparison reports whether the comparison e is decided by its
// sides' ranges while a side is unknown (see above): a comparison of two
// numbers one side of which reads a list's length, directly or through
// named values.
func (r *Ruleset) BoundedComparison(e *Expr) bool {
	if e == nil || e.Kind != ExprOp || len(e.Args) != 2 {
		return false
	}
	switch e.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
	default:
		return false
	}
	if !e.Args[0].Sort.Numeric() || !e.Args[1].Sort.Numeric() {
		return false
	}
	return r.readsList(e.Args[0]) || r.readsList(e.Args[1])
}

// readsList reports whether e reads a list's length, directly or through
// a named value.
func (r *Ruleset) readsList(e *Expr) bool {
	switch e.Kind {
	case ExprField:
		return r.Fields[e.Slot].List != nil
	case ExprValue:
		return r.valueReadsList[e.Slot]
	}
	for _, a := range e.Args {
		if r.readsList(a) {
			return true
		}
	}
	return false
}

// markListValues sets valueReadsList: which named values read a list's
// length, directly or through other values.
func (r *Ruleset) markListValues() {
	r.valueReadsList = make([]bool, len(r.Values))
	const unseen, busy, done = 0, 1, 2
	state := make([]uint8, len(r.Values))
	var visit func(i int) bool
	var walk func(e *Expr) bool
	visit = func(i int) bool {
		if state[i] != unseen {
			return r.valueReadsList[i] // a cycle is refused by the checker; busy reads as no
		}
		state[i] = busy
		for _, x := range r.Values[i].Exprs() {
			if walk(x) {
				r.valueReadsList[i] = true
			}
		}
		state[i] = done
		return r.valueReadsList[i]
	}
	walk = func(e *Expr) bool {
		if e == nil {
			return false
		}
		switch e.Kind {
		case ExprField:
			return r.Fields[e.Slot].List != nil
		case ExprValue:
			return visit(e.Slot)
		}
		found := false
		for _, a := range e.Args {
			found = walk(a) || found
		}
		return found
	}
	for i := range r.Values {
		visit(i)
	}
}

// decideByBounds is the status of the comparison in over the
// instructions kids, one of whose sides is unknown: true or false when
// their ranges settle it, unknown otherwise. It is kept for the rest of
// the evaluation (machine.decided), which evaluates the comparison again
// whenever a range around it reads it, as the condition of an if does:
// worked out afresh, comparisons nested in conditions would cost time
// exponential in their depth.
func (m *machine) decideByBounds(in *inst, kids []int32) value.Value {
	v := m.compareBounds(in.op, kids)
	if m.decided == nil {
		m.decided = make(map[*inst]value.Value)
	}
	m.decided[in] = v
	return v
}

// compareBounds is decideByBounds' status of the comparison op.
func (m *machine) compareBounds(op opcode, kids []int32) value.Value {
	x, y := m.bounds(kids[0]), m.bounds(kids[1])
	switch op {
	case opLt:
		return settled(below(x.hi, y.lo, true), below(y.hi, x.lo, false))
	case opLe:
		return settled(below(x.hi, y.lo, false), below(y.hi, x.lo, true))
	case opGt:
		return settled(below(y.hi, x.lo, true), below(x.hi, y.lo, false))
	case opGe:
		return settled(below(y.hi, x.lo, false), below(x.hi, y.lo, true))
	}
	apart := below(x.hi, y.lo, true) || below(y.hi, x.lo, true)
	same := below(x.hi, y.lo, false) && below(y.hi, x.lo, false) // one number on both sides
	if op == opNe {
		return settled(apart, same)
	}
	return settled(same, apart)
}

// settled is true when yes, false when no, unknown when neither.
func settled(yes, no bool) value.Value {
	switch {
	case yes:
		return value.BoolValue(true)
	case no:
		return value.BoolValue(false)
	}
	return value.Value{}
}

// below reports whether a is below b (at most b unless strict), both
// bounds: false when either is unbounded.
func below(a, b value.Value, strict bool) bool {
	if !a.Known || !b.Known {
		return false
	}
	c := value.Compare(a, b)
	return c < 0 || !strict && c == 0
}

// bounds is the range instruction i can still take: its value when known;
// otherwise a field's declared range, a named value's expression's range,
// and the arithmetic of its operands' ranges for +, -, negation,
// multiplication by a constant, if, min, max, ??, abs and rounding to a
// constant step. Anything else unknown is unbounded.
func (m *machine) bounds(i int32) interval {
	in := &m.p.code[i]
	switch in.op {
	case opConst:
		return point(in.k)
	case opField:
		if v := m.inputs[in.a]; v.Known {
			return point(v)
		}
		if g := m.r.Fields[in.a].Range; g != nil {
			return interval{g.Min, g.Max}
		}
		return interval{}
	case opValue:
		if v := m.value(in.a); v.Known {
			return point(v)
		}
		root := m.main.values[in.a]
		if root < 0 {
			return interval{} // a table: its row is not known yet
		}
		if b, ok := m.valueBounds[in.a]; ok {
			return b
		}
		// m.value has worked the expression out and reported a fault of
		// its arithmetic as the value's: working it out again for its
		// range must not charge the fault to what reads the value too.
		// The range is kept, as the value is, for every later reader:
		// values reading values twice over would otherwise cost time
		// exponential in their depth.
		p, fault := m.p, m.fault
		m.p = m.main
		b := m.bounds(root)
		m.p, m.fault = p, fault
		if m.valueBounds == nil {
			m.valueBounds = make(map[int32]interval)
		}
		m.valueBounds[in.a] = b
		return b
	}
	if v := m.eval(i); v.Known {
		return point(v)
	}
	kids := m.p.kids[in.a : in.a+in.n]
	switch in.op {
	case opAdd:
		return sumOf(m.bounds(kids[0]), m.bounds(kids[1]))
	case opSub:
		return sumOf(m.bounds(kids[0]), negated(m.bounds(kids[1])))
	case opNeg:
		return negated(m.bounds(kids[0]))
	case opMul:
		// Only a constant factor keeps the rules linear for the solver.
		if k := m.p.code[kids[0]]; k.op == opConst {
			return scaled(m.bounds(kids[1]), k.k)
		}
		if k := m.p.code[kids[1]]; k.op == opConst {
			return scaled(m.bounds(kids[0]), k.k)
		}
	case opIf:
		switch c := m.eval(kids[0]); {
		case c.True():
			return m.bounds(kids[1])
		case c.False():
			return m.bounds(kids[2])
		}
		a, b := m.bounds(kids[1]), m.bounds(kids[2])
		return interval{lower(a.lo, b.lo, true), upper(a.hi, b.hi, true)}
	case opMin, opMax:
		out := m.bounds(kids[0])
		for _, k := range kids[1:] {
			b := m.bounds(k)
			if in.op == opMin {
				out = interval{lower(out.lo, b.lo, true), lower(out.hi, b.hi, false)}
			} else {
				out = interval{upper(out.lo, b.lo, false), upper(out.hi, b.hi, true)}
			}
		}
		return out
	case opDefault:
		// Unknown as a whole: the default is what it reads now.
		return m.bounds(kids[1])
	case opAbs:
		return absolute(m.bounds(kids[0]))
	case opFloor, opCeil, opRound:
		// Rounding to a constant step keeps the order of numbers.
		if k := m.p.code[kids[1]]; k.op == opConst && k.k.Num > 0 {
			b := m.bounds(kids[0])
			mode := value.RoundHalfUp
			switch in.op {
			case opFloor:
				mode = value.RoundDown
			case opCeil:
				mode = value.RoundUp
			}
			return interval{roundedEnd(b.lo, k.k, mode), roundedEnd(b.hi, k.k, mode)}
		}
	}
	return interval{}
}

// roundedEnd is the end a rounded to step: unbounded when a is, or when
// rounding has no result.
func roundedEnd(a, step value.Value, mode value.Rounding) value.Value {
	if !a.Known {
		return a
	}
	v, fault := value.RoundTo(a, step, mode)
	if fault != value.NoFault {
		return value.Value{}
	}
	return v
}

// lower is the lesser of two bounds. An unbounded side is below
// everything when it stands for -infinity (unboundedWins, as for a range's
// lower end); otherwise it is passed over (the lesser of a range's upper
// ends, for min, is bounded when either is).
func lower(a, b value.Value, unboundedWins bool) value.Value {
	return extreme(a, b, false, unboundedWins)
}

// upper is lower's mirror: the greater of two bounds.
func upper(a, b value.Value, unboundedWins bool) value.Value {
	return extreme(a, b, true, unboundedWins)
}

// extreme is the greater (greater) or lesser of two bounds, an unbounded
// one winning or passed over as unboundedWins says.
func extreme(a, b value.Value, greater, unboundedWins bool) value.Value {
	switch {
	case !a.Known || !b.Known:
		if unboundedWins {
			return value.Value{}
		}
		if a.Known {
			return a
		}
		return b
	}
	if c := value.Compare(b, a); greater && c > 0 || !greater && c < 0 {
		return b
	}
	return a
}

// sumOf is the range of a + b. A sum beyond the engine's digits leaves
// that side unbounded.
func sumOf(a, b interval) interval {
	return interval{added(a.lo, b.lo), added(a.hi, b.hi)}
}

func added(a, b value.Value) value.Value {
	if !a.Known || !b.Known {
		return value.Value{}
	}
	v, ok := value.Add(a, b)
	if !ok {
		return value.Value{}
	}
	return v
}

// negated is the range of -a.
func negated(a interval) interval {
	return interval{negative(a.hi), negative(a.lo)}
}

func negative(a value.Value) value.Value {
	if !a.Known {
		return a
	}
	v, ok := value.Neg(a)
	if !ok {
		return value.Value{}
	}
	return v
}

// scaled is the range of a times the constant k.
func scaled(a interval, k value.Value) interval {
	if k.Num == 0 {
		return point(k)
	}
	if k.Num < 0 {
		a = interval{a.hi, a.lo}
	}
	return interval{times(a.lo, k), times(a.hi, k)}
}

func times(a, k value.Value) value.Value {
	if !a.Known {
		return a
	}
	v, ok := value.Mul(a, k)
	if !ok {
		return value.Value{}
	}
	return v
}

// absolute is the range of abs(a).
func absolute(a interval) interval {
	zero := value.IntValue(0)
	switch {
	case below(zero, a.lo, false):
		return a
	case below(a.hi, zero, false):
		return negated(a)
	}
	return interval{zero, upper(negative(a.lo), a.hi, true)}
}
