package solver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/z3"
)

// QueryTimeout bounds each Z3 check the gate and explain-failure make,
// and is the default of the diff's and the suggested cases' checks in
// solver/verify. The rulesets are small; a check that runs this long is a
// problem to report, not to wait out.
const QueryTimeout = 5 * time.Second

// witnessScale is the number of digits after the point a witness's decimal
// answers may have: enough to sit one step either side of any constant of
// the casebank (cents, hundredths of hours) and still spell a real answer.
const witnessScale = 4

// PolarityFinding is one way a presence operator makes an unanswered field
// look better than an answer: leaving Field unanswered makes Criterion
// satisfied (or, when Criterion is empty, the outcome eligible), while
// answering it with the witness's value, all other answers unchanged, makes
// it not_satisfied (not_eligible). It is what the go-live gate reports as
// 422 non_conservative_presence_op and promote-to-live as a presence
// polarity advisory.
type PolarityFinding struct {
	// Field is the id of the field read under the presence operator.
	Field string `json:"field"`
	// Criterion is the criterion id, or empty when the finding is about the
	// outcome as a whole (for example an exclusion group under `not`).
	Criterion string `json:"criterion,omitempty"`
	// Message says in one paragraph what is wrong and how to fix it.
	Message string `json:"message"`
	// Witness is the evaluator-checked example that shows the finding.
	Witness PolarityWitness `json:"witness"`
}

// PolarityWitness is the concrete pair of answer sets behind a finding,
// checked with the evaluator before it is reported.
type PolarityWitness struct {
	// OtherAnswers are the answers shared by both sets, as few as the
	// evaluator needs for the finding to hold.
	OtherAnswers []engine.Fact `json:"other_answers"`
	// DecisionDate is the date both sets are decided as of, when the
	// ruleset's decisions depend on it (it reads decision_date() or
	// declares an effective period, within which the date then falls).
	DecisionDate string `json:"decision_date,omitempty"`
	// Field is the finding's field, the one answered in one set and not
	// in the other.
	Field string `json:"field"`
	// Unanswered is the status with Field unanswered: satisfied, or
	// eligible for an outcome finding.
	Unanswered string `json:"unanswered"`
	// Value is an answer to Field that makes it fail, rendered as in
	// supporting facts.
	Value json.RawMessage `json:"value"`
	// Answered is the status Value gives: not_satisfied, or not_eligible
	// for an outcome finding.
	Answered string `json:"answered"`
}

// CheckPresencePolarity is the go-live presence-polarity gate. For every
// field a criterion reads under a presence operator (present, absent, ??),
// it asks Z3 whether some set of other answers exists where leaving the
// field unanswered makes that criterion satisfied while answering it makes
// the criterion not_satisfied, and likewise for the outcome (eligible
// against not_eligible), which catches an exclusion read under `not`.
// Without presence operators Kleene evaluation is monotone (an answer can
// only settle what was pending), so no other field can do this. Each
// finding carries a witness confirmed by the evaluator; an empty result
// means the ruleset is conservative. Every check is bounded by a timeout and
// by ctx, and a check that runs out is an error, never a silent pass.
func CheckPresencePolarity(ctx context.Context, r *engine.Ruleset) ([]PolarityFinding, error) {
	return CheckPresencePolarityWith(ctx, r, PolarityOptions{})
}

// PolarityOptions bound CheckPresencePolarityWith.
type PolarityOptions struct {
	// Timeout, when positive, bounds the whole gate, building the
	// encoding included; ctx's deadline applies too. Running out is an
	// error (the gate never passes for want of time). Zero leaves only
	// ctx and the per-check bound.
	Timeout time.Duration
	// Gate, when not nil, is the process's bound on heavy solver runs: the
	// gate waits for one slot, giving up with ctx.
	Gate *bound.Gate
}

