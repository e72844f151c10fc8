package solver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/solvertest"
)

// TestExplainFailureMinimalBruteForce checks the core against brute force
// on every ruleset small enough (up to 9 criteria, 3^9 status
// assignments): for random answers and each expected outcome other than
// the actual one, fixing the reasons' criteria at their statuses leaves no
// status assignment of the other criteria that reaches the expected
// outcome, and releasing any one reason (at its NeededStatus) makes it
// reachable; and the fewest changes are a smallest set of criteria whose
// release reaches it. 12 answer sets per ruleset (60 with -long), each with the two
// expected outcomes that differ from the actual one: about 200
// explanations, each checked against up to 3^9 status assignments per
// member.
func TestExplainFailureMinimalBruteForce(t *testing.T) {
	rulesets := append(solvertest.Casebank(t), solvertest.Testdata(t)...)
	rulesets = append(rulesets, solvertest.Ruleset{Name: "inline/negated", Rules: solvertest.Compile(t, polarityRules(
		solvertest.Group("a", "all", "a.x > 10")+solvertest.Group("b", "any", "a.y < 5")+
			"group c any \"c\" {\n  criterion c1 \"c1\" {\n    a.b\n    cite law \"x\"\n  }\n  criterion c2 \"c2\" {\n    a.x + a.y > 30\n    cite law \"x\"\n  }\n  criterion c3 \"c3\" discretionary {\n    cite law \"x\"\n  }\n}\n",
		"(a and not b) or c"))})
	ctx := context.Background()
	for k, cb := range rulesets {
		r := cb.Rules
		if r.NumCriteria() > 9 {
			continue
		}
		t.Run(cb.Name, func(t *testing.T) {
			s := enginetest.NewSampler(r, uint64(1000+k))
			explained := 0
			samples := 12
			if solvertest.Long() {
				samples = 60
			}
			for n := range samples {
				date := s.DecisionDate()
				if p := r.Effective; p != nil && !p.Covers(date) {
					// Outside the period, the period alone explains the
					// outcome; the criteria are explained inside it.
					in := s.Inputs(1, date)
					ex, err := ExplainFailure(ctx, r, in, engine.Eligible, ExplainOptions{DecisionDate: date})
					if err != nil || ex.Actual != engine.Undetermined || ex.PeriodWarning == "" || len(ex.Reasons) != 0 {
						t.Fatalf("sample %d on %s, outside %s: %+v, %v", n, value.FormatDate(date), p, ex, err)
					}
					date = p.From + int64(n)
					if p.Until != 0 {
						date = min(date, p.Until)
					}
				}
				in := s.Inputs([]float64{0.5, 0.8, 1}[n%3], date)
				res := r.Evaluate(in, engine.Options{DecisionDate: date})
				for _, want := range []engine.Outcome{engine.Eligible, engine.NotEligible, engine.Undetermined} {
					if want == res.Outcome {
						continue
					}
					ex, err := ExplainFailure(ctx, r, in, want, ExplainOptions{DecisionDate: date})
					if err != nil {
						t.Fatalf("sample %d, expected %s: %v", n, want, err)
					}
					if ex.Actual != res.Outcome || len(ex.Reasons) == 0 {
						t.Fatalf("sample %d, expected %s: actual %s, %d reasons", n, want, ex.Actual, len(ex.Reasons))
					}
					label := fmt.Sprintf("sample %d %s, expected %s", n, solvertest.DescribeInputs(r, in), want)
					checkMinimalCore(t, r, res.Criteria, want, ex, label)
					checkFewestChanges(t, r, res.Criteria, want, ex, label)
					explained++
				}
			}
			if explained == 0 {
				t.Fatal("no sample needed explaining")
			}
		})
	}
}

