package engine

import (
	"fmt"
	"strings"

	"github.com/eligo/eligo/engine/value"
)

// The evaluator walks a flat program: every expression node of every
// criterion (and the outcome) compiled into one slice of instructions whose
// operands are indexes, field reads already resolved to input slots and
// constants already decoded. Evaluating a criterion is a recursive switch
// over that slice, with no allocation and no map lookups.

type opcode uint8

const (
	opConst opcode = iota
	opField
	opGroup
	opAnd
	opOr
	opNot
	opEq
	opNe
	opLt
	opLe
	opGt
	opGe
	opIn
	opNotIn
	opAdd
	opSub
	opMul
	opNeg
	opMin
	opMax
	opYears
	opMonths
	opDays
	opAddDays
	opAddMonths
	opAddYears
	opDecisionDate
	opPresent
	opAbsent
	opDefault
	opValue
	opIf
	opDiv
	opFloor
	opCeil
	opRound
	opAbs
)

var opcodes = map[Operator]opcode{
	OpAnd: opAnd, OpOr: opOr, OpNot: opNot, OpEq: opEq, OpNe: opNe, OpLt: opLt,
	OpLe: opLe, OpGt: opGt, OpGe: opGe, OpIn: opIn, OpNotIn: opNotIn, OpAdd: opAdd,
	OpSub: opSub, OpMul: opMul, OpNeg: opNeg, OpMin: opMin, OpMax: opMax,
	OpYearsBetween: opYears, OpMonthsBetween: opMonths, OpDaysBetween: opDays,
	OpAddDays: opAddDays, OpAddMonths: opAddMonths, OpAddYears: opAddYears,
	OpDecisionDate: opDecisionDate, OpPresent: opPresent, OpAbsent: opAbsent,
	OpDefault: opDefault, OpIf: opIf, OpDiv: opDiv, OpFloor: opFloor, OpCeil: opCeil,
	OpRound: opRound, OpAbs: opAbs,
}

// inst is one instruction. For operators, kids[a:a+n] are the operand
// instructions; for opField, opGroup and opValue, a is the slot; for
// opConst, k is the value.
type inst struct {
	// op is the operation.
	op opcode
	// bounded marks a comparison that its sides' ranges decide while a
	// side is unknown (Ruleset.BoundedComparison, bounds.go).
	bounded bool
	// a is the first operand's index in program.kids, or the slot of
	// opField and opGroup.
	a int32
	// n is the number of operands.
	n int32
	// k is opConst's value.
	k value.Value
}

// program is the flat form of a ruleset's expressions that evaluation walks.
type program struct {
	// r is the ruleset the expressions belong to, which says which
	// comparisons bounds decide.
	r *Ruleset
	// code holds every instruction; operands come before their operator.
	code []inst
	// kids holds the operand instruction indexes, each operator's run
	// contiguous.
	kids []int32
	// roots[i] is the instruction of criterion i (group then declaration
	// order), or -1 for a discretionary criterion.
	roots []int32
	// groupOf[i] is the group of criterion i.
	groupOf []int32
	// outcome is the instruction of Ruleset.Outcome, or -1 when that is
	// nil (every decision is then undetermined).
	outcome int32
	// values[i] is the instruction of named value i's expression; -1 for
	// a table, whose lookup is tables[i].
	values []int32
	// tables[i] is the lookup of named value i when it is a table; nil
	// otherwise (and nil altogether for a ruleset without tables).
	tables []*tableProg
	// evaluated is the number of distinct fields some criterion reads.
	evaluated int
}

