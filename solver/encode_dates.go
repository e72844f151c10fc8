package solver

// The calendar: a date is an ordinal with (year, month, day) parts under
// axioms that keep them a real calendar date, and add_days, add_months and
// add_years shift dates exactly (see Encoding.expr).

import (
	"fmt"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/z3"
)

func (e *Encoding) dateVars(name string) (y, m, d, ord *z3.Expr) {
	c := e.c
	return c.IntConst("year|" + name), c.IntConst("month|" + name), c.IntConst("day|" + name), c.IntConst("value|" + name)
}

// cumulativeDays[m-1] is the number of days before month m in a common year.
var cumulativeDays = [12]int64{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}

// dateAxioms keep a date's ordinal within the engine's range, 0001-01-01 to
// 9999-12-31, and, when the rules count months or years on it (calendar),
// tie the ordinal to a valid calendar year, month and day by the proleptic
// Gregorian formula the engine's DateOrdinal uses. Without calendar the
// parts are left unconstrained: nothing reads them, and every ordinal in
// range has its date.
//
// The formula avoids div and mod, which make Z3 search hard: the year
// before y is split into cycles, y-1 = 400a + 100b + 4c + e with 0 <= b <=
// 3, 0 <= c <= 24 and 0 <= e <= 3, so that the days before year y are
// 146097a + 36524b + 1461c + 365e and y is a leap year exactly when e = 3
// and (c != 24 or b = 3). The cycle counts are variables named after the
// date (name).
func dateAxioms(c *z3.Context, name string, y, m, d, ord *z3.Expr, calendar bool) []*z3.Expr {
	inRange := []*z3.Expr{c.Ge(ord, c.Int(1)), c.Le(ord, c.Int(MaxOrdinal))}
	if !calendar {
		return inRange
	}
	n := func(v int64) *z3.Expr { return c.Int(v) }
	a, b, q, e := cycleVars(c, name)
	leap := c.And(c.Eq(e, n(3)), c.Or(c.Not(c.Eq(q, n(24))), c.Eq(b, n(3))))
	daysInMonth := monthLength(c, name, m)
	before := n(0)
	for i := 11; i >= 1; i-- {
		before = c.Ite(c.Eq(m, n(int64(i+1))), n(cumulativeDays[i]), before)
	}
	before = c.Add(before, c.Ite(c.And(c.Gt(m, n(2)), leap), n(1), n(0)))
	beforeYear := c.Add(c.Mul(a, n(146097)), c.Mul(b, n(36524)), c.Mul(q, n(1461)), c.Mul(e, n(365)))
	// Redundant bounds that locate the ordinal in its cycles, so that Z3
	// finds the parts of a given ordinal by propagation, not by search.
	r1 := c.Sub(ord, n(1), c.Mul(a, n(146097)))
	r2 := c.Sub(r1, c.Mul(b, n(36524)))
	r3 := c.Sub(r2, c.Mul(q, n(1461)))
	cycles := []*z3.Expr{
		c.Ge(r1, n(0)), c.Lt(r1, n(146097)),
		c.Ge(r2, n(0)), c.Or(c.Eq(b, n(3)), c.Lt(r2, n(36524))),
		c.Ge(r3, n(0)), c.Lt(r3, n(1461)),
		c.Ge(c.Sub(r3, c.Mul(e, n(365))), n(0)), c.Or(c.Eq(e, n(3)), c.Lt(r3, c.Mul(c.Add(e, n(1)), n(365)))),
	}
	inRange = append(inRange, cycles...)
	return append(inRange,
		c.Ge(a, n(0)), c.Le(a, n(24)),
		c.Ge(b, n(0)), c.Le(b, n(3)),
		c.Ge(q, n(0)), c.Le(q, n(24)),
		c.Ge(e, n(0)), c.Le(e, n(3)),
		c.Eq(c.Sub(y, n(1)), c.Add(c.Mul(a, n(400)), c.Mul(b, n(100)), c.Mul(q, n(4)), e)),
		c.Ge(y, n(1)), c.Le(y, n(9999)),
		c.Ge(m, n(1)), c.Le(m, n(12)),
		c.Ge(d, n(1)), c.Le(d, daysInMonth),
		c.Eq(ord, c.Add(beforeYear, before, d)),
	)
}

// cycleVars are the cycle counts dateAxioms splits the year before a
// date's year into (see there), named after the date.
func cycleVars(c *z3.Context, name string) (a, b, q, e *z3.Expr) {
	return c.IntConst("cycle400|" + name), c.IntConst("cycle100|" + name), c.IntConst("cycle4|" + name), c.IntConst("cycle1|" + name)
}

