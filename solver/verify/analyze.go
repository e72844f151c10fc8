package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/z3"
)

// Static analysis looks for rules that compile but cannot mean what their
// author intended: a criterion no answer satisfies, one every answer
// satisfies, a criterion implied by its neighbours, two alternatives that are
// one, a question whose answer never changes the outcome. Each is a question
// about every possible answer set, so each is a satisfiability check over the
// Encoding; a finding is reported only when Z3 proves it (unsat), never on a
// guess.
//
// Most checks are refuted long before Z3 is asked: every model a check
// returns is decoded into answers and evaluated by the engine, and each later
// check first looks for a counter-example among those evaluations (a
// criterion already seen satisfied cannot be never satisfied). The engine is
// the reference semantics, so a refutation found this way is as sound as
// Z3's, and on the casebank it spares most of the checks.

// The kinds of Finding, in the order Analyze reports them. Each is a claim
// about every answer set the encoding allows (every value in the field's
// domain, every decision date from 0001-01-01 to 9999-12-31).
const (
	// FindingCriterionNeverSatisfied: no answer set, complete or not,
	// satisfies the criterion. Usually a contradiction (x > 5 and x < 3) or
	// a typo in a constant.
	FindingCriterionNeverSatisfied = "criterion_never_satisfied"
	// FindingCriterionAlwaysSatisfied: once every field the criterion reads
	// is answered, it is satisfied whatever the answers. It only makes the
	// applicant answer, and never rules anyone out.
	FindingCriterionAlwaysSatisfied = "criterion_always_satisfied"
	// FindingGroupNeverSatisfied: no answer set satisfies the group, even
	// with every discretionary criterion decided in the applicant's favour.
	// Finding.Others names a smallest set of the group's criteria that
	// cannot hold together (an all group), or is empty when no alternative
	// of an any group can hold.
	FindingGroupNeverSatisfied = "group_never_satisfied"
	// FindingOutcomeNeverEligible: no answer set makes the outcome eligible,
	// even with every discretionary criterion decided in the applicant's
	// favour.
	FindingOutcomeNeverEligible = "outcome_never_eligible"
	// FindingOutcomeAlwaysEligible: every complete answer set makes the
	// outcome eligible, whatever the discretionary criteria are decided.
	FindingOutcomeAlwaysEligible = "outcome_always_eligible"
	// FindingCriterionRedundant: in an all group, whenever the criteria of
	// Finding.Others are satisfied the criterion is too, so removing it
	// never changes whether the group is satisfied. Of criteria that imply
	// each other, the later one is reported.
	FindingCriterionRedundant = "criterion_redundant"
	// FindingAlternativesOverlap: two alternatives of an any group are
	// satisfied by exactly the same answer sets; the finding is on the
	// later one, Finding.Others holding the earlier.
	FindingAlternativesOverlap = "alternatives_overlap"
	// FindingFieldNeverMatters: no two complete answer sets that differ
	// only in this field get different outcomes. A field no criterion
	// reads is the plain case; a read that cannot change the outcome (an
	// unreachable group, a condition implied by others) is the subtle one.
	FindingFieldNeverMatters = "field_never_matters"
)

// findingOrder ranks the kinds for Analyze's ordering.
var findingOrder = map[string]int{
	FindingCriterionNeverSatisfied:  0,
	FindingCriterionAlwaysSatisfied: 1,
	FindingGroupNeverSatisfied:      2,
	FindingOutcomeNeverEligible:     3,
	FindingOutcomeAlwaysEligible:    4,
	FindingCriterionRedundant:       5,
	FindingAlternativesOverlap:      6,
	FindingFieldNeverMatters:        7,
}

// defaultAnalyzeTimeout bounds a whole analysis when AnalyzeOptions leave
// Timeout zero.
const defaultAnalyzeTimeout = 5 * time.Second

// analyzeCheckTimeout bounds each Z3 check of an analysis (or the whole
// Timeout, if shorter), so that one hard question, such as a product of two
// answers, is given up and reported rather than eating the whole budget.
const analyzeCheckTimeout = time.Second

// AnalyzeOptions bound Analyze.
type AnalyzeOptions struct {
	// Timeout bounds the whole analysis, 5 s when zero or negative. Each
	// Z3 check is further bounded by the smaller of Timeout and
	// CheckTimeout.
	Timeout time.Duration
	// CheckTimeout bounds each Z3 check, 1 s when zero or negative: one
	// hard question is given up and reported rather than eating the whole
	// budget. A caller that must decide every check whatever the load
	// (the casebank's tests, under the race detector on a shared machine)
	// raises it with Timeout.
	CheckTimeout time.Duration
	// Gate, when not nil, is the process's bound on heavy solver runs: the
	// analysis waits for one slot within its Timeout.
	Gate *bound.Gate
}

