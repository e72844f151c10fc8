package solver

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/z3"
)

// The encoding turns a compiled ruleset into SMT terms over one set of
// variables per field, so that questions about every possible answer set
// ("can this field's absence make the outcome eligible?", "which criteria
// stand between these answers and eligible?", "can the answers so far still
// lead to eligible?") become satisfiability checks.
//
// Variables. Each field f has a presence Bool P(f) ("was f answered?") and
// value variables V(f) of its sort: an Int for int, a Real (exact rational)
// for decimal, a Bool for bool, an Int index into the listed values for an
// enum (bounded by the axioms), and for a date an Int ordinal (0001-01-01 is
// 1, as in the engine) together with Int year, month and day, tied to it by
// the calendar axioms when the rules count months or years on that date
// (see dateAxioms). V(f) means something only when P(f) holds; a model is free to
// give it any value otherwise. A ruleset that reads decision_date() has one
// more date, the decision date, with the same variables and axioms; fix it
// with DecisionDateIs.
//
// Three values. Every expression node is a pair of terms: Known (a Bool:
// the node is not Kleene's unknown) and Value (its value, meaningful only
// when Known). A criterion, group and the outcome are Tri pairs: satisfied is
// Known ∧ Value, not_satisfied Known ∧ ¬Value, pending ¬Known. The pairs
// follow engine/syntax/GRAMMAR.md#three-valued-meaning exactly: "and" is known when a side is known false or
// all sides are known; "or" dually; present/absent are always known; `f ??
// d` is known when f is answered or d is known; everything else is known
// when all its operands are. A discretionary criterion is never known.
//
// Dates stay linear: comparisons and days_between use the ordinal;
// months_between and years_between use year, month and day (completed months
// are (by-ay)*12 + (bm-am) - [bd < ad], years are those months div 12, and
// the sign follows the engine for a b before a). add_days, add_months and
// add_years make a new date with its own variables and calendar axioms,
// tied to the operands linearly (see shiftDate).
//
// What the encoding leaves out: arithmetic is exact and unbounded, while the
// evaluator reports a result of more than 18 significant digits as a field
// error (outcome undetermined). Field values themselves are bounded to the
// engine's range by the axioms, so this only matters for sums and products of
// extreme answers.
//
// Use. Encode builds the terms in a z3.Context; NewSolver gives a solver
// with the axioms asserted. Answered, Unanswered and Facts state answers;
// assert them, or pass them (or Track literals for them) as assumptions of
// CheckAssumptions to keep them retractable and to get them back in unsat
// cores. CriterionIs, GroupIs and OutcomeIs state statuses. Decode and
// Statuses read a model back into engine values and statuses. An Encoding
// belongs to its Context and, like it, to one goroutine at a time.

// maxMagnitude bounds int and decimal answers: the engine keeps at most 18
// significant digits, so no answer reaches 10^18.
const maxMagnitude = 1_000_000_000_000_000_000

// Tri is the three-valued status of a criterion, a group or the outcome, as
// two Bool terms: Known says the status is not pending, Value (meaningful
// only when Known) says satisfied (eligible) rather than not_satisfied (not
// eligible).
type Tri struct {
	// Known is true when the status is decided (not pending).
	Known *z3.Expr
	// Value is true for satisfied (eligible); read only under Known.
	Value *z3.Expr
}

// term is one encoded expression node: Known, Value, and for a date also
// the year, month and day of Value (the ordinal).
type term struct {
	// sort is the node's static type.
	sort engine.Sort
	// known is the Bool that the node's value is known.
	known *z3.Expr
	// val is the value, meaningful under known: Bool for bool, Real for
	// decimal, Int for int, enum index and date ordinal.
	val *z3.Expr
	// date holds the calendar parts of a date term; nil for other sorts.
	date *dateParts
}

