package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/store"
)

// PruneUsageArgs asks for the usage buckets no window reads any more to be
// deleted. It runs hourly, so usage_buckets holds about 30 days of hours per
// subject and class however long the service runs. Two prunes in a row are
// harmless: the second finds nothing to delete.
type PruneUsageArgs struct{}

// Kind is the job's name in River's table.
func (PruneUsageArgs) Kind() string { return "prune_usage" }

// PruneUsageOutput is what a prune records on its job row.
type PruneUsageOutput struct {
	// Cutoff is the first hour kept.
	Cutoff time.Time `json:"cutoff"`
	// Deleted is the number of bucket rows removed.
	Deleted int64 `json:"deleted"`
	// IdempotencyKeys is the number of Idempotency-Key claims removed,
	// those older than store.IdempotencyRetention.
	IdempotencyKeys int64 `json:"idempotency_keys"`
	// ConsoleSessions is the number of ended console sessions removed
	// (idle, past their lifetime, or their key revoked or expired).
	ConsoleSessions int64 `json:"console_sessions"`
	// Caseloads is the number of caseloads removed (with their impact
	// runs) because their retention ended.
	Caseloads int64 `json:"caseloads"`
	// Answers is the number of decisions whose logged answers were
	// removed because their retention ended (docs/decision-records.md#answer-logging).
	Answers int64 `json:"answers"`
	// StaleImpactRuns is the number of impact runs failed because the
	// process running them stopped (ImpactStaleAfter).
	StaleImpactRuns int64 `json:"stale_impact_runs"`
}

// PruneUsageWorker deletes usage buckets older than the longest window
// /usage reports (metering.MonthHours), and Idempotency-Key claims older
// than a day (store.IdempotencyRetention), and console sessions that have
// ended (auth.SessionIdle, auth.SessionLifetime) but were never signed out
// or used again, and caseloads past their retention (with their impact
// runs), and decisions' logged answers past theirs, and fails the impact runs abandoned by a process that stopped.
type PruneUsageWorker struct {
	// WorkerDefaults gives the prune River's defaults for middleware, the
	// retry schedule and the job timeout; it overrides none of them.
	river.WorkerDefaults[PruneUsageArgs]
	// store deletes the buckets.
	store *store.Store
	// now is the clock the cutoff is computed from (Config.Now).
	now func() time.Time
}

// Work deletes the buckets before the first hour of the 30-day window and
// records the cutoff and the count as the job's output.
func (w *PruneUsageWorker) Work(ctx context.Context, _ *river.Job[PruneUsageArgs]) error {
	cutoff := metering.WindowEnding(w.now(), metering.MonthHours).First
	n, err := w.store.DeleteUsageBefore(ctx, cutoff)
	if err != nil {
		return fmt.Errorf("prune usage: %w", err)
	}
	keys, err := w.store.DeleteIdempotencyBefore(ctx, w.now().Add(-store.IdempotencyRetention))
	if err != nil {
		return fmt.Errorf("prune idempotency keys: %w", err)
	}
	now := w.now()
	sessions, err := w.store.DeleteEndedConsoleSessions(ctx, now, now.Add(-auth.SessionIdle))
	if err != nil {
		return fmt.Errorf("prune console sessions: %w", err)
	}
	caseloads, err := w.store.DeleteExpiredCaseloads(ctx)
	if err != nil {
		return fmt.Errorf("prune caseloads: %w", err)
	}
	answers, err := w.store.DeleteExpiredAnswers(ctx)
	if err != nil {
		return fmt.Errorf("prune logged answers: %w", err)
	}
	stale, err := w.store.FailStaleImpactRuns(ctx, ImpactStaleAfter)
	if err != nil {
		return fmt.Errorf("prune impact runs: %w", err)
	}
	if err := river.RecordOutput(ctx, PruneUsageOutput{Cutoff: cutoff, Deleted: n, IdempotencyKeys: keys, ConsoleSessions: sessions,
		Caseloads: caseloads, Answers: answers, StaleImpactRuns: stale}); err != nil {
		return fmt.Errorf("prune usage: record output: %w", err)
	}
	return nil
}
