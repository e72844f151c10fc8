package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/solver/solvertest"
	"github.com/eligo/eligo/solver/z3"
)

// analyzeRules builds a small ruleset: fields is the declared fields, one
// "id type" per entry; groups maps each group "id kind" to its criteria,
// each "id: expression" or "id: discretionary".
func analyzeRules(fields []string, groups [][2]string, outcome string) string {
	var b strings.Builder
	b.WriteString("section t\nsource law \"Law\" url \"https://example.org\" licence \"public-domain\"\n")
	for _, f := range fields {
		fmt.Fprintf(&b, "field %s\n", f)
	}
	for _, g := range groups {
		head := strings.Fields(g[0])
		fmt.Fprintf(&b, "group %s %s \"Group %s\" {\n", head[0], head[1], head[0])
		for _, c := range strings.Split(g[1], ";") {
			id, expr, _ := strings.Cut(strings.TrimSpace(c), ":")
			expr = strings.TrimSpace(expr)
			if expr == "discretionary" {
				fmt.Fprintf(&b, "  criterion %s \"Title %s\" discretionary {\n    cite law \"quote %s\"\n  }\n", id, id, id)
				continue
			}
			fmt.Fprintf(&b, "  criterion %s \"Title %s\" {\n    %s\n    cite law \"quote %s\"\n  }\n", id, id, expr, id)
		}
		b.WriteString("}\n")
	}
	if outcome != "" {
		b.WriteString("outcome " + outcome + "\n")
	}
	return b.String()
}

// findingKey is "kind subject [others]" for comparing findings in tests;
// the subject is the criterion, group or field, empty for the outcome.
func findingKey(f Finding) string {
	subject := f.Criterion
	if subject == "" {
		subject = f.Group
	}
	if subject == "" {
		subject = f.Field
	}
	key := f.Kind + " " + subject
	if len(f.Others) > 0 {
		key += " " + fmt.Sprint(f.Others)
	}
	return strings.TrimSpace(key)
}