// dateParts are the calendar parts of a date term; the ordinal is term.val.
type dateParts struct {
	// y, m and d are the Int year, month (1-12) and day of month; they
	// are constrained only when the rules read them (calendar axioms).
	y, m, d *z3.Expr
}

// fieldVars are the variables of one field.
type fieldVars struct {
	// present is the Bool "present|<field>": the field is answered.
	present *z3.Expr
	// val is "value|<field>", typed as term.val; meaningful when present.
	val *z3.Expr
	// date holds a date field's calendar parts; nil for other types.
	date *dateParts
}

// Encoding is the SMT form of one compiled ruleset in one z3.Context: the
// variables of every field, the axioms that keep their values within the
// engine's domain, and the Tri status of every criterion, group and the
// outcome.
type Encoding struct {
	// c is the context every term belongs to.
	c *z3.Context
	// r is the encoded ruleset.
	r *engine.Ruleset
	// tag is a Variant's tag, carried in the names of its fresh
	// variables; "" for the encoding Encode returns.
	tag string
	// fields are the variables of each field, indexed by slot.
	fields []fieldVars
	// decision is decision_date(), always known; nil when the ruleset
	// neither reads it nor declares an effective period.
	decision *term
	// calendar[slot] (and decisionCalendar for the decision date) says
	// the rules read the date's year, month and day, which then get the
	// calendar axioms.
	calendar []bool
	// decisionCalendar is calendar's flag for the decision date.
	decisionCalendar bool
	// axioms keep the variables this encoding created within the
	// engine's domain (a Variant's hold only its fresh fields').
	axioms []*z3.Expr
	// criteria is each criterion's status, in CriterionAt order; a
	// discretionary criterion is always pending.
	criteria []Tri
	// groups is each group's status, indexed like Ruleset.Groups.
	groups []Tri
	// outcome is the outcome's status.
	outcome Tri
	// ctx bounds the encoding while EncodeContext builds it; nil after.
	ctx context.Context
	// nodes counts the expression nodes encoded, to look at ctx every
	// encodeCheckEvery of them.
	nodes int
	// values holds each named value's term once encoded (valueTerm); nil
	// entries are not encoded yet.
	values []*term
	// spans holds each named value's range once encoded (valueSpan,
	// encode_bounds.go); nil entries are not encoded yet.
	spans []*span
	// compared holds each comparison ranges decide once encoded
	// (boundedComparison): the ranges around it encode it again wherever
	// they read it, as the condition of an if, and comparisons nested in
	// conditions would otherwise cost time exponential in their depth.
	compared map[*engine.Expr]term
}

// interrupted returns ctx's error when the encoding is being built under a
// context that has ended; it looks only every encodeCheckEvery calls.
func (e *Encoding) interrupted() error {
	if e.ctx == nil {
		return nil
	}
	if e.nodes++; e.nodes%encodeCheckEvery != 0 {
		return nil
	}
	if err := e.ctx.Err(); err != nil {
		return fmt.Errorf("solver: encode %s: %w", e.r.SectionID, err)
	}
	return nil
}

// Encode builds the encoding of r in c. The variables are named after the
// field ids, so two encodings of the same ruleset in one context share them
// (use Variant for a copy with some fields renamed).
func Encode(c *z3.Context, r *engine.Ruleset) (*Encoding, error) {
	return EncodeContext(context.Background(), c, r)
}

// encodeCheckEvery is how many expression nodes the encoding builds
// between looks at its context: often enough that a draft of any size
// stops within a millisecond or so of its deadline, rarely enough that the
// look costs nothing measurable.
const encodeCheckEvery = 256