// Finding is one thing static analysis proved about a ruleset: what an
// `eligo check` prints as a warning, and what publish and the review report
// show an analyst. It is advice, never a refusal: the law itself can make a
// criterion redundant or a question moot.
type Finding struct {
	// Kind is one of the Finding* constants.
	Kind string `json:"kind"`
	// Criterion is the id of the criterion the finding is about; empty
	// for group, outcome and field findings.
	Criterion string `json:"criterion,omitempty"`
	// Group is the id of the group of Criterion, or of the group a group
	// finding is about; empty for outcome and field findings.
	Group string `json:"group,omitempty"`
	// Field is the id of the field a field_never_matters finding is
	// about; empty otherwise.
	Field string `json:"field,omitempty"`
	// Others are the criteria the finding relates Criterion or Group to:
	// the criteria that together imply a redundant one, the earlier
	// alternative an overlapping one duplicates, the criteria of a group
	// that cannot hold together. Empty when none.
	Others []string `json:"others,omitempty"`
	// Quote is the first citation's quote of Criterion, so that the
	// analyst sees the law next to the rule; empty when no criterion.
	Quote string `json:"quote,omitempty"`
	// Message is one plain sentence saying what holds and why it matters.
	Message string `json:"message"`
	// Witness is an answer set showing the finding (field id to the
	// answer's wire JSON, as engine.Ruleset.ValueJSON writes it). Every
	// current kind is a claim about all answer sets, which no single
	// example can show, so Analyze leaves it empty; it is here for kinds
	// that claim something can happen.
	Witness map[string]any `json:"witness,omitempty"`
}

// Analyze runs every static check on r and returns the findings, by kind
// (in the order of the Finding* constants) then in declaration order. The
// criterion checks skip discretionary criteria, which are always pending;
// the group and outcome checks let an official decide them either way.
// Field findings compare complete answer sets, the ones the outcome is
// settled on.
//
// Findings are not merged: a criterion that is never satisfied makes its
// all group never satisfied, and both are reported (the group's Others
// naming the criterion). A group that is never satisfied is not searched
// for redundant criteria, and alternatives that are never satisfied are
// not compared.
//
// Analyze honours ctx and opts.Timeout. When either runs out it returns the
// findings made so far with an error wrapping the context's. A check Z3
// cannot decide in time (or at all, for products of answers) is skipped; the
// other findings are returned with an error matching z3.ErrTimeout or
// z3.ErrUnknown that lists the skipped checks.
func Analyze(ctx context.Context, r *engine.Ruleset, opts AnalyzeOptions) ([]Finding, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = defaultAnalyzeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("solver: analyze %s: %w", r.SectionID, err)
	}
	release, err := opts.Gate.Enter(ctx)
	if err != nil {
		return nil, fmt.Errorf("solver: analyze %s: %w", r.SectionID, err)
	}
	defer release()
	c, err := z3.NewContext()
	if err != nil {
		return nil, fmt.Errorf("solver: analyze %s: %w", r.SectionID, err)
	}
	defer c.Close()
	checkTimeout := opts.CheckTimeout
	if checkTimeout <= 0 {
		checkTimeout = analyzeCheckTimeout
	}
	a, err := newAnalysis(ctx, c, r, min(timeout, checkTimeout))
	if err != nil {
		return nil, err
	}
	defer a.close()
	for _, st := range analysisStages {
		if err := st.run(a); err != nil {
			return a.sorted(), fmt.Errorf("solver: analyze %s: %s: %w", r.SectionID, st.name, err)
		}
	}
	if len(a.undecided) > 0 {
		return a.sorted(), fmt.Errorf("solver: analyze %s: %d checks undecided: %w", r.SectionID, len(a.undecided), errors.Join(a.undecided...))
	}
	return a.sorted(), nil
}

// analysisStages are Analyze's steps in the order they run; each name
// prefixes the errors its step returns. Later steps read what earlier ones
// proved (which criteria and groups can be satisfied).
var analysisStages = []struct {
	name string
	run  func(*analysis) error
}{
	{"criteria", (*analysis).criteria},
	{"groups", (*analysis).groups},
	{"outcome", (*analysis).outcome},
	{"redundancy", (*analysis).redundancy},
	{"alternatives", (*analysis).alternatives},
	{"fields", (*analysis).fields},
}

