package present

import (
	"strconv"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// This file holds the sentence forms that read a condition the way the
// law states it rather than the way the rules language encodes it: the
// row of a table that applies to some applicants only ("if household size
// is 2, income is at most 2,292"), whole years counted from a fixed day of
// the year (a school year from 1 September), and amounts of money ("$30,000
// a year").

// guardedRow recognises a condition written as one row of a table,
// "these applicants, this limit": an `or` whose every alternative but the
// last compares a field with a constant (the guards, each saying whom the
// row is not about) and whose last is the test itself,
// `region != "alaska" or size != 2 or income <= 2864`. To tell such a
// row from plain alternatives, it needs two guards or more, or one that
// says "is not" (!=, not in). ok is false for anything else. The console
// reads the same shape from the rules text to leave out the rows that
// do not apply to an applicant (docs/console.md).
func guardedRow(e *engine.Expr) (guards []*engine.Expr, test *engine.Expr, ok bool) {
	if e == nil || e.Kind != engine.ExprOp || e.Op != engine.OpOr || len(e.Args) < 2 {
		return nil, nil, false
	}
	n := len(e.Args) - 1
	excludes := false
	for _, g := range e.Args[:n] {
		if !isGuard(g) {
			return nil, nil, false
		}
		excludes = excludes || g.Op == engine.OpNe || g.Op == engine.OpNotIn
	}
	if n < 2 && !excludes {
		return nil, nil, false
	}
	return e.Args[:n], e.Args[n], true
}

// isGuard reports whether e compares one field with constants: `x != 2`,
// `2 < x`, `x not in ["a", "b"]`, `x in ["a"]`.
func isGuard(e *engine.Expr) bool {
	if e.Kind != engine.ExprOp {
		return false
	}
	switch e.Op {
	case engine.OpEq, engine.OpNe, engine.OpLt, engine.OpLe, engine.OpGt, engine.OpGe:
		x, y := e.Args[0], e.Args[1]
		return x.Kind == engine.ExprField && y.Kind == engine.ExprConst || x.Kind == engine.ExprConst && y.Kind == engine.ExprField
	case engine.OpIn, engine.OpNotIn:
		for _, a := range e.Args[1:] {
			if a.Kind != engine.ExprConst {
				return false
			}
		}
		return e.Args[0].Kind == engine.ExprField
	}
	return false
}

// conditional writes a table row as "if <whom it is about>, <the test>":
// each guard said the other way round (`size != 2` reads "household size
// is 2"), joined by "and".
func (r rules) conditional(b *strings.Builder, guards []*engine.Expr, test *engine.Expr) {
	b.WriteString("if ")
	for i, g := range guards {
		if i > 0 {
			b.WriteString(" and ")
		}
		flipped := *g
		flipped.Op = negated[g.Op]
		r.clause(b, &flipped, true)
	}
	b.WriteString(", ")
	r.clause(b, test, true)
}

// countedSpans writes a comparison of two spans counted from the same
// fixed date, the rules language's way to count years that start on a
// given day: `years_between(date("1900-09-01"), decision_date()) ==
// years_between(date("1900-09-01"), child.date_of_birth) + 16` is "the
// date of the decision falls in the same year from 1 September to 31
// August as the date 16 years after date of birth". Days counted from a
// fixed date are plain days between the two dates. It reports false, and
// writes nothing, for any other comparison.
func (r rules) countedSpans(b *strings.Builder, op engine.Operator, x, y *engine.Expr) bool {
	k, yspan := int64(0), y
	if y.Kind == engine.ExprOp && (y.Op == engine.OpAdd || y.Op == engine.OpSub) && len(y.Args) == 2 {
		switch a, c := y.Args[0], y.Args[1]; {
		case c.Kind == engine.ExprConst && c.Sort == engine.SortInt:
			yspan, k = a, c.Const.Num
			if y.Op == engine.OpSub {
				k = -k
			}
		case a.Kind == engine.ExprConst && a.Sort == engine.SortInt && y.Op == engine.OpAdd:
			yspan, k = c, a.Const.Num
		default:
			return false
		}
	}
	if !isSpan(x) || !isSpan(yspan) || x.Op != yspan.Op {
		return false
	}
	origin, later, earlier := x.Args[0], x.Args[1], yspan.Args[1]
	if origin.Kind != engine.ExprConst || yspan.Args[0].Kind != engine.ExprConst || origin.Const.Num != yspan.Args[0].Const.Num {
		return false
	}
	switch x.Op {
	case engine.OpDaysBetween:
		// Days are days from any origin: the span from one date to the other.
		span := engine.Expr{Kind: engine.ExprOp, Sort: engine.SortInt, Op: engine.OpDaysBetween, Args: []*engine.Expr{earlier, later}}
		r.comparison(b, &engine.Expr{Kind: engine.ExprOp, Sort: engine.SortBool, Op: op, Args: []*engine.Expr{&span, intConst(k)}})
		return true
	case engine.OpYearsBetween:
		year := yearFrom(origin.Const.Num)
		if op == engine.OpEq {
			b.WriteString(r.term(later))
			b.WriteString(" falls in the same year from ")
			b.WriteString(year)
			b.WriteString(" as ")
			if k != 0 {
				b.WriteString("the date ")
			}
			b.WriteString(r.shifted(&engine.Expr{Kind: engine.ExprOp, Sort: engine.SortDate, Op: engine.OpAddYears, Args: []*engine.Expr{earlier, intConst(k)}}))
			return true
		}
		b.WriteString("counting years from ")
		b.WriteString(year)
		b.WriteString(", the time from ")
		b.WriteString(r.term(earlier))
		b.WriteString(" to ")
		b.WriteString(r.term(later))
		b.WriteByte(' ')
		b.WriteString(comparisonWords[op][0])
		b.WriteByte(' ')
		b.WriteString(GroupThousands(strconv.FormatInt(k, 10)))
		b.WriteByte(' ')
		b.WriteString(countUnit("years", strconv.FormatInt(k, 10)))
		return true
	}
	return false
}

// isSpan reports whether e is years_between, months_between or
// days_between.
func isSpan(e *engine.Expr) bool {
	return e.Kind == engine.ExprOp && (e.Op == engine.OpYearsBetween || e.Op == engine.OpMonthsBetween || e.Op == engine.OpDaysBetween)
}

// intConst is the int constant n, for a sentence that says a calculation
// another way.
func intConst(n int64) *engine.Expr {
	return &engine.Expr{Kind: engine.ExprConst, Sort: engine.SortInt, Const: value.Value{Num: n, Known: true}}
}

// yearFrom names the year that starts on the day and month of the date
// ordinal from: "1 September to 31 August"; "1 January to 31 December".
func yearFrom(from int64) string {
	_, m, d := value.Civil(from)
	_, em, ed := value.Civil(from - 1)
	return strconv.Itoa(d) + " " + monthNames[m-1] + " to " + strconv.Itoa(ed) + " " + monthNames[em-1]
}

// currencySigns are the currencies people write with a sign before the
// amount ("$30,000"); any other currency code is written before it
// ("CHF 30,000").
var currencySigns = map[string]string{"USD": "$", "GBP": "£", "EUR": "€"}

// currencyCodes are the codes withUnit writes before an amount.
var currencyCodes = map[string]bool{
	"USD": true, "GBP": true, "EUR": true, "AUD": true, "CAD": true, "NZD": true, "CHF": true,
}

// rateWords say a rate as people write it after an amount: "$2,345 a
// month".
var rateWords = map[string]string{
	"per year": "a year", "per month": "a month", "per week": "a week", "per day": "a day",
	"yearly": "a year", "monthly": "a month", "weekly": "a week", "daily": "a day",
	"annually": "a year", "per annum": "a year",
}

// withUnit writes figure (already grouped in thousands) with the unit the
// field declares, as people write amounts: money with its sign or code in
// front ("$30,000 a year", "CHF 1,200"), anything else counted after it
// ("1 person", "1,250 hours"). n is the plain number, for the singular.
func withUnit(figure, unit, n string) string {
	code, rest, _ := strings.Cut(unit, " ")
	if !currencyCodes[strings.ToUpper(code)] {
		return figure + " " + countUnit(unit, n)
	}
	if r, ok := rateWords[strings.ToLower(rest)]; ok {
		rest = r
	}
	amount := strings.ToUpper(code) + " " + figure
	if sign, ok := currencySigns[strings.ToUpper(code)]; ok {
		amount = sign + figure
		if strings.HasPrefix(figure, "-") {
			amount = "-" + sign + figure[1:]
		}
	}
	if rest == "" {
		return amount
	}
	return amount + " " + rest
}
