package verify

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/solvertest"
)

// TestKills: each boundary case kills the shifted threshold on its side,
// a case far from the boundary kills none, and adding the kills to the
// weak suite's score gives the score of the suite with the cases added.
func TestKills(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, suggestRules(solvertest.Group("g", "all", "a.x >= 12 and a.x > 3"), "g"))
	far := []engine.Case{mutCase("far above", `{"a.x": 40}`, "eligible"), mutCase("far below", `{"a.x": 0}`, "not_eligible")}
	weak, err := MutationScore(context.Background(), r, far)
	if err != nil {
		t.Fatal(err)
	}
	added := []engine.Case{
		mutCase("at", `{"a.x": 12}`, "eligible"),
		mutCase("below", `{"a.x": 11}`, "not_eligible"),
		mutCase("far again", `{"a.x": 50}`, "eligible"),
	}
	kills, err := Kills(context.Background(), r, weak.Survivors, added)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"g_c/shift_threshold/2"},                          // at 12: >= 13 fails it
		{"g_c/swap_connective/1", "g_c/shift_threshold/1"}, // at 11: >= 11 holds it; or (11 > 3) holds it
		nil,
	}
	for i, k := range kills {
		if got := mutantIDs(k); !slices.Equal(got, want[i]) {
			t.Errorf("%s kills %q, want %q", added[i].Name, got, want[i])
		}
	}
	grown, err := MutationScore(context.Background(), r, append(slices.Clone(far), added...))
	if err != nil {
		t.Fatal(err)
	}
	killed := map[string]bool{}
	for _, k := range kills {
		for _, m := range k {
			killed[m.ID] = true
		}
	}
	if weak.Killed+len(killed) != grown.Killed || grown.Total != weak.Total {
		t.Errorf("weak %d/%d + %d killed by the added cases, but the grown suite kills %d/%d", weak.Killed, weak.Total, len(killed), grown.Killed, grown.Total)
	}

	if _, err := Kills(context.Background(), r, []Mutant{{ID: "nosuch/flip_comparison/1"}}, added); err == nil {
		t.Error("a survivor of another ruleset: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Kills(ctx, r, weak.Survivors, added); err == nil {
		t.Error("an ended context: no error")
	}
}

// TestKillsReportBounds: KillsReport waits for a slot of the gate within
// its tenant's share and its budget, and a run that cannot start or
// finish answers the survivors it decided marked incomplete, not an
// error; through a free gate it answers what Kills does, complete.
func TestKillsReportBounds(t *testing.T) {
	t.Parallel()
	r := solvertest.Compile(t, suggestRules(solvertest.Group("g", "all", "a.x >= 12 and a.x > 3"), "g"))
	weak, err := MutationScore(context.Background(), r, []engine.Case{mutCase("far above", `{"a.x": 40}`, "eligible")})
	if err != nil || len(weak.Survivors) == 0 {
		t.Fatalf("score: %+v, %v", weak, err)
	}
	added := []engine.Case{mutCase("at", `{"a.x": 12}`, "eligible"), mutCase("below", `{"a.x": 11}`, "not_eligible")}
	gate := bound.NewGate(2) // a tenant holds at most one slot
	held, err := gate.For("acme").Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		opts   KillsOptions
		reason string
	}{
		{"the tenant's share is held", context.Background(), KillsOptions{Gate: gate.For("acme"), Budget: 50 * time.Millisecond}, bound.IncompleteDeadline},
		{"the caller went away", cancelled, KillsOptions{Gate: gate.For("other")}, bound.IncompleteCanceled},
	} {
		rep, err := KillsReport(tc.ctx, r, weak.Survivors, added, tc.opts)
		if err != nil || rep.Complete || rep.Incomplete == nil || rep.Incomplete.Reason != tc.reason || rep.Done != 0 || rep.Planned != len(weak.Survivors) {
			t.Errorf("%s: %+v, %v; want incomplete (%s) with nothing done", tc.name, rep.Progress, err, tc.reason)
		}
		if len(rep.Kills) != len(added) {
			t.Errorf("%s: %d kill lists for %d cases", tc.name, len(rep.Kills), len(added))
		}
	}
	held()
	rep, err := KillsReport(context.Background(), r, weak.Survivors, added, KillsOptions{Gate: gate.For("acme")})
	want, werr := Kills(context.Background(), r, weak.Survivors, added)
	if err != nil || werr != nil || !rep.Complete || rep.Done != len(weak.Survivors) {
		t.Fatalf("through a free gate: %+v, %v, %v", rep.Progress, err, werr)
	}
	for i := range want {
		if !slices.Equal(mutantIDs(rep.Kills[i]), mutantIDs(want[i])) {
			t.Errorf("case %d kills %q, Kills says %q", i, mutantIDs(rep.Kills[i]), mutantIDs(want[i]))
		}
	}
}