// EncodeContext is Encode bounded by ctx: building the terms of a large
// draft takes time of its own, before any check, so the encoding looks at
// ctx between criteria and every encodeCheckEvery nodes, and returns ctx's
// error once it ends. The encoding keeps no reference to ctx.
func EncodeContext(ctx context.Context, c *z3.Context, r *engine.Ruleset) (*Encoding, error) {
	e := &Encoding{c: c, r: r, ctx: ctx}
	defer func() { e.ctx = nil }()
	e.calendar, e.decisionCalendar = calendarReads(r)
	e.fields = make([]fieldVars, len(r.Fields))
	for i := range r.Fields {
		e.fields[i] = e.newFieldVars(i, "")
	}
	e.memberAxioms(nil)
	if r.DependsOnDate() {
		y, m, d, ord := e.dateVars("decision_date")
		e.decision = &term{sort: engine.SortDate, known: c.Bool(true), val: ord, date: &dateParts{y, m, d}}
		e.axioms = append(e.axioms, dateAxioms(c, "decision_date", y, m, d, ord, e.decisionCalendar)...)
	}
	if err := e.build(); err != nil {
		return nil, err
	}
	return e, nil
}

// Variant returns an encoding of the same ruleset in the same context whose
// fields in slots have fresh variables (their names carry tag) while every
// other field, and the decision date, keeps the variables of e. One query can
// then relate two answer sets that differ only in those fields, such as "f
// unanswered" against "f answered with v, everything else equal". Assert the
// variant's Axioms as well as e's.
func (e *Encoding) Variant(tag string, slots ...int) (*Encoding, error) {
	if tag == "" {
		return nil, fmt.Errorf("solver: a variant needs a non-empty tag")
	}
	v := &Encoding{c: e.c, r: e.r, tag: tag, decision: e.decision, calendar: e.calendar, decisionCalendar: e.decisionCalendar}
	v.fields = append([]fieldVars(nil), e.fields...)
	for _, s := range slots {
		if s < 0 || s >= len(e.fields) {
			return nil, fmt.Errorf("solver: variant of slot %d: no such field", s)
		}
		v.fields[s] = v.newFieldVars(s, tag+"|")
	}
	v.memberAxioms(slots)
	if err := v.build(); err != nil {
		return nil, err
	}
	return v, nil
}

// newFieldVars makes the variables of field slot and records their axioms.
func (e *Encoding) newFieldVars(slot int, prefix string) fieldVars {
	c, f := e.c, &e.r.Fields[slot]
	name := prefix + f.ID
	fv := fieldVars{present: c.BoolConst("present|" + name)}
	switch f.Type {
	case engine.SortInt:
		fv.val = c.IntConst("value|" + name)
		e.axioms = append(e.axioms, e.numberBounds(f, fv.val)...)
	case engine.SortDecimal:
		fv.val = c.RealConst("value|" + name)
		e.axioms = append(e.axioms, e.numberBounds(f, fv.val)...)
	case engine.SortBool:
		fv.val = c.BoolConst("value|" + name)
	case engine.SortEnum:
		fv.val = c.IntConst("value|" + name)
		e.axioms = append(e.axioms, c.Ge(fv.val, c.Int(0)), c.Lt(fv.val, c.Int(int64(len(f.EnumValues)))))
	case engine.SortDate:
		y, m, d, ord := e.dateVars(name)
		fv.val, fv.date = ord, &dateParts{y, m, d}
		e.axioms = append(e.axioms, dateAxioms(c, name, y, m, d, ord, e.calendar[slot])...)
	}
	return fv
}

// memberAxioms keep the answers about a list's members to the members
// there are, as /decide reads a household (docs/language.md#households):
// a member's field is answered only when the list is, and holds more
// members than the member's index. Without them the solver could answer
// every member's age and leave the household's size unknown, which no
// request can say. With fresh (a Variant's slots), only the axioms of the
// fields among them or of their lists are added; nil means every field.
func (e *Encoding) memberAxioms(fresh []int) {
	c := e.c
	for s := range e.r.Fields {
		m := e.r.Fields[s].Member
		if m == nil {
			continue
		}
		list := e.r.FieldIndex(m.List)
		if fresh != nil && !slices.Contains(fresh, s) && !slices.Contains(fresh, list) {
			continue
		}
		l := e.fields[list]
		e.axioms = append(e.axioms, c.Implies(e.fields[s].present,
			c.And(l.present, c.Gt(l.val, c.Int(int64(m.Index))))))
	}
}

