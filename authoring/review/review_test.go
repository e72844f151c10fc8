package review_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/review"
)

// weakCases are two cases far from every threshold; the second misspells
// a field name, so the draft treats it as absent.
const weakCases = `[
  {"name": "private employer, long service",
   "field_values": {"employment.employer_type": "private", "employer.workweeks_with_50_employees": 52, "employment.months_employed": 60, "employment.hours_12_months": 2000, "worksite.employees_within_75_miles": 200},
   "expected_outcome": "eligible"},
  {"name": "federal civil servant",
   "field_values": {"employment.employer_type": "federal_title5", "employment.month_employed": 60, "employment.hours_12_months": 2000, "worksite.employees_within_75_miles": 200},
   "expected_outcome": "not_eligible"}
]`

// extraCases are boundary cases the strong suite adds to the casebank's.
const extraCases = `[
  {"name": "public agency at exactly 12 months and 1,250 hours",
   "field_values": {"employment.employer_type": "public_agency", "employment.months_employed": 12, "employment.hours_12_months": 1250, "worksite.employees_within_75_miles": 50},
   "expected_outcome": "eligible"}
]`

// suites builds the weak and the strong inputs over the FMLA ruleset.
func suites(t *testing.T) (weak, strong review.Input) {
	t.Helper()
	b := load(t, "us-fmla-employee")
	r := b.rules

	wc := parseCases(t, weakCases)
	wr, wi := runCases(t, r, wc)
	weak = review.Input{ProjectID: "p-weak", Rules: r, Cases: wc, Results: wr, IgnoredFields: wi,
		Citations: citations(r, b.folder.Source, false),
		Sources: []review.Source{
			{ID: "src-usc29_2611", Filename: "usc29_2611.txt", Status: "active", Clauses: 12, CoveredClauses: 2,
				Uncited: []string{"(C) Determination For purposes of determining whether an employee meets the hours of service requirement", "(4) Employer", "c", "d", "e", "f", "g"}},
			{ID: "src-cfr29_825_110", Filename: "cfr-2019.txt", Status: "superseded", SupersededBy: "src-cfr-2024", Clauses: 6, CoveredClauses: 6},
			{ID: "src-cfr-2024", Filename: "cfr-2024.txt", Status: "active", Clauses: 5},
		},
		Questions: []review.Question{{ID: "q1", Quote: "within 75 miles of that worksite", Question: "Is the distance measured by road or in a straight line?"},
			{ID: "q2", Quote: "public agency", Question: "Does a school count?", Resolved: true}},
	}

	sc := append(slices.Clone(b.folder.Cases), parseCases(t, extraCases)...)
	sr, si := runCases(t, r, sc)
	strong = review.Input{ProjectID: "p-strong", Rules: r, Cases: sc, Results: sr, IgnoredFields: si,
		Citations: citations(r, b.folder.Source, true),
		Sources: []review.Source{
			{ID: "src-usc29_2611", Filename: "usc29_2611.txt", Status: "active", Clauses: 10, CoveredClauses: 10},
			{ID: "src-cfr29_825_110", Filename: "cfr29_825_110.txt", Status: "active", Clauses: 6, CoveredClauses: 6},
		},
		Questions: []review.Question{{ID: "q1", Quote: "public agency", Question: "Does a school count?", Resolved: true}},
	}
	for _, c := range strong.Citations {
		if !c.Verified {
			t.Fatalf("fixture: quote %q of %s does not verify against the casebank source", c.Quote, c.Citer)
		}
	}
	return weak, strong
}

