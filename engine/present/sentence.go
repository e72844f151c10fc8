package present

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// This file renders compiled expressions as plain-language sentences for
// display.sentence: what a citizen reads next to a criterion, so it names
// fields by their labels or plain names ("months employed"), enum values by
// their labels, numbers with the field's unit, spells operators as words
// ("is at least"), writes dates as "1 July 1952" and numbers with thousands
// separators, and never shows the rules language's symbols.

// CriterionSentence is the criterion in plain language, never empty: its
// expression's sentence, or for a discretionary criterion a sentence saying
// that an official decides it.
func CriterionSentence(r *engine.Ruleset, c *engine.Criterion) string {
	if c.Expr == nil {
		return "decided by an official: " + lowerFirst(c.Title)
	}
	return Sentence(r, c.Expr)
}

// Sentence renders a compiled bool expression of the ruleset as a plain
// sentence: `employment.months_employed >= 12` reads "months employed is
// at least 12", a yes/no question "in Great Britain: yes". An "or" inside
// an "and" reads "either A or B", an "and" inside an "or" "both A and B",
// so the sentence keeps the expression's grouping without brackets. A
// condition written as the law's "for these applicants, this limit"
// (`region != "alaska" or size != 2 or income <= 2864`) reads as such:
// "if household region is alaska and household size is 2, income is at
// most 2,864" (see guardedRow).
func Sentence(ruleset *engine.Ruleset, e *engine.Expr) string {
	r := rules{ruleset}
	var b strings.Builder
	if guards, rest, ok := guardedRow(e); ok {
		r.conditional(&b, guards, rest)
		return b.String()
	}
	r.clause(&b, e, false)
	return b.String()
}

// comparisonWords are the phrases of a comparison for numbers and for
// dates ("is at least 12", "is on or after 1 July 1952").
var comparisonWords = map[engine.Operator][2]string{
	engine.OpEq: {"is", "is on"},
	engine.OpNe: {"is not", "is not on"},
	engine.OpLt: {"is less than", "is before"},
	engine.OpLe: {"is at most", "is on or before"},
	engine.OpGt: {"is more than", "is after"},
	engine.OpGe: {"is at least", "is on or after"},
}

// mirrored is the operator that keeps a comparison's meaning with its
// sides swapped, so that "12 <= x" can read "x is at least 12".
var mirrored = map[engine.Operator]engine.Operator{engine.OpEq: engine.OpEq, engine.OpNe: engine.OpNe, engine.OpLt: engine.OpGt, engine.OpLe: engine.OpGe, engine.OpGt: engine.OpLt, engine.OpGe: engine.OpLe}

// negated is the operator that says the opposite, for "not" over a
// comparison, a membership or a presence test.
var negated = map[engine.Operator]engine.Operator{
	engine.OpEq: engine.OpNe, engine.OpNe: engine.OpEq, engine.OpLt: engine.OpGe, engine.OpGe: engine.OpLt, engine.OpLe: engine.OpGt, engine.OpGt: engine.OpLe,
	engine.OpIn: engine.OpNotIn, engine.OpNotIn: engine.OpIn, engine.OpPresent: engine.OpAbsent, engine.OpAbsent: engine.OpPresent,
}