func buildProgram(r *Ruleset) program {
	p := program{r: r}
	reads := make([]bool, len(r.Fields))
	for i := range r.Values {
		v := &r.Values[i]
		root := int32(-1) // a table, or an expression that failed to parse (only a failed Compile gets there)
		if v.Expr != nil {
			root = p.emit(v.Expr)
		}
		p.values = append(p.values, root)
		if v.Table {
			if p.tables == nil {
				p.tables = make([]*tableProg, len(r.Values))
			}
			p.tables[i] = p.emitTable(v)
		}
	}
	for i := range r.criteria {
		c, g := r.CriterionAt(i)
		p.groupOf = append(p.groupOf, int32(g))
		if c.Expr == nil {
			p.roots = append(p.roots, -1)
			continue
		}
		p.roots = append(p.roots, p.emit(c.Expr))
		for _, s := range c.Slots {
			reads[s] = true
		}
	}
	p.outcome = -1
	if r.Outcome != nil {
		p.outcome = p.emit(r.Outcome)
	}
	for _, b := range reads {
		if b {
			p.evaluated++
		}
	}
	return p
}

func (p *program) emit(e *Expr) int32 {
	var in inst
	switch e.Kind {
	case ExprConst:
		in = inst{op: opConst, k: e.Const}
	case ExprField:
		in = inst{op: opField, a: int32(e.Slot)}
	case ExprGroup:
		in = inst{op: opGroup, a: int32(e.Slot)}
	case ExprValue:
		in = inst{op: opValue, a: int32(e.Slot)}
	default:
		ids := make([]int32, len(e.Args))
		for i, a := range e.Args {
			ids[i] = p.emit(a)
		}
		in = inst{op: opcodes[e.Op], a: int32(len(p.kids)), n: int32(len(ids)), bounded: p.r.BoundedComparison(e)}
		p.kids = append(p.kids, ids...)
	}
	p.code = append(p.code, in)
	return int32(len(p.code) - 1)
}

// Status is the state of a criterion or group.
type Status uint8

// Criterion and group statuses. The zero Status is pending.
const (
	Pending Status = iota
	Satisfied
	NotSatisfied
)

var statusNames = [...]string{"pending", "satisfied", "not_satisfied"}

// String returns satisfied, not_satisfied or pending.
func (s Status) String() string { return statusNames[s] }

// MarshalText writes the wire spelling.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func statusOf(v value.Value) Status {
	switch {
	case !v.Known:
		return Pending
	case v.Num != 0:
		return Satisfied
	}
	return NotSatisfied
}

// Outcome is the decision.
type Outcome uint8

// Decision outcomes. The zero Outcome is undetermined.
const (
	Undetermined Outcome = iota
	Eligible
	NotEligible
)

var outcomeNames = [...]string{"undetermined", "eligible", "not_eligible"}

// String returns eligible, not_eligible or undetermined.
func (o Outcome) String() string { return outcomeNames[o] }

// ParseOutcome reads an outcome's wire spelling (eligible, not_eligible or
// undetermined), the inverse of String, so that callers naming an outcome
// (an expected outcome on the command line or in a request) share the one
// table. ok is false for any other text.
func ParseOutcome(s string) (o Outcome, ok bool) {
	for i, name := range outcomeNames {
		if name == s {
			return Outcome(i), true
		}
	}
	return Undetermined, false
}

// MarshalText writes the wire spelling.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads the wire spelling, so that a stored report naming
// outcomes (an impact run's) reads back as it was written.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, ok := ParseOutcome(string(b))
	if !ok {
		return fmt.Errorf("outcome %q: want eligible, not_eligible or undetermined", b)
	}
	*o = v
	return nil
}

// errNoDecisionDate is the field error of an evaluation that needed a
// decision date and was given none (Options.DecisionDate).
var errNoDecisionDate = FieldError{Field: "decision_date", Message: "these rules depend on the decision date and none was given"}

// Options tune one evaluation.
type Options struct {
	// DecisionDate is the ordinal date the decision is made as of (see
	// DateOrdinal, ParseDate): what decision_date() reads and what the
	// effective period is checked against. The engine never reads the
	// clock, so that a decision is a pure function of its inputs: a
	// caller deciding "as of today" passes DateOf of its clock's now.
	// Zero means no date was given; a ruleset that uses decision_date()
	// or declares a period then decides undetermined with a field error
	// saying so, rather than silently as of some day.
	DecisionDate int64
	// Trace adds Result.Trace (a second pass; the plain path pays nothing).
	Trace bool
	// Explanation adds Result.Explanation (likewise a second pass).
	Explanation bool
}