// CheckPresencePolarityWith is CheckPresencePolarity under opts.
func CheckPresencePolarityWith(ctx context.Context, r *engine.Ruleset, opts PolarityOptions) ([]PolarityFinding, error) {
	targets := presenceReads(r)
	if len(targets) == 0 {
		return nil, nil
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	release, err := opts.Gate.Enter(ctx)
	if err != nil {
		return nil, fmt.Errorf("solver: polarity gate: %w", err)
	}
	defer release()
	c, err := z3.NewContext()
	if err != nil {
		return nil, fmt.Errorf("solver: polarity gate: %w", err)
	}
	defer c.Close()
	base, err := EncodeContext(ctx, c, r)
	if err != nil {
		return nil, err
	}
	s, err := base.NewSolver(QueryTimeout)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := AssertAll(s, base.DecimalGrid(witnessScale)); err != nil {
		return nil, err
	}
	var out []PolarityFinding
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("solver: polarity gate: %w", err)
		}
		answered, err := base.Variant("answered", t.slot)
		if err != nil {
			return nil, err
		}
		if err := s.Push(); err != nil {
			return nil, fmt.Errorf("solver: polarity gate: %w", err)
		}
		if err := AssertAll(s, append(answered.Axioms(), answered.DecimalGrid(witnessScale)...)); err != nil {
			return nil, err
		}
		g := polarityQuery{r: r, s: s, base: base, answered: answered, slot: t.slot}
		for _, ci := range t.criteria {
			f, err := g.find(ctx, ci)
			if err != nil {
				return nil, err
			}
			if f != nil {
				out = append(out, *f)
			}
		}
		f, err := g.find(ctx, -1)
		if err != nil {
			return nil, err
		}
		if f != nil {
			out = append(out, *f)
		}
		if err := s.Pop(1); err != nil {
			return nil, fmt.Errorf("solver: polarity gate: %w", err)
		}
	}
	return out, nil
}

// presenceTarget is a field read under a presence operator and the
// criteria (CriterionAt indexes) that read it so.
type presenceTarget struct {
	// slot is the field's slot.
	slot int
	// criteria are the CriterionAt indexes of the criteria that read it
	// under a presence operator.
	criteria []int
}

// presenceReads lists the fields read under a presence operator, in
// declaration order.
func presenceReads(r *engine.Ruleset) []presenceTarget {
	bySlot := map[int][]int{}
	for i := 0; i < r.NumCriteria(); i++ {
		c, _ := r.CriterionAt(i)
		seen := map[int]bool{}
		WalkRule(r, c.Expr, func(x *engine.Expr) {
			if x.Kind != engine.ExprOp || len(x.Args) == 0 {
				return
			}
			switch x.Op {
			case engine.OpPresent, engine.OpAbsent, engine.OpDefault:
				s := x.Args[0].Slot
				if !seen[s] {
					seen[s] = true
					bySlot[s] = append(bySlot[s], i)
				}
			}
		})
	}
	var out []presenceTarget
	for s := range r.Fields {
		if cs, ok := bySlot[s]; ok {
			out = append(out, presenceTarget{slot: s, criteria: cs})
		}
	}
	return out
}

// WalkExpr calls visit on x and every node below it, parents first: the
// one walk over compiled IR that the encoding, explain-failure, the
// polarity gate and the verification tools share.
func WalkExpr(x *engine.Expr, visit func(*engine.Expr)) {
	if x == nil {
		return
	}
	visit(x)
	for _, a := range x.Args {
		WalkExpr(a, visit)
	}
}

// WalkRule is WalkExpr that also walks, once each, the definitions of the
// named values x reads (and of those they read): what a criterion rests on
// whether the law wrote it inline or named a part of it.
func WalkRule(r *engine.Ruleset, x *engine.Expr, visit func(*engine.Expr)) {
	WalkRuleInto(r, x, func(y *engine.Expr) bool {
		visit(y)
		return true
	})
}