// numberBounds keeps the value v of the int or decimal field f within the
// engine's domain and within the range the field declares
// (engine/syntax/GRAMMAR.md#fields), so that every applicant the solver finds is one the evaluator
// would take: an answer outside the range is a field error there.
func (e *Encoding) numberBounds(f *engine.Field, v *z3.Expr) []*z3.Expr {
	c := e.c
	lim := c.Int(maxMagnitude)
	if f.Type == engine.SortDecimal {
		lim = c.Real(fmt.Sprint(int64(maxMagnitude)))
	}
	out := []*z3.Expr{c.Lt(v, lim), c.Gt(v, c.Neg(lim))}
	if g := f.Range; g != nil {
		if g.Min.Known {
			out = append(out, c.Ge(v, e.constant(f.Type, g.Min).val))
		}
		if g.Max.Known {
			out = append(out, c.Le(v, e.constant(f.Type, g.Max).val))
		}
	}
	return out
}

// calendarReads finds the dates whose calendar parts the rules read: the
// fields (by slot) and whether the decision date appear under
// months_between or years_between, or as the date add_months or add_years
// shifts, directly or through `??` (a date add_days shifts is read by its
// ordinal only).
func calendarReads(r *engine.Ruleset) (fields []bool, decision bool) {
	fields = make([]bool, len(r.Fields))
	var mark func(x *engine.Expr)
	mark = func(x *engine.Expr) {
		switch {
		case x.Kind == engine.ExprField:
			fields[x.Slot] = true
		case x.Kind == engine.ExprValue:
			for _, y := range r.Values[x.Slot].Exprs() {
				mark(y)
			}
			return
		case x.Kind == engine.ExprOp && x.Op == engine.OpDecisionDate:
			decision = true
		case x.Kind == engine.ExprOp && x.Op == engine.OpAddDays:
			// The shifted date has calendar parts of its own; its
			// operand counts in days, by the ordinal.
			return
		case x.Kind == engine.ExprOp && (x.Op == engine.OpAddMonths || x.Op == engine.OpAddYears):
			mark(x.Args[0])
			return
		}
		for _, a := range x.Args {
			mark(a)
		}
	}
	for _, x := range ruleExprs(r) {
		WalkExpr(x, func(x *engine.Expr) {
			switch {
			case x.Kind != engine.ExprOp:
			case x.Op == engine.OpMonthsBetween || x.Op == engine.OpYearsBetween:
				for _, a := range x.Args {
					mark(a)
				}
			case x.Op == engine.OpAddMonths || x.Op == engine.OpAddYears:
				mark(x.Args[0])
			}
		})
	}
	return fields, decision
}

// ruleExprs are the expressions of r's named values and criteria, each
// once: what a walk over every expression the rules compute visits.
func ruleExprs(r *engine.Ruleset) []*engine.Expr {
	out := make([]*engine.Expr, 0, len(r.Values)+r.NumCriteria())
	for i := range r.Values {
		out = append(out, r.Values[i].Exprs()...)
	}
	for i := 0; i < r.NumCriteria(); i++ {
		if c, _ := r.CriterionAt(i); c.Expr != nil {
			out = append(out, c.Expr)
		}
	}
	return out
}

