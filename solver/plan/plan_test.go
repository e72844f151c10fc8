package plan

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/solver/solvertest"
)

// planFor converts values, evaluates them as of a day rs is in force,
// and plans.
func planFor(t *testing.T, p *Planner, rs *engine.Ruleset, values string, ic InquiryContext) Plan {
	t.Helper()
	in, err := rs.Convert([]byte(values))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Plan(context.Background(), rs, in, rs.Evaluate(in, solvertest.InForce(rs)), ic)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func pathIDs(p Plan) []string {
	ids := []string{}
	for _, s := range p.OptimalPath {
		ids = append(ids, s.FieldID)
	}
	return ids
}

// The expected paths below are worked out by hand from the rules.
func TestPlanSnapIncome(t *testing.T) {
	rs := solvertest.CasebankRules(t, "snap-income")
	p := NewPlanner(16)
	defer p.Close()
	for _, tc := range []struct {
		name   string
		values string
		ic     InquiryContext
		want   []string
		aim    Aim
	}{{
		// Household size 1, an elderly member and a low net income pass
		// every test in every region (weight 1+1+4); region is not
		// needed, and the gross way would cost 2 more.
		name: "nothing answered", values: `{}`,
		want: []string{"household.size", "household.elderly_or_disabled_member", "income.net_monthly"}, aim: AimEligible,
	}, {
		// A gross income over every limit closes the gross way; the
		// exemption is the only way left.
		name: "gross income too high", values: `{"household.size": 3, "household.region": "hawaii", "income.gross_monthly": 99999}`,
		want: []string{"household.elderly_or_disabled_member", "income.net_monthly"}, aim: AimEligible,
	}, {
		name:   "eligible already",
		values: `{"household.size": 2, "household.region": "alaska", "household.elderly_or_disabled_member": true, "income.net_monthly": 100}`,
		want:   []string{}, aim: AimNone,
	}, {
		// A gross income over every limit and no elderly or disabled
		// member: not eligible.
		name:   "not eligible already",
		values: `{"household.size": 3, "household.region": "hawaii", "income.gross_monthly": 99999, "household.elderly_or_disabled_member": false}`,
		want:   []string{}, aim: AimNone,
	}, {
		// Without the net income no answer reaches eligible: every
		// household size has a net limit in some region. A household has
		// at least one member (the field's range), so nothing settles the
		// outcome more cheaply than failing the gross test without the
		// exemption: the gross limit read needs the region and the size
		// (weight 1+1+1+2).
		name: "net income declined", values: `{}`, ic: InquiryContext{DeclinedFields: []string{"income.net_monthly"}},
		want: []string{"household.region", "household.size", "household.elderly_or_disabled_member", "income.gross_monthly"}, aim: AimSettle,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan := planFor(t, p, rs, tc.values, tc.ic)
			if got := pathIDs(plan); !slices.Equal(got, tc.want) || plan.Aim != tc.aim {
				t.Fatalf("path %v (aim %d), want %v (aim %d)", got, plan.Aim, tc.want, tc.aim)
			}
			if len(tc.want) > 0 {
				f := rs.Fields[rs.FieldIndex(tc.want[0])]
				if want := (Question{FieldID: f.ID, Question: f.Question, Weight: f.Weight}); plan.NextQuestion == nil || *plan.NextQuestion != want {
					t.Fatalf("next question %+v, want %+v", plan.NextQuestion, want)
				}
			} else if plan.NextQuestion != nil {
				t.Fatalf("next question %+v with an empty path", plan.NextQuestion)
			}
		})
	}
}

// crossRules has a contradiction between criteria that three-valued
// reasoning cannot see: x < 3 for one alternative and x > 5 elsewhere.
const crossRules = `section cross
source law "Law" url "https://example.org/law" licence "public-domain"
field a.x int weight 1
field a.y int weight 5
group low any "Low" {
  criterion small "x is small" {
    a.x < 3
    cite law "q"
  }
  criterion ylow "y is small" {
    a.y < 3
    cite law "q"
  }
}
group high all "High" {
  criterion big "x is big" {
    a.x > 5
    cite law "q"
  }
}
`

