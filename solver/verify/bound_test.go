package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/solvertest"
	"github.com/eligo/eligo/solver/z3"
)

// The adversary the solver's limits hold against (docs/limits.md#solver-runs),
// aimed at the authoring-time tools: a draft of a
// thousand criteria (the criteria bomb: about four mutants and several
// goals each) and a min() of ten thousand arguments (the wide min).

// bombRules is a ruleset of n criteria in one group of kind ("all" or
// "any"), each comparing two fields with its own thresholds, as a draft
// that spells out a long schedule would.
func bombRules(n int, kind string) string {
	var b strings.Builder
	b.WriteString(`section bomb
source law "Law" url "https://laws.example.org/bomb" licence "public-domain"
field a.x int weight 1
  question "x?"
field a.y decimal weight 1
  question "y?"
group g ` + kind + ` "G" {
`)
	for i := range n {
		fmt.Fprintf(&b, "  criterion c%d \"C%d\" {\n    a.x >= %d and a.y < %d.5\n    cite law \"x\"\n  }\n", i, i, i, i+7)
	}
	b.WriteString("}\n")
	return b.String()
}

// bombCases are a few cases of bombRules: too few to kill most mutants,
// so that most survive to an equivalence check, as in a fresh draft.
func bombCases() []engine.Case {
	return []engine.Case{
		mutCase("high", `{"a.x": 5000, "a.y": 0}`, "eligible"),
		mutCase("low", `{"a.x": 0, "a.y": 0}`, "not_eligible"),
	}
}

// TestMutationScoreCriteriaBomb: the bomb has more mutants than the cap,
// so a fixed sample is planned; under a short budget the score returns
// what it decided, marked incomplete for the deadline, with no score
// claimed.
func TestMutationScoreCriteriaBomb(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, bombRules(1000, "all"))
	rep, err := MutationScoreWith(context.Background(), r, bombCases(), MutationOptions{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Sampled || rep.Planned != DefaultMaxMutants || rep.Candidates <= DefaultMaxMutants {
		t.Errorf("planned %d of %d (sampled %v), want a sample of %d", rep.Planned, rep.Candidates, rep.Sampled, DefaultMaxMutants)
	}
	if rep.Complete || rep.Incomplete == nil || rep.Incomplete.Reason != bound.IncompleteDeadline {
		t.Fatalf("complete %v, incomplete %+v; want incomplete for %s", rep.Complete, rep.Incomplete, bound.IncompleteDeadline)
	}
	if !strings.Contains(rep.Incomplete.Detail, "300ms budget") {
		t.Errorf("detail %q does not name the budget", rep.Incomplete.Detail)
	}
	if rep.Done >= rep.Planned || rep.Score != 0 {
		t.Errorf("done %d of %d with score %v: an unfinished run claims no score", rep.Done, rep.Planned, rep.Score)
	}
	if rep.Done != rep.Total+len(rep.Equivalent) || rep.Total != rep.Killed+len(rep.Survivors) {
		t.Errorf("counts disagree: %+v", rep.Progress)
	}
}

// TestMutationScoreDeadline: MutationScore under a caller's deadline (a
// request's) returns the mutants it decided, marked incomplete, where it
// used to build every mutant of the bomb (each a copy of the ruleset, most
// held to the end) and then fail with the context's error.
func TestMutationScoreDeadline(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, bombRules(1000, "all"))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	rep, err := MutationScore(ctx, r, bombCases())
	if err != nil {
		t.Fatalf("a score past its deadline failed: %v", err)
	}
	if rep.Complete || rep.Incomplete == nil || rep.Incomplete.Reason != bound.IncompleteDeadline || rep.Score != 0 {
		t.Errorf("complete %v, incomplete %+v, score %v; want incomplete for %s and no score", rep.Complete, rep.Incomplete, rep.Score, bound.IncompleteDeadline)
	}
}