// TestAnalyzeCases decides every kind on rulesets small enough to work
// out by hand: each finding where expected, and nowhere else.
func TestAnalyzeCases(t *testing.T) {
	t.Parallel()
	xy := []string{"a.x int", "a.y int"}
	tests := []struct {
		name    string
		fields  []string
		groups  [][2]string
		outcome string
		want    []string
	}{
		{"clean", xy, [][2]string{{"g all", "ga: a.x >= 18; gb: a.y < 100"}}, "g", nil},
		{"contradiction", xy, [][2]string{{"g all", "ga: a.x > 5 and a.x < 3; gb: a.y < 100"}}, "g", []string{
			"criterion_never_satisfied ga", "group_never_satisfied g [ga]", "outcome_never_eligible"}},
		{"tautology", []string{"a.x int", "a.b bool"}, [][2]string{{"g all", "ga: a.x >= 18; gb: a.b or not a.b"}}, "g", []string{
			"criterion_always_satisfied gb", "field_never_matters a.b"}},
		{"enum tautology", []string{"a.x int", `a.e enum ["p", "q"]`}, [][2]string{{"g all", `ga: a.x >= 18; gb: a.e in ["p", "q"]`}}, "g", []string{
			"criterion_always_satisfied gb", "field_never_matters a.e"}},
		{"presence default is not a tautology", xy, [][2]string{{"g all", "ga: a.x >= 18; gb: a.y ?? 0 < 100"}}, "g", nil},
		{"conflicting criteria", xy, [][2]string{{"g all", "ga: a.x >= 18; gb: a.y > 0; gc: a.x < 16"}}, "g", []string{
			"group_never_satisfied g [ga gc]", "outcome_never_eligible"}},
		{"implied by one", xy, [][2]string{{"g all", "ga: a.x >= 67; gb: a.x >= 18; gc: a.y < 100"}}, "g", []string{
			"criterion_redundant gb [ga]"}},
		{"implied by two", xy, [][2]string{{"g all", "ga: a.x >= 10; gb: a.y >= 10; gc: a.x + a.y >= 20"}}, "g", []string{
			"criterion_redundant gc [ga gb]"}},
		{"equivalent criteria, the later reported", xy, [][2]string{{"g all", "ga: a.x >= 18; gb: not (a.x < 18); gc: a.y > 1"}}, "g", []string{
			"criterion_redundant gb [ga]"}},
		{"other fields keep a criterion", xy, [][2]string{{"g all", "ga: a.x >= 18; gb: a.x >= 10 or a.y > 3"}}, "g", []string{
			"criterion_redundant gb [ga]", "field_never_matters a.y"}},
		{"redundancy only in all groups", []string{"a.x int"}, [][2]string{{"h any", "ha: a.x >= 18; hb: a.x >= 21"}}, "h", nil},
		{"equivalent alternatives", xy, [][2]string{{"h any", "ha: a.x >= 18; hb: 18 <= a.x; hc: a.y > 3; hd: a.x > 17"}}, "h", []string{
			"alternatives_overlap hb [ha]", "alternatives_overlap hd [ha]"}},
		{"alternatives that meet are not equivalent", []string{"a.x int"}, [][2]string{{"h any", "ha: a.x >= 18; hb: a.x >= 10 and a.x <= 30"}}, "h", nil},
		{"dead alternatives", []string{"a.x int", "a.y int", "a.b bool"}, [][2]string{
			{"g all", "ga: a.b"}, {"h any", "ha: a.x > 5 and a.x < 3; hb: a.y != a.y"}}, "g or h", []string{
			"criterion_never_satisfied ha", "criterion_never_satisfied hb", "group_never_satisfied h",
			"field_never_matters a.x", "field_never_matters a.y"}},
		{"always eligible", xy, [][2]string{{"g any", "ga: a.x >= 18; gb: a.x < 18"}, {"h all", "hb: a.y > 1"}}, "g or h", []string{
			"outcome_always_eligible"}},
		{"never eligible through not", xy, [][2]string{{"g all", "ga: a.x >= 18"}, {"h all", "hb: a.x >= 21"}}, "h and not g", []string{
			"outcome_never_eligible"}},
		{"group outside the outcome", xy, [][2]string{{"g all", "ga: a.x >= 18"}, {"h all", "hb: a.y > 3"}}, "g", []string{
			"field_never_matters a.y"}},
		{"unread field", []string{"a.x int", "a.y int", "a.z decimal"}, [][2]string{{"g all", "ga: a.x >= 18 and a.y < 3"}}, "g", []string{
			"field_never_matters a.z"}},
		{"presence only", xy, [][2]string{{"g all", "ga: present(a.y) and a.x >= 18"}}, "g", []string{
			"field_never_matters a.y"}},
		{"discretionary decided either way", xy, [][2]string{{"g all", "ga: discretionary; gb: a.x >= 18"}, {"h any", "hx: discretionary; hb: a.y > 1"}}, "g and h", nil},
		{"discretionary beside a conflict", xy, [][2]string{{"g all", "ga: discretionary; gb: a.x >= 18; gc: a.x < 10"}}, "g", []string{
			"group_never_satisfied g [gb gc]", "outcome_never_eligible"}},
		{"decimal boundaries", []string{"a.m decimal", "a.y int"}, [][2]string{{"g all", "ga: a.m > 1.05 and a.m < 1.06; gb: a.y > 1"}}, "g", nil},
		{"dates", []string{"a.d date", "a.y int"}, [][2]string{{"g all",
			`ga: years_between(a.d, decision_date()) >= 18 and a.d > date("2100-01-01") and decision_date() < date("2090-01-01"); gb: a.y > 1`}}, "g", []string{
			"criterion_never_satisfied ga", "group_never_satisfied g [ga]", "outcome_never_eligible"}},
		{"leap day", []string{"a.d date"}, [][2]string{{"g all", `ga: months_between(a.d, date("2024-02-29")) >= 0 or a.d > date("2024-02-29")`}}, "g", []string{
			"criterion_always_satisfied ga", "outcome_always_eligible"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := solvertest.Compile(t, analyzeRules(tc.fields, tc.groups, tc.outcome))
			got, err := Analyze(context.Background(), r, decideAll)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, f := range got {
				keys = append(keys, findingKey(f))
				checkFindingShape(t, r, f)
			}
			if !slices.Equal(keys, tc.want) {
				t.Errorf("findings\n  %s\nwant\n  %s", strings.Join(keys, "\n  "), strings.Join(tc.want, "\n  "))
				for _, f := range got {
					t.Logf("%s: %s", f.Kind, f.Message)
				}
			}
		})
	}
}

