package plan

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/solvertest"
	"github.com/eligo/eligo/solver/z3"
)

// The property: the planner's path equals the one a brute force finds by
// trying every subset of the unanswered fields, each subset's feasibility
// decided by the solver directly (a fresh encoding, answers asserted, the
// subset's fields answered and every other unanswered field not, and the
// goal outcome), in the order Planner.Plan's documentation gives: least
// total weight, fewest fields, most preferred fields, declaration order.

// bruteForce finds the best set for a request by exhaustion.
type bruteForce struct {
	t   *testing.T
	r   *engine.Ruleset
	c   *z3.Context
	enc *solver.Encoding
	s   *z3.Solver
}

// newBruteForce encodes r in a Z3 context of its own, closed when the
// test ends, with a solver whose checks are bounded at ten seconds.
func newBruteForce(t *testing.T, r *engine.Ruleset) *bruteForce {
	t.Helper()
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	enc, err := solver.Encode(c, r)
	if err != nil {
		t.Fatal(err)
	}
	s, err := enc.NewSolver(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return &bruteForce{t: t, r: r, c: c, enc: enc, s: s}
}

// feasible asks whether, with ask's fields answered on top of in and every
// other field as in in, the outcome can be one of outcomes.
func (b *bruteForce) feasible(in *engine.Inputs, date int64, ask []int, outcomes ...engine.Outcome) bool {
	b.t.Helper()
	must := func(err error) {
		if err != nil {
			b.t.Fatal(err)
		}
	}
	must(b.s.Push())
	defer func() { must(b.s.Pop(1)) }()
	for i, v := range in.Values {
		switch {
		case v.Known:
			must(b.s.Assert(b.enc.Answered(i, v)))
		case slices.Contains(ask, i):
			must(b.s.Assert(b.enc.Present(i)))
		default:
			must(b.s.Assert(b.enc.Unanswered(i)))
		}
	}
	must(b.s.Assert(b.enc.DecisionDateIs(date)))
	var goal []*z3.Expr
	for _, o := range outcomes {
		goal = append(goal, b.enc.OutcomeIs(o))
	}
	must(b.s.Assert(b.c.Or(goal...)))
	r, err := b.s.Check(context.Background())
	must(err)
	return r == z3.Sat
}

// subset is one candidate of the brute force with its ordering keys.
type subset struct {
	slots     []int // increasing
	weight    int
	preferred int
}

// best returns the path (field ids by weight, then declaration order) and
// aim the definition gives.
func (b *bruteForce) best(in *engine.Inputs, date int64, ic InquiryContext) ([]string, Aim) {
	ic = NormalizeInquiryContext(ic)
	var open []int
	for i, v := range in.Values {
		if !v.Known && !slices.Contains(ic.DeclinedFields, b.r.Fields[i].ID) {
			open = append(open, i)
		}
	}
	preferred := map[int]bool{}
	for i := range b.r.Fields {
		if ic.PreferredSection == b.r.SectionID {
			preferred[i] = true
		}
	}
	for c := 0; c < b.r.NumCriteria(); c++ {
		crit, g := b.r.CriterionAt(c)
		if slices.Contains(ic.PreferredGroups, b.r.Groups[g].ID) || slices.Contains(ic.PreferredGroups, crit.ID) {
			for _, s := range crit.Slots {
				preferred[s] = true
			}
		}
	}
	var all []subset
	for mask := 0; mask < 1<<len(open); mask++ {
		var s subset
		for i, slot := range open {
			if mask&(1<<i) != 0 {
				s.slots = append(s.slots, slot)
				s.weight += b.r.Fields[slot].Weight
				if preferred[slot] {
					s.preferred++
				}
			}
		}
		all = append(all, s)
	}
	slices.SortFunc(all, func(x, y subset) int {
		return cmp.Or(cmp.Compare(x.weight, y.weight), cmp.Compare(len(x.slots), len(y.slots)),
			cmp.Compare(y.preferred, x.preferred), slices.Compare(x.slots, y.slots))
	})
	for _, goal := range [][]engine.Outcome{{engine.Eligible}, {engine.Eligible, engine.NotEligible}} {
		for _, s := range all {
			if !b.feasible(in, date, s.slots, goal...) {
				continue
			}
			aim := AimEligible
			if len(goal) == 2 {
				aim = AimSettle
			}
			if len(s.slots) == 0 {
				aim = AimNone
			}
			slices.SortStableFunc(s.slots, func(x, y int) int { return cmp.Compare(b.r.Fields[x].Weight, b.r.Fields[y].Weight) })
			// How many members a list has is asked before anything about
			// one of them (docs/language.md#households).
			for i, slot := range s.slots {
				if m := b.r.Fields[slot].Member; m != nil {
					if j := slices.Index(s.slots, b.r.FieldIndex(m.List)); j > i {
						s.slots = slices.Insert(slices.Delete(s.slots, j, j+1), i, s.slots[j])
					}
				}
			}
			ids := make([]string, len(s.slots))
			for i, slot := range s.slots {
				ids[i] = b.r.Fields[slot].ID
			}
			return ids, aim
		}
	}
	return []string{}, AimNone
}

// checkPlans compares the planner with the brute force on samples of
// answers and inquiry contexts.
func checkPlans(t *testing.T, name string, r *engine.Ruleset, samples int, seed uint64) {
	t.Helper()
	b := newBruteForce(t, r)
	p := NewPlanner(64)
	defer p.Close()
	smp := enginetest.NewSampler(r, seed)
	rnd := rand.New(rand.NewPCG(seed, 7))
	for i := range samples {
		date := value.DateOrdinal(2026, 1, 15)
		if r.ReadsDecisionDate {
			date = smp.DecisionDate()
		}
		in := smp.Inputs([]float64{0, 0.3, 0.6}[i%3], date)
		res := r.Evaluate(in, engine.Options{DecisionDate: date})
		ic := randomInquiry(rnd, r)
		plan, err := p.Plan(context.Background(), r, in, res, ic)
		if err != nil {
			t.Fatalf("%s: plan: %v", name, err)
		}
		wantPath, wantAim := b.best(in, date, ic)
		var got []string
		for _, s := range plan.OptimalPath {
			got = append(got, s.FieldID)
		}
		if !slices.Equal(got, wantPath) || plan.Aim != wantAim {
			t.Fatalf("%s: answers %s, inquiry %+v:\nplanner %v (aim %d)\nbrute   %v (aim %d)",
				name, solvertest.DescribeInputs(r, in), ic, got, plan.Aim, wantPath, wantAim)
		}
		switch {
		case len(got) == 0 && plan.NextQuestion != nil:
			t.Fatalf("%s: next question %v with an empty path", name, plan.NextQuestion)
		case len(got) > 0 && (plan.NextQuestion == nil || plan.NextQuestion.FieldID != got[0]):
			t.Fatalf("%s: next question %v, path starts with %s", name, plan.NextQuestion, got[0])
		}
	}
}

// randomInquiry declines a field now and then and prefers a group now and
// then.
func randomInquiry(rnd *rand.Rand, r *engine.Ruleset) InquiryContext {
	var ic InquiryContext
	if rnd.IntN(3) == 0 {
		ic.DeclinedFields = append(ic.DeclinedFields, r.Fields[rnd.IntN(len(r.Fields))].ID)
	}
	if rnd.IntN(2) == 0 {
		ic.PreferredGroups = append(ic.PreferredGroups, r.Groups[rnd.IntN(len(r.Groups))].ID)
	}
	if rnd.IntN(2) == 0 {
		c, _ := r.CriterionAt(rnd.IntN(r.NumCriteria()))
		ic.PreferredGroups = append(ic.PreferredGroups, c.ID)
	}
	if rnd.IntN(4) == 0 {
		ic.PreferredSection = r.SectionID
	}
	return ic
}

func TestPlanMatchesBruteForceCasebank(t *testing.T) {
	samples := 12
	if solvertest.Long() {
		samples = 200
	}
	all := append(solvertest.Casebank(t), solvertest.Testdata(t)...)
	for _, cb := range append(all, solvertest.ValuesTestdata(t)...) {
		if len(cb.Rules.Fields) > 12 {
			continue
		}
		t.Run(cb.Name, func(t *testing.T) {
			checkPlans(t, cb.Name, cb.Rules, samples, 1)
		})
	}
}

func TestPlanMatchesBruteForceGenerated(t *testing.T) {
	rulesets, samples := 40, 6
	if solvertest.Long() {
		rulesets, samples = 400, 12
	}
	rnd := rand.New(rand.NewPCG(42, 42))
	for i := range rulesets {
		nf := 2 + rnd.IntN(11)
		if i%10 == 0 {
			nf = 12
		}
		src := generateRuleset(rnd, nf)
		r, _, err := engine.Compile(fmt.Sprintf("gen%d.rules", i), []byte(src))
		if err != nil {
			t.Fatalf("generated ruleset %d does not compile: %v\n%s", i, err, src)
		}
		name := fmt.Sprintf("generated %d (%d fields)", i, nf)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("%s:\n%s", name, src)
				}
			}()
			checkPlans(t, name, r, samples, uint64(i))
		})
	}
}

