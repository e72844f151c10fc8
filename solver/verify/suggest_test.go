package verify

import (
	"context"
	"encoding/json"
	"maps"
	"math/big"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/solvertest"
)

// suggestRules is a small ruleset with fields a.x and a.y (int), a.m
// (decimal), a.b (bool) and a.d (date) around the given groups.
func suggestRules(groups, outcome string) string {
	return `section s
source law "Law" url "https://example.org" licence "public-domain"
field a.x int
field a.y int
field a.m decimal
field a.b bool
field a.d date
` + groups + "\noutcome " + outcome + "\n"
}

// suggestDate is the decision date of every test, so that the output does
// not depend on the day the tests run.
const suggestDate = "2025-06-15"

func TestSuggestCasesGoals(t *testing.T) {
	t.Parallel()
	anyGroup := `group p any "P" {
  criterion p1 "P1" {
    a.b == true
    cite law "x"
  }
  criterion p2 "P2" {
    a.y > 3
    cite law "x"
  }
  criterion p3 "P3" discretionary {
    cite law "x"
  }
}
`
	threshold := func(cmp string, vals ...string) []string {
		out := []string{"criterion g_c satisfied", "criterion g_c not satisfied"}
		for _, v := range vals {
			out = append(out, "threshold "+cmp+": "+v)
		}
		return out
	}
	tests := []struct {
		name, groups, outcome string
		existing              []engine.Case
		want, unreachable     []string // every goal suggested or also covered; the unreachable ones
	}{
		{name: "int", groups: solvertest.Group("g", "all", "a.x >= 12"), outcome: "g",
			want: threshold("a.x >= 12", "at 12", "just below (11)", "just above (13)")},
		{name: "decimal steps by its last place", groups: solvertest.Group("g", "all", "a.m <= 1250.5"), outcome: "g",
			want: threshold("a.m <= 1250.5", "at 1250.5", "just below (1250.4)", "just above (1250.6)")},
		{name: "integer-valued decimal steps by 1", groups: solvertest.Group("g", "all", "a.m >= 1250.00"), outcome: "g",
			want: threshold("a.m >= 1250", "at 1250", "just below (1249)", "just above (1251)")},
		{name: "int against a fraction", groups: solvertest.Group("g", "all", "a.x >= 12.5"), outcome: "g",
			want: threshold("a.x >= 12.5", "just below (12)", "just above (13)")},
		{name: "date steps by a day", groups: solvertest.Group("g", "all", `a.d < date("2000-03-01")`), outcome: "g",
			want: threshold(`a.d < date("2000-03-01")`, "at 2000-03-01", "just below (2000-02-29)", "just above (2000-03-02)")},
		{name: "computed side", groups: solvertest.Group("g", "all", "a.x + a.y * 2 >= 10"), outcome: "g",
			want: threshold("a.x + a.y * 2 >= 10", "at 10", "just below (9)", "just above (11)")},
		{name: "constant arithmetic folds", groups: solvertest.Group("g", "all", "a.m * 4 <= 15650 * 1.33"), outcome: "g",
			want: threshold("a.m * 4 <= 15650 * 1.33", "at 20814.5", "just below (20814.4)", "just above (20814.6)")},
		{name: "no decimal lands on the constant", groups: solvertest.Group("g", "all", "a.m * 12 <= 15650 * 1.33"), outcome: "g",
			want:        threshold("a.m * 12 <= 15650 * 1.33", "just below (20814.4)", "just above (20814.6)"),
			unreachable: []string{"threshold a.m * 12 <= 15650 * 1.33: at 20814.5"}},
		{name: "decision date alone gives no threshold", groups: solvertest.Group("g", "all", `decision_date() >= date("2020-01-01") and a.b`), outcome: "g",
			want: []string{"criterion g_c satisfied", "criterion g_c not satisfied"}},
		{name: "alternatives alone, none for the discretionary", groups: anyGroup, outcome: "p",
			want: []string{"alternative p1 alone", "criterion p1 satisfied", "criterion p1 not satisfied",
				"alternative p2 alone", "criterion p2 satisfied", "criterion p2 not satisfied",
				"threshold a.y > 3: at 3", "threshold a.y > 3: just below (2)", "threshold a.y > 3: just above (4)"}},
		{name: "contradiction is unreachable", groups: solvertest.Group("g", "all", "a.x > 5 and a.x < 3"), outcome: "g",
			want: []string{"criterion g_c not satisfied", "threshold a.x > 5: at 5", "threshold a.x > 5: just below (4)",
				"threshold a.x > 5: just above (6)", "threshold a.x < 3: at 3", "threshold a.x < 3: just below (2)"},
			unreachable: []string{"criterion g_c satisfied"}},
		{name: "existing cases cover goals", groups: solvertest.Group("g", "all", "a.x >= 12"), outcome: "g",
			existing: []engine.Case{{Name: "at", FieldValues: json.RawMessage(`{"a.x": 12}`), ExpectedOutcome: "eligible"},
				{Name: "below", FieldValues: json.RawMessage(`{"a.x": 11}`), ExpectedOutcome: "not_eligible"}},
			want: []string{"threshold a.x >= 12: just above (13)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := solvertest.Compile(t, suggestRules(tc.groups, tc.outcome))
			got, err := SuggestCases(context.Background(), r, tc.existing, SuggestOptions{DecisionDate: suggestDate})
			if err != nil {
				t.Fatal(err)
			}
			var goals, unreachable []string
			for _, s := range got {
				checkSuggestion(t, r, s)
				if !s.Reachable {
					unreachable = append(unreachable, s.Goal)
					continue
				}
				goals = append(append(goals, s.Goal), s.AlsoCovers...)
			}
			slices.Sort(goals)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(goals, want) || !slices.Equal(unreachable, tc.unreachable) {
				t.Errorf("goals\n  %q\nwant\n  %q\nunreachable %q, want %q", goals, want, unreachable, tc.unreachable)
			}
		})
	}
}

