package solver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/z3"
)

// Mechanism hints: why a criterion has the status that blocks the expected
// outcome, in words a rules author or caseworker can act on.
const (
	// MechanismThreshold: a number compared with a limit.
	MechanismThreshold = "threshold"
	// MechanismEnumMismatch: a listed value (or yes/no answer) that is not
	// one the criterion accepts.
	MechanismEnumMismatch = "enum_mismatch"
	// MechanismDateWindow: a date, age or period outside its window.
	MechanismDateWindow = "date_window"
	// MechanismMissingAnswer: the criterion is pending for want of an
	// answer.
	MechanismMissingAnswer = "missing_answer"
	// MechanismPresenceDefault: the status comes from a presence operator
	// (a `??` default, present or absent) on an unanswered field.
	MechanismPresenceDefault = "presence_default"
	// MechanismDiscretionary: an official decides; the engine never does.
	MechanismDiscretionary = "discretionary"
	// MechanismAnyGroupExhausted: every alternative of an `any` group
	// failed; the criterion is one of them (ConditionMechanism says why it
	// failed itself).
	MechanismAnyGroupExhausted = "any_group_exhausted"
)

// ErrUnreachable is returned (wrapped) when no status of the criteria
// reaches the expected outcome: the outcome expression itself rules it out
// (for example `g and not g`), so no criterion is to blame. Explain returns
// it with the explanation as far as the evaluator took it.
var ErrUnreachable = errors.New("the expected outcome is unreachable whatever the criteria's statuses")

// ExplainOptions tune ExplainFailure.
type ExplainOptions struct {
	// DecisionDate is the ordinal date the answers are explained as of:
	// what decision_date() reads and what the effective period is checked
	// against, as in engine.Options (0: today, UTC).
	DecisionDate int64
	// Timeout bounds the whole explanation (default 5 s), waiting for a
	// Gate slot and preparing the encoding included; each solver check is
	// bounded as well. Running out is an *bound.Incomplete error, with the
	// explanation as far as the evaluator took it.
	Timeout time.Duration
	// Gate, when not nil, is the process's bound on heavy solver runs: the
	// explanation waits for one slot within its Timeout.
	Gate *bound.Gate
}

// Explanation is the answer of explain-failure: the criteria that stand
// between the answers and the expected outcome.
type Explanation struct {
	// Expected is the outcome the caller asked about.
	Expected engine.Outcome `json:"expected_outcome"`
	// Actual is the outcome the answers give; undetermined whenever
	// FieldErrors is not empty.
	Actual engine.Outcome `json:"actual_outcome"`
	// Reasons are a minimal set of criteria that together rule out the
	// expected outcome: with their statuses as the answers give them, no
	// status of the other criteria reaches it, and freeing any one of them
	// makes it reachable. When the actual outcome is decided they are
	// settled criteria: one still pending is no reason why. Empty when the
	// outcome already is the expected one, or when only FieldErrors stand
	// in the way.
	//
	// Their number is not the number of changes the answers need: the
	// alternatives of an exhausted `any` group are all reasons, while
	// changing any one of them is enough (ChangesNeeded).
	Reasons []Reason `json:"reasons"`
	// ChangesNeeded is the fewest settled criteria (satisfied or
	// not_satisfied under the answers) whose status must change, every
	// other settled criterion as the answers make it, for the expected
	// outcome to be reached: one for a failed `any` group (its cheapest
	// alternative), every failed member of an `all` group, and so on
	// through the outcome's and/or nesting. Pending criteria (open
	// questions, an official's decision) are not counted: they may still
	// go either way. 0 when Reasons is empty, or when only pending
	// criteria stand in the way.
	ChangesNeeded int `json:"changes_needed"`
	// Changes are the ids of the criteria of one such smallest change, in
	// declaration order.
	Changes []string `json:"changes"`
	// FieldErrors are the answers that could not be applied, as /decide
	// lists them: those that could not be converted, then those whose
	// arithmetic overflows. They alone make the actual outcome
	// undetermined. Reasons are worked out with unconvertible fields
	// unanswered; an overflow leaves no Reasons at all, since the solver
	// cannot reproduce statuses the evaluator gave up computing.
	FieldErrors []engine.FieldError `json:"field_errors,omitempty"`
	// PeriodWarning is set when the decision date falls outside the
	// ruleset's effective period (engine.Ruleset.PeriodWarning words it):
	// the period alone makes the actual outcome undetermined, so Reasons
	// is empty. Empty otherwise.
	PeriodWarning string `json:"period_warning,omitempty"`
}