// Result is one decision. Slices are indexed like the ruleset: Criteria in
// group then declaration order (see Ruleset.CriterionAt), Groups like
// Ruleset.Groups.
type Result struct {
	// Outcome is the decision; undetermined whenever FieldErrors is not
	// empty.
	Outcome Outcome
	// Criteria is each criterion's status, in CriterionAt order.
	Criteria []Status
	// Groups is each group's status, indexed like Ruleset.Groups.
	Groups []Status
	// MissingFields are unanswered fields that some pending criterion
	// reads, in declaration order. Advisory.
	MissingFields []string
	// FieldErrors are inputs that could not be applied (from conversion,
	// or an arithmetic overflow at evaluation); any entry makes the
	// outcome undetermined.
	FieldErrors []FieldError
	// FieldsProvided counts the non-null keys of field_values.
	FieldsProvided int
	// FieldsEvaluated counts the distinct fields the criteria read.
	FieldsEvaluated int
	// DecisionDate is the ordinal date the evaluation was made as of: what
	// decision_date() read and what the effective period was checked
	// against; 0 when the ruleset neither reads the date nor declares a
	// period.
	DecisionDate int64
	// OutsidePeriod is true when the ruleset declares an effective period
	// and DecisionDate falls outside it: the outcome is then undetermined
	// whatever the criteria say, and PeriodWarning words why.
	OutsidePeriod bool
	// Values are the named values' figures, indexed like Ruleset.Values:
	// those the decision needed, and every output value; a value not
	// needed is unknown here.
	Values []value.Value
	// Trace is set only when Options.Trace asked for it; nil otherwise.
	Trace *Trace
	// Explanation is set only when Options.Explanation asked for it; nil
	// otherwise.
	Explanation *Explanation

	// missing[s] marks slot s as read by a pending criterion while
	// unanswered; kept so that a reused Result does not allocate.
	missing []bool
	// valueState[i] says whether Values[i] has been computed (see
	// machine.value); kept likewise.
	valueState []uint8
}

// Evaluate decides in against the ruleset. It never fails: problems with
// the inputs are field errors and make the outcome undetermined.
func (r *Ruleset) Evaluate(in *Inputs, opts Options) *Result {
	res := &Result{}
	r.EvaluateInto(in, opts, res)
	return res
}