// WalkRuleInto is WalkRule whose visit says whether to go below the node
// it is given (its operands, and a named value's definition): a reader
// that looks at an aggregate as a whole stops there instead of reading
// every member's unrolled part.
func WalkRuleInto(r *engine.Ruleset, x *engine.Expr, visit func(*engine.Expr) bool) {
	seen := make([]bool, len(r.Values))
	var walk func(x *engine.Expr)
	walk = func(y *engine.Expr) {
		if y == nil || !visit(y) {
			return
		}
		if y.Kind == engine.ExprValue && !seen[y.Slot] {
			seen[y.Slot] = true
			for _, z := range r.Values[y.Slot].Exprs() {
				walk(z)
			}
		}
		for _, a := range y.Args {
			walk(a)
		}
	}
	walk(x)
}

// AssertAll asserts every formula of fs in s, in order, stopping at the
// first failure with its error wrapped, so that a caller states axioms
// and facts in one call.
func AssertAll(s *z3.Solver, fs []*z3.Expr) error {
	for _, f := range fs {
		if err := s.Assert(f); err != nil {
			return fmt.Errorf("solver: assert: %w", err)
		}
	}
	return nil
}

// polarityQuery asks about one field: base has it unanswered, answered has
// it answered, every other field shared.
type polarityQuery struct {
	// r is the ruleset checked.
	r *engine.Ruleset
	// s holds base's axioms and decimal grid, and answered's in a pushed
	// scope.
	s *z3.Solver
	// base is the ruleset's encoding; find assumes the field unanswered
	// in it.
	base *Encoding
	// answered is base's Variant with fresh variables for the field; find
	// assumes the field answered in it.
	answered *Encoding
	// slot is the field asked about.
	slot int
}

// find looks for a witness for criterion ci, or for the outcome when ci is
// -1, and returns the finding or nil.
func (q *polarityQuery) find(ctx context.Context, ci int) (*PolarityFinding, error) {
	c := q.base.c
	var good, bad *z3.Expr
	if ci >= 0 {
		good, bad = q.base.CriterionIs(ci, engine.Satisfied), q.answered.CriterionIs(ci, engine.NotSatisfied)
	} else {
		good, bad = q.base.OutcomeIs(engine.Eligible), q.answered.OutcomeIs(engine.NotEligible)
	}
	// The witness is decided within the effective period: a date outside
	// it makes every outcome undetermined and is no applicant's.
	res, err := q.s.CheckAssumptions(ctx, c.Not(q.base.Present(q.slot)), q.answered.Present(q.slot), good, bad, q.base.InEffectivePeriod())
	if err != nil {
		return nil, fmt.Errorf("solver: polarity gate on %s: %w", q.r.Fields[q.slot].ID, err)
	}
	if res != z3.Sat {
		return nil, nil
	}
	m, err := q.s.Model()
	if err != nil {
		return nil, fmt.Errorf("solver: polarity gate: %w", err)
	}
	defer m.Close()
	others, date, err := q.base.Decode(m)
	if err != nil {
		return nil, err
	}
	withField, _, err := q.answered.Decode(m)
	if err != nil {
		return nil, err
	}
	value := withField.Values[q.slot]
	w := polarityCheck{r: q.r, slot: q.slot, criterion: ci, value: value, date: date}
	if !w.holds(others) {
		return nil, fmt.Errorf("solver: polarity gate on %s: the solver's witness does not hold in the evaluator (encoding and evaluator disagree)", q.r.Fields[q.slot].ID)
	}
	w.minimise(others)
	w.roundValue(others)
	return w.finding(others), nil
}

// polarityCheck replays a witness in the evaluator.
type polarityCheck struct {
	// r is the ruleset checked.
	r *engine.Ruleset
	// slot is the finding's field.
	slot int
	// criterion is the CriterionAt index of the criterion, or -1 for an
	// outcome finding.
	criterion int
	// value is the answer to the field that makes it fail.
	value value.Value
	// date is the decision date ordinal both evaluations use; 0 when the
	// ruleset does not read it.
	date int64
}