// TestSuggestCasesCasebank checks every casebank ruleset, and solver/testdata,
// with and without its own cases: each suggested case is ready to paste
// (every field answered, the decision date when the rules read it, the
// expected outcome RunCase finds) and meets its goal and the goals it also
// covers; no goal that the ruleset's own cases reach is reported
// unreachable; and the suite grown by the suggestions leaves only the
// unreachable goals uncovered (goals either run left undecided aside). The
// rulesets with a list of members (every
// one of casebank/*-household and *-children) must each get cases.
func TestSuggestCasesCasebank(t *testing.T) {
	t.Parallel()
	households := map[string]bool{}
	for _, cb := range append(solvertest.Casebank(t), solvertest.Testdata(t)...) {
		if slices.ContainsFunc(cb.Rules.Fields, func(f engine.Field) bool { return f.List != nil }) {
			households[cb.Name] = true
		}
		t.Run(cb.Name, func(t *testing.T) {
			t.Parallel()
			reached := goalsReached(t, cb.Rules, cb.Cases, suggestDate)
			if households[cb.Name] && !slices.Contains(slices.Collect(maps.Values(reached)), true) {
				t.Error("the household ruleset's own cases reach no goal, so nothing checks that its reachable goals are found")
			}
			for _, existing := range [][]engine.Case{nil, cb.Cases} {
				opts := SuggestOptions{DecisionDate: suggestDate}
				got, err := SuggestCases(context.Background(), cb.Rules, existing, opts)
				if err != nil {
					t.Fatal(err)
				}
				grown := slices.Clone(existing)
				var unreachable []Suggestion
				cases := 0
				for _, s := range got {
					checkSuggestion(t, cb.Rules, s)
					if s.Reachable {
						grown = append(grown, s.Case)
						cases++
					} else {
						unreachable = append(unreachable, s)
					}
					if !s.Reachable && !s.Undecided && reached[s.Goal] {
						t.Errorf("goal %q is reported unreachable, yet the ruleset's own cases reach it", s.Goal)
					}
				}
				if existing == nil && households[cb.Name] && cases == 0 {
					t.Errorf("a household ruleset got no case: %+v", got)
				}
				again, err := SuggestCases(context.Background(), cb.Rules, grown, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(decided(again, unreachable), decided(unreachable, again)) {
					t.Errorf("with the suggested cases added, suggestions %+v, want only the unreachable %+v", again, unreachable)
				}
			}
		})
	}
}

// decided is ss without the goals that either run (ss, other) left
// undecided: a check that ran out of time on a loaded machine in one run
// may be decided in the other, and a goal left undecided gets no case.
func decided(ss, other []Suggestion) []Suggestion {
	undecided := map[string]bool{}
	for _, s := range append(slices.Clone(ss), other...) {
		undecided[s.Goal] = undecided[s.Goal] || s.Undecided
	}
	return slices.DeleteFunc(slices.Clone(ss), func(s Suggestion) bool { return undecided[s.Goal] })
}

// goalsReached lists the goals of r that the answers of cases reach as of
// the date SuggestCases solves for when given date ("YYYY-MM-DD"), decided
// without SuggestCases's own check (goalsMet): by evaluating each goal's
// condition (probe criterion k, the goals' one definition) as the
// evaluator does. A case need not answer every field, as a suggested case
// does: a condition that holds with some answers missing holds whatever
// they are, Kleene's logic being monotone, except through present() and
// absent(), so goals that read those are left out. A case of answers that
// do not evaluate cleanly reaches none. Each case is decided as of that
// date rather than its own, so that a goal of a ruleset reading
// decision_date() that only another day reaches (a birth cohort past
// pension age by then) is not counted.
func goalsReached(t *testing.T, r *engine.Ruleset, cases []engine.Case, date string) map[string]bool {
	t.Helper()
	goals, probe, err := caseGoals(r)
	if err != nil {
		t.Fatal(err)
	}
	ord, err := suggestDecisionDate(r, date)
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	for _, c := range cases {
		if c.DecisionDate = ""; ord != 0 {
			c.DecisionDate = value.FormatDate(ord)
		}
		res := r.RunCase(c).Result
		if res == nil || len(res.FieldErrors) > 0 {
			continue
		}
		in, err := probe.Convert(c.FieldValues)
		if err != nil {
			t.Fatalf("case %q: %v", c.Name, err)
		}
		met := probe.Evaluate(in, engine.Options{DecisionDate: res.DecisionDate})
		for k, g := range goals {
			cr, _ := probe.CriterionAt(k)
			presence := false
			solver.WalkRule(probe, cr.Expr, func(x *engine.Expr) {
				presence = presence || (x.Kind == engine.ExprOp && (x.Op == engine.OpPresent || x.Op == engine.OpAbsent))
			})
			reached[g.text] = reached[g.text] || (!presence && len(met.FieldErrors) == 0 && met.Criteria[k] == engine.Satisfied)
		}
	}
	return reached
}

// TestSuggestCasesDeterministic runs every casebank ruleset twice and wants
// the same suggestions. It holds the garbage collector off while it runs:
// solver/z3 releases a term when the collector finds its Go wrapper
// unreachable, so a collection mid-run frees term ids that Z3 then reuses
// in another order, which can steer it to another (equally valid) model.
// Given the same sequence of calls and releases, the output is the same.
// (Not parallel, so that no other test runs while the collector is off.)
func TestSuggestCasesDeterministic(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, cb := range solvertest.Casebank(t) {
		runtime.GC() // between rulesets only: release the last one's terms
		var runs [2][]Suggestion
		for i := range runs {
			var err error
			if runs[i], err = SuggestCases(context.Background(), cb.Rules, nil, SuggestOptions{DecisionDate: suggestDate}); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Errorf("%s: two runs differ", cb.Name)
		}
	}
}

// TestSuggestCasesUndecidedNotUnreachable: a goal the solver meets only
// with answers the evaluator refuses (here a product past the int range,
// which the encoding's unbounded integers do not see) is undecided, not
// unreachable: the solver did not show that no answer set meets it.
func TestSuggestCasesUndecidedNotUnreachable(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, `section s
source law "Law" url "https://example.org" licence "public-domain"
field a.x int
  range 95000000000000000..
`+solvertest.Group("g", "all", "a.x * 100 >= 1")+"\noutcome g\n")
	got, err := SuggestCases(context.Background(), r, nil, SuggestOptions{DecisionDate: suggestDate})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		checkSuggestion(t, r, s)
		if s.Goal == "criterion g_c satisfied" && (s.Reachable || !s.Undecided) {
			t.Errorf("%+v: want undecided", s)
		}
		if s.Goal == "criterion g_c not satisfied" && (s.Reachable || s.Undecided) {
			t.Errorf("%+v: want unreachable (no a.x in the range makes a.x * 100 below 1)", s)
		}
	}
}