// build encodes every criterion, group and the outcome over e.fields.
func (e *Encoding) build() error {
	c, r := e.c, e.r
	e.criteria = make([]Tri, r.NumCriteria())
	for i := range e.criteria {
		if e.ctx != nil {
			if err := e.ctx.Err(); err != nil {
				return fmt.Errorf("solver: encode %s: %w", r.SectionID, err)
			}
		}
		cr, _ := r.CriterionAt(i)
		t := Tri{Known: c.Bool(false), Value: c.Bool(false)}
		if !cr.Discretionary && cr.Expr != nil {
			x, err := e.expr(cr.Expr)
			if err != nil {
				return fmt.Errorf("solver: encode criterion %s: %w", cr.ID, err)
			}
			t = Tri{Known: x.known, Value: x.val}
		}
		e.criteria[i] = t
	}
	return e.buildStructure(true)
}

// WithCriteria returns a copy of e whose groups and outcome are built over
// the given criterion statuses instead of the criteria's expressions: the
// statuses may be free variables, which is how explain-failure lets a
// criterion take any status. Its outcome ignores the effective period:
// explain-failure asks what the criteria do on a date the ruleset holds
// for (outside it, the period alone explains the outcome).
func (e *Encoding) WithCriteria(criteria []Tri) (*Encoding, error) {
	v := *e
	v.criteria = criteria
	if err := v.buildStructure(false); err != nil {
		return nil, err
	}
	return &v, nil
}

// WithoutPeriod returns a copy of e whose outcome ignores the effective
// period, as WithCriteria's does: comparing two cuts of a ruleset for
// different periods (a yearly figure update) asks what each one's law
// decides, not on which days it holds.
func (e *Encoding) WithoutPeriod() (*Encoding, error) { return e.WithCriteria(e.criteria) }

// Term is the three-valued encoding of x, an expression linked to e's
// ruleset (its field slots and typed constants), over e's variables: the
// mutation score's equivalence check compares an edited expression with
// the original through it, and the suggested cases prefer answers that
// make a condition hold.
func (e *Encoding) Term(x *engine.Expr) (Tri, error) {
	t, err := e.expr(x)
	if err != nil {
		return Tri{}, err
	}
	return Tri{Known: t.known, Value: t.val}, nil
}

// LooseBounds keeps the values of e's fields (those in slots; all, and
// the decision date when the ruleset reads it, when slots is nil) within
// the engine's domain, as e's axioms do, leaving out the calendar axioms
// that tie a date's ordinal to its year, month and day. They make Z3 ten to
// thirty times slower, so the static analysis asks a solver holding only
// these bounds first: what it finds impossible is impossible.
func (e *Encoding) LooseBounds(slots []int) []*z3.Expr {
	c := e.c
	decision := slots == nil && e.decision != nil
	if slots == nil {
		for s := range e.r.Fields {
			slots = append(slots, s)
		}
	}
	var out []*z3.Expr
	for _, s := range slots {
		v := e.Value(s)
		switch f := &e.r.Fields[s]; f.Type {
		case engine.SortInt, engine.SortDecimal:
			out = append(out, e.numberBounds(f, v)...)
		case engine.SortEnum:
			out = append(out, c.Ge(v, c.Int(0)), c.Lt(v, c.Int(int64(len(f.EnumValues)))))
		case engine.SortDate:
			out = append(out, c.Ge(v, c.Int(1)), c.Le(v, c.Int(MaxOrdinal)))
		}
	}
	if decision {
		out = append(out, c.Ge(e.decision.val, c.Int(1)), c.Le(e.decision.val, c.Int(MaxOrdinal)))
	}
	return out
}

// buildStructure encodes the groups and the outcome over e.criteria. With
// period set and an effective period declared, the outcome is unknown
// whenever the decision date falls outside the period, as the evaluator
// makes it undetermined.
func (e *Encoding) buildStructure(period bool) error {
	c, r := e.c, e.r
	e.groups = make([]Tri, len(r.Groups))
	perGroup := make([][]Tri, len(r.Groups))
	for i, t := range e.criteria {
		_, g := r.CriterionAt(i)
		perGroup[g] = append(perGroup[g], t)
	}
	for g := range r.Groups {
		if r.Groups[g].Kind == engine.GroupAll {
			e.groups[g] = e.kleene(perGroup[g], false)
		} else {
			e.groups[g] = e.kleene(perGroup[g], true)
		}
	}
	e.outcome = Tri{Known: c.Bool(false), Value: c.Bool(false)}
	if r.Outcome != nil {
		x, err := e.expr(r.Outcome)
		if err != nil {
			return fmt.Errorf("solver: encode outcome: %w", err)
		}
		e.outcome = Tri{Known: x.known, Value: x.val}
	}
	if period && r.Effective != nil {
		e.outcome.Known = c.And(e.outcome.Known, e.InEffectivePeriod())
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("solver: encode %s: %w", r.SectionID, err)
	}
	return nil
}