func TestWeakAndStrongSuites(t *testing.T) {
	t.Parallel()
	weak, strong := suites(t)
	w := build(t, weak, review.Options{})
	s := build(t, strong, review.Options{})

	for _, tc := range []struct {
		id           string
		weak, strong string
		// weakEvidence are evidence lines (each a set of parts) the weak
		// report must show for the check.
		weakEvidence [][]string
	}{
		{review.CheckDraftCompiles, "info", "info", [][]string{{"section fmla_employee compiles", "6 criteria"}}},
		{review.CheckTestsPerSection, "warn", "pass", [][]string{{"2 test cases", "fmla_employee"}}},
		{review.CheckTestsPass, "pass", "pass", [][]string{{"all 2 test cases pass"}}},
		{review.CheckCriteriaBothWays, "warn", "pass", [][]string{
			{"criterion public_agency: never satisfied"},
			{"criterion tenure: never not_satisfied"},
			{"criterion worksite_size: never not_satisfied"}}},
		{review.CheckThresholdBoundaries, "fail", "pass", [][]string{
			{"employment.months_employed >= 12 (criterion tenure): no case at 12 and no case at 11"},
			{"employment.hours_12_months >= 1250 (criterion hours): no case at 1250 and no case below 1250"},
			{"employer.workweeks_with_50_employees >= 20 (criterion employer_size)"}}},
		{review.CheckCriteriaCited, "fail", "pass", [][]string{
			{"criterion tenure: no verified quote"},
			{"criterion tenure: quote", "not found in usc29_2611.txt"},
			{"criterion hours: quote", "not found in cfr-2019.txt"}}},
		{review.CheckClauseCoverage, "fail", "pass", [][]string{
			{"2 of 17 active clauses cited"},
			{"usc29_2611.txt: 2 of 12 clauses cited"},
			{"usc29_2611.txt: uncited \"(C) Determination"},
			{"usc29_2611.txt: 2 more uncited clauses"},
			{"cfr-2019.txt: superseded, not counted"}}},
		{review.CheckPresencePolarity, "pass", "pass", nil},
		{review.CheckUnusedFields, "warn", "pass", [][]string{{`case "federal civil servant" sends employment.month_employed`}}},
		{review.CheckSupersededSources, "warn", "pass", [][]string{{"criterion tenure cites cfr-2019.txt, superseded by cfr-2024.txt"}}},
		{review.CheckSourceQuestions, "warn", "pass", [][]string{{"question q1", "within 75 miles", "straight line"}}},
		{review.CheckStaticAnalysis, "pass", "pass", nil},
		{review.CheckMutationScore, "fail", "pass", [][]string{{"the tests kill 7 of 23 mutants"}, {"survives:"}, {"suggested case:"}}},
	} {
		wc, sc := checkOf(t, w, tc.id), checkOf(t, s, tc.id)
		if wc.Status != tc.weak {
			t.Errorf("weak %s: status %s, want %s; evidence %q", tc.id, wc.Status, tc.weak, wc.Evidence)
		}
		if sc.Status != tc.strong {
			t.Errorf("strong %s: status %s, want %s; evidence %q", tc.id, sc.Status, tc.strong, sc.Evidence)
		}
		for _, parts := range tc.weakEvidence {
			if !hasEvidence(wc, parts...) {
				t.Errorf("weak %s: no evidence with %q in %q", tc.id, parts, wc.Evidence)
			}
		}
	}

	// The weak suite earns pass 15+10+5 (tests_pass, presence_polarity,
	// static_analysis), warn half of 10+10+4+4+2, nothing of 10+10+5+5:
	// 45 of 90.
	if w.Score == nil || *w.Score != 50 {
		t.Errorf("weak score %v, want 50", w.Score)
	}
	if s.Score == nil || *s.Score != 100 {
		t.Errorf("strong score %v, want 100", s.Score)
	}
	if w.DataCompleteness != "thin" || s.DataCompleteness != "ok" {
		t.Errorf("data_completeness weak %s strong %s, want thin and ok", w.DataCompleteness, s.DataCompleteness)
	}

	// The weak suite's next step: of the failing checks of weight 10,
	// threshold_boundaries comes first in check order.
	h := w.NextSkill
	if h == nil || h.CheckID != review.CheckThresholdBoundaries || h.ActionableVia != "POST /projects/p-weak/tests" ||
		!strings.Contains(h.Message, "employer.workweeks_with_50_employees >= 20 (criterion employer_size): no case at 20 and no case at 19") {
		t.Errorf("weak next_skill %+v", h)
	}
	if w.ReviewHint() != w.NextSkill {
		t.Error("ReviewHint differs from NextSkill")
	}
	if s.NextSkill != nil || s.ReviewHint() != nil {
		t.Errorf("strong next_skill %+v, want null", s.NextSkill)
	}
	if len(s.Strengths) != 12 || len(w.Strengths) != 3 {
		t.Errorf("strengths: strong %d %q, weak %d %q; want 12 and 3", len(s.Strengths), s.Strengths, len(w.Strengths), w.Strengths)
	}
	for _, c := range s.Checks {
		if c.ActionableVia == "" || strings.Contains(c.ActionableVia, "{id}") || !strings.Contains(c.ActionableVia, "/projects/p-strong/") {
			t.Errorf("strong %s: actionable_via %q", c.ID, c.ActionableVia)
		}
		if c.Why == "" || c.Title == "" || len(c.Evidence) == 0 {
			t.Errorf("strong %s: empty why, title or evidence", c.ID)
		}
	}
}