// EvaluateInto is Evaluate writing into res, reusing its slices: with a
// reused Result and no trace or explanation it does not allocate.
func (r *Ruleset) EvaluateInto(in *Inputs, opts Options, res *Result) {
	if in == nil || len(in.Values) != len(r.Fields) {
		// Inputs converted for another ruleset (or none): nothing can be
		// read safely, so nothing is decided.
		in = &Inputs{Values: make([]value.Value, len(r.Fields)), FieldErrors: []FieldError{{
			Message: "the answers were converted for a different ruleset; convert them with this ruleset"}}}
	}
	p := &r.prog
	nc, ng := len(p.roots), len(r.Groups)
	res.Criteria = resize(res.Criteria, nc)
	res.Groups = resize(res.Groups, ng)
	res.missing = resize(res.missing, len(r.Fields))
	res.MissingFields = res.MissingFields[:0]
	res.FieldErrors = append(res.FieldErrors[:0], in.FieldErrors...)
	res.FieldsProvided = in.Provided
	res.FieldsEvaluated = p.evaluated
	res.Trace, res.Explanation = nil, nil
	res.DecisionDate = 0
	res.OutsidePeriod = false
	res.Values = resize(res.Values, len(r.Values))
	res.valueState = resize(res.valueState, len(r.Values))
	m := machine{p: p, main: p, r: r, inputs: in.Values, values: res.Values, valueState: res.valueState, res: res}
	if r.ReadsDecisionDate || r.Effective != nil {
		if d := opts.DecisionDate; d != 0 {
			res.DecisionDate = d
			m.date = value.Value{Num: d, Known: true}
			res.OutsidePeriod = r.Effective != nil && !r.Effective.Covers(d)
		} else {
			res.FieldErrors = append(res.FieldErrors, errNoDecisionDate)
		}
	}
	for i := range res.Groups {
		res.Groups[i] = Pending
	}
	// Each group collects which statuses its criteria have; its own status
	// follows from that set.
	satisfied := m.flags[:0]
	if ng > len(m.flags) {
		satisfied = make([]uint8, 0, ng)
	}
	satisfied = satisfied[:ng]
	for i := range satisfied {
		satisfied[i] = 0
	}
	const anySat, anyNot, anyPending = 1, 2, 4
	for i, root := range p.roots {
		st := Pending
		if root >= 0 {
			m.fault = value.NoFault
			st = statusOf(m.eval(root))
			if m.fault != value.NoFault {
				c, _ := r.CriterionAt(i)
				res.FieldErrors = append(res.FieldErrors, faultError("criterion", c.ID, c.Fields, m.fault))
			}
		}
		res.Criteria[i] = st
		g := p.groupOf[i]
		switch st {
		case Satisfied:
			satisfied[g] |= anySat
		case NotSatisfied:
			satisfied[g] |= anyNot
		default:
			satisfied[g] |= anyPending
			if root >= 0 {
				c, _ := r.CriterionAt(i)
				for _, s := range c.Slots {
					if !in.Values[s].Known {
						res.missing[s] = true
					}
				}
			}
		}
	}
	for g := range r.Groups {
		f := satisfied[g]
		if r.Groups[g].Kind == GroupAll {
			switch {
			case f&anyNot != 0:
				res.Groups[g] = NotSatisfied
			case f&anyPending != 0:
				res.Groups[g] = Pending
			default:
				res.Groups[g] = Satisfied
			}
		} else {
			switch {
			case f&anySat != 0:
				res.Groups[g] = Satisfied
			case f&anyPending != 0:
				res.Groups[g] = Pending
			default:
				res.Groups[g] = NotSatisfied
			}
		}
	}
	for s, miss := range res.missing {
		if miss && r.InList(s, in) {
			res.MissingFields = append(res.MissingFields, r.Fields[s].ID)
		}
	}
	for i := range r.Values {
		if r.Values[i].Output {
			m.value(int32(i))
		}
	}
	res.Outcome = Undetermined
	if p.outcome >= 0 && len(res.FieldErrors) == 0 {
		m.groups = res.Groups
		switch statusOf(m.eval(p.outcome)) {
		case Satisfied:
			res.Outcome = Eligible
		case NotSatisfied:
			res.Outcome = NotEligible
		}
	}
	if res.OutsidePeriod {
		// The criteria still show what this period's law would say, but
		// no decision is given from it for another date.
		res.Outcome = Undetermined
	}
	if opts.Trace {
		res.Trace = r.trace(in, res)
	}
	if opts.Explanation {
		res.Explanation = r.Explain(in, res)
	}
}

// EvaluateExpr evaluates one expression of the ruleset (a part of a
// criterion's condition, say) over in with the evaluator's own machine,
// under decisionDate (0 for none), and says what it came to: the graph
// overlays the parts of a condition with it, so they read as the whole
// criterion is decided. Named values it reads are computed as a decision
// computes them.
func (r *Ruleset) EvaluateExpr(e *Expr, in *Inputs, decisionDate int64) Status {
	p := program{r: r}
	root := p.emit(e)
	m := machine{p: &p, main: &r.prog, r: r, inputs: in.Values,
		values: make([]value.Value, len(r.Values)), valueState: make([]uint8, len(r.Values))}
	if decisionDate != 0 {
		m.date = value.Value{Num: decisionDate, Known: true}
	}
	return statusOf(m.eval(root))
}

// DependsOnDate reports whether the ruleset's decisions depend on the
// decision date: it reads decision_date() or declares an effective period.
// Callers that cache decisions key them by date exactly then.
func (r *Ruleset) DependsOnDate() bool { return r.ReadsDecisionDate || r.Effective != nil }