// kleene combines Boolean pairs by Kleene "and" (decides = false) or "or"
// (decides = true): known when a side is known to equal decides or when all
// sides are known; the value is decides exactly when some side is.
func (e *Encoding) kleene(xs []Tri, decides bool) Tri {
	c := e.c
	if len(xs) == 0 {
		return Tri{Known: c.Bool(true), Value: c.Bool(!decides)}
	}
	deciding := make([]*z3.Expr, len(xs))
	known := make([]*z3.Expr, len(xs))
	for i, x := range xs {
		v := x.Value
		if !decides {
			v = c.Not(v)
		}
		deciding[i] = c.And(x.Known, v)
		known[i] = x.Known
	}
	some := c.Or(deciding...)
	val := some
	if !decides {
		val = c.Not(some)
	}
	return Tri{Known: c.Or(some, c.And(known...)), Value: val}
}

// expr encodes one node.
func (e *Encoding) expr(x *engine.Expr) (term, error) {
	c := e.c
	if err := e.interrupted(); err != nil {
		return term{}, err
	}
	switch x.Kind {
	case engine.ExprConst:
		return e.constant(x.Sort, x.Const), nil
	case engine.ExprField:
		fv := e.fields[x.Slot]
		return term{sort: e.r.Fields[x.Slot].Type, known: fv.present, val: fv.val, date: fv.date}, nil
	case engine.ExprGroup:
		g := e.groups[x.Slot]
		return term{sort: engine.SortBool, known: g.Known, val: g.Value}, nil
	case engine.ExprValue:
		return e.valueTerm(x.Slot)
	case engine.ExprOp:
		if t, ok := e.compared[x]; ok {
			return t, nil
		}
	default:
		return term{}, fmt.Errorf("unknown expression kind %d", x.Kind)
	}
	switch x.Op {
	case engine.OpDecisionDate:
		if e.decision == nil {
			return term{}, fmt.Errorf("decision_date() in a ruleset that does not declare reading it")
		}
		return *e.decision, nil
	case engine.OpPresent, engine.OpAbsent:
		p := e.fields[x.Args[0].Slot].present
		if x.Op == engine.OpAbsent {
			p = c.Not(p)
		}
		return term{sort: engine.SortBool, known: c.Bool(true), val: p}, nil
	}
	args := make([]term, len(x.Args))
	for i, a := range x.Args {
		t, err := e.expr(a)
		if err != nil {
			return term{}, err
		}
		args[i] = t
	}
	switch x.Op {
	case engine.OpAnd, engine.OpOr:
		ts := make([]Tri, len(args))
		for i, a := range args {
			ts[i] = Tri{Known: a.known, Value: a.val}
		}
		t := e.kleene(ts, x.Op == engine.OpOr)
		return term{sort: engine.SortBool, known: t.Known, val: t.Value}, nil
	case engine.OpNot:
		return term{sort: engine.SortBool, known: args[0].known, val: c.Not(args[0].val)}, nil
	case engine.OpDefault:
		f, d := args[0], args[1]
		out := term{sort: x.Sort, known: c.Or(f.known, d.known)}
		fv, dv := e.coerce(f, x.Sort), e.coerce(d, x.Sort)
		out.val = c.Ite(f.known, fv, dv)
		if x.Sort == engine.SortDate {
			out.date = &dateParts{
				y: c.Ite(f.known, f.date.y, d.date.y),
				m: c.Ite(f.known, f.date.m, d.date.m),
				d: c.Ite(f.known, f.date.d, d.date.d),
			}
		}
		return out, nil
	case engine.OpIn, engine.OpNotIn:
		alts := make([]*z3.Expr, 0, len(args)-1)
		for _, k := range args[1:] {
			alts = append(alts, e.equal(args[0], k))
		}
		val := c.Or(alts...)
		if len(alts) == 0 {
			val = c.Bool(false)
		}
		if x.Op == engine.OpNotIn {
			val = c.Not(val)
		}
		return term{sort: engine.SortBool, known: args[0].known, val: val}, nil
	case engine.OpNeg:
		return term{sort: x.Sort, known: args[0].known, val: c.Neg(e.coerce(args[0], x.Sort))}, nil
	case engine.OpMin, engine.OpMax:
		vals := make([]*z3.Expr, len(args))
		for i, a := range args {
			vals[i] = e.coerce(a, x.Sort)
		}
		return term{sort: x.Sort, known: e.allKnown(args), val: e.extremum(x.Op == engine.OpMin, vals)}, nil
	case engine.OpIf:
		return e.ifTerm(x.Sort, args[0], args[1], args[2]), nil
	case engine.OpAbs:
		return term{sort: x.Sort, known: args[0].known, val: e.absolute(x.Sort, args[0])}, nil
	}
	if len(args) != 2 {
		return term{}, fmt.Errorf("operator %s with %d operands", x.Op, len(args))
	}
	a, b := args[0], args[1]
	out := term{sort: x.Sort, known: e.allKnown(args)}
	switch x.Op {
	case engine.OpEq:
		out.val = e.equal(a, b)
	case engine.OpNe:
		out.val = c.Not(e.equal(a, b))
	case engine.OpLt, engine.OpLe, engine.OpGt, engine.OpGe:
		s := comparisonSort(a.sort, b.sort)
		av, bv := e.coerce(a, s), e.coerce(b, s)
		switch x.Op {
		case engine.OpLt:
			out.val = c.Lt(av, bv)
		case engine.OpLe:
			out.val = c.Le(av, bv)
		case engine.OpGt:
			out.val = c.Gt(av, bv)
		default:
			out.val = c.Ge(av, bv)
		}
	case engine.OpAdd:
		out.val = c.Add(e.coerce(a, x.Sort), e.coerce(b, x.Sort))
	case engine.OpSub:
		out.val = c.Sub(e.coerce(a, x.Sort), e.coerce(b, x.Sort))
	case engine.OpMul:
		out.val = c.Mul(e.coerce(a, x.Sort), e.coerce(b, x.Sort))
	case engine.OpDiv:
		out.known, out.val = e.quotient(a, b)
	case engine.OpFloor, engine.OpCeil, engine.OpRound:
		out.val = e.rounded(x.Op, x.Sort, a, b)
	case engine.OpDaysBetween:
		out.val = c.Sub(b.val, a.val)
	case engine.OpAddDays, engine.OpAddMonths, engine.OpAddYears:
		t, err := e.shiftDate(x.Op, a, b, out.known)
		if err != nil {
			return term{}, err
		}
		out.val, out.date = t.val, t.date
	case engine.OpMonthsBetween, engine.OpYearsBetween:
		if a.date == nil || b.date == nil {
			return term{}, fmt.Errorf("%s of a non-date", x.Op)
		}
		forward, backward := e.completedMonths(a, b), e.completedMonths(b, a)
		if x.Op == engine.OpYearsBetween {
			twelve := c.Int(12)
			forward, backward = c.Div(forward, twelve), c.Div(backward, twelve)
		}
		out.val = c.Ite(c.Ge(b.val, a.val), forward, c.Neg(backward))
	default:
		return term{}, fmt.Errorf("operator %q is not encoded", x.Op)
	}
	if e.r.BoundedComparison(x) {
		t, err := e.boundedComparison(x, out)
		if err != nil {
			return term{}, err
		}
		if e.compared == nil {
			e.compared = make(map[*engine.Expr]term)
		}
		e.compared[x] = t
		return t, nil
	}
	return out, nil
}