// analysis is the state of one Analyze call. It belongs to one goroutine,
// like its z3 context.
type analysis struct {
	// ctx bounds every check (the caller's context and the timeout).
	ctx context.Context
	// checkTimeout bounds each check.
	checkTimeout time.Duration
	// small is smallLists for a.enc alone, made on first use.
	small []*z3.Expr
	// r is the ruleset analysed.
	r *engine.Ruleset
	// c is the z3 context of every term below.
	c *z3.Context
	// enc is r's encoding; its discretionary criteria are pending.
	enc *solver.Encoding
	// decided is enc with each discretionary criterion decided by a free
	// Bool (official), for the group, outcome and field checks.
	decided *solver.Encoding
	// official are the decided statuses of the criteria: enc's, except
	// that a discretionary criterion is known with a free value.
	official []solver.Tri
	// s holds enc's axioms: the exact question. Checks pass their
	// question as assumptions; only the tracking implications of lits
	// are asserted at its base level.
	s *z3.Solver
	// loose holds only the bounds of every value (enum indexes, date
	// ordinals, magnitudes), not the calendar axioms that tie a date's
	// ordinal to its year, month and day, which make Z3 ten to thirty
	// times slower. What loose finds impossible is impossible; what it
	// finds possible is decoded and replayed in the engine, and holds if
	// the engine agrees (see exists).
	loose *z3.Solver
	// lits are the tracked literals "criterion i is satisfied" in s, made
	// on first use; byLit maps a literal's ID back to i.
	lits  map[int]*z3.Expr
	byLit map[uint]int
	// samples are the engine's evaluations of every model a check
	// returned: counter-examples later checks look through first.
	samples []analyzeSample
	// critSatisfiable and groupSatisfiable mark the criteria and groups
	// some sample satisfies (or, for a group, some decision of its
	// discretionary criteria).
	critSatisfiable, groupSatisfiable []bool
	// alwaysSatisfied marks the criteria reported always satisfied.
	alwaysSatisfied []bool
	// critNever and groupNever mark the criteria and groups proved never
	// satisfied.
	critNever, groupNever []bool
	// outcomeFixed is set when the outcome was found never or always
	// eligible: every field then trivially never matters, and the field
	// step says nothing.
	outcomeFixed bool
	// out are the findings so far, in the order found.
	out []Finding
	// undecided are the checks Z3 gave up on.
	undecided []error
}

// analyzeSample is one answer set a check's model gave, evaluated by the
// engine.
type analyzeSample struct {
	// in are the answers.
	in *engine.Inputs
	// res is the engine's evaluation of in on the model's decision date.
	res *engine.Result
}