func TestPlanSolverSeesContradictions(t *testing.T) {
	rs := solvertest.Compile(t, crossRules)
	solverPlanner := NewPlanner(4)
	defer solverPlanner.Close()
	threeValued := NewPlanner(4, withFeasibility(optimisticFeasibility{}))
	// Asking x alone would need x < 3 and x > 5 at once.
	if got := pathIDs(planFor(t, solverPlanner, rs, `{}`, InquiryContext{})); !slices.Equal(got, []string{"a.x", "a.y"}) {
		t.Errorf("solver-backed path %v, want [a.x a.y]", got)
	}
	if got := pathIDs(planFor(t, threeValued, rs, `{}`, InquiryContext{})); !slices.Equal(got, []string{"a.x"}) {
		t.Errorf("three-valued path %v: the test no longer shows what the solver adds", got)
	}
}

// choiceRules is an OR-group of two equally cheap alternatives, one of them
// impossible in itself.
const choiceRules = `section choice
source law "Law" url "https://example.org/law" licence "public-domain"
field a.x int weight 1
field a.y int weight 1
field a.z int weight 1
field a.w int weight 1
group way any "Either way" {
  criterion by_x "By x" {
    a.x > 1
    cite law "q"
  }
  criterion by_y "By y" {
    a.y > 1
    cite law "q"
  }
  criterion never "Never" {
    a.z > 5 and a.z < 3
    cite law "q"
  }
  criterion by_w "By w" {
    a.w > 1
    cite law "q"
  }
}
`

func TestPlanInquiryContextSteersTiesOnly(t *testing.T) {
	rs := solvertest.Compile(t, choiceRules)
	p := NewPlanner(16)
	defer p.Close()
	for _, tc := range []struct {
		name   string
		values string
		ic     InquiryContext
		want   []string
		aim    Aim
	}{
		{"declaration order breaks the tie", `{}`, InquiryContext{}, []string{"a.x"}, AimEligible},
		{"a preferred alternative wins the tie", `{}`, InquiryContext{PreferredGroups: []string{"by_y"}}, []string{"a.y"}, AimEligible},
		{"a declined field is never asked", `{}`, InquiryContext{DeclinedFields: []string{"a.x"}}, []string{"a.y"}, AimEligible},
		{"declining all but one", `{}`, InquiryContext{DeclinedFields: []string{"a.x", "a.y"}}, []string{"a.w"}, AimEligible},
		// Not eligible needs every alternative known false; with x
		// declined it cannot be settled either.
		{"nothing left to ask", `{}`, InquiryContext{DeclinedFields: []string{"a.x", "a.y", "a.w"}}, []string{}, AimNone},
		// Once x is known to fail, settling costs y, z and w; eligible
		// still costs one field.
		{"a failed alternative", `{"a.x": 0}`, InquiryContext{PreferredGroups: []string{"by_w"}}, []string{"a.w"}, AimEligible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := planFor(t, p, rs, tc.values, tc.ic)
			if got := pathIDs(plan); !slices.Equal(got, tc.want) || plan.Aim != tc.aim {
				t.Fatalf("path %v (aim %d), want %v (aim %d)", got, plan.Aim, tc.want, tc.aim)
			}
		})
	}
}

func TestChoiceContext(t *testing.T) {
	rs := solvertest.Compile(t, choiceRules)
	p := NewPlanner(16)
	defer p.Close()
	plan := planFor(t, p, rs, `{"a.x": 0}`, InquiryContext{DeclinedFields: []string{"a.w"}})
	cc := plan.ChoiceContext
	if len(cc.FieldSections) != len(rs.Fields) {
		t.Errorf("field sections %v, want every field", cc.FieldSections)
	}
	for _, f := range rs.Fields {
		if cc.FieldSections[f.ID] != "choice" {
			t.Errorf("field %s in section %q", f.ID, cc.FieldSections[f.ID])
		}
	}
	if len(cc.OrGroups) != 1 || cc.OrGroups[0].GroupID != "way" || cc.OrGroups[0].Status != ChoiceOpen {
		t.Fatalf("or groups %+v", cc.OrGroups)
	}
	status := map[string]ChoiceStatus{}
	for _, a := range cc.OrGroups[0].Alternatives {
		status[a.CriterionID] = a.Status
	}
	// by_x failed; by_w needs a declined field; by_y is open, and so is
	// never: no value of z satisfies it, but only the solver could see
	// that, and the choice context does not ask it.
	want := map[string]ChoiceStatus{"by_x": ChoiceClosed, "by_y": ChoiceOpen, "never": ChoiceOpen, "by_w": ChoiceClosed}
	for id, st := range want {
		if status[id] != st {
			t.Errorf("alternative %s is %s, want %s", id, status[id], st)
		}
	}
	plan = planFor(t, p, rs, `{"a.y": 2}`, InquiryContext{})
	if g := plan.ChoiceContext.OrGroups[0]; g.Status != ChoiceSatisfied || g.Alternatives[1].Status != ChoiceSatisfied {
		t.Errorf("satisfied group reported as %+v", g)
	}
	plan = planFor(t, p, rs, `{"a.x": 0, "a.y": 0, "a.z": 0, "a.w": 0}`, InquiryContext{})
	if g := plan.ChoiceContext.OrGroups[0]; g.Status != ChoiceClosed {
		t.Errorf("exhausted group reported as %s", g.Status)
	}
	// The plan is the caller's: changing it leaves the cached one alone.
	plan.ChoiceContext.FieldSections["a.x"] = "changed"
	plan.ChoiceContext.OrGroups[0].Alternatives[0].Fields[0] = "changed"
	again := planFor(t, p, rs, `{"a.x": 0, "a.y": 0, "a.z": 0, "a.w": 0}`, InquiryContext{})
	if again.ChoiceContext.FieldSections["a.x"] != "choice" || again.ChoiceContext.OrGroups[0].Alternatives[0].Fields[0] != "a.x" {
		t.Error("a returned plan shares memory with the cache")
	}
}