// clause writes a bool expression. nested is true inside another and/or,
// where a different connective needs "either"/"both" to keep its grouping.
func (r rules) clause(b *strings.Builder, e *engine.Expr, nested bool) {
	if a, ok := engine.AggregateOf(e); ok && (a.Kind == "any" || a.Kind == "all") {
		r.aggregateClause(b, a)
		return
	}
	if e.Kind != engine.ExprOp {
		// A bare bool field or constant is a condition on its own.
		switch {
		case e.Kind == engine.ExprField && e.Sort == engine.SortBool:
			r.answer(b, e, true)
		case e.Kind == engine.ExprConst && e.Sort == engine.SortBool && e.Const.Num != 0:
			b.WriteString("always met")
		case e.Kind == engine.ExprConst && e.Sort == engine.SortBool:
			b.WriteString("never met")
		default:
			b.WriteString(r.term(e))
		}
		return
	}
	switch e.Op {
	case engine.OpAnd, engine.OpOr:
		word, lead := " and ", "both "
		if e.Op == engine.OpOr {
			word, lead = " or ", "either "
		}
		if nested {
			if len(e.Args) > 2 {
				lead = "all of "
				if e.Op == engine.OpOr {
					lead = "any of "
				}
			}
			b.WriteString(lead)
		}
		for i, a := range e.Args {
			switch {
			case i == 0:
			case i == len(e.Args)-1:
				if len(e.Args) > 2 {
					b.WriteString(",")
				}
				b.WriteString(word)
			default:
				b.WriteString(", ")
			}
			r.clause(b, a, true)
		}
	case engine.OpNot:
		x := e.Args[0]
		if op, ok := negated[x.Op]; ok && x.Kind == engine.ExprOp {
			// "not a >= 12" reads "a is less than 12": the same under
			// three-valued logic, since both are unknown exactly when a is.
			flipped := *x
			flipped.Op = op
			r.clause(b, &flipped, nested)
			return
		}
		if x.Kind == engine.ExprField && x.Sort == engine.SortBool {
			r.answer(b, x, false)
			return
		}
		b.WriteString("it is not the case that ")
		r.clause(b, x, true)
	case engine.OpPresent:
		b.WriteString(r.term(e.Args[0]))
		b.WriteString(" has been answered")
	case engine.OpAbsent:
		b.WriteString(r.term(e.Args[0]))
		b.WriteString(" has not been answered")
	case engine.OpIn, engine.OpNotIn:
		r.membership(b, e)
	case engine.OpEq, engine.OpNe, engine.OpLt, engine.OpLe, engine.OpGt, engine.OpGe:
		r.comparison(b, e)
	case engine.OpDefault:
		if e.Sort == engine.SortBool && e.Args[1].Kind == engine.ExprConst {
			// "x ?? false" reads "x: yes (counted as no if not answered)".
			r.answer(b, e.Args[0], true)
			b.WriteString(" (counted as ")
			b.WriteString(constWords(e.Args[1]))
			b.WriteString(" if not answered)")
			return
		}
		b.WriteString(r.term(e))
		if e.Sort == engine.SortBool {
			b.WriteString(": yes")
		}
	default:
		b.WriteString(r.term(e))
	}
}

// comparison writes "<left> <words> <right>", with the constant on the
// right and units ("years") after quantities that carry them.
func (r rules) comparison(b *strings.Builder, e *engine.Expr) {
	op, x, y := e.Op, e.Args[0], e.Args[1]
	if x.Kind == engine.ExprConst && y.Kind != engine.ExprConst {
		op, x, y = mirrored[op], y, x
	}
	// "x == true" reads "x: yes"; "x == false" reads "x: no".
	if y.Kind == engine.ExprConst && y.Sort == engine.SortBool && (op == engine.OpEq || op == engine.OpNe) {
		r.answer(b, x, (y.Const.Num != 0) != (op == engine.OpNe))
		return
	}
	if r.countedSpans(b, op, x, y) {
		return
	}
	words := comparisonWords[op]
	w := words[0]
	if x.Sort == engine.SortDate {
		w = words[1]
	}
	b.WriteString(r.term(x))
	b.WriteByte(' ')
	b.WriteString(w)
	b.WriteByte(' ')
	if u := r.unit(x); u != "" && y.Kind == engine.ExprConst {
		b.WriteString(withUnit(r.valueWords(x, y), u, y.Const.NumberString()))
		return
	}
	b.WriteString(r.valueWords(x, y))
}

// answer writes a yes/no question's answer as a form shows it: "in Great
// Britain: yes", "US citizen: no". A field named for what it asks
// ("in_great_britain", "has_partner", "pregnant") reads naturally so,
// where "in great britain is yes" did not.
func (r rules) answer(b *strings.Builder, x *engine.Expr, yes bool) {
	b.WriteString(r.term(x))
	if yes {
		b.WriteString(": yes")
	} else {
		b.WriteString(": no")
	}
}