// generateRuleset writes a random small ruleset over nf fields: int, bool
// and enum fields of weights 0 to 3; all and any groups of one to three
// criteria mixing comparisons, sums of two fields, ?? defaults, presence
// tests and now and then a discretionary criterion; an outcome combining the
// groups with and, or and not.
func generateRuleset(rnd *rand.Rand, nf int) string {
	var b strings.Builder
	b.WriteString("section gen\nsource law \"Law\" url \"https://example.org/law\" licence \"public-domain\"\n")
	types := make([]string, nf)
	for i := range nf {
		types[i] = []string{"int", "int", "bool", "enum"}[rnd.IntN(4)]
		decl := types[i]
		if decl == "enum" {
			decl = `enum ["a", "b", "c"]`
		}
		fmt.Fprintf(&b, "field f.x%d %s weight %d\n  question \"x%d?\"\n", i, decl, rnd.IntN(4), i)
	}
	field := func() int { return rnd.IntN(nf) }
	ints := func() int {
		for {
			if f := field(); types[f] == "int" {
				return f
			}
			if !slices.Contains(types, "int") {
				return -1
			}
		}
	}
	atom := func() string {
		f := field()
		switch {
		case rnd.IntN(12) == 0:
			return fmt.Sprintf("%s(f.x%d)", []string{"present", "absent"}[rnd.IntN(2)], f)
		case types[f] == "bool":
			return fmt.Sprintf([]string{"f.x%d", "not f.x%d", "f.x%d == false"}[rnd.IntN(3)], f)
		case types[f] == "enum":
			return fmt.Sprintf([]string{`f.x%d == "a"`, `f.x%d in ["b", "c"]`, `f.x%d != "c"`}[rnd.IntN(3)], f)
		}
		op := []string{"<", "<=", ">", ">=", "==", "!="}[rnd.IntN(6)]
		k := rnd.IntN(10)
		switch rnd.IntN(6) {
		case 0:
			if g := ints(); g >= 0 {
				return fmt.Sprintf("f.x%d + f.x%d %s %d", f, g, op, k)
			}
		case 1:
			return fmt.Sprintf("f.x%d ?? %d %s %d", f, rnd.IntN(10), op, k)
		}
		return fmt.Sprintf("f.x%d %s %d", f, op, k)
	}
	var expr func(depth int) string
	expr = func(depth int) string {
		if depth == 0 || rnd.IntN(3) == 0 {
			return atom()
		}
		switch rnd.IntN(5) {
		case 0:
			return "not (" + expr(depth-1) + ")"
		case 1, 2:
			return "(" + expr(depth-1) + ") and (" + expr(depth-1) + ")"
		}
		return "(" + expr(depth-1) + ") or (" + expr(depth-1) + ")"
	}
	ng := 1 + rnd.IntN(4)
	crit := 0
	for g := range ng {
		fmt.Fprintf(&b, "group g%d %s \"G%d\" {\n", g, []string{"all", "any"}[rnd.IntN(2)], g)
		for range 1 + rnd.IntN(3) {
			if rnd.IntN(15) == 0 {
				fmt.Fprintf(&b, "  criterion c%d \"C%d\" discretionary {\n    cite law \"q\"\n  }\n", crit, crit)
			} else {
				fmt.Fprintf(&b, "  criterion c%d \"C%d\" {\n    %s\n    cite law \"q\"\n  }\n", crit, crit, expr(2))
			}
			crit++
		}
		b.WriteString("}\n")
	}
	var outcome func(lo, hi int) string
	outcome = func(lo, hi int) string {
		if lo == hi {
			if rnd.IntN(5) == 0 {
				return fmt.Sprintf("not g%d", lo)
			}
			return fmt.Sprintf("g%d", lo)
		}
		mid := lo + rnd.IntN(hi-lo)
		return "(" + outcome(lo, mid) + ") " + []string{"and", "and", "or"}[rnd.IntN(3)] + " (" + outcome(mid+1, hi) + ")"
	}
	fmt.Fprintf(&b, "outcome %s\n", outcome(0, ng-1))
	return b.String()
}

