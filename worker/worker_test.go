package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/metrics/metricstest"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
	"github.com/eligo/eligo/worker"
)

// TestPruneUsage runs the prune job on a real River client: buckets older
// than the 30-day window go, the window's first hour and later stay.
func TestPruneUsage(t *testing.T) {
	ctx := context.Background()
	st := store.New(storetest.New(t))
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)
	first := metering.WindowEnding(now, metering.MonthHours).First

	hours := map[string]time.Time{
		"long gone":       first.Add(-48 * time.Hour),
		"hour before":     first.Add(-time.Hour),
		"first kept hour": first,
		"current hour":    metering.HourOf(now),
	}
	var counts []store.UsageCount
	for name, h := range hours {
		counts = append(counts, store.UsageCount{Subject: "key:1", Class: "decide", Hour: h, Count: int64(len(name))})
	}
	if err := st.AddUsage(ctx, counts); err != nil {
		t.Fatal(err)
	}
	// Two Idempotency-Key claims, one older than a day: only it goes.
	for key, age := range map[string]time.Duration{"old": 25 * time.Hour, "recent": time.Hour} {
		k := store.IdempotencyKey{TenantID: "acme", Operation: "create-project", Key: key}
		if _, _, err := st.ClaimIdempotency(ctx, k, "h", time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Pool().Exec(ctx, "UPDATE idempotency_keys SET created_at = $1 WHERE key = $2", now.Add(-age), key); err != nil {
			t.Fatal(err)
		}
	}

	// Two console sessions, one idle for longer than auth.SessionIdle:
	// only it goes.
	_, key, _, err := auth.IssueKey(ctx, st, auth.KeyRequest{TenantID: "acme", Scopes: []auth.Scope{auth.ScopeDecide}, Tier: auth.TierFree})
	if err != nil {
		t.Fatal(err)
	}
	for i, seen := range []time.Time{now.Add(-auth.SessionIdle - time.Minute), now.Add(-time.Minute)} {
		hash := make([]byte, 32)
		hash[0] = byte(i + 1)
		if err := st.CreateConsoleSession(ctx, store.NewConsoleSession{IDHash: hash, TenantID: "acme", APIKeyID: key.ID,
			CreatedAt: seen, ExpiresAt: seen.Add(auth.SessionLifetime)}); err != nil {
			t.Fatal(err)
		}
	}

	// Two caseloads, one past its retention: only it goes. A run of the
	// other that has not reported for longer than ImpactStaleAfter is
	// failed as abandoned.
	p, _, err := st.CreateProject(ctx, store.Project{TenantID: "acme", Name: "p", SectionID: "s", TestCases: []byte("[]")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept string
	for _, keep := range []time.Duration{-time.Hour, 24 * time.Hour} {
		c, err := st.AddCaseload(ctx, store.Caseload{ProjectID: p.ID, TenantID: "acme", Filename: "c.jsonl", Format: "jsonl", Retention: keep}, 0,
			func(io.Writer) (store.Caseload, error) { return store.Caseload{}, nil })
		if err != nil {
			t.Fatal(err)
		}
		kept = c.ID
	}
	if _, err := st.Pool().Exec(ctx, `INSERT INTO impact_runs (id, project_id, tenant_id, caseload_id, baseline_ruleset_id, candidate_draft,
		decision_date, examples, rows_total, state, updated_at) VALUES ($1, $2, 'acme', $3, 'b', 'd', '2026-01-15', 0, 0, 'running', now() - interval '2 hours')`,
		store.NewImpactRunID(), p.ID, kept); err != nil {
		t.Fatal(err)
	}

	// Two logged decisions, kept 30 days: the one decided 31 days ago
	// loses its answers (its record stays), the other keeps them.
	var answered []store.DecisionRecord
	for i, age := range []time.Duration{31 * 24 * time.Hour, time.Hour} {
		answered = append(answered, store.DecisionRecord{DecisionID: fmt.Sprintf("dec_prune%011d", i), TenantID: "acme", RulesetID: "r", Slug: "acme/r",
			RulesetVersion: "v1", ContentDigest: "sha256:" + strings.Repeat("0", 64), EngineVersion: "e", Outcome: "eligible",
			InputsHash: "sha256:" + strings.Repeat("1", 64), DecidedAt: time.Now().Add(-age).UTC(),
			Answers: []byte(`{"a.b":1}`), AnswerSetting: 1, AnswerRetentionDays: 30})
	}
	if err := st.InsertDecisions(ctx, answered); err != nil {
		t.Fatal(err)
	}

	m := metrics.New(metrics.Labels{JobKinds: worker.Kinds()})
	_, done := startJobs(t, st, worker.Config{Now: func() time.Time { return now }, Metrics: m})

	// The periodic schedule runs a prune on start; wait for it.
	ev := completed(t, done, worker.PruneUsageArgs{}.Kind())
	var out worker.PruneUsageOutput
	if err := json.Unmarshal(ev.Job.Output(), &out); err != nil {
		t.Fatalf("job output %s: %v", ev.Job.Output(), err)
	}
	if out.Deleted != 2 || !out.Cutoff.Equal(first) || out.IdempotencyKeys != 1 || out.ConsoleSessions != 1 || out.Caseloads != 1 ||
		out.Answers != 1 || out.StaleImpactRuns != 1 {
		t.Errorf("output = %+v, want 2 buckets deleted before %s, 1 idempotency key, 1 console session, 1 caseload, 1 decision's answers and 1 stale impact run", out, first)
	}
	for i, wantKept := range []bool{false, true} {
		_, err := st.LoggedAnswerOf(ctx, answered[i].DecisionID)
		if kept := err == nil; kept != wantKept || (err != nil && !errors.Is(err, store.ErrNotFound)) {
			t.Errorf("answers of %s: kept = %v (%v), want %v", answered[i].DecisionID, kept, err, wantKept)
		}
		if _, err := st.DecisionByID(ctx, answered[i].DecisionID); err != nil {
			t.Errorf("record of %s: %v, want it kept whatever its answers' retention", answered[i].DecisionID, err)
		}
	}
	// The job is counted, by kind and state (its own subscription
	// delivers the event too, shortly).
	counted := func() float64 {
		return metricstest.Sum(t, m.Gatherer(), "eligo_jobs_total", map[string]string{"kind": ev.Job.Kind, "state": "completed"})
	}
	for wait := time.Now().Add(10 * time.Second); counted() < 1 && time.Now().Before(wait); {
		time.Sleep(10 * time.Millisecond)
	}
	if counted() != 1 {
		t.Errorf("eligo_jobs_total{kind=%s,state=completed} = %v, want 1", ev.Job.Kind, counted())
	}
	for name, h := range hours {
		n, err := st.UsageSum(ctx, "key:1", "decide", h, h)
		if err != nil {
			t.Fatal(err)
		}
		wantKept := !h.Before(first)
		if kept := n > 0; kept != wantKept {
			t.Errorf("%s (%s): kept = %v, want %v", name, h, kept, wantKept)
		}
	}
}

// startJobs starts a worker over st with cfg and returns it with a
// subscription to its completed and failed jobs; it is stopped when the
// test ends.
func startJobs(t *testing.T, st *store.Store, cfg worker.Config) (*river.Client[pgx.Tx], <-chan *river.Event) {
	t.Helper()
	ctx := context.Background()
	client, err := worker.New(st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, stop := context.WithTimeout(ctx, 5*time.Second)
		defer stop()
		if err := worker.Stop(stopCtx, client); err != nil {
			t.Errorf("worker.Stop: %v", err)
		}
		cancel()
	})
	return client, events
}

// completed waits for the next job of kind to end and fails the test
// unless it completed; other kinds' events are skipped.
func completed(t *testing.T, events <-chan *river.Event, kind string) *river.Event {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Job.Kind != kind {
				continue
			}
			if ev.Kind != river.EventKindJobCompleted {
				t.Fatalf("%s job: %s (errors %v), want completed", kind, ev.Kind, ev.Job.Errors)
			}
			return ev
		case <-timeout:
			t.Fatalf("no %s job ended within 30s", kind)
		}
	}
}