// checkMinimalCore verifies ex by enumerating criterion statuses.
func checkMinimalCore(t *testing.T, r *engine.Ruleset, actual []engine.Status, want engine.Outcome, ex Explanation, label string) {
	t.Helper()
	fixed := make([]bool, len(actual))
	for _, reason := range ex.Reasons {
		i := solvertest.CriterionIndex(r, reason.CriterionID)
		if reason.Status != actual[i] {
			t.Errorf("%s: %s status %s, evaluator %s", label, reason.CriterionID, reason.Status, actual[i])
		}
		fixed[i] = true
	}
	if st, ok := reachable(r, actual, fixed, want); ok {
		t.Fatalf("%s: the reasons %v do not rule %s out: statuses %v reach it", label, reasonIDs(ex), want, st)
	}
	// A decided outcome is decided by the settled criteria: one still
	// pending is no reason why.
	for _, reason := range ex.Reasons {
		if ex.Actual != engine.Undetermined && reason.Status == engine.Pending {
			t.Errorf("%s: the outcome is %s, yet the reasons %v include %s, still pending", label, ex.Actual, reasonIDs(ex), reason.CriterionID)
		}
	}
	for _, reason := range ex.Reasons {
		i := solvertest.CriterionIndex(r, reason.CriterionID)
		fixed[i] = false
		released := slices.Clone(actual)
		released[i] = reason.NeededStatus
		fixedNeeded := slices.Clone(fixed)
		fixedNeeded[i] = true
		if _, ok := reachable(r, released, fixedNeeded, want); !ok {
			t.Errorf("%s: releasing %s to %s does not make %s reachable: the core %v is not minimal", label, reason.CriterionID, reason.NeededStatus, want, reasonIDs(ex))
		}
		fixed[i] = true
	}
}

func reasonIDs(ex Explanation) []string {
	var ids []string
	for _, r := range ex.Reasons {
		ids = append(ids, r.CriterionID)
	}
	return ids
}

// reachable searches every status of the criteria not fixed (fixed ones
// keep their status in base) for one whose outcome is want.
func reachable(r *engine.Ruleset, base []engine.Status, fixed []bool, want engine.Outcome) ([]engine.Status, bool) {
	st := slices.Clone(base)
	var free []int
	for i, f := range fixed {
		if !f {
			free = append(free, i)
		}
	}
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(free) {
			return outcomeOf(r, st) == want
		}
		for _, s := range []engine.Status{engine.Pending, engine.Satisfied, engine.NotSatisfied} {
			st[free[k]] = s
			if try(k + 1) {
				return true
			}
		}
		return false
	}
	if try(0) {
		return st, true
	}
	return nil, false
}

// outcomeOf decides the outcome from criterion statuses by the Kleene
// rules of engine/syntax/GRAMMAR.md#three-valued-meaning, independently of the engine and the encoding.
func outcomeOf(r *engine.Ruleset, criteria []engine.Status) engine.Outcome {
	groups := make([]engine.Status, len(r.Groups))
	per := make([][]engine.Status, len(r.Groups))
	for i, s := range criteria {
		_, g := r.CriterionAt(i)
		per[g] = append(per[g], s)
	}
	for g := range r.Groups {
		groups[g] = kleeneStatus(per[g], r.Groups[g].Kind == engine.GroupAny)
	}
	var eval func(x *engine.Expr) engine.Status
	eval = func(x *engine.Expr) engine.Status {
		switch {
		case x.Kind == engine.ExprGroup:
			return groups[x.Slot]
		case x.Op == engine.OpNot:
			switch eval(x.Args[0]) {
			case engine.Satisfied:
				return engine.NotSatisfied
			case engine.NotSatisfied:
				return engine.Satisfied
			}
			return engine.Pending
		}
		var sts []engine.Status
		for _, a := range x.Args {
			sts = append(sts, eval(a))
		}
		return kleeneStatus(sts, x.Op == engine.OpOr)
	}
	switch eval(r.Outcome) {
	case engine.Satisfied:
		return engine.Eligible
	case engine.NotSatisfied:
		return engine.NotEligible
	}
	return engine.Undetermined
}