// holds reports whether, with the answers of others, leaving the field
// unanswered passes while answering it with the value fails.
func (w *polarityCheck) holds(others *engine.Inputs) bool {
	in := &engine.Inputs{Values: append([]value.Value(nil), others.Values...)}
	in.Values[w.slot] = value.Value{}
	without := w.r.Evaluate(in, engine.Options{DecisionDate: w.date})
	in.Values[w.slot] = w.value
	with := w.r.Evaluate(in, engine.Options{DecisionDate: w.date})
	if len(without.FieldErrors)+len(with.FieldErrors) > 0 {
		return false
	}
	if w.criterion >= 0 {
		return without.Criteria[w.criterion] == engine.Satisfied && with.Criteria[w.criterion] == engine.NotSatisfied
	}
	return without.Outcome == engine.Eligible && with.Outcome == engine.NotEligible
}

// minimise leaves unanswered every other answer the witness does not need,
// so that the witness shows only what matters.
func (w *polarityCheck) minimise(others *engine.Inputs) {
	for i, v := range others.Values {
		if i == w.slot || !v.Known {
			continue
		}
		others.Values[i] = value.Value{}
		if !w.holds(others) {
			others.Values[i] = v
		}
	}
}

// roundValue replaces a decimal witness value such as 1305.0001 with the
// first of its roundings to fewer digits (1305, 1306, 1305.1, ...) that
// still shows the finding, for a witness a publisher reads at a glance.
func (w *polarityCheck) roundValue(others *engine.Inputs) {
	v := w.value
	for scale := uint8(0); scale < v.Scale; scale++ {
		unit := int64(1)
		for i := scale; i < v.Scale; i++ {
			unit *= 10
		}
		down := v.Num / unit
		if v.Num < 0 && v.Num%unit != 0 {
			down--
		}
		for _, n := range []int64{down, down + 1} {
			w.value = value.Value{Num: n, Scale: scale, Known: true}
			if w.holds(others) {
				return
			}
		}
	}
	w.value = v
}

// finding writes the witness up for a publisher.
func (w *polarityCheck) finding(others *engine.Inputs) *PolarityFinding {
	r, field := w.r, w.r.Fields[w.slot].ID
	wit := PolarityWitness{OtherAnswers: []engine.Fact{}, Field: field, Value: r.ValueJSON(w.slot, w.value)}
	var given []string
	for i, v := range others.Values {
		if i != w.slot && v.Known {
			fact := engine.Fact{Field: r.Fields[i].ID, Value: r.ValueJSON(i, v)}
			wit.OtherAnswers = append(wit.OtherAnswers, fact)
			given = append(given, fmt.Sprintf("%s = %s", fact.Field, fact.Value))
		}
	}
	if r.DependsOnDate() && w.date != 0 {
		wit.DecisionDate = value.FormatDate(w.date)
		given = append(given, "decision date "+wit.DecisionDate)
	}
	context := "whatever the other answers"
	if len(given) > 0 {
		context = "with " + strings.Join(given, ", ")
	}
	f := &PolarityFinding{Field: field, Witness: wit}
	var subject string
	if w.criterion >= 0 {
		c, _ := r.CriterionAt(w.criterion)
		f.Criterion = c.ID
		subject = fmt.Sprintf("criterion %s (%q)", c.ID, c.Title)
		wit.Unanswered, wit.Answered = engine.Satisfied.String(), engine.NotSatisfied.String()
	} else {
		subject = "the outcome"
		wit.Unanswered, wit.Answered = engine.Eligible.String(), engine.NotEligible.String()
	}
	f.Witness = wit
	f.Message = fmt.Sprintf("Leaving %s unanswered makes %s %s, but answering %s makes it %s (%s): an applicant who does not answer looks more eligible than one who answers truthfully. "+
		"Require the answer (for example `present(%s) and ...`), or default it with `??` to the value least favourable to the applicant, unless the law itself says what holds without an answer.",
		field, subject, wit.Unanswered, wit.Value, wit.Answered, context, field)
	return f
}