// TestSuggestCasesUndatedCases: a ruleset that does not read
// decision_date() gets undated cases, which a test run decides as of the
// first day of its period, so its goals are solved as of that day whatever
// date is given: us-snap-household's tables have no figures after
// 2026-09-30, and solved as of a day past it every goal came back
// unreachable.
func TestSuggestCasesUndatedCases(t *testing.T) {
	t.Parallel()
	r := solvertest.CasebankRules(t, "us-snap-household")
	got, err := SuggestCases(context.Background(), r, nil, SuggestOptions{DecisionDate: "2026-11-29"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		checkSuggestion(t, r, s)
		if !s.Reachable || s.Case.DecisionDate != "" {
			t.Errorf("%s: reachable %t, decision date %q: want a case without a date", s.Goal, s.Reachable, s.Case.DecisionDate)
		}
	}
}

func TestSuggestCasesDecisionDate(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, suggestRules(solvertest.Group("g", "all", "years_between(a.d, decision_date()) >= 18"), "g"))
	if _, err := SuggestCases(context.Background(), r, nil, SuggestOptions{DecisionDate: "2025-02-30"}); err == nil {
		t.Error("an impossible decision date was accepted")
	}
	got, err := SuggestCases(context.Background(), r, nil, SuggestOptions{DecisionDate: "2024-02-29"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		checkSuggestion(t, r, s)
		if s.Case.DecisionDate != "2024-02-29" {
			t.Errorf("%s: decision date %q", s.Goal, s.Case.DecisionDate)
		}
		if born := regexp.MustCompile(`"a.d":"(\d{4})-`).FindStringSubmatch(string(s.Case.FieldValues)); s.Goal == "threshold years_between(a.d, decision_date()) >= 18: at 18" &&
			born[1] != "2005" && born[1] != "2006" {
			t.Errorf("18 on 2024-02-29 is a birth from March 2005 to February 2006: %s", s.Case.FieldValues)
		}
	}
}

// checkSuggestion checks a suggestion without the solver's own machinery
// where it can: the case passes RunCase, answers every field, and meets its
// goal and every goal it also covers.
func checkSuggestion(t *testing.T, r *engine.Ruleset, s Suggestion) {
	t.Helper()
	if !s.Reachable {
		if s.Case.Name != "" || s.AlsoCovers != nil {
			t.Errorf("%s: unreachable, yet with a case %+v", s.Goal, s)
		}
		return
	}
	c := s.Case
	res := r.RunCase(c)
	if !res.Pass || c.Name != s.Goal || (c.DecisionDate != "") != r.ReadsDecisionDate {
		t.Fatalf("%s: case %+v does not pass as suggested: %v", s.Goal, c, res.Mismatches)
	}
	var answers map[string]json.RawMessage
	if err := json.Unmarshal(c.FieldValues, &answers); err != nil || !everyFieldAnswered(r, answers) || strings.Contains(string(c.FieldValues), "null") {
		t.Errorf("%s: not every field answered: %s", s.Goal, c.FieldValues)
	}
	for _, g := range append([]string{s.Goal}, s.AlsoCovers...) {
		if !meetsGoal(t, r, res.Result, c, answers, g) {
			t.Errorf("case %s with %s does not meet goal %q", s.Goal, c.FieldValues, g)
		}
	}
}

// everyFieldAnswered reports whether answers (a case's field_values)
// answer every field of r: each field outside a list by its id, and a
// list as an array of members, each answering every field of a member.
func everyFieldAnswered(r *engine.Ruleset, answers map[string]json.RawMessage) bool {
	want, perMember := 0, map[string]int{}
	for _, f := range r.Fields {
		switch {
		case f.Member == nil:
			want++
		case f.Member.Index == 0:
			perMember[f.Member.List]++
		}
	}
	if len(answers) != want {
		return false
	}
	for list, n := range perMember {
		var members []map[string]json.RawMessage
		if err := json.Unmarshal(answers[list], &members); err != nil {
			return false
		}
		for _, m := range members {
			if len(m) != n {
				return false
			}
		}
	}
	return true
}

var (
	criterionGoal = regexp.MustCompile(`^(criterion|alternative) (\S+) (satisfied|not satisfied|alone)$`)
	fieldGoal     = regexp.MustCompile(`^threshold (\S+) (<|<=|>|>=|==|!=) (.+): (at (\S+)|just below \((\S+)\)|just above \((\S+)\))$`)
)

// meetsGoal decides a goal from its text: statuses for criterion goals,
// the answer itself for a threshold on a field. A threshold on a computed
// value is decided by evaluating the goal's condition (the package's probe).
func meetsGoal(t *testing.T, r *engine.Ruleset, res *engine.Result, c engine.Case, answers map[string]json.RawMessage, goal string) bool {
	if m := criterionGoal.FindStringSubmatch(goal); m != nil {
		for i := range r.NumCriteria() {
			cr, g := r.CriterionAt(i)
			switch {
			case cr.ID != m[2]:
			case m[3] == "satisfied" || m[3] == "not satisfied":
				return res.Criteria[i].String() == strings.ReplaceAll(m[3], " ", "_")
			default:
				alone := res.Criteria[i] == engine.Satisfied
				for j := range r.NumCriteria() {
					if o, og := r.CriterionAt(j); og == g && o.ID != cr.ID && res.Criteria[j] == engine.Satisfied {
						alone = false
					}
				}
				return alone
			}
		}
		return false
	}
	m := fieldGoal.FindStringSubmatch(goal)
	if m == nil || r.FieldIndex(m[1]) < 0 {
		return probeMeets(t, r, c, goal)
	}
	f := r.Fields[r.FieldIndex(m[1])]
	num := func(s string) *big.Rat {
		if d, ok := value.ParseDate(strings.Trim(strings.TrimSuffix(strings.TrimPrefix(s, `date(`), `)`), `"`)); ok {
			return new(big.Rat).SetInt64(d)
		}
		v, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("goal %q: %q is no value", goal, s)
		}
		return v
	}
	value, limit := num(string(answers[m[1]])), num(m[3])
	switch {
	case m[5] != "":
		return value.Cmp(num(m[5])) == 0
	case f.Type != engine.SortDecimal:
		return value.Cmp(num(m[6]+m[7])) == 0
	case m[6] != "":
		return value.Cmp(num(m[6])) >= 0 && value.Cmp(limit) < 0
	}
	return value.Cmp(limit) > 0 && value.Cmp(num(m[7])) <= 0
}

// probeMeets evaluates the condition SuggestCases states for goal.
func probeMeets(t *testing.T, r *engine.Ruleset, c engine.Case, goal string) bool {
	goals, probe, err := caseGoals(r)
	if err != nil {
		t.Fatal(err)
	}
	met, ok := goalsMet(r, probe, c, len(goals))
	k := slices.IndexFunc(goals, func(g caseGoal) bool { return g.text == goal })
	return ok && k >= 0 && met[k]
}

// BenchmarkSuggestCases suggests cases for every casebank ruleset (target:
// under 1 s each), given its cases.json ("cases") and from nothing ("none").
func BenchmarkSuggestCases(b *testing.B) {
	for _, cb := range solvertest.Casebank(b) {
		for _, run := range []struct {
			name     string
			existing []engine.Case
		}{{"cases", cb.Cases}, {"none", nil}} {
			b.Run(cb.Name+"/"+run.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := SuggestCases(context.Background(), cb.Rules, run.existing, SuggestOptions{DecisionDate: suggestDate}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