// membership writes "x is a or b" / "x is neither a nor b".
func (r rules) membership(b *strings.Builder, e *engine.Expr) {
	b.WriteString(r.term(e.Args[0]))
	vals := make([]string, len(e.Args)-1)
	for i, a := range e.Args[1:] {
		vals[i] = r.valueWords(e.Args[0], a)
	}
	switch {
	case e.Op == engine.OpIn:
		b.WriteString(" is ")
		b.WriteString(joinWords(vals, "or"))
	case len(vals) == 1:
		b.WriteString(" is not ")
		b.WriteString(vals[0])
	case len(vals) == 2:
		b.WriteString(" is neither ")
		b.WriteString(vals[0])
		b.WriteString(" nor ")
		b.WriteString(vals[1])
	default:
		b.WriteString(" is none of ")
		b.WriteString(joinWords(vals, "or"))
	}
}

// joinWords joins "a", "a or b", "a, b or c".
func joinWords(vals []string, word string) string {
	if len(vals) == 1 {
		return vals[0]
	}
	return strings.Join(vals[:len(vals)-1], ", ") + " " + word + " " + vals[len(vals)-1]
}

// unit is the unit a quantity's constant is counted in: "years" after
// years_between, and so on, a field's declared unit ("hours") or, when it
// declares none, the currency its name states (nameCurrency); "" for
// plain numbers.
func (r rules) unit(e *engine.Expr) string {
	if e.Kind == engine.ExprField {
		s := r.FieldIndex(e.Key)
		switch {
		case s < 0:
			return ""
		case r.Fields[s].Unit != "":
			return r.Fields[s].Unit
		}
		_, name, _ := strings.Cut(e.Key, ".")
		return nameCurrency(name)
	}
	if e.Kind != engine.ExprOp {
		return ""
	}
	switch e.Op {
	case engine.OpYearsBetween:
		return "years"
	case engine.OpMonthsBetween:
		return "months"
	case engine.OpDaysBetween:
		return "days"
	}
	return ""
}

// valueWords writes v where it is compared with x: an enum value of a
// field that labels its values by its label ("a federal agency under
// title 5" rather than "federal title5"), anything else as term does.
func (r rules) valueWords(x, v *engine.Expr) string {
	if v.Kind == engine.ExprConst && v.Sort == engine.SortEnum && x.Kind == engine.ExprField {
		if s := r.FieldIndex(x.Key); s >= 0 {
			if label := r.Fields[s].ValueLabels[v.Enum]; label != "" {
				return lowerValueLabel(label)
			}
		}
	}
	return r.term(v)
}

// term writes a value: a field's plain name, a constant, or a calculation.
func (r rules) term(e *engine.Expr) string {
	if a, ok := engine.AggregateOf(e); ok && a.Kind != "any" && a.Kind != "all" {
		return r.aggregateTerm(a)
	}
	switch e.Kind {
	case engine.ExprField:
		if s := r.FieldIndex(e.Key); s >= 0 {
			return r.fieldNoun(s)
		}
		return e.Key
	case engine.ExprConst:
		return constWords(e)
	case engine.ExprGroup:
		return e.Key
	case engine.ExprValue:
		if e.Slot < len(r.Values) {
			return lowerFirst(r.Values[e.Slot].Title)
		}
		return e.Key
	}
	switch e.Op {
	case engine.OpDecisionDate:
		return "the date of the decision"
	case engine.OpDiv:
		return r.operand(e.Args[0]) + " divided by " + r.operand(e.Args[1])
	case engine.OpFloor, engine.OpCeil, engine.OpRound:
		return r.term(e.Args[0]) + roundingWords(e)
	case engine.OpAbs:
		return "the size of " + r.term(e.Args[0])
	case engine.OpIf:
		var b strings.Builder
		r.clause(&b, e.Args[0], true)
		return r.term(e.Args[1]) + " if " + b.String() + ", otherwise " + r.term(e.Args[2])
	case engine.OpYearsBetween, engine.OpMonthsBetween, engine.OpDaysBetween:
		return r.span(e)
	case engine.OpAddDays, engine.OpAddMonths, engine.OpAddYears:
		return r.shifted(e)
	case engine.OpDefault:
		return r.term(e.Args[0]) + " (or " + r.term(e.Args[1]) + " if not answered)"
	case engine.OpNeg:
		return "minus " + r.term(e.Args[0])
	case engine.OpAdd, engine.OpSub, engine.OpMul:
		return r.operand(e.Args[0]) + arithmeticWords[e.Op] + r.operand(e.Args[1])
	case engine.OpMin, engine.OpMax:
		vals := make([]string, len(e.Args))
		for i, a := range e.Args {
			vals[i] = r.operand(a)
		}
		which := extremeWords[e.Op][0]
		if len(vals) > 2 {
			which = extremeWords[e.Op][1]
		}
		return which + joinWords(vals, "and")
	}
	// A bool expression used as a value (in == or !=): say it as a clause.
	var b strings.Builder
	r.clause(&b, e, true)
	return "whether " + b.String()
}