// newAnalysis encodes r in c and makes the exact and the loose solver, each
// check bounded by checkTimeout.
func newAnalysis(ctx context.Context, c *z3.Context, r *engine.Ruleset, checkTimeout time.Duration) (*analysis, error) {
	enc, err := solver.EncodeContext(ctx, c, r)
	if err != nil {
		return nil, err
	}
	n := r.NumCriteria()
	a := &analysis{ctx: ctx, r: r, c: c, enc: enc, official: make([]solver.Tri, n), checkTimeout: checkTimeout,
		lits: map[int]*z3.Expr{}, byLit: map[uint]int{},
		critSatisfiable: make([]bool, n), alwaysSatisfied: make([]bool, n), critNever: make([]bool, n),
		groupSatisfiable: make([]bool, len(r.Groups)), groupNever: make([]bool, len(r.Groups))}
	for i := range n {
		a.official[i] = enc.Criterion(i)
		if cr, _ := r.CriterionAt(i); cr.Discretionary || cr.Expr == nil {
			a.official[i] = solver.Tri{Known: c.Bool(true), Value: c.BoolConst("official|" + cr.ID)}
		}
	}
	if a.decided, err = enc.WithCriteria(a.official); err != nil {
		return nil, err
	}
	if a.s, err = enc.NewSolver(checkTimeout); err != nil {
		return nil, err
	}
	if a.loose, err = c.NewSolver(checkTimeout); err != nil {
		a.s.Close()
		return nil, fmt.Errorf("solver: analyze: %w", err)
	}
	if err := solver.AssertAll(a.loose, enc.LooseBounds(nil)); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// close frees both solvers; Analyze closes the context.
func (a *analysis) close() {
	a.s.Close()
	a.loose.Close()
}

// exists asks whether some answer set (with discretionary criteria decided
// where the terms say so) meets the assumptions. When confirm is given, the
// loose solver is asked first: its unsat is final, and its model is final
// when confirm, replaying it in the engine, agrees. Otherwise, and with no
// confirm, the exact solver decides. Every model the engine can read
// becomes a sample. A check Z3 cannot decide is recorded as undecided and
// answers Unknown with no error, so the analysis goes on without that
// finding; an error ends the analysis (ctx done, or a failure of Z3
// itself).
func (a *analysis) exists(what string, confirm func(*z3.Model) bool, assumptions ...*z3.Expr) (z3.Result, error) {
	return a.existsIn(nil, what, confirm, assumptions)
}

// existsIn is exists for a check that relates a.enc to variants. With
// lists, the check is first asked of small households (smallLists, in
// a.enc and the variants): what it finds there is found, and what it does
// not find, or cannot decide, is asked again of every household.
func (a *analysis) existsIn(variants []*solver.Encoding, what string, confirm func(*z3.Model) bool, assumptions []*z3.Expr) (z3.Result, error) {
	if small := a.smallLists(variants); len(small) > 0 {
		ctx, cancel := context.WithTimeout(a.ctx, max(smallHouseholdBudget, a.checkTimeout/16))
		res, err := a.check(ctx, what, confirm, false, append(slices.Clone(assumptions), small...))
		cancel()
		if err != nil || res == z3.Sat {
			return res, err
		}
	}
	return a.check(a.ctx, what, confirm, true, assumptions)
}

// smallHouseholdBudget bounds the try with small households, or a
// sixteenth of a check's time when that is longer: what Z3 finds there it
// finds in milliseconds, and a check it cannot settle so soon goes on to
// every household at once rather than costing twice.
const smallHouseholdBudget = 250 * time.Millisecond

// check is one exists question: the loose solver first when confirm is
// given, then the exact one, whose undecided answer is recorded when
// record is set.
func (a *analysis) check(ctx context.Context, what string, confirm func(*z3.Model) bool, record bool, assumptions []*z3.Expr) (z3.Result, error) {
	if confirm != nil {
		res, err := a.ask(ctx, a.loose, what, false, assumptions)
		if err != nil {
			return z3.Unknown, err
		}
		if res == z3.Unsat {
			return z3.Unsat, nil
		}
		if res == z3.Sat {
			ok, err := a.withModel(a.loose, confirm)
			if err != nil || ok {
				return z3.Sat, err
			}
		}
	}
	res, err := a.ask(ctx, a.s, what, record, assumptions)
	if err != nil || res != z3.Sat {
		return res, err
	}
	_, err = a.withModel(a.s, func(m *z3.Model) bool {
		a.sample(m)
		return true
	})
	return res, err
}

// smallLists is "every list holds at most two members" (smallHousehold), in a.enc and in
// the variants given (whose fresh lists are their own), or empty for a
// ruleset without lists. exists tries a check with it first: most answer
// sets a check looks for have a household of one or two (a student and
// the child she cares for), which is a far easier
// question for Z3 than a household of any size up to the bound, where
// each member's dates bring their own calendar.
func (a *analysis) smallLists(variants []*solver.Encoding) []*z3.Expr {
	if a.small == nil {
		a.small = a.listsAtMost(a.enc)
	}
	out := a.small
	for _, e := range variants {
		out = append(slices.Clip(out), a.listsAtMost(e)...)
	}
	return out
}

// listsAtMost is "every list of e holds at most smallHousehold members"
// (empty, not nil, for a ruleset without lists).
func (a *analysis) listsAtMost(e *solver.Encoding) []*z3.Expr {
	out := []*z3.Expr{}
	for slot := range a.r.Fields {
		if a.r.Fields[slot].List != nil {
			out = append(out, a.c.Le(e.Value(slot), a.c.Int(smallHousehold)))
		}
	}
	return out
}

// ask runs one check on solver s (a.s or a.loose) within ctx (a.ctx or
// a shorter one). A check Z3 cannot decide, or that outlives a ctx
// shorter than the analysis, answers Unknown with no error, recorded as
// undecided when record is set.
func (a *analysis) ask(ctx context.Context, s *z3.Solver, what string, record bool, assumptions []*z3.Expr) (z3.Result, error) {
	res, err := s.CheckAssumptions(ctx, assumptions...)
	switch {
	case err == nil:
		return res, nil
	case a.ctx.Err() != nil:
		return z3.Unknown, a.ctx.Err()
	case ctx.Err() != nil:
		return z3.Unknown, nil
	case errors.Is(err, z3.ErrTimeout) || errors.Is(err, z3.ErrUnknown):
		if record {
			a.undecided = append(a.undecided, fmt.Errorf("%s: %w", what, err))
		}
		return z3.Unknown, nil
	}
	return z3.Unknown, fmt.Errorf("%s: %w", what, err)
}

// withModel hands the model of s's last (sat) check to use and closes it.
func (a *analysis) withModel(s *z3.Solver, use func(*z3.Model) bool) (bool, error) {
	m, err := s.Model()
	if err != nil {
		return false, err
	}
	defer m.Close()
	return use(m), nil
}

// sample decodes the base encoding's answers in m, evaluates them in the
// engine and keeps the evaluation as a sample. A model the engine cannot
// take as answers (a decimal such as 1/3, an overflow) gives none.
func (a *analysis) sample(m *z3.Model) (analyzeSample, bool) {
	return a.sampleOf(a.enc, m)
}

// sampleOf is sample for the answers of e (the base encoding or a Variant).
func (a *analysis) sampleOf(e *solver.Encoding, m *z3.Model) (analyzeSample, bool) {
	in, date, err := e.Decode(m)
	if err != nil {
		return analyzeSample{}, false
	}
	res := a.r.Evaluate(in, engine.Options{DecisionDate: date})
	if len(res.FieldErrors) > 0 {
		return analyzeSample{}, false
	}
	s := analyzeSample{in: in, res: res}
	a.samples = append(a.samples, s)
	for i, st := range res.Criteria {
		a.critSatisfiable[i] = a.critSatisfiable[i] || st == engine.Satisfied
	}
	for g, st := range res.Groups {
		a.groupSatisfiable[g] = a.groupSatisfiable[g] || st == engine.Satisfied
	}
	return s, true
}

// confirms is the confirm of exists that samples the model and tests pred
// on the engine's evaluation. Because Kleene logic only refines a pending
// status, a status the engine decides with the discretionary criteria
// pending holds for every decision of them, so pred may test decided
// questions too, as long as it asks for known statuses.
func (a *analysis) confirms(pred func(analyzeSample) bool) func(*z3.Model) bool {
	return func(m *z3.Model) bool {
		s, ok := a.sample(m)
		return ok && pred(s)
	}
}

// possible asks whether some answer set meets pred, the question in the
// engine's terms, which the assumptions state in the encoding's: Sat when a
// sample already does or Z3 finds one (see exists), Unsat when Z3 proves
// none can, Unknown when Z3 cannot tell.
func (a *analysis) possible(what string, pred func(analyzeSample) bool, assumptions ...*z3.Expr) (z3.Result, error) {
	if slices.ContainsFunc(a.samples, pred) {
		return z3.Sat, nil
	}
	return a.exists(what, a.confirms(pred), assumptions...)
}

// lit is the tracked literal "criterion i is satisfied", for checks whose
// unsat core names criteria. It is asserted at the base level of a.s, so it
// is made before any Push (only the field step pushes, and it makes none).
func (a *analysis) lit(i int) (*z3.Expr, error) {
	if l, ok := a.lits[i]; ok {
		return l, nil
	}
	cr, _ := a.r.CriterionAt(i)
	l, err := a.enc.Track(a.s, "analyze|satisfied|"+cr.ID, a.enc.CriterionIs(i, engine.Satisfied))
	if err != nil {
		return nil, err
	}
	a.lits[i], a.byLit[l.ID()] = l, i
	return l, nil
}

// minimalCore checks whether criteria cannot all be satisfied together with
// fixed. If so it returns a subset that already cannot, from which no member
// can be dropped (Z3's core, then shrunk one member at a time), in the
// order given; otherwise nil.
func (a *analysis) minimalCore(what string, fixed []*z3.Expr, criteria []int) ([]int, error) {
	try := func(set []int) (z3.Result, error) {
		as := slices.Clone(fixed)
		for _, i := range set {
			l, err := a.lit(i)
			if err != nil {
				return z3.Unknown, err
			}
			as = append(as, l)
		}
		return a.exists(what, nil, as...)
	}
	res, err := try(criteria)
	if err != nil || res != z3.Unsat {
		return nil, err
	}
	core, err := a.s.UnsatCore()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	inCore := map[int]bool{}
	for _, x := range core {
		if i, ok := a.byLit[x.ID()]; ok {
			inCore[i] = true
		}
	}
	set := slices.DeleteFunc(slices.Clone(criteria), func(i int) bool { return !inCore[i] })
	for k := 0; k < len(set); {
		without := slices.Delete(slices.Clone(set), k, k+1)
		res, err := try(without)
		if err != nil {
			return nil, err
		}
		if res == z3.Unsat {
			set = without
		} else {
			k++
		}
	}
	return set, nil
}