func TestNoDraft(t *testing.T) {
	t.Parallel()
	cases := parseCases(t, weakCases)
	for _, tc := range []struct {
		name, problem, evidence string
	}{
		{"no draft", "", "no draft yet"},
		{"compile error", "draft.rules:12:5: unknown field employment.month", "unknown field employment.month"},
	} {
		rep := build(t, review.Input{ProjectID: "p1", DraftProblem: tc.problem, Cases: cases}, review.Options{})
		d := checkOf(t, rep, review.CheckDraftCompiles)
		if d.Status != "fail" || !d.Scored || !hasEvidence(d, tc.evidence) {
			t.Errorf("%s: draft_compiles %+v", tc.name, d)
		}
		for _, id := range []string{review.CheckTestsPass, review.CheckCriteriaBothWays, review.CheckThresholdBoundaries,
			review.CheckCriteriaCited, review.CheckPresencePolarity, review.CheckUnusedFields, review.CheckSupersededSources} {
			c := checkOf(t, rep, id)
			if c.Status != "na" || c.Scored || !hasEvidence(c, tc.evidence) {
				t.Errorf("%s: %s %s scored %v evidence %q, want na and unscored", tc.name, id, c.Status, c.Scored, c.Evidence)
			}
		}
		// Counted: draft_compiles fail (10), tests_per_section warn (5 of
		// 10), source_questions pass (2); clause_coverage is na (no
		// sources): 7 of 22.
		if rep.Score == nil || *rep.Score != 32 {
			t.Errorf("%s: score %v, want 32", tc.name, rep.Score)
		}
		if rep.NextSkill == nil || rep.NextSkill.CheckID != review.CheckDraftCompiles || rep.NextSkill.ActionableVia != "PUT /projects/p1/draft" {
			t.Errorf("%s: next_skill %+v", tc.name, rep.NextSkill)
		}
	}
}

func TestEmptyProjectScoresOnlyWhatApplies(t *testing.T) {
	t.Parallel()
	rep := build(t, review.Input{}, review.Options{})
	if c := checkOf(t, rep, review.CheckTestsPerSection); c.Status != "fail" || !hasEvidence(c, "0 test cases") {
		t.Errorf("tests_per_section %+v", c)
	}
	if c := checkOf(t, rep, review.CheckClauseCoverage); c.Status != "na" || !hasEvidence(c, "no sources") {
		t.Errorf("clause_coverage %+v", c)
	}
	// draft 0 of 10, tests 0 of 10, questions 2 of 2.
	if rep.Score == nil || *rep.Score != 9 {
		t.Errorf("score %v, want 9", rep.Score)
	}
	if rep.NextSkill == nil || !strings.Contains(rep.NextSkill.ActionableVia, "/projects/{id}/") {
		t.Errorf("without a project id the placeholder stays: %+v", rep.NextSkill)
	}
}