// roundingWords say how a floor, ceil or round call rounds: ", rounded
// down to a whole number", ", rounded to the nearest 0.01".
func roundingWords(e *engine.Expr) string {
	step := e.Args[1]
	to := "a whole number"
	if !(step.Const.Num == 1 && step.Const.Scale == 0) {
		to = "a multiple of " + step.Const.NumberString()
	}
	switch e.Op {
	case engine.OpFloor:
		return ", rounded down to " + to
	case engine.OpCeil:
		return ", rounded up to " + to
	}
	if to == "a whole number" {
		return ", rounded to the nearest whole number"
	}
	return ", rounded to the nearest multiple of " + step.Const.NumberString()
}

// arithmeticWords spell the arithmetic operators.
var arithmeticWords = map[engine.Operator]string{engine.OpAdd: " plus ", engine.OpSub: " minus ", engine.OpMul: " times "}

// extremeWords spell min and max over two values and over more.
var extremeWords = map[engine.Operator][2]string{
	engine.OpMin: {"the smaller of ", "the smallest of "},
	engine.OpMax: {"the larger of ", "the largest of "},
}

// operand is a term inside arithmetic; a nested calculation is put in
// brackets so "a plus b times 2" cannot be misread.
func (r rules) operand(e *engine.Expr) string {
	t := r.term(e)
	if e.Kind == engine.ExprOp && (e.Op == engine.OpAdd || e.Op == engine.OpSub || e.Op == engine.OpMul) {
		return "(" + t + ")"
	}
	return t
}

// span writes years_between, months_between and days_between: "age (from
// date of birth)" when it runs from a birth date to the decision date,
// "time since X" to the decision date, "time from X to Y" otherwise; the
// comparison adds the unit.
func (r rules) span(e *engine.Expr) string {
	from, to := e.Args[0], e.Args[1]
	toDecision := to.Kind == engine.ExprOp && to.Op == engine.OpDecisionDate
	if toDecision && from.Kind == engine.ExprField && (strings.Contains(from.Key, "birth") || strings.Contains(from.Key, "born")) {
		return "age (from " + r.term(from) + ")"
	}
	if toDecision {
		return "time since " + r.term(from)
	}
	return "time from " + r.term(from) + " to " + r.term(to)
}

// shiftUnits name the unit add_days, add_months and add_years count in,
// singular and plural.
var shiftUnits = map[engine.Operator][2]string{
	engine.OpAddDays: {"day", "days"}, engine.OpAddMonths: {"month", "months"}, engine.OpAddYears: {"year", "years"},
}

