package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/solvertest"
)

// mutCase is a case of suggestRules' fields expecting outcome.
func mutCase(name, values, outcome string) engine.Case {
	return engine.Case{Name: name, FieldValues: json.RawMessage(values), ExpectedOutcome: outcome}
}

func mutantIDs(ms []Mutant) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// TestMutations lists the mutants of a small ruleset and what they say.
func TestMutations(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, suggestRules(solvertest.Group("g", "all", "a.x >= 12 and a.b == true")+`group h any "H" {
  criterion h1 "H1" {
    a.d < date("2000-03-01")
    cite law "x"
  }
  criterion h2 "H2" discretionary {
    cite law "x"
  }
}
`, "g and (h or g)"))
	muts, err := mutations(r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range muts {
		got = append(got, fmt.Sprintf("%s [%s] %s", m.ID, m.Criterion, m.Description))
	}
	want := []string{
		"g_c/swap_connective/1 [g_c] a.x >= 12 and a.b == true becomes a.x >= 12 or a.b == true",
		"g_c/flip_comparison/1 [g_c] a.x >= 12 becomes a.x < 12",
		"g_c/shift_threshold/1 [g_c] a.x >= 12 becomes a.x >= 11",
		"g_c/shift_threshold/2 [g_c] a.x >= 12 becomes a.x >= 13",
		"g_c/flip_comparison/2 [g_c] a.b == true becomes a.b != true",
		"g_c/drop_criterion/1 [g_c] criterion g_c dropped from group g: it always holds",
		`h1/flip_comparison/1 [h1] a.d < date("2000-03-01") becomes a.d >= date("2000-03-01")`,
		`h1/shift_threshold/1 [h1] a.d < date("2000-03-01") becomes a.d < date("2000-02-29")`,
		`h1/shift_threshold/2 [h1] a.d < date("2000-03-01") becomes a.d < date("2000-03-02")`,
		"h1/drop_criterion/1 [h1] criterion h1 dropped from group h: it never holds",
		"h2/drop_criterion/1 [h2] criterion h2 dropped from group h: it never holds",
		"outcome/swap_connective/1 [] g and (h or g) becomes g or (h or g)",
		"outcome/swap_connective/2 [] g and (h or g) becomes g and (h and g)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mutants:\n  %q\nwant\n  %q", got, want)
	}
	for _, mu := range muts {
		if _, err := mu.build(r); err != nil {
			t.Errorf("%s: %v", mu.ID, err)
		}
	}
}

// TestMutationScoreBoundaries: a suite far from the threshold lets the
// shifted thresholds survive; the boundary cases kill them; and a mutant
// no answer set can tell apart is left out of the score.
func TestMutationScoreBoundaries(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, suggestRules(solvertest.Group("g", "all", "a.x >= 12 and a.x > 3"), "g"))
	far := []engine.Case{
		mutCase("far above", `{"a.x": 40}`, "eligible"),
		mutCase("far below", `{"a.x": 0}`, "not_eligible"),
	}
	boundary := append(slices.Clone(far),
		mutCase("at", `{"a.x": 12}`, "eligible"), mutCase("below", `{"a.x": 11}`, "not_eligible"),
		mutCase("between", `{"a.x": 5}`, "not_eligible"))
	weak, err := MutationScore(context.Background(), r, far)
	if err != nil {
		t.Fatal(err)
	}
	strong, err := MutationScore(context.Background(), r, boundary)
	if err != nil {
		t.Fatal(err)
	}
	// a.x > 3 moved to > 2 or > 4 changes nothing while a.x >= 12 holds.
	equivalent := []string{"g_c/shift_threshold/3", "g_c/shift_threshold/4"}
	if got := mutantIDs(strong.Equivalent); !slices.Equal(got, equivalent) {
		t.Errorf("equivalent %q, want %q", got, equivalent)
	}
	if got := mutantIDs(weak.Survivors); !slices.Equal(got, []string{"g_c/swap_connective/1", "g_c/shift_threshold/1", "g_c/shift_threshold/2"}) {
		t.Errorf("weak suite survivors %q", got)
	}
	if strong.Killed != strong.Total || strong.Score != 1 || len(strong.Survivors) != 0 {
		t.Errorf("boundary suite: %+v", strong)
	}
	if weak.Total != strong.Total || weak.Score >= strong.Score {
		t.Errorf("weak %+v, strong %+v", weak, strong)
	}
}

// TestMutationScoreDrop: dropping an alternative of an `any` group is
// killed by a case that needs it; dropping a discretionary criterion of an
// `all` group by a case that expects it pending.
func TestMutationScoreDrop(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, suggestRules(`group h any "H" {
  criterion h1 "H1" {
    a.b == true
    cite law "x"
  }
  criterion h2 "H2" {
    a.x > 3
    cite law "x"
  }
}
group o all "O" {
  criterion official "Official" discretionary {
    cite law "x"
  }
}
`, "h and o"))
	cases := []engine.Case{
		mutCase("h1 alone", `{"a.b": true, "a.x": 0}`, "undetermined"),
		mutCase("h2 alone", `{"a.b": false, "a.x": 4}`, "undetermined"),
		mutCase("neither", `{"a.b": false, "a.x": 3}`, "not_eligible"),
	}
	rep, err := MutationScore(context.Background(), r, cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"h1/drop_criterion/1", "h2/drop_criterion/1", "official/drop_criterion/1"} {
		if slices.Contains(mutantIDs(rep.Survivors), id) || slices.Contains(mutantIDs(rep.Equivalent), id) {
			t.Errorf("%s not killed: %+v", id, rep)
		}
	}
}

// TestMutationScoreCasebank scores every casebank folder's cases.json, and
// a deliberately weak suite of its first case, which must score lower.
// The runs get a budget far above the service's: what is tested is the
// score, and a loaded machine under the race detector takes minutes.
func TestMutationScoreCasebank(t *testing.T) {
	t.Parallel()
	opts := MutationOptions{Timeout: 20 * time.Minute}
	for _, cb := range solvertest.Casebank(t) {
		t.Run(cb.Name, func(t *testing.T) {
			t.Parallel()
			full, err := MutationScoreWith(context.Background(), cb.Rules, cb.Cases, opts)
			if err != nil {
				t.Fatal(err)
			}
			weak, err := MutationScoreWith(context.Background(), cb.Rules, cb.Cases[:1], opts)
			if err != nil {
				t.Fatal(err)
			}
			if !full.Progress.Complete || !weak.Progress.Complete {
				t.Fatalf("a run stopped before its end: %+v / %+v", full.Progress, weak.Progress)
			}
			t.Logf("%s: cases.json %d/%d (%.0f%%), first case only %d/%d (%.0f%%)", cb.Name,
				full.Killed, full.Total, 100*full.Score, weak.Killed, weak.Total, 100*weak.Score)
			if weak.Score >= full.Score {
				t.Errorf("the weak suite scores %v, the full one %v", weak.Score, full.Score)
			}
		})
	}
}

// BenchmarkMutationScore scores every casebank folder's cases.json, and
// reports the score.
func BenchmarkMutationScore(b *testing.B) {
	for _, cb := range solvertest.Casebank(b) {
		b.Run(cb.Name, func(b *testing.B) {
			var rep MutationReport
			for b.Loop() {
				var err error
				if rep, err = MutationScore(context.Background(), cb.Rules, cb.Cases); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(100*rep.Score, "score%")
			b.ReportMetric(float64(rep.Total), "mutants")
		})
	}
}