// checkFindingShape holds a finding to its documentation: a known kind, a
// message, the criterion's group and first quote, others that exist.
func checkFindingShape(t *testing.T, r *engine.Ruleset, f Finding) {
	t.Helper()
	if _, ok := findingOrder[f.Kind]; !ok {
		t.Errorf("unknown kind %q", f.Kind)
	}
	if f.Message == "" || strings.Contains(f.Message, "\n") {
		t.Errorf("%s: message %q is not one sentence", f.Kind, f.Message)
	}
	if f.Witness != nil {
		t.Errorf("%s: witness %v on a claim about every answer set", f.Kind, f.Witness)
	}
	if f.Criterion != "" {
		i := solvertest.CriterionIndex(r, f.Criterion)
		if i < 0 {
			t.Fatalf("%s: no criterion %s", f.Kind, f.Criterion)
		}
		cr, g := r.CriterionAt(i)
		if f.Group != r.Groups[g].ID || f.Quote != cr.Citations[0].Quote {
			t.Errorf("%s %s: group %q quote %q, want %q %q", f.Kind, f.Criterion, f.Group, f.Quote, r.Groups[g].ID, cr.Citations[0].Quote)
		}
		if !strings.Contains(f.Message, f.Criterion) {
			t.Errorf("%s: message %q does not name %s", f.Kind, f.Message, f.Criterion)
		}
	}
	for _, o := range f.Others {
		if solvertest.CriterionIndex(r, o) < 0 {
			t.Errorf("%s: others name %s, no criterion", f.Kind, o)
		}
	}
	if f.Field != "" && r.FieldIndex(f.Field) < 0 {
		t.Errorf("%s: no field %s", f.Kind, f.Field)
	}
}

// TestAnalyzeJSON fixes the wire form the CLI, publish and the review
// report read.
func TestAnalyzeJSON(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, analyzeRules([]string{"a.x int"}, [][2]string{{"g all", "ga: a.x >= 67; gb: a.x >= 18"}}, "g"))
	got, err := Analyze(context.Background(), r, decideAll)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"kind":"criterion_redundant","criterion":"gb","group":"g","others":["ga"],"quote":"quote gb","message":"Criterion gb (\"Title gb\") holds whenever criterion ga holds, so it never changes whether group g is satisfied."}]`
	if string(b) != want {
		t.Errorf("JSON\n %s\nwant\n %s", b, want)
	}
}

// decideAll are budgets for tests that need every check decided: far above
// what a check takes alone (well under a second), since the tests run in
// parallel under the race detector on a machine CI shares. That Analyze
// keeps to its budgets is tested apart (TestAnalyzeContext).
var decideAll = AnalyzeOptions{Timeout: 10 * time.Minute, CheckTimeout: time.Minute}

// TestAnalyzeCasebank runs the analysis on every casebank ruleset and the
// solver's testdata: no error (every check decided), and every
// criterion_never_satisfied confirmed by the engine alone (random answers,
// biased to the rules' boundaries, never satisfy it).
func TestAnalyzeCasebank(t *testing.T) {
	t.Parallel()
	samples := 2000
	if solvertest.Long() {
		samples = 50000
	}
	for _, cb := range append(solvertest.Casebank(t), solvertest.Testdata(t)...) {
		t.Run(cb.Name, func(t *testing.T) {
			t.Parallel()
			got, err := Analyze(context.Background(), cb.Rules, decideAll)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range got {
				checkFindingShape(t, cb.Rules, f)
				t.Logf("%s: %s", findingKey(f), f.Message)
				if f.Kind == FindingCriterionNeverSatisfied {
					confirmNeverSatisfied(t, cb.Rules, solvertest.CriterionIndex(cb.Rules, f.Criterion), samples)
				}
			}
		})
	}
}

// TestAnalyzePlanted plants one mistake in a casebank ruleset at a time
// and expects exactly the findings it causes: the casebank itself is clean
// (TestAnalyzeCasebank), so anything else would be a false finding.
func TestAnalyzePlanted(t *testing.T) {
	t.Parallel()
	byName := map[string][]byte{}
	for _, d := range solvertest.Folders(t) {
		byName[d.Name] = d.Rules
	}
	tests := []struct {
		name, ruleset, after, insert string
		want                         []string
	}{
		{"duplicate alternative", "uk-state-pension-age", `group reached any`,
			`criterion t2_copy "Born January 1954, written the other way round" {
    decision_date() >= date("2019-05-06") and person.date_of_birth <= date("1954-02-05") and not (person.date_of_birth < date("1954-01-06"))
    cite pa2011_s1 "6th January 1954 to 5th February 1954 | 6th May 2019"
  }`, []string{"alternatives_overlap t2_1954_01 [t2_copy]"}},
		{"weaker threshold", "us-fmla-employee", `group service all`,
			`criterion tenure_6 "Employed for at least 6 months" {
    employment.months_employed >= 6
    cite usc29_2611 "for at least 12 months by the employer with respect to whom leave is requested"
  }`, []string{"criterion_redundant tenure_6 [tenure]"}},
		{"impossible household", "snap-income", `group household all`,
			`criterion empty "Fewer than one member and more than none" {
    household.size < 1 and household.size > 0
    cite hhs_poverty_2025 "Persons in family/household"
  }`, []string{"criterion_never_satisfied empty", "criterion_always_satisfied household_size", "group_never_satisfied household [empty]", "outcome_never_eligible"}},
		{"group left out of the outcome", "medicaid-adult-expansion", `outcome `,
			`field person.shoe_size int