// PeriodWarning words why a decision dated date (an ordinal) was not
// given: the date and the period the ruleset holds for. It is meant for a
// Result whose OutsidePeriod is set.
func (r *Ruleset) PeriodWarning(date int64) string {
	if r.Effective == nil {
		return ""
	}
	return "the decision date " + value.FormatDate(date) + " is outside the period these rules hold for (" +
		r.Effective.String() + "); no decision is given from the law of another period"
}

// faultError is the field error of a criterion or value (kind) whose
// arithmetic has no result for these answers: it names the criterion or
// value and the answers it reads, so the caller can see which to check.
func faultError(kind, id string, fields []string, fault value.Fault) FieldError {
	field := ""
	if len(fields) > 0 {
		field = fields[0]
	}
	msg := kind + " " + id + ": "
	switch {
	case fault == value.DivByZero:
		msg += "it divides by zero"
	case kind == "criterion":
		msg += "the arithmetic on this answer overflows (more than 18 significant digits)"
	default:
		msg += "the arithmetic on these answers overflows (more than 18 significant digits)"
	}
	if kind == "value" && len(fields) > 0 {
		msg += "; it reads " + strings.Join(fields, ", ")
	}
	return FieldError{Field: field, Message: msg}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	var zero T
	for i := range s {
		s[i] = zero
	}
	return s
}

// machine is the state of one evaluation.
type machine struct {
	// p is the program being run.
	p *program
	// main is the ruleset's own program, whose values[i] computes named
	// value i; p is another only while the graph overlays one route.
	main *program
	// r is the ruleset being evaluated, for naming a value in an error.
	r *Ruleset
	// values and valueState are the named values computed so far (see
	// value); nil when the ruleset has none.
	values     []value.Value
	valueState []uint8
	// res receives a value's field error; nil where nobody reports one
	// (the graph's overlay).
	res *Result
	// inputs are the answers, indexed by slot.
	inputs []value.Value
	// groups are the group statuses opGroup reads; set only before the
	// outcome is evaluated.
	groups []Status
	// date is the value decision_date() returns; unknown when the
	// ruleset does not read it.
	date value.Value
	// fault is set when arithmetic in the current criterion or value had
	// no result (an overflow, a division by zero), which becomes a field
	// error.
	fault value.Fault
	// flags is scratch space for the per-group status bits, so that
	// rulesets of up to 64 groups evaluate without allocating.
	flags [64]uint8
	// decided holds the comparisons ranges have decided in this
	// evaluation, and valueBounds the ranges of the named values worked
	// out so far (bounds.go); nil until ranges are first needed, so that
	// decisions which never need them do not allocate.
	decided     map[*inst]value.Value
	valueBounds map[int32]interval
}