// extremum is the least (min) or greatest of vals, as a balanced tree of
// pairwise if-then-else terms rather than a chain: a chain of n arguments
// nests n deep, and Z3 walks terms recursively (a min of 10,000 arguments
// overflowed its stack in a check, and deleting the context took tens of
// seconds), while the tree nests log2(n) deep. Which of two equal values
// is picked does not matter, so the order of comparison is free.
func (e *Encoding) extremum(min bool, vals []*z3.Expr) *z3.Expr {
	c := e.c
	for len(vals) > 1 {
		next := make([]*z3.Expr, 0, (len(vals)+1)/2)
		for i := 0; i+1 < len(vals); i += 2 {
			a, b := vals[i], vals[i+1]
			better := c.Gt(b, a)
			if min {
				better = c.Lt(b, a)
			}
			next = append(next, c.Ite(better, b, a))
		}
		if len(vals)%2 == 1 {
			next = append(next, vals[len(vals)-1])
		}
		vals = next
	}
	return vals[0]
}

// completedMonths is the number of whole months from a to b when a is not
// after b: (by-ay)*12 + (bm-am), less one when b's day is before a's.
func (e *Encoding) completedMonths(a, b term) *z3.Expr {
	c := e.c
	return c.Sub(
		c.Add(c.Mul(c.Sub(b.date.y, a.date.y), c.Int(12)), c.Sub(b.date.m, a.date.m)),
		c.Ite(c.Lt(b.date.d, a.date.d), c.Int(1), c.Int(0)))
}