func TestPlanCacheKey(t *testing.T) {
	rs := solvertest.CasebankRules(t, "snap-income")
	m := newWayModel(rs)
	key := func(values string, ic InquiryContext) string {
		in, err := rs.Convert([]byte(values))
		if err != nil {
			t.Fatal(err)
		}
		return newPlanQuery(m, in, rs.Evaluate(in, solvertest.InForce(rs)), NormalizeInquiryContext(ic)).cacheKey()
	}
	base := `{"household.region": "contiguous_us_guam_vi", "household.size": 3, "household.elderly_or_disabled_member": false, "income.gross_monthly": %d}`
	// The gross income is read only by settled criteria: two incomes
	// under the limit plan alike, one over it does not.
	under1, under2, over := key(fmt.Sprintf(base, 100), InquiryContext{}), key(fmt.Sprintf(base, 2000), InquiryContext{}), key(fmt.Sprintf(base, 5000), InquiryContext{})
	if under1 != under2 {
		t.Error("answers the plan cannot see change the cache key")
	}
	if under1 == over {
		t.Error("answers that change criterion statuses share a cache key")
	}
	// The household size is read by open criteria (the net tests): its
	// value is part of the key.
	if key(`{"household.size": 3}`, InquiryContext{}) == key(`{"household.size": 4}`, InquiryContext{}) {
		t.Error("the value of a field open criteria read is not in the key")
	}
	a := key(`{}`, InquiryContext{DeclinedFields: []string{"income.net_monthly", " household.size"}})
	b := key(`{}`, InquiryContext{DeclinedFields: []string{"household.size", "income.net_monthly", "household.size"}})
	if a != b || a == key(`{}`, InquiryContext{}) {
		t.Error("equivalent inquiry contexts key differently, or the context is not in the key")
	}
}