func (m *machine) eval(i int32) value.Value {
	in := &m.p.code[i]
	switch in.op {
	case opConst:
		return in.k
	case opField:
		return m.inputs[in.a]
	case opGroup:
		switch m.groups[in.a] {
		case Satisfied:
			return value.BoolValue(true)
		case NotSatisfied:
			return value.BoolValue(false)
		}
		return value.Value{}
	case opDecisionDate:
		return m.date
	case opPresent:
		return value.BoolValue(m.inputs[m.p.code[m.p.kids[in.a]].a].Known)
	case opAbsent:
		return value.BoolValue(!m.inputs[m.p.code[m.p.kids[in.a]].a].Known)
	case opValue:
		return m.value(in.a)
	}
	kids := m.p.kids[in.a : in.a+in.n]
	switch in.op {
	case opAnd, opOr:
		// Kleene: a false side decides and, a true side decides or, even
		// when another side is unknown; evaluation stops at the first
		// deciding side.
		decides := in.op == opOr
		unknown := false
		for _, k := range kids {
			v := m.eval(k)
			if !v.Known {
				unknown = true
				continue
			}
			if (v.Num != 0) == decides {
				return value.BoolValue(decides)
			}
		}
		if unknown {
			return value.Value{}
		}
		return value.BoolValue(!decides)
	case opNot:
		v := m.eval(kids[0])
		if !v.Known {
			return v
		}
		return value.BoolValue(v.Num == 0)
	case opDefault:
		if v := m.eval(kids[0]); v.Known {
			return v
		}
		return m.eval(kids[1])
	case opIn, opNotIn:
		x := m.eval(kids[0])
		if !x.Known {
			return x
		}
		found := false
		for _, k := range kids[1:] {
			if value.Compare(x, m.eval(k)) == 0 {
				found = true
				break
			}
		}
		return value.BoolValue(found == (in.op == opIn))
	case opNeg:
		x := m.eval(kids[0])
		if !x.Known {
			return x
		}
		v, ok := value.Neg(x)
		return m.checked(v, ok)
	case opIf:
		// Unknown unless the condition is known, or both branches agree.
		switch c := m.eval(kids[0]); {
		case c.True():
			return m.eval(kids[1])
		case c.False():
			return m.eval(kids[2])
		}
		yes, no := m.eval(kids[1]), m.eval(kids[2])
		if yes.Known && no.Known && value.Compare(yes, no) == 0 {
			return yes
		}
		return value.Value{}
	case opAbs:
		x := m.eval(kids[0])
		if !x.Known {
			return x
		}
		return m.arith(value.Abs(x))
	case opMin, opMax:
		best := m.eval(kids[0])
		for _, k := range kids[1:] {
			v := m.eval(k)
			if !v.Known || !best.Known {
				best = value.Value{}
				continue
			}
			if c := value.Compare(v, best); c < 0 && in.op == opMin || c > 0 && in.op == opMax {
				best = v
			}
		}
		return best
	}
	if in.bounded && m.decided != nil {
		if v, ok := m.decided[in]; ok {
			return v
		}
	}
	x, y := m.eval(kids[0]), m.eval(kids[1])
	if !x.Known || !y.Known {
		if in.bounded {
			return m.decideByBounds(in, kids)
		}
		return value.Value{}
	}
	switch in.op {
	case opEq:
		return value.BoolValue(value.Compare(x, y) == 0)
	case opNe:
		return value.BoolValue(value.Compare(x, y) != 0)
	case opLt:
		return value.BoolValue(value.Compare(x, y) < 0)
	case opLe:
		return value.BoolValue(value.Compare(x, y) <= 0)
	case opGt:
		return value.BoolValue(value.Compare(x, y) > 0)
	case opGe:
		return value.BoolValue(value.Compare(x, y) >= 0)
	case opAdd:
		return m.checked(value.Add(x, y))
	case opSub:
		ny, ok := value.Neg(y)
		if !ok {
			return m.checked(ny, false)
		}
		return m.checked(value.Add(x, ny))
	case opMul:
		return m.checked(value.Mul(x, y))
	case opDiv:
		return m.arith(value.Quo(x, y))
	case opFloor:
		return m.arith(value.RoundTo(x, y, value.RoundDown))
	case opCeil:
		return m.arith(value.RoundTo(x, y, value.RoundUp))
	case opRound:
		return m.arith(value.RoundTo(x, y, value.RoundHalfUp))
	case opYears:
		return value.IntValue(value.YearsBetween(x.Num, y.Num))
	case opMonths:
		return value.IntValue(value.MonthsBetween(x.Num, y.Num))
	case opDays:
		return value.IntValue(y.Num - x.Num)
	case opAddDays:
		return m.checked(value.AddDays(x.Num, y.Num))
	case opAddMonths:
		return m.checked(value.AddMonths(x.Num, y.Num))
	case opAddYears:
		if y.Num > value.MaxOrdinal || y.Num < -value.MaxOrdinal {
			return m.checked(value.Value{}, false)
		}
		return m.checked(value.AddMonths(x.Num, 12*y.Num))
	}
	return value.Value{}
}

func (m *machine) checked(v value.Value, ok bool) value.Value {
	if !ok {
		m.fault = value.Overflow
		return value.Value{}
	}
	return v
}

// arith is checked for the operations that say why they have no result.
func (m *machine) arith(v value.Value, fault value.Fault) value.Value {
	if fault != value.NoFault {
		m.fault = fault
		return value.Value{}
	}
	return v
}
