package plan

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/eligo/eligo/engine"
)

// Question is next_question: the field to ask for now
// (docs/api.md#planning-next_question-optimal_path-choice_context).
type Question struct {
	// FieldID is the id of the field to ask for.
	FieldID string `json:"field_id"`
	// Question is the field's question text; always present (so a typed
	// client reads it as a plain string), empty when the rules give none.
	Question string `json:"question"`
	// Weight is the field's declared weight (higher asks later).
	Weight int `json:"weight"`
}

// PathStep is one entry of optimal_path
// (docs/api.md#planning-next_question-optimal_path-choice_context).
type PathStep struct {
	// FieldID is the id of a field still to ask.
	FieldID string `json:"field_id"`
	// Question is the field's question text; always present (so a typed
	// client reads it as a plain string), empty when the rules give none.
	Question string `json:"question"`
}

// Aim says what a plan's path leads to.
type Aim uint8

// Aims of a plan.
const (
	// AimNone: no set of further answers can settle the outcome (or it is
	// eligible already); the path is empty.
	AimNone Aim = iota
	// AimEligible: answering the path can make the outcome eligible.
	AimEligible
	// AimSettle: eligible is out of reach; answering the path can settle
	// the outcome (as not_eligible).
	AimSettle
)

// Plan is what /decide adds to a decision about the questions still to ask.
// The JSON members are the wire shape of docs/api.md#deciding-post-decide. A Plan returned by Planner.Plan
// is the caller's own: it shares nothing with the planner's cache.
type Plan struct {
	// NextQuestion is the first field of OptimalPath, or nil when the path
	// is empty.
	NextQuestion *Question `json:"next_question"`
	// OptimalPath is the cheapest set of unanswered fields through which the
	// outcome can still become eligible, ordered by weight then declaration
	// order; when eligible is out of reach, the cheapest set that can settle
	// the outcome. Never nil.
	OptimalPath []PathStep `json:"optimal_path"`
	// ChoiceContext describes the ruleset's OR-groups and field sections
	// (sent when include_choice_context is set, docs/api.md#deciding-post-decide).
	ChoiceContext ChoiceContext `json:"choice_context"`
	// Aim says whether the path leads to eligible or only settles the
	// outcome. It is not part of the wire shape.
	Aim Aim `json:"-"`
}

// Planner computes plans. It keeps per-ruleset precomputation and recent
// plans in bounded caches and is safe for concurrent use: /decide calls Plan
// on every request.
type Planner struct {
	// models caches each ruleset's way model by content digest.
	models *lru.Cache[string, *wayModel]
	// plans caches finished plans by planQuery.cacheKey; callers get
	// clones.
	plans *lru.Cache[string, Plan]
	// feas answers reachability queries (Z3 by default).
	feas pathFeasibility
	// maxChecks bounds the solver queries of one plan (default 2000).
	maxChecks int
	// checkTimeout bounds each of those queries (WithCheckTimeout).
	checkTimeout time.Duration
	// closeFeas frees feas's pooled contexts; nil when there is nothing
	// to free.
	closeFeas func()
}

// Close frees the solver contexts the planner keeps for reuse. Plans in
// flight finish normally; a planner is not used after Close.
func (p *Planner) Close() {
	if p.closeFeas != nil {
		p.closeFeas()
	}
}

// PlannerOption adjusts a Planner.
type PlannerOption func(*Planner)

// WithMaxChecks bounds the solver queries one plan may make (default 2000);
// a plan needing more fails with ErrSearchBudget rather than run on.
func WithMaxChecks(n int) PlannerOption {
	return func(p *Planner) { p.maxChecks = n }
}

// WithCheckTimeout bounds each solver query of a plan (default
// checkTimeout, 2 s). Tests that check what a plan says, not how fast a
// loaded machine finds it, give their queries longer.
func WithCheckTimeout(d time.Duration) PlannerOption {
	return func(p *Planner) { p.checkTimeout = d }
}

// ErrSearchBudget is returned when a plan needed more solver queries than
// the planner allows.
var ErrSearchBudget = errors.New("solver: path search exceeded its query budget")