// Reason is one criterion of the minimal failure core.
type Reason struct {
	// CriterionID is the criterion's id.
	CriterionID string `json:"criterion_id"`
	// Title is the criterion's title.
	Title string `json:"title"`
	// Group is the id of the criterion's group.
	Group string `json:"group"`
	// Status is the criterion's status under the answers.
	Status engine.Status `json:"status"`
	// NeededStatus is a status that, with the rest of the core unchanged,
	// lets the expected outcome be reached.
	NeededStatus engine.Status `json:"needed_status"`
	// Mechanism is one of the Mechanism* hints.
	Mechanism string `json:"mechanism"`
	// ConditionMechanism is set when Mechanism is any_group_exhausted,
	// naming (as another Mechanism* hint) why this alternative failed;
	// empty otherwise.
	ConditionMechanism string `json:"condition_mechanism,omitempty"`
	// Condition is the criterion's expression in the rules language; empty
	// for a discretionary criterion.
	Condition string `json:"condition,omitempty"`
	// Facts are the answers the criterion read; never nil.
	Facts []engine.Fact `json:"facts"`
	// MissingFields are the fields the criterion reads that were not
	// answered (or could not be converted); never nil.
	MissingFields []string `json:"missing_fields"`
	// SourceReferences are the criterion's citations, as the decision's
	// explanation gives them; never nil.
	SourceReferences []engine.SourceReference `json:"source_references"`
	// Members name, for a criterion over a list's members through any or
	// all, the members whose own answers settle it ("Person 2" not living
	// in the state fails all(member where member.resident)); left out
	// for any other criterion.
	Members []engine.MemberReason `json:"members,omitempty"`
	// Values are the named values the criterion rests on, with their
	// figures under the answers, their law and, for a table, the row the
	// figure came from: the core names the figure that stands in the way
	// ("net income $1,400 against the limit $1,305 of row 1..8"). Left
	// out when the criterion reads none.
	Values []engine.ValueFact `json:"values,omitempty"`
}

// ExplainFailure finds which criteria keep the answers in from the expected
// outcome. The answers are asserted as facts, which fix every criterion's
// status (read from one model); each criterion then gets a free status that
// a tracked assumption ties to that status, and the groups and the outcome
// are built over the free statuses with the outcome required to be
// expected. With every assumption
// the check is unsat (the actual outcome is not the expected one); the unsat
// core names criteria that suffice to rule it out, and deletion shrinks the
// core until every member is necessary: releasing any one of them makes
// the expected outcome reachable. Each reason carries the criterion's
// facts, source references and a mechanism hint.
//
// Any expected outcome other than the actual one works, typically eligible
// against not_eligible or undetermined, and not_eligible against eligible.
// Answers that could not be converted are listed in FieldErrors and
// explained as unanswered. Answers whose arithmetic overflows are listed
// in FieldErrors too, with no reasons: like conversion errors they are a
// property of the answers, not a failure of the explanation.
func ExplainFailure(ctx context.Context, r *engine.Ruleset, in *engine.Inputs, expected engine.Outcome, opts ExplainOptions) (Explanation, error) {
	x := NewExplainer(r, 0)
	defer x.Close()
	return x.Explain(ctx, in, expected, opts)
}

// Explainer is ExplainFailure for one ruleset, keeping its prepared Z3
// state (context, encoding, solver with the axioms and the tracked
// criteria) for the next call: building it costs more than an explanation.
// It is safe for concurrent use; each call takes a prepared state of its
// own (building one when none is idle), and at most size idle states are
// kept. Keep one Explainer per compiled ruleset (by content digest) and
// Close it when the ruleset is dropped.
type Explainer struct {
	// r is the ruleset every call explains.
	r *engine.Ruleset
	// idle holds the prepared states not in use; its capacity is the size
	// given to NewExplainer.
	idle chan *explainer
}