// TestMutationSample: a capped run takes the same mutants every time, in
// mutant order, and scores them completely.
func TestMutationSample(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, suggestRules(solvertest.Group("g", "all", "a.x >= 12 and a.b == true")+solvertest.Group("h", "all", "a.x < 40"), "g and h"))
	all, err := mutations(r)
	if err != nil {
		t.Fatal(err)
	}
	var runs [2]MutationReport
	for i := range runs {
		if runs[i], err = MutationScoreWith(context.Background(), r, nil, MutationOptions{MaxMutants: 4}); err != nil {
			t.Fatal(err)
		}
	}
	rep := runs[0]
	if !rep.Complete || !rep.Sampled || rep.Planned != 4 || rep.Candidates != len(all) || rep.Done != 4 {
		t.Fatalf("progress %+v, want a complete sample of 4 of %d", rep.Progress, len(all))
	}
	ids := append(mutantIDs(rep.Survivors), mutantIDs(rep.Equivalent)...)
	if again := append(mutantIDs(runs[1].Survivors), mutantIDs(runs[1].Equivalent)...); !slices.Equal(ids, again) {
		t.Errorf("two runs sampled %q and %q", ids, again)
	}
	order := mutantIDs(slices.Collect(func(yield func(Mutant) bool) {
		for _, m := range all {
			if slices.Contains(ids, m.ID) && !yield(m.Mutant) {
				return
			}
		}
	}))
	if got := mutantIDs(rep.Survivors); !slices.Equal(got, order[:len(got)]) && len(rep.Equivalent) == 0 {
		t.Errorf("survivors %q not in mutant order %q", got, order)
	}
}

// TestSuggestCasesCriteriaBomb: suggested cases for the bomb under a short
// budget return the suggestions made so far, marked incomplete; the
// plain SuggestCases reports the same as an *bound.Incomplete error.
func TestSuggestCasesCriteriaBomb(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, bombRules(1000, "all"))
	opts := SuggestOptions{DecisionDate: "2025-01-01", Budget: 300 * time.Millisecond}
	rep, err := SuggestCasesReport(context.Background(), r, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Sampled || rep.Planned != DefaultMaxGoals {
		t.Errorf("planned %d of %d goals (sampled %v), want a sample of %d", rep.Planned, rep.Candidates, rep.Sampled, DefaultMaxGoals)
	}
	if rep.Complete || rep.Incomplete == nil || rep.Incomplete.Reason != bound.IncompleteDeadline || rep.Done >= rep.Planned {
		t.Fatalf("progress %+v, want incomplete for %s", rep.Progress, bound.IncompleteDeadline)
	}
	for _, s := range rep.Suggestions {
		checkSuggestion(t, r, s)
	}
	_, err = SuggestCases(context.Background(), r, nil, opts)
	var inc *bound.Incomplete
	if !errors.As(err, &inc) || inc.Reason != bound.IncompleteDeadline {
		t.Errorf("SuggestCases error %v, want an *bound.Incomplete for %s", err, bound.IncompleteDeadline)
	}
}

// TestSuggestGoalsWideAnyGroup: an `any` group of a thousand alternatives
// gets no "alone" goals (each would restate the other 999), so listing
// its goals stays linear in the draft.
func TestSuggestGoalsWideAnyGroup(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, bombRules(1000, "any"))
	goals, _, err := caseGoals(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goals {
		if strings.HasPrefix(g.text, "alternative ") {
			t.Fatalf("goal %q in a group of %d alternatives", g.text, 1000)
		}
	}
	small := solvertest.Compile(t, bombRules(3, "any"))
	if goals, _, err = caseGoals(small); err != nil || !strings.HasPrefix(goals[0].text, "alternative c0 alone") {
		t.Errorf("a small any group's first goal is %q (%v), want its alone goal", goals[0].text, err)
	}
}