// kleeneStatus is Kleene "or" (any) or "and" (all) over statuses.
func kleeneStatus(sts []engine.Status, any bool) engine.Status {
	decides, other := engine.NotSatisfied, engine.Satisfied
	if any {
		decides, other = engine.Satisfied, engine.NotSatisfied
	}
	pending := false
	for _, s := range sts {
		switch s {
		case decides:
			return decides
		case engine.Pending:
			pending = true
		}
	}
	if pending {
		return engine.Pending
	}
	return other
}

// TestExplainFailureReasons checks the reasons and mechanism hints on
// casebank answers whose explanation is worked out by hand.
func TestExplainFailureReasons(t *testing.T) {
	rulesets := map[string]*engine.Ruleset{}
	for _, cb := range append(solvertest.Casebank(t), solvertest.Testdata(t)...) {
		rulesets[cb.Name] = cb.Rules
	}
	type reason struct{ id, status, mechanism, condition string }
	tests := []struct {
		name     string
		ruleset  string
		values   string
		date     string
		expected engine.Outcome
		want     []reason
	}{
		{"hours under the threshold", "us-fmla-employee",
			`{"employment.employer_type": "private", "employment.months_employed": 24, "employment.hours_12_months": 1000, "employer.workweeks_with_50_employees": 30, "worksite.employees_within_75_miles": 80}`,
			"", engine.Eligible, []reason{{"hours", "not_satisfied", MechanismThreshold, ""}}},
		{"covered employer: both alternatives fail", "us-fmla-employee",
			`{"employment.employer_type": "private", "employment.months_employed": 24, "employment.hours_12_months": 2000, "employer.workweeks_with_50_employees": 5, "worksite.employees_within_75_miles": 80}`,
			"", engine.Eligible, []reason{
				{"employer_size", "not_satisfied", MechanismAnyGroupExhausted, MechanismThreshold},
				{"public_agency", "not_satisfied", MechanismAnyGroupExhausted, MechanismEnumMismatch}}},
		{"title 5 exclusion: one criterion suffices", "us-fmla-employee",
			`{"employment.employer_type": "federal_title5", "employment.months_employed": 24, "employment.hours_12_months": 2000, "employer.workweeks_with_50_employees": 30, "worksite.employees_within_75_miles": 80}`,
			"", engine.Eligible, []reason{{"not_title5", "not_satisfied", MechanismEnumMismatch, ""}}},
		{"hours not answered", "us-fmla-employee",
			`{"employment.employer_type": "public_agency", "employment.months_employed": 24, "worksite.employees_within_75_miles": 80}`,
			"", engine.Eligible, []reason{{"hours", "pending", MechanismMissingAnswer, ""}}},
		{"eligible through the zero default: either criterion could fail", "polarity-nonconservative",
			`{"household.size": 1}`, "", engine.NotEligible,
			[]reason{{"one_person", "satisfied", MechanismThreshold, ""}, {"net_income", "satisfied", MechanismPresenceDefault, ""}}},
		{"eligible, expected not: two criteria each suffice", "polarity-nonconservative",
			`{"household.size": 1, "household.income": 900}`, "", engine.NotEligible,
			[]reason{{"one_person", "satisfied", MechanismThreshold, ""}, {"net_income", "satisfied", MechanismThreshold, ""}}},
		{"required income left out", "polarity-conservative",
			`{"household.size": 1, "household.elderly_or_disabled_member": true, "income.gross_monthly": 1000}`, "", engine.Eligible,
			[]reason{{"net_income", "not_satisfied", MechanismPresenceDefault, ""}}},
		{"too young for Medicaid expansion", "medicaid-adult-expansion",
			`{"person.date_of_birth": "2010-01-01", "person.pregnant": false, "person.medicare_part_a": false, "person.medicare_part_b": false, "person.other_mandatory_group": false, "household.region": "contiguous_states_dc", "household.size": 1, "income.monthly_magi": 500}`,
			"2025-06-01", engine.Eligible, []reason{{"age_19_or_over", "not_satisfied", MechanismDateWindow, ""}}},
		{"family group pending: no alternative settled, one left to an official", "testdata/operators.rules",
			`{"person.income": 100, "person.savings": 10, "person.children": 0, "person.hours": 0, "person.status": "single", "person.born": "2000-01-01", "person.moved": "2025-01-01"}`,
			"2025-06-01", engine.Eligible, []reason{
				{"children", "not_satisfied", MechanismThreshold, ""},
				{"status", "not_satisfied", MechanismEnumMismatch, ""},
				{"disabled", "pending", MechanismMissingAnswer, ""},
				{"official", "pending", MechanismDiscretionary, ""},
				{"age", "satisfied", MechanismDateWindow, ""},
				{"recent", "satisfied", MechanismDateWindow, ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rulesets[tc.ruleset]
			in, err := r.Convert([]byte(tc.values))
			if err != nil || len(in.FieldErrors) > 0 {
				t.Fatalf("%v %v", err, in.FieldErrors)
			}
			date := solvertest.InForce(r).DecisionDate
			if tc.date != "" {
				date, _ = value.ParseDate(tc.date)
			}
			ex, err := ExplainFailure(context.Background(), r, in, tc.expected, ExplainOptions{DecisionDate: date})
			if err != nil {
				t.Fatal(err)
			}
			var got []reason
			for _, rs := range ex.Reasons {
				got = append(got, reason{rs.CriterionID, rs.Status.String(), rs.Mechanism, rs.ConditionMechanism})
				if len(rs.SourceReferences) == 0 || rs.Title == "" {
					t.Errorf("%s: no title or source references", rs.CriterionID)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("reasons %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestExplainFailureErrors covers the cases with nothing to explain,
// answers that cannot be read, arithmetic that overflows, cancellation and
// running out of time.
func TestExplainFailureErrors(t *testing.T) {
	r := solvertest.Compile(t, polarityRules(solvertest.Group("g", "all", "a.x > 10"), "g"))
	ctx := context.Background()
	in, _ := r.Convert([]byte(`{"a.x": 20}`))
	ex, err := ExplainFailure(ctx, r, in, engine.Eligible, ExplainOptions{})
	if err != nil || ex.Actual != engine.Eligible || len(ex.Reasons) != 0 {
		t.Errorf("already eligible: %+v %v", ex, err)
	}
	bad, _ := r.Convert([]byte(`{"a.x": "many"}`))
	ex, err = ExplainFailure(ctx, r, bad, engine.Eligible, ExplainOptions{})
	if err != nil || ex.Actual != engine.Undetermined || len(ex.FieldErrors) != 1 || len(ex.Reasons) != 1 ||
		ex.Reasons[0].Mechanism != MechanismMissingAnswer || ex.Reasons[0].MissingFields[0] != "a.x" {
		t.Errorf("field errors: %+v %v", ex, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	in, _ = r.Convert([]byte(`{"a.x": 2}`))
	if _, err := ExplainFailure(cancelled, r, in, engine.Eligible, ExplainOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	ex, err = ExplainFailure(ctx, r, in, engine.Eligible, ExplainOptions{Timeout: time.Nanosecond})
	var stopped *bound.Incomplete
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &stopped) || stopped.Reason != bound.IncompleteDeadline {
		t.Errorf("timeout: %v", err)
	}
	// What the evaluator decided stands: the caller answers with it.
	if ex.Actual != engine.NotEligible || ex.Expected != engine.Eligible || len(ex.Reasons) != 0 {
		t.Errorf("timeout: the explanation as far as it got is %+v", ex)
	}
	if _, err := ExplainFailure(ctx, r, in, engine.Outcome(7), ExplainOptions{}); err == nil {
		t.Error("an invalid expected outcome was accepted")
	}
	if _, err := ExplainFailure(ctx, r, &engine.Inputs{}, engine.Eligible, ExplainOptions{}); err == nil {
		t.Error("inputs of another ruleset were accepted")
	}
}

// TestExplainFailureOverflow covers answers whose arithmetic overflows:
// they are an answer of explain-failure, not an error. The explanation
// lists the same field errors the evaluator reports (conversion errors
// first, then the overflow), the actual outcome is undetermined, and no
// criterion is blamed, whatever outcome is expected.
func TestExplainFailureOverflow(t *testing.T) {
	r := solvertest.Compile(t, polarityRules(solvertest.Group("g", "all", "a.x * 1000000000 > 10")+solvertest.Group("h", "all", "a.y > 0"), "g and h"))
	ctx := context.Background()
	tests := []struct {
		name, values string
		// want are the fields of the expected field errors, in order.
		want []string
	}{
		{"overflow alone", `{"a.x": 999999999999999999, "a.y": 1}`, []string{"a.x"}},
		{"overflow with the other criterion failing", `{"a.x": 999999999999999999, "a.y": -1}`, []string{"a.x"}},
		{"conversion error then overflow", `{"a.x": 999999999999999999, "a.y": "many"}`, []string{"a.y", "a.x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := r.Convert([]byte(tc.values))
			if err != nil {
				t.Fatal(err)
			}
			decided := r.Evaluate(in, engine.Options{})
			for _, expected := range []engine.Outcome{engine.Eligible, engine.NotEligible, engine.Undetermined} {
				ex, err := ExplainFailure(ctx, r, in, expected, ExplainOptions{})
				if err != nil {
					t.Fatalf("expected %s: %v", expected, err)
				}
				var fields []string
				for _, fe := range ex.FieldErrors {
					fields = append(fields, fe.Field)
				}
				if ex.Expected != expected || ex.Actual != engine.Undetermined || len(ex.Reasons) != 0 ||
					!slices.Equal(fields, tc.want) || !reflect.DeepEqual(ex.FieldErrors, decided.FieldErrors) {
					t.Errorf("expected %s: %+v; the evaluator reports %+v", expected, ex, decided.FieldErrors)
				}
			}
		})
	}
}

// TestExplainerReuse shares one pooled Explainer between goroutines and
// checks every answer against a one-shot ExplainFailure: prepared states
// carry nothing from one explanation to the next.
func TestExplainerReuse(t *testing.T) {
	var cb solvertest.Ruleset
	for _, c := range solvertest.Casebank(t) {
		if c.Name == "us-fmla-employee" {
			cb = c
		}
	}
	x := NewExplainer(cb.Rules, 2)
	defer x.Close()
	ctx := context.Background()
	type job struct {
		in   *engine.Inputs
		want Explanation
	}
	var jobs []job
	for _, c := range cb.Cases {
		in, err := cb.Rules.Convert(c.FieldValues)
		if err != nil || len(in.FieldErrors) > 0 {
			continue
		}
		want, err := ExplainFailure(ctx, cb.Rules, in, engine.Eligible, ExplainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{in, want})
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for round := range 3 {
				for k := range jobs {
					j := jobs[(k+g+round)%len(jobs)]
					got, err := x.Explain(ctx, j.in, engine.Eligible, ExplainOptions{})
					if err == nil && !slices.Equal(reasonIDs(got), reasonIDs(j.want)) {
						err = fmt.Errorf("reasons %v, one-shot %v", reasonIDs(got), reasonIDs(j.want))
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestExplainFailureNamesTheFigure checks that a reason resting on named
// values carries them, with their figures and, for a table, the row and
// period the figure came from: the core names the line of the law that
// stands in the way, not only the criterion comparing it.
func TestExplainFailureNamesTheFigure(t *testing.T) {
	var r *engine.Ruleset
	for _, cb := range solvertest.ValuesTestdata(t) {
		if cb.Name == "testdata/values/compute.rules" {
			r = cb.Rules
		}
	}
	if r == nil {
		t.Fatal("compute.rules not found")
	}
	in, err := r.Convert([]byte(`{"income.earned": 1700, "income.unearned": 0, "household.size": 2, "household.elderly": false,
		"household.region": "north", "person.born": "1950-01-01"}`))
	if err != nil {
		t.Fatal(err)
	}
	date, _ := value.ParseDate("2025-06-01")
	ex, err := ExplainFailure(context.Background(), r, in, engine.Eligible, ExplainOptions{DecisionDate: date})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Reasons) != 1 || ex.Reasons[0].CriterionID != "table_limit" {
		t.Fatalf("reasons %+v, want table_limit alone", ex.Reasons)
	}
	got := map[string]string{}
	for _, v := range ex.Reasons[0].Values {
		got[v.Value] = fmt.Sprintf("%s | %s | %s", v.Figure, v.Definition, v.Period)
	}
	want := map[string]string{
		"gross":  "1700 | income.earned + income.unearned | ",
		"limit":  `1620 | "north", any => 1100 + 260 * household.size | 2025-01-01 onwards`,
		"bonus":  "0 | false => 0 | ",
		"capped": "true | not household.elderly | ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values of the reason:\n got %v\nwant %v", got, want)
	}
}

// TestExplainNamesMembers: a reason over a household names the member it
// rests on, and lists as missing only the answers of members there are.
func TestExplainNamesMembers(t *testing.T) {
	t.Parallel()
	var household *engine.Ruleset
	for _, rs := range solvertest.ValuesTestdata(t) {
		if rs.Name == "testdata/values/household.rules" {
			household = rs.Rules
		}
	}
	if household == nil {
		t.Fatal("no household ruleset in solver/testdata/values")
	}
	date := value.DateOrdinal(2025, 6, 1)
	for _, tc := range []struct {
		name, answers string
		criterion     string
		want          []string // label: status, facts
		missing       []string
	}{
		{"the one member out of the state fails all", `{"member": [{"age": 3, "pregnant": false, "earnings": 0, "resident": true}, {"age": 30, "pregnant": false, "earnings": 500, "resident": false}], "household.rent": 0}`,
			"residents", []string{`Person 2: not_satisfied [member[1].resident=false]`}, nil},
		{"a member not yet answered leaves all unknown, and is named", `{"member": [{"age": 3, "pregnant": false, "earnings": 0, "resident": true}, {"age": 30, "pregnant": false, "earnings": 500}], "household.rent": 0}`,
			"residents", []string{`Person 2: pending []`}, []string{"member[1].resident"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := household.Convert([]byte(tc.answers))
			if err != nil || len(in.FieldErrors) > 0 {
				t.Fatalf("convert: %v %v", err, in.FieldErrors)
			}
			ex, err := ExplainFailure(context.Background(), household, in, engine.Eligible, ExplainOptions{DecisionDate: date})
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, r := range ex.Reasons {
				if r.CriterionID != tc.criterion {
					continue
				}
				found = true
				var got []string
				for _, m := range r.Members {
					var facts []string
					for _, f := range m.Facts {
						facts = append(facts, f.Field+"="+string(f.Value))
					}
					got = append(got, fmt.Sprintf("%s: %s %v", m.Label, m.Status, facts))
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("members %q, want %q", got, tc.want)
				}
				if !slices.Equal(r.MissingFields, tc.missing) && !(len(r.MissingFields) == 0 && tc.missing == nil) {
					t.Errorf("missing %q, want %q", r.MissingFields, tc.missing)
				}
			}
			if !found {
				t.Fatalf("no reason %s in %+v", tc.criterion, ex.Reasons)
			}
		})
	}
}