// monthLength is the number of days in month m of the year of the date
// called name, read from the cycle counts of its calendar axioms.
func monthLength(c *z3.Context, name string, m *z3.Expr) *z3.Expr {
	n := func(v int64) *z3.Expr { return c.Int(v) }
	_, b, q, e := cycleVars(c, name)
	leap := c.And(c.Eq(e, n(3)), c.Or(c.Not(c.Eq(q, n(24))), c.Eq(b, n(3))))
	return c.Ite(c.Eq(m, n(2)), c.Ite(leap, n(29), n(28)),
		c.Ite(c.Or(c.Eq(m, n(4)), c.Eq(m, n(6)), c.Eq(m, n(9)), c.Eq(m, n(11))), n(30), n(31)))
}

// shiftDate encodes add_days, add_months and add_years of the date a by
// the count k. The result is a date of its own, with variables named after
// the operator and the Z3 ids of its operands' terms (so every encoding in
// a context that shifts the same terms shares them, and a Variant that
// renames an operand gets fresh ones), full calendar axioms, and:
//
//   - add_days: its ordinal is a's plus k;
//   - add_months (k months) and add_years (12k months): 12*year + month
//     is a's plus the months, and its day is a's day clamped to the length
//     of the month it lands in, as value.AddMonths.
//
// The definition (axioms included) holds when the result is known, that is
// when both operands are; otherwise the variables are free, as a field's
// value is when unanswered. Like arithmetic overflow, a result outside the
// engine's date range is not modelled (the axioms exclude such answers).
func (e *Encoding) shiftDate(op engine.Operator, a, k term, known *z3.Expr) (term, error) {
	c := e.c
	if a.date == nil {
		return term{}, fmt.Errorf("%s of a non-date", op)
	}
	var name string
	if op == engine.OpAddDays {
		name = fmt.Sprintf("%s|%d|%d", op, a.val.ID(), k.val.ID())
	} else {
		name = fmt.Sprintf("%s|%d|%d|%d|%d", op, a.date.y.ID(), a.date.m.ID(), a.date.d.ID(), k.val.ID())
	}
	if n, ok := k.constant(); ok {
		if ord, ok := a.constant(); ok {
			// Constants fold, as the engine computes them.
			v, ok := shiftConstant(op, ord, n)
			if !ok {
				return term{}, fmt.Errorf("%s of constants falls outside the engine's dates", op)
			}
			return e.constant(engine.SortDate, v), nil
		}
	}
	y, m, d, ord := e.dateVars(name)
	axioms := dateAxioms(c, name, y, m, d, ord, true)
	switch op {
	case engine.OpAddDays:
		axioms = append(axioms, c.Eq(ord, c.Add(a.val, k.val)))
	case engine.OpAddYears:
		axioms = append(axioms, c.Eq(y, c.Add(a.date.y, k.val)), c.Eq(m, a.date.m))
	default:
		if n, ok := k.constant(); ok {
			// A constant count needs no division: carry at most one
			// year from the months left over.
			q, r := n/12, n%12
			if r < 0 {
				q, r = q-1, r+12
			}
			carry := c.Gt(c.Add(a.date.m, c.Int(r)), c.Int(12))
			axioms = append(axioms,
				c.Eq(y, c.Add(a.date.y, c.Int(q), c.Ite(carry, c.Int(1), c.Int(0)))),
				c.Eq(m, c.Add(a.date.m, c.Int(r), c.Ite(carry, c.Int(-12), c.Int(0)))))
		} else {
			twelve := c.Int(12)
			axioms = append(axioms, c.Eq(c.Add(c.Mul(y, twelve), m), c.Add(c.Mul(a.date.y, twelve), a.date.m, k.val)))
		}
	}
	if op != engine.OpAddDays {
		length := monthLength(c, name, m)
		axioms = append(axioms, c.Eq(d, c.Ite(c.Le(a.date.d, length), a.date.d, length)))
	}
	e.axioms = append(e.axioms, c.Implies(known, c.And(axioms...)))
	return term{sort: engine.SortDate, val: ord, date: &dateParts{y, m, d}}, nil
}

// shiftConstant is the engine's add_days, add_months or add_years of
// constants.
func shiftConstant(op engine.Operator, ord, n int64) (value.Value, bool) {
	switch op {
	case engine.OpAddDays:
		return value.AddDays(ord, n)
	case engine.OpAddYears:
		if n > 10000 || n < -10000 {
			return value.Value{}, false
		}
		n *= 12
	}
	return value.AddMonths(ord, n)
}

// constant returns the value of an Int term that is a numeral (a constant
// of the rules), and ok false for any other term.
func (t term) constant() (int64, bool) {
	v, err := t.val.AsInt64()
	return v, err == nil
}

// MaxOrdinal is the ordinal of 9999-12-31, the engine's last date: the
// encoding bounds every date with it, and so do the checks that move a
// date by hand (solver/verify's field analysis).
const MaxOrdinal = 3652059