// The wide household (lists_test.go, 301 fields) is too large for the
// brute force over every subset, so its sampled plans are held to what
// the brute force's order implies one set at a time: the path reaches its
// aim with every other open field left unanswered, and no path one field
// shorter (lighter or fewer, so better) does.
func TestPlanWideHouseholdMinimal(t *testing.T) {
	samples := 24
	if solvertest.Long() {
		samples = 200
	}
	r := solvertest.Compile(t, wideHouseholdRules)
	asked := 0
	b := newBruteForce(t, r)
	p := NewPlanner(samples)
	defer p.Close()
	smp := enginetest.NewSampler(r, 17)
	date := value.DateOrdinal(2026, 1, 15)
	for i := range samples {
		in := smp.Inputs([]float64{0, 0.3, 0.6}[i%3], date)
		res := r.Evaluate(in, engine.Options{DecisionDate: date})
		plan, err := p.Plan(context.Background(), r, in, res, InquiryContext{})
		if err != nil {
			t.Fatalf("answers %s: %v", solvertest.DescribeInputs(r, in), err)
		}
		goal := []engine.Outcome{engine.Eligible}
		if plan.Aim == AimSettle {
			goal = append(goal, engine.NotEligible)
		}
		var path []int
		for _, s := range plan.OptimalPath {
			path = append(path, r.FieldIndex(s.FieldID))
		}
		if plan.Aim == AimNone {
			if len(path) != 0 || plan.NextQuestion != nil {
				t.Fatalf("answers %s: aim none with path %v", solvertest.DescribeInputs(r, in), pathIDs(plan))
			}
			continue
		}
		if !b.feasible(in, date, path, goal...) {
			t.Fatalf("answers %s: path %v cannot reach %v", solvertest.DescribeInputs(r, in), pathIDs(plan), goal)
		}
		for k := range path {
			if b.feasible(in, date, slices.Delete(slices.Clone(path), k, k+1), goal...) {
				t.Fatalf("answers %s: path %v reaches %v without %s", solvertest.DescribeInputs(r, in), pathIDs(plan), goal, r.Fields[path[k]].ID)
			}
		}
		if plan.NextQuestion == nil || plan.NextQuestion.FieldID != plan.OptimalPath[0].FieldID {
			t.Fatalf("answers %s: next question %+v, path %v", solvertest.DescribeInputs(r, in), plan.NextQuestion, pathIDs(plan))
		}
		asked++
	}
	if asked < samples/3 {
		t.Fatalf("only %d of %d sampled households have questions left", asked, samples)
	}
}