func (e *Encoding) allKnown(args []term) *z3.Expr {
	ks := make([]*z3.Expr, len(args))
	for i, a := range args {
		ks[i] = a.known
	}
	return e.c.And(ks...)
}

// comparisonSort is the sort both sides of a comparison are brought to.
func comparisonSort(a, b engine.Sort) engine.Sort {
	if a == engine.SortDecimal || b == engine.SortDecimal {
		return engine.SortDecimal
	}
	return a
}

// equal is a == b for two values of comparable sorts.
func (e *Encoding) equal(a, b term) *z3.Expr {
	s := comparisonSort(a.sort, b.sort)
	return e.c.Eq(e.coerce(a, s), e.coerce(b, s))
}

// coerce brings an Int value to Real where the context is decimal.
func (e *Encoding) coerce(t term, to engine.Sort) *z3.Expr {
	if to == engine.SortDecimal && t.sort != engine.SortDecimal {
		return e.c.ToReal(t.val)
	}
	return t.val
}

// constant is a known literal of sort s.
func (e *Encoding) constant(s engine.Sort, v value.Value) term {
	c := e.c
	t := term{sort: s, known: c.Bool(true)}
	switch s {
	case engine.SortBool:
		t.val = c.Bool(v.Num != 0)
	case engine.SortDecimal:
		t.val = c.RealRat(ValueRat(v))
	case engine.SortDate:
		y, m, d := value.Civil(v.Num)
		t.val = c.Int(v.Num)
		t.date = &dateParts{c.Int(int64(y)), c.Int(int64(m)), c.Int(int64(d))}
	default:
		t.val = c.Int(v.Num)
	}
	return t
}

// ValueRat is the exact rational of a numeric engine value, as the
// encoding states constants; RatValue is its inverse.
func ValueRat(v value.Value) *big.Rat {
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Scale)), nil)
	return new(big.Rat).SetFrac(big.NewInt(v.Num), den)
}