// checkTimeout bounds each solver query of a plan: a query that runs out
// of time fails the plan with an error matching z3.ErrTimeout, and the
// decision is answered without one (docs/limits.md#solver-runs).
const checkTimeout = 2 * time.Second

// modelCacheSize bounds the per-ruleset precomputations kept.
const modelCacheSize = 256

// DefaultCacheSize is how many plans the /decide planner remembers (its
// own cache, beside /decide's decision cache, which keeps whole
// decisions).
const DefaultCacheSize = 4096

// NewPlanner returns a planner that remembers up to cacheSize plans (at
// least 1).
func NewPlanner(cacheSize int, opts ...PlannerOption) *Planner {
	p := &Planner{maxChecks: 2000, checkTimeout: checkTimeout}
	for _, o := range opts {
		o(p)
	}
	p.models, _ = lru.New[string, *wayModel](modelCacheSize)
	p.plans, _ = lru.New[string, Plan](max(cacheSize, 1))
	if p.feas == nil {
		sf := newSolverFeasibility(runtime.GOMAXPROCS(0))
		p.feas, p.closeFeas = sf, sf.close
	}
	return p
}

// Plan returns the next question, the optimal path and the choice context
// for the answers in (converted by rs) whose evaluation is res; the decision
// date, when the rules read it, is res.DecisionDate.
//
// The path is, as /decide's optimal_path is documented
// (docs/api.md#deciding-post-decide, and the OpenAPI document), the cheapest
// set S of unanswered fields such that some answers to S, with every
// other unanswered field left unanswered, make the outcome eligible; when
// no such S exists, the cheapest S through which the outcome can be
// settled at all (eligible or not_eligible, Aim AimSettle). Cheapest means
// least total weight, then fewest fields, then most fields the inquiry
// context prefers, then the set whose earliest differing field is
// declared first. The path lists S by
// weight, then declaration order; NextQuestion is its first field. An
// outcome already eligible (or already settled, when eligible is out of
// reach) gives an empty path.
//
// ic is normalised here. Declined fields are never part of S; preferences
// only break ties. Field errors do not change the plan: a field whose value
// could not be read counts as unanswered, so the path may ask for it again.
//
// Reachability is decided by the engine's own evaluation of likely answers
// where one reaches the goal, and by Z3 otherwise (so contradictions between
// criteria that three-valued evaluation cannot see are pruned). The error is
// a solver failure (a query timeout, matching z3.ErrTimeout; ctx's error;
// ErrSearchBudget); the decision itself stands without a plan.
func (p *Planner) Plan(ctx context.Context, rs *engine.Ruleset, in *engine.Inputs, res *engine.Result, ic InquiryContext) (Plan, error) {
	if rs == nil || in == nil || res == nil || len(in.Values) != len(rs.Fields) || len(res.Criteria) != rs.NumCriteria() {
		return Plan{}, errors.New("solver: plan needs a ruleset with the inputs and result it converted and evaluated")
	}
	if err := ctx.Err(); err != nil {
		return Plan{}, err
	}
	m := p.wayModel(rs)
	ic = NormalizeInquiryContext(ic)
	q := newPlanQuery(m, in, res, ic)
	key := q.cacheKey()
	if cached, ok := p.plans.Get(key); ok {
		return cached.clone(), nil
	}
	plan, err := p.compute(ctx, q)
	if err != nil {
		return Plan{}, err
	}
	p.plans.Add(key, plan)
	return plan.clone(), nil
}

func (p *Planner) wayModel(rs *engine.Ruleset) *wayModel {
	d := rs.ContentDigest()
	if m, ok := p.models.Get(d); ok {
		return m
	}
	m := newWayModel(rs)
	p.models.Add(d, m)
	return m
}

func (pl Plan) clone() Plan {
	if pl.NextQuestion != nil {
		q := *pl.NextQuestion
		pl.NextQuestion = &q
	}
	pl.OptimalPath = slices.Clone(pl.OptimalPath)
	pl.ChoiceContext = pl.ChoiceContext.clone()
	return pl
}