// TestDiffWideMin: a diff across a min() of ten thousand distinct
// arguments is decided, and correctly, or runs out of its timeout. The chained
// encoding nested ten thousand if-then-else terms, which overflowed Z3's
// stack in the first check (the process died) or, with equal arguments,
// kept Z3 deleting the context for a minute after the deadline.
func TestDiffWideMin(t *testing.T) {
	t.Parallel()
	old, new := solvertest.WideMin(t, 10000, 12), solvertest.WideMin(t, 10000, 13)
	d, err := Diff(context.Background(), old, new, DiffOptions{Timeout: 30 * time.Second})
	if errors.Is(err, z3.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		// A loaded machine may not decide it in time: then the answer is
		// that it ran out, which is what the bound promises.
		t.Logf("the diff ran out of time, as bounded: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if d.Equivalent || len(d.Changes) != 1 || d.Changes[0].Kind != ChangeEligibleToNotEligible {
		t.Fatalf("changes %+v, want only eligible_to_not_eligible (a min of 12 now fails)", d.Changes)
	}
	raw, err := json.Marshal(d.Changes[0].Witness)
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []struct {
		r    *engine.Ruleset
		want engine.Outcome
	}{{old, engine.Eligible}, {new, engine.NotEligible}} {
		in, err := side.r.Convert(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := side.r.Evaluate(in, engine.Options{}).Outcome; got != side.want {
			t.Errorf("witness %s gives %s, want %s", raw, got, side.want)
		}
	}
}

// TestReviewToolsWideMin: every review tool finishes on the wide min under
// a deadline, with an answer or a report saying it ran out.
func TestReviewToolsWideMin(t *testing.T) {
	t.Parallel()
	r := solvertest.WideMin(t, 10000, 12)
	cases := []engine.Case{mutCase("high", `{"a.x": 100, "a.y": 100}`, "eligible")}
	rep, err := MutationScoreWith(context.Background(), r, cases, MutationOptions{Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete && rep.Incomplete.Reason != bound.IncompleteDeadline {
		t.Errorf("mutation score: %+v", rep.Progress)
	}
	sug, err := SuggestCasesReport(context.Background(), r, cases, SuggestOptions{DecisionDate: "2025-01-01", Budget: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !sug.Complete && sug.Incomplete.Reason != bound.IncompleteDeadline {
		t.Errorf("suggestions: %+v", sug.Progress)
	}
	if _, err := Analyze(context.Background(), r, AnalyzeOptions{Timeout: 3 * time.Second}); err != nil &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, z3.ErrTimeout) {
		t.Errorf("analysis: %v", err)
	}
}

// TestGate: a full gate makes a waiting run give up at its deadline, and
// the mutation score reports that wait as its deadline.
func TestGate(t *testing.T) {
	t.Parallel()
	g := bound.NewGate(1)
	release, err := g.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second run entered a full gate: %v", err)
	}
	if took, more := g.TryMore(3); took != 0 {
		more()
		t.Errorf("took %d spare slots of a full gate", took)
	}
	r := solvertest.Compile(t, suggestRules(solvertest.Group("g", "all", "a.x >= 12"), "g"))
	rep, err := MutationScoreWith(context.Background(), r, nil, MutationOptions{Gate: g, Timeout: 50 * time.Millisecond})
	if err != nil || rep.Complete || rep.Incomplete.Reason != bound.IncompleteDeadline || rep.Done != 0 {
		t.Errorf("score behind a full gate: %+v, %v", rep, err)
	}
	release()
	rep, err = MutationScoreWith(context.Background(), r, nil, MutationOptions{Gate: g})
	if err != nil || !rep.Complete {
		t.Errorf("score through a free gate: %+v, %v", rep, err)
	}
	if took, more := g.TryMore(3); took != 1 {
		t.Errorf("took %d slots of a free gate of 1, want 1", took)
	} else {
		more()
	}
}

// peakHeap runs f while sampling the heap in use, and reports the peak and
// the bytes allocated as benchmark metrics.
func peakHeap(b *testing.B, f func()) {
	b.Helper()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := before.HeapInuse
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	peak = max(peak, after.HeapInuse)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20)/float64(b.N), "alloc-MB/op")
}

// BenchmarkCriteriaBomb measures the mutation score and the suggested
// cases of the bomb under their default bounds (the sample of
// DefaultMaxMutants and DefaultMaxGoals; a 20 s budget as the review gives
// at most).
func BenchmarkCriteriaBomb(b *testing.B) {
	r := solvertest.Compile(b, bombRules(1000, "all"))
	b.Run("mutation", func(b *testing.B) {
		peakHeap(b, func() {
			for b.Loop() {
				rep, err := MutationScoreWith(context.Background(), r, bombCases(), MutationOptions{Timeout: 20 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(rep.Done), "mutants-decided")
			}
		})
	})
	b.Run("suggest", func(b *testing.B) {
		peakHeap(b, func() {
			for b.Loop() {
				rep, err := SuggestCasesReport(context.Background(), r, bombCases(), SuggestOptions{DecisionDate: "2025-01-01", Budget: 20 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(rep.Done), "goals-decided")
			}
		})
	})
}

// BenchmarkWideMin measures a diff across the wide min (a threshold
// moved) and its mutation score.
func BenchmarkWideMin(b *testing.B) {
	old, new := solvertest.WideMin(b, 10000, 12), solvertest.WideMin(b, 10000, 13)
	b.Run("diff", func(b *testing.B) {
		peakHeap(b, func() {
			for b.Loop() {
				if _, err := Diff(context.Background(), old, new, DiffOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("mutation", func(b *testing.B) {
		peakHeap(b, func() {
			for b.Loop() {
				if _, err := MutationScoreWith(context.Background(), old, nil, MutationOptions{Timeout: 20 * time.Second}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// TestGoalSolverClosesWhatItBuiltOnError: when encoding stops (the
// suggestion budget ran out while the rules were encoded), the goal solver
// closes the Z3 context it made. It used to call close on the nil result
// instead and crash the process.
func TestGoalSolverClosesWhatItBuiltOnError(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, bombRules(10, "all"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gs, err := newGoalSolver(ctx, r, r, 0, time.Second)
	if gs != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("newGoalSolver with a cancelled context: %v, %v", gs, err)
	}
}