func TestPresencePolarity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		folder, status string
		evidence       []string
	}{
		{"polarity-nonconservative", "fail", []string{"field household.income", "criterion net_income", "unanswered gives satisfied", "not_satisfied"}},
		{"polarity-conservative", "pass", []string{"no presence operator"}},
	} {
		b := load(t, tc.folder)
		res, ign := runCases(t, b.rules, b.folder.Cases)
		rep := build(t, review.Input{Rules: b.rules, Cases: b.folder.Cases, Results: res, IgnoredFields: ign}, review.Options{})
		c := checkOf(t, rep, review.CheckPresencePolarity)
		if c.Status != tc.status || !c.Scored || !hasEvidence(c, tc.evidence...) {
			t.Errorf("%s: presence_polarity %s %q, want %s with %q", tc.folder, c.Status, c.Evidence, tc.status, tc.evidence)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	_, strong := suites(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := review.Build(ctx, strong, review.Options{}); err == nil {
		t.Error("Build with a cancelled context succeeded")
	}
}

func TestCoaching(t *testing.T) {
	t.Parallel()
	weak, strong := suites(t)
	if rep := build(t, weak, review.Options{}); rep.Coaching != nil {
		t.Errorf("coaching without Coach: %q", *rep.Coaching)
	}
	docs := func(id string) string { return "https://eligo.example/docs/authoring#" + id }
	rep := build(t, weak, review.Options{Coach: true, DocsURL: docs})
	if rep.Coaching == nil {
		t.Fatal("no coaching with Coach")
	}
	text := *rep.Coaching
	// Failing checks by weight then order, then warning ones likewise.
	want := []string{"threshold_boundaries", "criteria_cited", "clause_coverage", "mutation_score", "tests_per_section", "criteria_both_ways",
		"unused_fields", "superseded_sources", "source_questions"}
	last := -1
	for _, id := range want {
		i := strings.Index(text, "("+id+",")
		if i < 0 || i < last {
			t.Fatalf("coaching lacks %s or has it out of order: %s", id, text)
		}
		last = i
	}
	if strings.Contains(text, "presence_polarity") || !strings.HasPrefix(text, "Start with") {
		t.Errorf("coaching mentions a passing check or starts oddly: %s", text)
	}
	if again := build(t, weak, review.Options{Coach: true, DocsURL: docs}); !reflect.DeepEqual(again, rep) {
		t.Error("two reviews of the same input differ")
	}
	if rep.NextSkill.DocsURL != docs(review.CheckThresholdBoundaries) || checkOf(t, rep, review.CheckTestsPass).DocsURL != docs("tests_pass") {
		t.Errorf("docs_url not from Options.DocsURL: %+v", rep.NextSkill)
	}
	good := build(t, strong, review.Options{Coach: true})
	if good.Coaching == nil || !strings.Contains(*good.Coaching, "Every check that applies passes") {
		t.Errorf("strong coaching %v", good.Coaching)
	}
}

// TestAdviceInAnalystWords: the advice an analyst reads in the studio (and
// a program in next_skill and coaching) names the studio's controls as the
// studio labels them, with the API's words for programs in parentheses.
func TestAdviceInAnalystWords(t *testing.T) {
	t.Parallel()
	weak, _ := suites(t)
	failing := weak
	failing.Cases = parseCases(t, strings.Replace(weakCases, `"expected_outcome": "not_eligible"`, `"expected_outcome": "eligible"`, 1))
	failing.Results, failing.IgnoredFields = runCases(t, failing.Rules, failing.Cases)
	for _, tc := range []struct {
		name  string
		in    review.Input
		check string
		want  string
	}{
		{"a failing test", failing, review.CheckTestsPass,
			"refine the draft (in the studio, Generate and choose “Refine the ruleset in force”; through the API, generate with mode refine)"},
		{"clauses left uncited", weak, review.CheckClauseCoverage,
			"mark a source that holds no conditions “Reference only” on the Sources screen (status reference_only through the API)"},
	} {
		rep := build(t, tc.in, review.Options{Coach: true})
		if c := checkOf(t, rep, tc.check); c.Status != review.StatusFail {
			t.Fatalf("%s: %s is %s, want fail", tc.name, tc.check, c.Status)
		}
		if rep.Coaching == nil || !strings.Contains(*rep.Coaching, tc.want) {
			t.Errorf("%s: coaching lacks %q: %v", tc.name, tc.want, rep.Coaching)
		}
	}
}

// keys returns the sorted member names of a JSON object.
func keys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestWireShape(t *testing.T) {
	t.Parallel()
	weak, _ := suites(t)
	for _, tc := range []struct {
		name     string
		in       review.Input
		coaching string
	}{
		{"weak", weak, `"Start with`},
		{"empty", review.Input{Questions: []review.Question{{ID: "q1", Quote: "q", Question: "?"}}}, `"Start with`},
	} {
		rep := build(t, tc.in, review.Options{Coach: tc.name == "weak"})
		raw, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := keys(t, raw), []string{"checks", "coaching", "complete", "data_completeness", "next_skill", "score", "strengths"}; !slices.Equal(got, want) {
			t.Errorf("%s: report keys %q, want %q", tc.name, got, want)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if string(m["complete"]) != "true" {
			t.Errorf("%s: complete %s, want true: every check finished", tc.name, m["complete"])
		}
		if tc.name == "empty" && (string(m["coaching"]) != "null" || string(m["strengths"]) != "[]") {
			t.Errorf("empty: coaching %s strengths %s, want null and []", m["coaching"], m["strengths"])
		}
		if tc.name == "weak" && !strings.HasPrefix(string(m["coaching"]), tc.coaching) {
			t.Errorf("weak: coaching %s", m["coaching"])
		}
		if got, want := keys(t, m["next_skill"]), []string{"actionable_via", "check_id", "docs_url", "message"}; !slices.Equal(got, want) {
			t.Errorf("%s: next_skill keys %q, want %q", tc.name, got, want)
		}
		var checks []json.RawMessage
		if err := json.Unmarshal(m["checks"], &checks); err != nil {
			t.Fatal(err)
		}
		if len(checks) != 14 {
			t.Fatalf("%s: %d checks, want 14", tc.name, len(checks))
		}
		for _, c := range checks {
			want := []string{"actionable_via", "docs_url", "evidence", "id", "incomplete", "scored", "status", "title", "weight", "why"}
			if got := keys(t, c); !slices.Equal(got, want) {
				t.Errorf("%s: check keys %q, want %q", tc.name, got, want)
			}
			if !strings.Contains(string(c), `"incomplete":null`) {
				t.Errorf("%s: a finished check's incomplete is not null: %s", tc.name, c)
			}
			if strings.Contains(string(c), `"evidence":null`) {
				t.Errorf("%s: null evidence in %s", tc.name, c)
			}
		}
	}
}

func TestCheckOrderAndWeights(t *testing.T) {
	t.Parallel()
	rep := build(t, review.Input{}, review.Options{})
	want := []string{"draft_compiles", "tests_per_section", "tests_pass", "criteria_both_ways", "threshold_boundaries",
		"criteria_cited", "clause_coverage", "presence_polarity", "unused_fields", "superseded_sources", "source_questions",
		"static_analysis", "mutation_score", "effective_period"}
	var got []string
	sum := 0
	for _, c := range rep.Checks {
		got = append(got, c.ID)
		sum += c.Weight
	}
	if !slices.Equal(got, want) {
		t.Errorf("check order %q, want %q", got, want)
	}
	if sum != 100 {
		t.Errorf("weights sum to %d, want 100 (the package doc's table)", sum)
	}
}