// shifted writes add_days, add_months and add_years: "the day before date
// of birth" and "the day after" for one day, "66 years after date of birth",
// "date of birth plus (the count) years" for a computed count.
func (r rules) shifted(e *engine.Expr) string {
	date, n := r.operand(e.Args[0]), e.Args[1]
	units := shiftUnits[e.Op]
	if n.Kind != engine.ExprConst {
		return date + " plus " + r.operand(n) + " " + units[1]
	}
	k := n.Const.Num
	switch {
	case k == 0:
		return date
	case e.Op == engine.OpAddDays && k == -1:
		return "the day before " + date
	case e.Op == engine.OpAddDays && k == 1:
		return "the day after " + date
	}
	word, after := units[1], " after "
	if k < 0 {
		k, after = -k, " before "
	}
	if k == 1 {
		word = units[0]
	}
	return strconv.FormatInt(k, 10) + " " + word + after + date
}

// monthNames spell dates the way people write them: "1 July 1952".
var monthNames = [...]string{"January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

// constWords writes a constant: numbers with thousands separators, bools
// as yes/no, enum values with spaces for underscores, dates spelled out.
func constWords(e *engine.Expr) string {
	switch e.Sort {
	case engine.SortInt, engine.SortDecimal:
		return GroupThousands(e.Const.NumberString())
	case engine.SortBool:
		if e.Const.Num != 0 {
			return "yes"
		}
		return "no"
	case engine.SortDate:
		y, m, d := value.Civil(e.Const.Num)
		var b strings.Builder
		b.WriteString(strconv.Itoa(d))
		b.WriteByte(' ')
		b.WriteString(monthNames[m-1])
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(y))
		return b.String()
	}
	return strings.ReplaceAll(e.Enum, "_", " ")
}

// GroupThousands puts commas between thousands in a plain decimal number
// string: "43759.8" becomes "43,759.8", "-1250" "-1,250". Exported for the
// solver's diff, which words a moved threshold as sentences word numbers.
func GroupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		whole, frac = s[:i], s[i:]
	}
	if len(whole) <= 3 {
		return sign + whole + frac
	}
	var b strings.Builder
	b.WriteString(sign)
	lead := len(whole) % 3
	if lead > 0 {
		b.WriteString(whole[:lead])
	}
	for i := lead; i < len(whole); i += 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(whole[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}

// lowerFirst lowers the first letter of a label so it reads inside a
// sentence ("Household size" reads "household size"), unless its capitals
// are its own: an acronym ("FMLA leave") or a name in title case, every
// longer word capitalised ("Supplemental Security Income").
func lowerFirst(s string) string {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' || (s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	if namedInTitleCase(strings.Fields(s)[1:]) {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// namedInTitleCase reports whether words are a name's: at least one word of four
// letters or more, and each such word capitalised ("of", "and" and "the"
// are not counted).
func namedInTitleCase(words []string) bool {
	counted := 0
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if !unicode.IsLetter(r) || utf8.RuneCountInString(w) < 4 {
			continue
		}
		if !unicode.IsUpper(r) {
			return false
		}
		counted++
	}
	return counted > 0
}

// lowerValueLabel is lowerFirst for the label of an enum value, which is
// often the name of a programme or a body ("Medicaid"): a one-word label
// keeps its capital; a phrase in sentence case ("Public agency") is
// lowered.
func lowerValueLabel(s string) string {
	if !strings.ContainsRune(strings.TrimSpace(s), ' ') {
		return s
	}
	return lowerFirst(s)
}

// unitWords are the singular of the units a count is most often declared
// in whose singular is not the plural less its "s".
var unitWords = map[string]string{"people": "person", "children": "child", "persons": "person"}

// countUnit is unit as it reads after the number n: "1 person", "1 year",
// "2 people". Only the unit's first word is made singular ("hours a week"
// reads "1 hour a week"); a unit that is not a plural English word ("USD",
// "%") is left as it is.
func countUnit(unit, n string) string {
	if n != "1" && n != "-1" {
		return unit
	}
	first, rest, _ := strings.Cut(unit, " ")
	if one, ok := unitWords[strings.ToLower(first)]; ok {
		first = one
	} else if len(first) > 3 && strings.HasSuffix(first, "s") && !strings.HasSuffix(first, "ss") && strings.ToLower(first) == first {
		first = strings.TrimSuffix(first, "s")
	}
	if rest == "" {
		return first
	}
	return first + " " + rest
}