// NewExplainer makes an Explainer for r keeping up to size idle prepared
// states (0 keeps none: every call builds and frees its own).
func NewExplainer(r *engine.Ruleset, size int) *Explainer {
	return &Explainer{r: r, idle: make(chan *explainer, size)}
}

// Close frees the idle prepared states. Calls running meanwhile free their
// own state when they finish.
func (e *Explainer) Close() {
	for {
		select {
		case x := <-e.idle:
			x.c.Close()
		default:
			return
		}
	}
}

// Explain is ExplainFailure with e's ruleset.
func (e *Explainer) Explain(ctx context.Context, in *engine.Inputs, expected engine.Outcome, opts ExplainOptions) (Explanation, error) {
	r := e.r
	if expected > engine.NotEligible {
		return Explanation{}, fmt.Errorf("solver: explain-failure: %d is not an outcome", expected)
	}
	if in == nil || len(in.Values) != len(r.Fields) {
		return Explanation{}, fmt.Errorf("solver: explain-failure: the answers were converted for a different ruleset")
	}
	out := Explanation{Expected: expected, Actual: engine.Undetermined, Reasons: []Reason{}, Changes: []string{}}
	if len(in.FieldErrors) > 0 {
		// Answers that could not be read make the outcome undetermined on
		// their own; they are reported as such, and the criteria are
		// explained with those fields unanswered.
		out.FieldErrors = in.FieldErrors
		in = &engine.Inputs{Values: in.Values, Provided: in.Provided, Unused: in.Unused}
	}
	res := r.Evaluate(in, engine.Options{DecisionDate: opts.DecisionDate})
	if len(res.FieldErrors) > 0 {
		// The arithmetic overflows on some answer: the evaluator gave up
		// on those criteria, so no status of theirs is there to explain.
		// The overflow is the whole answer, listed after any conversion
		// errors as /decide lists them.
		out.FieldErrors = append(slices.Clip(out.FieldErrors), res.FieldErrors...)
		return out, nil
	}
	if out.FieldErrors == nil {
		out.Actual = res.Outcome
	}
	if res.OutsidePeriod {
		out.PeriodWarning = r.PeriodWarning(res.DecisionDate)
	}
	if res.Outcome == expected || res.OutsidePeriod {
		return out, nil
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = QueryTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// What the solver could not settle leaves out's outcome, field errors
	// and period as the evaluator gave them, and no reasons.
	// An unreachable outcome is decided, not stopped: it keeps its error.
	stopped := func(err error) (Explanation, error) {
		if errors.Is(err, ErrUnreachable) {
			return out, err
		}
		return out, bound.Halted(ctx, err, "no reasons were found")
	}
	release, err := opts.Gate.Enter(ctx)
	if err != nil {
		return stopped(err)
	}
	defer release()
	var x *explainer
	select {
	case x = <-e.idle:
	default:
		if x, err = newExplainer(ctx, r); err != nil {
			return stopped(err)
		}
	}
	reasons, changes, err := x.explain(ctx, in, res, expected)
	if err != nil {
		// A failed call may leave the solver mid-scope: do not reuse it.
		x.c.Close()
		return stopped(err)
	}
	select {
	case e.idle <- x:
	default:
		x.c.Close()
	}
	out.Reasons = reasons
	for _, i := range changes {
		cr, _ := r.CriterionAt(i)
		out.Changes = append(out.Changes, cr.ID)
	}
	out.ChangesNeeded = len(out.Changes)
	return out, nil
}

// explainer is the prepared state of explain-failure for one ruleset, two
// solvers in one context. The facts solver holds the encoding's axioms;
// each explanation asserts its answers there (in a push scope) and reads
// every criterion's status from one model. The core solver holds the
// groups and the outcome built over free criterion statuses, the goals,
// and, per explanation, one tracked literal per criterion tying its free
// status to the status the facts gave it. The core checks then run over
// that small propositional skeleton (the skeleton solver) instead of re-deriving the same
// statuses from the arithmetic on every check.
type explainer struct {
	// r is the ruleset explained.
	r *engine.Ruleset
	// c owns every Z3 object below; closing it frees the whole state.
	c *z3.Context
	// enc is r's encoding in c.
	enc *Encoding
	// facts is the facts solver: the axioms, and an explanation's answers
	// in a push scope.
	facts *z3.Solver
	// skeleton is the core solver: groups and outcome over the free
	// statuses, the goals, and an explanation's keep implications in a
	// push scope.
	skeleton *z3.Solver
	// statuses are the free criterion statuses of the core solver.
	statuses []Tri
	// keep[i] is the tracked literal "keep|<criterion id>" that ties
	// criterion i's free status to its actual one.
	keep []*z3.Expr
	// byID maps a keep literal's Z3 id back to its criterion index, to
	// read unsat cores.
	byID map[uint]int
	// goals[o] is the tracked literal "the outcome is o".
	goals [3]*z3.Expr
	// freed[i] is 1 when keep[i] is false (criterion i left free), else
	// 0: the terms fewestChanges counts.
	freed []*z3.Expr
	// in, actual and goal are the answers, the criteria's statuses under
	// them and the goal literal of the current explanation.
	in *engine.Inputs
	// actual is each criterion's status under in (see above).
	actual []engine.Status
	// goal is the literal of the expected outcome (see above).
	goal *z3.Expr
}

// newExplainer builds the prepared state in a context of its own; closing
// the context frees all of it.
func newExplainer(ctx context.Context, r *engine.Ruleset) (*explainer, error) {
	c, err := z3.NewContext()
	if err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	x, err := prepareExplainer(ctx, c, r)
	if err != nil {
		c.Close()
		return nil, err
	}
	return x, nil
}

func prepareExplainer(ctx context.Context, c *z3.Context, r *engine.Ruleset) (*explainer, error) {
	enc, err := EncodeContext(ctx, c, r)
	if err != nil {
		return nil, err
	}
	n := r.NumCriteria()
	x := &explainer{r: r, c: c, enc: enc, statuses: make([]Tri, n), byID: map[uint]int{}}
	for i := range n {
		x.statuses[i] = Tri{Known: c.BoolConst(fmt.Sprintf("status|known|%d", i)), Value: c.BoolConst(fmt.Sprintf("status|value|%d", i))}
		cr, _ := r.CriterionAt(i)
		lit := c.BoolConst("keep|" + cr.ID)
		x.keep = append(x.keep, lit)
		x.byID[lit.ID()] = i
		x.freed = append(x.freed, c.Ite(lit, c.Int(0), c.Int(1)))
	}
	free, err := enc.WithCriteria(x.statuses)
	if err != nil {
		return nil, err
	}
	if x.facts, err = enc.NewSolver(QueryTimeout); err != nil {
		return nil, err
	}
	if x.skeleton, err = c.NewSolver(QueryTimeout); err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	for _, o := range []engine.Outcome{engine.Undetermined, engine.Eligible, engine.NotEligible} {
		if x.goals[o], err = enc.Track(x.skeleton, "goal|"+o.String(), free.OutcomeIs(o)); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// explain finds the minimal core for answers in (evaluated as res) and
// writes up its reasons, and finds the fewest criteria to change (as
// indexes), in push scopes it pops before returning.
func (x *explainer) explain(ctx context.Context, in *engine.Inputs, res *engine.Result, expected engine.Outcome) ([]Reason, []int, error) {
	facts, err := x.enc.Facts(in)
	if err != nil {
		return nil, nil, err
	}
	if err := x.facts.Push(); err != nil {
		return nil, nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	if err := AssertAll(x.facts, append(facts, x.enc.DecisionDateIs(res.DecisionDate))); err != nil {
		return nil, nil, err
	}
	// One model of the answers gives every criterion's status, and serves
	// every reason's mechanism.
	m, err := x.factsModel(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer m.Close()
	st, err := x.enc.Statuses(m)
	if err != nil {
		return nil, nil, err
	}
	for i, s := range st.Criteria {
		if s != res.Criteria[i] {
			cr, _ := x.r.CriterionAt(i)
			return nil, nil, fmt.Errorf("solver: explain-failure: criterion %s is %s in the solver but %s in the evaluator", cr.ID, s, res.Criteria[i])
		}
	}
	if err := x.skeleton.Push(); err != nil {
		return nil, nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	for i, lit := range x.keep {
		if err := x.skeleton.Assert(x.c.Implies(lit, x.statuses[i].Is(x.c, st.Criteria[i]))); err != nil {
			return nil, nil, fmt.Errorf("solver: explain-failure: %w", err)
		}
	}
	x.in, x.actual, x.goal = in, st.Criteria, x.goals[expected]
	core, needed, err := x.minimalCore(ctx)
	if err != nil {
		return nil, nil, err
	}
	changes, err := x.fewestChanges(ctx)
	if err != nil {
		return nil, nil, err
	}
	reasons := make([]Reason, 0, len(core))
	for _, i := range core {
		reason, err := x.reason(m, res, i, needed[i], core)
		if err != nil {
			return nil, nil, err
		}
		reasons = append(reasons, reason)
	}
	if err := x.skeleton.Pop(1); err != nil {
		return nil, nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	if err := x.facts.Pop(1); err != nil {
		return nil, nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	return reasons, changes, nil
}

// check decides whether the expected outcome is reachable with the
// criteria in kept tied to their statuses under the answers and every
// other criterion free. When it is, it returns the status the model gives
// each criterion in read (indexed like the criteria; only read is filled,
// and no model is fetched when read is empty).
func (x *explainer) check(ctx context.Context, kept, read []int) (z3.Result, []engine.Status, error) {
	lits := make([]*z3.Expr, len(kept), len(kept)+1)
	for j, i := range kept {
		lits[j] = x.keep[i]
	}
	lits = append(lits, x.goal)
	res, err := x.skeleton.CheckAssumptions(ctx, lits...)
	if err != nil {
		return z3.Unknown, nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	if res != z3.Sat || len(read) == 0 {
		return res, nil, nil
	}
	m, err := x.skeleton.Model()
	if err != nil {
		return z3.Unknown, nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	defer m.Close()
	st := make([]engine.Status, len(x.statuses))
	for _, i := range read {
		if st[i], err = triStatus(m, x.statuses[i]); err != nil {
			return z3.Unknown, nil, fmt.Errorf("solver: explain-failure: %w", err)
		}
	}
	return res, st, nil
}

// minimalCore returns the criteria of a minimal core (ascending) and, for
// each, a status that makes the expected outcome reachable when it alone
// is released.
//
// The core is drawn from the settled criteria alone whenever they rule the
// outcome out on their own, as they do whenever the actual outcome is
// decided: a criterion still pending (an open question, an official's
// determination) is then no reason why. Only when the pending criteria
// are part of what stands in the way (an undetermined outcome) are they
// candidates too.
func (x *explainer) minimalCore(ctx context.Context) ([]int, map[int]engine.Status, error) {
	all := make([]int, len(x.keep))
	var base []int
	for i := range all {
		all[i] = i
		if x.actual[i] != engine.Pending {
			base = append(base, i)
		}
	}
	res, _, err := x.check(ctx, base, nil)
	if err == nil && res != z3.Unsat && len(base) < len(all) {
		base = all
		res, _, err = x.check(ctx, all, nil)
	}
	if err != nil {
		return nil, nil, err
	}
	if res != z3.Unsat {
		// With every status as the answers make it, the outcome is the
		// evaluator's, not the expected one: the encoding of the groups or
		// the outcome disagrees with the evaluator, which the differential
		// test exists to prevent.
		return nil, nil, fmt.Errorf("solver: explain-failure: the expected outcome is reachable with every criterion as the answers make it, though the evaluator says otherwise")
	}
	// Read the core now: the checks below replace it.
	core, err := x.core()
	if err != nil {
		return nil, nil, err
	}
	// Released all at once, the criteria must be able to reach the
	// outcome; if not, the outcome expression itself rules it out.
	res, free, err := x.check(ctx, nil, all)
	if err != nil {
		return nil, nil, err
	}
	if res != z3.Sat {
		return nil, nil, fmt.Errorf("solver: explain-failure: %w", ErrUnreachable)
	}
	// A single criterion that rules the outcome out on its own is the
	// smallest explanation there is; prefer the first in declaration order
	// over whatever larger core Z3 would start from.
	for _, i := range base {
		if free[i] == x.actual[i] {
			// This model reaches the goal with i as the answers make it,
			// so i alone rules nothing out.
			continue
		}
		res, _, err := x.check(ctx, []int{i}, nil)
		if err != nil {
			return nil, nil, err
		}
		if res == z3.Unsat {
			return []int{i}, map[int]engine.Status{i: free[i]}, nil
		}
	}
	needed := map[int]engine.Status{}
	// Deletion: take the first member not yet confirmed; if releasing it
	// still leaves the outcome unreachable, drop it (and whatever else
	// Z3's new core leaves out), else it is necessary. A necessary member
	// stays necessary as the set shrinks (fewer kept criteria only make the
	// outcome easier to reach), so no later core drops it.
	//
	// Criteria act on the outcome only through their group, whose status is
	// a symmetric function of its members' statuses: two members of one
	// group with the same status are interchangeable. So when a member
	// proves necessary, so does every other member of its group with the
	// same status in the current set, with the same needed status; an
	// exhausted `any` group of many alternatives costs one check, not one
	// per alternative.
	for {
		i := -1
		for _, k := range core {
			if _, ok := needed[k]; !ok {
				i = k
				break
			}
		}
		if i < 0 {
			break
		}
		rest := slices.DeleteFunc(slices.Clone(core), func(k int) bool { return k == i })
		res, st, err := x.check(ctx, rest, []int{i})
		if err != nil {
			return nil, nil, err
		}
		if res == z3.Sat {
			_, g := x.r.CriterionAt(i)
			for _, k := range core {
				if _, gk := x.r.CriterionAt(k); gk == g && x.actual[k] == x.actual[i] {
					needed[k] = st[i]
				}
			}
			continue
		}
		// Still unsat without i: Z3's new core may be smaller again.
		smaller, err := x.core()
		if err != nil {
			return nil, nil, err
		}
		core = keepOrder(rest, smaller)
	}
	return core, needed, nil
}

// core reads the unsat core as criterion indexes, ascending.
func (x *explainer) core() ([]int, error) {
	lits, err := x.skeleton.UnsatCore()
	if err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	in := make([]bool, len(x.keep))
	for _, l := range lits {
		if i, ok := x.byID[l.ID()]; ok {
			in[i] = true
		}
	}
	var out []int
	for i, b := range in {
		if b {
			out = append(out, i)
		}
	}
	return out, nil
}

// keepOrder is the members of set that are also in sub, in set's order.
func keepOrder(set, sub []int) []int {
	want := map[int]bool{}
	for _, i := range sub {
		want[i] = true
	}
	var out []int
	for _, i := range set {
		if want[i] {
			out = append(out, i)
		}
	}
	return out
}

// reason writes up criterion i of the core.
func (x *explainer) reason(m *z3.Model, res *engine.Result, i int, needed engine.Status, core []int) (Reason, error) {
	r := x.r
	cr, g := r.CriterionAt(i)
	out := Reason{
		CriterionID: cr.ID, Title: cr.Title, Group: r.Groups[g].ID,
		Status: res.Criteria[i], NeededStatus: needed, Condition: cr.Text,
		Facts: []engine.Fact{}, MissingFields: []string{}, SourceReferences: []engine.SourceReference{},
	}
	for _, s := range cr.Slots {
		if v := x.in.Values[s]; v.Known {
			out.Facts = append(out.Facts, engine.Fact{Field: r.Fields[s].ID, Value: r.ValueJSON(s, v)})
		} else if r.InList(s, x.in) {
			out.MissingFields = append(out.MissingFields, r.Fields[s].ID)
		}
	}
	if cr.Expr != nil {
		out.Members = r.MemberReasons(cr.Expr, x.in, res.DecisionDate)
	}
	if refs := r.References(i); refs != nil {
		out.SourceReferences = refs
	}
	out.Values = r.CriterionValues(i, x.in, res)
	mech, err := x.mechanism(m, cr, res.Criteria[i], needed)
	if err != nil {
		return Reason{}, err
	}
	out.Mechanism = mech
	if x.anyGroupExhausted(res, g, core) {
		out.Mechanism, out.ConditionMechanism = MechanismAnyGroupExhausted, mech
	}
	return out, nil
}

// anyGroupExhausted reports whether group g is an `any` group that failed
// with every alternative in the core.
func (x *explainer) anyGroupExhausted(res *engine.Result, g int, core []int) bool {
	if x.r.Groups[g].Kind != engine.GroupAny || res.Groups[g] != engine.NotSatisfied {
		return false
	}
	inCore := map[int]bool{}
	for _, i := range core {
		inCore[i] = true
	}
	for i := 0; i < x.r.NumCriteria(); i++ {
		if _, gi := x.r.CriterionAt(i); gi == g && !inCore[i] {
			return false
		}
	}
	return true
}

// mechanism classifies why criterion cr has status st rather than needed;
// m is a model of the answers.
func (x *explainer) mechanism(m *z3.Model, cr *engine.Criterion, st, needed engine.Status) (string, error) {
	switch {
	case cr.Discretionary || cr.Expr == nil:
		return MechanismDiscretionary, nil
	case st == engine.Pending:
		return MechanismMissingAnswer, nil
	}
	presenceOnMissing := false
	WalkRule(x.r, cr.Expr, func(e *engine.Expr) {
		if e.Kind == engine.ExprOp && (e.Op == engine.OpPresent || e.Op == engine.OpAbsent || e.Op == engine.OpDefault) &&
			!x.in.Values[e.Args[0].Slot].Known {
			presenceOnMissing = true
		}
	})
	if presenceOnMissing {
		return MechanismPresenceDefault, nil
	}
	// The first atom (comparison or yes/no read) that pulls the criterion
	// away from the needed status names the mechanism: under an even
	// number of `not`s, a false atom keeps it from satisfied and a true one
	// from not_satisfied; under an odd number, the reverse.
	first, blame := "", ""
	var walkErr error
	walkAtoms(cr.Expr, true, func(a *engine.Expr, positive bool) {
		if blame != "" || walkErr != nil {
			return
		}
		kind := atomKind(a)
		if first == "" {
			first = kind
		}
		t, err := x.enc.expr(a)
		if err != nil {
			walkErr = err
			return
		}
		known, err := m.Bool(t.known)
		if err != nil || !known {
			walkErr = err
			return
		}
		v, err := m.Bool(t.val)
		if err != nil {
			walkErr = err
			return
		}
		if v == (positive != (needed == engine.Satisfied)) {
			blame = kind
		}
	})
	if walkErr != nil {
		return "", fmt.Errorf("solver: explain-failure: %w", walkErr)
	}
	if blame != "" {
		return blame, nil
	}
	if first != "" {
		return first, nil
	}
	return MechanismThreshold, nil
}

// factsModel is a model of the answers.
func (x *explainer) factsModel(ctx context.Context) (*z3.Model, error) {
	res, err := x.facts.Check(ctx)
	if err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	if res != z3.Sat {
		return nil, fmt.Errorf("solver: explain-failure: the answers contradict the ruleset's domain")
	}
	m, err := x.facts.Model()
	if err != nil {
		return nil, fmt.Errorf("solver: explain-failure: %w", err)
	}
	return m, nil
}

// walkAtoms visits the atoms of a condition (comparisons, list tests and
// yes/no values read directly) with their polarity: false under an odd
// number of `not`s.
func walkAtoms(x *engine.Expr, positive bool, visit func(*engine.Expr, bool)) {
	if x.Kind == engine.ExprOp {
		switch x.Op {
		case engine.OpAnd, engine.OpOr:
			for _, a := range x.Args {
				walkAtoms(a, positive, visit)
			}
			return
		case engine.OpNot:
			walkAtoms(x.Args[0], !positive, visit)
			return
		}
	}
	visit(x, positive)
}

// atomKind is the mechanism an atom stands for: a date or age window, a
// listed (or yes/no) value, or else a numeric threshold.
func atomKind(a *engine.Expr) string {
	kind := MechanismThreshold
	WalkExpr(a, func(e *engine.Expr) {
		switch {
		case e.Sort == engine.SortDate,
			e.Kind == engine.ExprOp && (e.Op == engine.OpYearsBetween || e.Op == engine.OpMonthsBetween || e.Op == engine.OpDaysBetween):
			kind = MechanismDateWindow
		case (e.Sort == engine.SortEnum || e.Kind == engine.ExprField && e.Sort == engine.SortBool) && kind != MechanismDateWindow:
			kind = MechanismEnumMismatch
		}
	})
	return kind
}