func TestNormalizeInquiryContext(t *testing.T) {
	for _, tc := range []struct {
		in, want InquiryContext
	}{
		{InquiryContext{}, InquiryContext{}},
		{InquiryContext{DeclinedFields: []string{}, PreferredGroups: []string{""}}, InquiryContext{}},
		{
			InquiryContext{DeclinedFields: []string{"b.y", " a.x ", "b.y"}, PreferredSection: " s ", PreferredGroups: []string{"g2", "g1", "g2"}},
			InquiryContext{DeclinedFields: []string{"a.x", "b.y"}, PreferredSection: "s", PreferredGroups: []string{"g1", "g2"}},
		},
	} {
		got := NormalizeInquiryContext(tc.in)
		if !slices.Equal(got.DeclinedFields, tc.want.DeclinedFields) || got.PreferredSection != tc.want.PreferredSection ||
			!slices.Equal(got.PreferredGroups, tc.want.PreferredGroups) || got.IsZero() != tc.want.IsZero() {
			t.Errorf("NormalizeInquiryContext(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
		if got.Key() != NormalizeInquiryContext(got).Key() {
			t.Errorf("normalising twice changes the key of %+v", tc.in)
		}
	}
	if (InquiryContext{}).Key() != "" || (InquiryContext{PreferredSection: "a"}).Key() == (InquiryContext{DeclinedFields: []string{"a"}}).Key() {
		t.Error("keys of different contexts collide")
	}
}

func TestPlanErrors(t *testing.T) {
	rs := solvertest.CasebankRules(t, "snap-income")
	in, err := rs.Convert([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res := rs.Evaluate(in, solvertest.InForce(rs))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := NewPlanner(4)
	defer p.Close()
	if _, err := p.Plan(ctx, rs, in, res, InquiryContext{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	tight := NewPlanner(4, WithMaxChecks(1))
	defer tight.Close()
	if _, err := tight.Plan(context.Background(), rs, in, res, InquiryContext{}); !errors.Is(err, ErrSearchBudget) {
		t.Errorf("one query allowed: %v", err)
	}
	other := solvertest.CasebankRules(t, "us-fmla-employee")
	if _, err := p.Plan(context.Background(), other, in, res, InquiryContext{}); err == nil {
		t.Error("inputs of another ruleset were accepted")
	}
}

// A ruleset whose disjunctive form outgrows maxWays is searched as one
// way over the whole outcome; the result must still be the brute force's.
func TestPlanWholeOutcomeFallback(t *testing.T) {
	var b strings.Builder
	b.WriteString("section wide\nsource law \"Law\" url \"https://example.org/law\" licence \"public-domain\"\n")
	for i := range 6 {
		fmt.Fprintf(&b, "field a.x%d int weight %d\n", i, 1+i%3)
	}
	var groups []string
	for g := range 13 {
		fmt.Fprintf(&b, "group g%d any \"G\" {\n", g)
		for k := range 2 {
			fmt.Fprintf(&b, "  criterion c%d_%d \"C\" {\n    a.x%d > %d\n    cite law \"q\"\n  }\n", g, k, (g+k)%6, g%4)
		}
		b.WriteString("}\n")
		groups = append(groups, fmt.Sprintf("g%d", g))
	}
	fmt.Fprintf(&b, "outcome %s\n", strings.Join(groups, " and "))
	rs := solvertest.Compile(t, b.String())
	m := newWayModel(rs)
	if !m.whole {
		t.Fatalf("%d ways: the test needs more than %d", len(m.toEligible), maxWays)
	}
	checkPlans(t, "wide", rs, 12, 3)
}

// Concurrent plans over several rulesets give what one goroutine gets.
func TestPlanConcurrent(t *testing.T) {
	type request struct {
		rs  *engine.Ruleset
		in  *engine.Inputs
		res *engine.Result
	}
	var reqs []request
	for i, cb := range solvertest.Casebank(t) {
		smp := enginetest.NewSampler(cb.Rules, uint64(i))
		for range 6 {
			date := smp.DecisionDate()
			in := smp.Inputs(0.4, date)
			reqs = append(reqs, request{cb.Rules, in, cb.Rules.Evaluate(in, engine.Options{DecisionDate: date})})
		}
	}
	want := make([][]string, len(reqs))
	serial := NewPlanner(1)
	for i, r := range reqs {
		plan, err := serial.Plan(context.Background(), r.rs, r.in, r.res, InquiryContext{})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = pathIDs(plan)
	}
	serial.Close()
	shared := NewPlanner(8)
	defer shared.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), 1))
			for range 3 * len(reqs) {
				i := rnd.IntN(len(reqs))
				plan, err := shared.Plan(context.Background(), reqs[i].rs, reqs[i].in, reqs[i].res, InquiryContext{})
				if err != nil {
					errs <- err
					return
				}
				if got := pathIDs(plan); !slices.Equal(got, want[i]) {
					errs <- fmt.Errorf("request %d: path %v concurrently, %v alone", i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// optimisticFeasibility is the feasibility of three-valued reasoning alone: whatever
// the supports allow is taken to be reachable. It cannot see contradictions
// between criteria; the solver-backed feasibility can.
type optimisticFeasibility struct{}

func (optimisticFeasibility) open(context.Context, *planQuery, time.Duration) (pathSession, error) {
	return optimisticFeasibility{}, nil
}

func (optimisticFeasibility) reachable(context.Context, fieldSet, pathGoal) (bool, pathCore, error) {
	return true, pathCore{}, nil
}

func (optimisticFeasibility) close() {}

// withFeasibility replaces the solver-backed feasibility (tests compare
// the two).
func withFeasibility(f pathFeasibility) PlannerOption {
	return func(p *Planner) { p.feas = f }
}