// planQuery is one plan request, bound to its ruleset's model.
type planQuery struct {
	// m is the ruleset's way model.
	m *wayModel
	// in are the request's converted answers.
	in *engine.Inputs
	// res is the evaluation of in.
	res *engine.Result
	// ic is the request's inquiry context, normalised.
	ic InquiryContext
	// unanswered: no answer; askable: unanswered, read by some criterion
	// and not declined; preferred: fields the inquiry context prefers.
	unanswered, askable, preferred fieldSet
	// members are the interchangeable members of each list (members.go).
	members []memberClasses
}

func newPlanQuery(m *wayModel, in *engine.Inputs, res *engine.Result, ic InquiryContext) *planQuery {
	q := &planQuery{m: m, in: in, res: res, ic: ic}
	var declined fieldSet
	for _, id := range ic.DeclinedFields {
		if i := m.rs.FieldIndex(id); i >= 0 {
			declined.add(i)
		}
	}
	for i, v := range in.Values {
		if !v.Known {
			q.unanswered.add(i)
		}
	}
	q.askable = q.unanswered.intersect(m.relevant).minus(declined).minus(q.beyondList())
	if ic.PreferredSection != "" && ic.PreferredSection == m.rs.SectionID {
		q.preferred = m.relevant
	}
	for _, id := range ic.PreferredGroups {
		for g := range m.rs.Groups {
			if m.rs.Groups[g].ID == id {
				q.preferred = q.preferred.union(m.groupFields[g])
			}
		}
		for c, crit := range m.crits {
			if crit.ID == id {
				q.preferred = q.preferred.union(m.critFields[c])
			}
		}
	}
	q.members = q.memberClasses()
	return q
}

// compute runs the search: first towards eligible, then, when no way is
// left, towards any settled outcome.
func (p *Planner) compute(ctx context.Context, q *planQuery) (Plan, error) {
	sup := newSupportState(q.m, q.unanswered, q.askable, q.res.Criteria)
	s := &pathSearch{q: q, wit: newWitness(q), feas: p.feas, timeout: p.checkTimeout, sup: sup, budget: p.maxChecks}
	defer s.close()
	plan := Plan{Aim: AimNone, OptimalPath: []PathStep{}}
	if q.res.OutsidePeriod {
		// No answer gives a decision on a date the ruleset does not hold
		// for: there is nothing to ask.
		plan.ChoiceContext = choiceContext(q, sup)
		return plan, nil
	}
	set, found, err := s.run(ctx, goalEligible)
	if err == nil && !found {
		set, found, err = s.run(ctx, goalSettled)
		if found {
			plan.Aim = AimSettle
		}
	} else if found {
		plan.Aim = AimEligible
	}
	if err != nil {
		return Plan{}, err
	}
	if found {
		plan.OptimalPath = q.pathOf(set)
		if len(plan.OptimalPath) == 0 {
			plan.Aim = AimNone
		} else {
			f := q.m.rs.Fields[q.m.rs.FieldIndex(plan.OptimalPath[0].FieldID)]
			plan.NextQuestion = &Question{FieldID: f.ID, Question: f.Question, Weight: f.Weight}
		}
	}
	plan.ChoiceContext = choiceContext(q, sup)
	return plan, nil
}

// pathOf lists the fields of s by weight, then declaration order, except
// that how many members a list has is asked before anything about one of
// them, whatever the weights say.
func (q *planQuery) pathOf(s fieldSet) []PathStep {
	slots := s.slots()
	slices.SortStableFunc(slots, func(a, b int) int {
		return int(q.m.weights[a] - q.m.weights[b])
	})
	fields := q.m.rs.Fields
	for i := 0; i < len(slots); i++ {
		m := fields[slots[i]].Member
		if m == nil {
			continue
		}
		for j := i + 1; j < len(slots); j++ {
			if fields[slots[j]].ID == m.List {
				list := slots[j]
				copy(slots[i+1:j+1], slots[i:j])
				slots[i] = list
				break
			}
		}
	}
	out := make([]PathStep, len(slots))
	for i, sl := range slots {
		f := q.m.rs.Fields[sl]
		out[i] = PathStep{FieldID: f.ID, Question: f.Question}
	}
	return out
}