group shoes all "Shoes" {
  criterion big_feet "Big feet" {
    person.shoe_size > 44
    cite ssa_1902 "does not exceed 133 percent of the poverty line"
  }
}`, []string{"criterion_always_satisfied household_size", "field_never_matters person.shoe_size"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := string(byName[tc.ruleset])
			at := strings.Index(src, tc.after)
			if at < 0 {
				t.Fatalf("%s has no %q", tc.ruleset, tc.after)
			}
			if strings.HasPrefix(tc.after, "group") {
				at += strings.Index(src[at:], "\n") + 1
				src = src[:at] + "  " + tc.insert + "\n" + src[at:]
			} else {
				src = src[:at] + tc.insert + "\n" + src[at:]
			}
			r := solvertest.Compile(t, src)
			got, err := Analyze(context.Background(), r, decideAll)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, f := range got {
				keys = append(keys, findingKey(f))
				checkFindingShape(t, r, f)
				if f.Kind == FindingCriterionNeverSatisfied {
					confirmNeverSatisfied(t, r, solvertest.CriterionIndex(r, f.Criterion), 2000)
				}
			}
			if !slices.Equal(keys, tc.want) {
				t.Errorf("findings %q, want %q", keys, tc.want)
			}
		})
	}
}

// confirmNeverSatisfied evaluates random answer sets and fails if one
// satisfies criterion i.
func confirmNeverSatisfied(t *testing.T, r *engine.Ruleset, i, samples int) {
	t.Helper()
	s := enginetest.NewSampler(r, uint64(i))
	for range samples {
		date := s.DecisionDate()
		in := s.Inputs(0.9, date)
		if res := r.Evaluate(in, engine.Options{DecisionDate: date}); res.Criteria[i] == engine.Satisfied {
			cr, _ := r.CriterionAt(i)
			t.Fatalf("criterion %s reported never satisfied, but the engine satisfies it with %v", cr.ID, in.Values)
		}
	}
}

// TestAnalyzeNeverSatisfiedConfirmed checks the engine-side confirmation
// on the small contradictions of TestAnalyzeCases, and that the sampler
// would have caught a wrong finding: it does satisfy the criterion's
// satisfiable twin.
func TestAnalyzeNeverSatisfiedConfirmed(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, analyzeRules([]string{"a.x int", "a.d date"}, [][2]string{{"g any",
		`dead: a.x > 5 and a.x < 6; alive: a.x > 5 and a.x < 7; dead_date: years_between(a.d, decision_date()) >= 18 and a.d > decision_date()`}}, "g"))
	got, err := Analyze(context.Background(), r, decideAll)
	if err != nil {
		t.Fatal(err)
	}
	var never []string
	for _, f := range got {
		if f.Kind == FindingCriterionNeverSatisfied {
			never = append(never, f.Criterion)
			confirmNeverSatisfied(t, r, solvertest.CriterionIndex(r, f.Criterion), 5000)
		}
	}
	if !slices.Equal(never, []string{"dead", "dead_date"}) {
		t.Errorf("never satisfied: %v", never)
	}
	alive := solvertest.CriterionIndex(r, "alive")
	s := enginetest.NewSampler(r, 1)
	for range 5000 {
		date := s.DecisionDate()
		if r.Evaluate(s.Inputs(1, date), engine.Options{DecisionDate: date}).Criteria[alive] == engine.Satisfied {
			return
		}
	}
	t.Error("the sampler never satisfied alive: it could not confirm anything")
}

// TestAnalyzeContext: a cancelled context and an exhausted timeout end the
// analysis with the context's error.
func TestAnalyzeContext(t *testing.T) {
	t.Parallel()
	r := solvertest.Casebank(t)[0].Rules
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Analyze(ctx, r, AnalyzeOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Analyze(context.Background(), r, AnalyzeOptions{Timeout: time.Nanosecond}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: %v", err)
	}
}

// TestAnalyzeUndecided: a check Z3 cannot decide in its time costs its own
// finding and nothing else. With each check given a millisecond, many of
// the date checks of a clean casebank ruleset run out; they are recorded
// as undecided (matching z3.ErrTimeout) and none turns into a finding.
func TestAnalyzeUndecided(t *testing.T) {
	t.Parallel()
	var r *engine.Ruleset
	for _, cb := range solvertest.Casebank(t) {
		if cb.Name == "uk-state-pension-age" {
			r = cb.Rules
		}
	}
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := newAnalysis(context.Background(), c, r, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	for _, st := range analysisStages {
		if err := st.run(a); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	if len(a.undecided) == 0 {
		t.Fatal("no check ran out of its millisecond")
	}
	t.Logf("%d checks undecided", len(a.undecided))
	for _, err := range a.undecided {
		if !errors.Is(err, z3.ErrTimeout) {
			t.Errorf("undecided: %v", err)
		}
	}
	for _, f := range a.out {
		t.Errorf("finding from undecided checks: %s", findingKey(f))
	}
}

// BenchmarkAnalyze runs the whole analysis on every casebank ruleset and
// on solver/testdata (target: under 1 s each on two cores).
func BenchmarkAnalyze(b *testing.B) {
	for _, cb := range append(solvertest.Casebank(b), solvertest.Testdata(b)...) {
		b.Run(cb.Name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Analyze(context.Background(), cb.Rules, AnalyzeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAnalyzeHousehold checks the field findings over a household: a
// complete household answers its members' questions, not every member's
// up to the bound, so the list's length matters; the members are alike,
// so a member field that matters is not reported and one that does not is
// reported once, by the name it is declared with.
func TestAnalyzeHousehold(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../testdata/values/household.rules")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, insert string
		want         []string
	}{
		{"as written", "", nil},
		{"a member field no criterion reads", `field member.shoe_size int weight 7
  range 0..60
`, []string{"field_never_matters member.shoe_size"}},
		{"a member field read where it cannot matter", `field member.student bool weight 7
value students int "Students" {
  count(member where member.student)
  cite law "each student"
}
group students_any any "Students or not" {
  criterion some "Some students" {
    students >= 0
    cite law "each student"
  }
}
`, []string{"criterion_always_satisfied some", "field_never_matters member.student"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text := string(src)
			at := strings.Index(text, "field household.rent")
			text = text[:at] + tc.insert + text[at:]
			r := solvertest.Compile(t, text)
			got, err := Analyze(context.Background(), r, decideAll)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, f := range got {
				keys = append(keys, findingKey(f))
			}
			if !slices.Equal(keys, tc.want) {
				t.Errorf("findings %q, want %q", keys, tc.want)
			}
		})
	}
}
