package review_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
)

// bombCriteria is the criteria bomb's size: the 1,000 criteria of the
// 72 KB draft the probe sent, also the most a ruleset may hold.
const bombCriteria = 1000

// bombInput is a review of the criteria bomb (docs/limits.md#solver-runs): a draft of
// bombCriteria criteria, each a pair of thresholds,
// with a few passing tests; about four mutants and five suggestion goals
// per criterion.
func bombInput(t testing.TB) review.Input {
	t.Helper()
	var b strings.Builder
	b.WriteString(`section bomb
source law "Law" url "https://laws.example.org/bomb" licence "public-domain"
field a.x int weight 1
  question "x?"
field a.y decimal weight 1
  question "y?"
group g all "G" {
`)
	for i := range bombCriteria {
		fmt.Fprintf(&b, "  criterion c%d \"C%d\" {\n    a.x >= %d and a.y < %d.5\n    cite law \"limit %d\"\n  }\n", i, i, i, i+7, i)
	}
	b.WriteString("}\n")
	r, _, err := engine.Compile("bomb.rules", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var cases []engine.Case
	for i, x := range []int{5000, 0, 10, 500, 999} {
		outcome := "not_eligible"
		if x >= 999 {
			outcome = "eligible"
		}
		cases = append(cases, engine.Case{Name: fmt.Sprintf("case %d", i), FieldValues: json.RawMessage(fmt.Sprintf(`{"a.x": %d, "a.y": 0}`, x)),
			ExpectedOutcome: outcome})
	}
	results, ignored := runCases(t, r, cases)
	return review.Input{ProjectID: "p1", Rules: r, Cases: cases, Results: results, IgnoredFields: ignored}
}

// TestReviewCriteriaBomb: a review of the bomb under a one-second solver
// budget finishes, reports itself incomplete, and names each solver check
// it could not finish with the reason, as na, never pass; the next step
// points at an unfinished check when nothing else is wrong enough to come
// first.
func TestReviewCriteriaBomb(t *testing.T) {
	t.Parallel()
	in := bombInput(t)
	rep := build(t, in, review.Options{Budget: time.Second, Coach: true})
	if rep.Complete {
		t.Fatal("the review of the bomb finished every check within one second; the test needs a larger draft")
	}
	mutation := checkByID(t, rep, review.CheckMutationScore)
	if mutation.Incomplete == nil || !strings.Contains(*mutation.Incomplete, "ran out of its share of the review's time budget") {
		t.Errorf("mutation_score incomplete = %v, want the budget named", mutation.Incomplete)
	}
	if mutation.Status != review.StatusNA || mutation.Scored {
		t.Errorf("mutation_score is %s (scored %v): an unfinished score counts for nothing", mutation.Status, mutation.Scored)
	}
	for _, c := range rep.Checks {
		if c.Incomplete != nil && c.Status == review.StatusPass {
			t.Errorf("%s passes though unfinished (%s)", c.ID, *c.Incomplete)
		}
		if c.Incomplete != nil && !strings.HasPrefix(strings.Join(c.Evidence, "\n"), "not finished: ") {
			t.Errorf("%s is unfinished but its evidence does not say so first: %q", c.ID, c.Evidence)
		}
	}
	if rep.Coaching == nil || !strings.Contains(*rep.Coaching, "not finished") {
		t.Errorf("the coaching does not mention the unfinished checks: %v", rep.Coaching)
	}
}

// TestReviewUnfinishedIsTheNextStep: when every finished check passes, the
// next step (publish's review_hint) names the unfinished check instead of
// reading as all clear.
func TestReviewUnfinishedIsTheNextStep(t *testing.T) {
	t.Parallel()
	b := load(t, "polarity-conservative") // it reads fields under presence operators, so all three solver checks have work
	results, ignored := runCases(t, b.rules, b.folder.Cases)
	in := review.Input{ProjectID: "p1", Rules: b.rules, Cases: b.folder.Cases, Results: results, IgnoredFields: ignored}
	gate := bound.NewGate(1)
	hold, err := gate.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer hold()
	// Every solver check waits for the gate another run holds, and gives
	// up at its share of the budget.
	rep := build(t, in, review.Options{Budget: 300 * time.Millisecond, Gate: gate})
	if rep.Complete {
		t.Fatal("the review finished every check behind a full gate")
	}
	for _, id := range []string{review.CheckPresencePolarity, review.CheckStaticAnalysis, review.CheckMutationScore} {
		if c := checkByID(t, rep, id); c.Incomplete == nil || c.Status != review.StatusNA {
			t.Errorf("%s: status %s, incomplete %v; want na and unfinished", id, c.Status, c.Incomplete)
		}
	}
	if rep.NextSkill == nil {
		t.Fatal("no next step while three checks are unfinished")
	}
	if c := checkByID(t, rep, rep.NextSkill.CheckID); c.Incomplete == nil && c.Status == review.StatusPass {
		t.Errorf("next step %s points at a passing check", c.ID)
	}
}

// TestReviewCancelled: a cancelled review is an error, not a report of
// unfinished checks nobody will read.
func TestReviewCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := review.Build(ctx, bombInput(t), review.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled review: %v, want context.Canceled", err)
	}
}

// checkByID is the report's check with id.
func checkByID(t *testing.T, rep review.Report, id string) review.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s", id)
	return review.Check{}
}

// BenchmarkReviewCriteriaBomb measures a whole review of the bomb under
// the default budget (DefaultBudget); run with -benchmem for its
// allocation (solver's BenchmarkCriteriaBomb reports the peak heap of the
// two solver checks that dominate it).
func BenchmarkReviewCriteriaBomb(b *testing.B) {
	in := bombInput(b)
	complete := 0.0
	for b.Loop() {
		rep, err := review.Build(context.Background(), in, review.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Complete {
			complete = 1
		}
	}
	b.ReportMetric(complete, "complete")
}
