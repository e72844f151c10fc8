package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

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
}

// PruneUsageWorker deletes usage buckets older than the longest window
// /usage reports (metering.MonthHours).
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
	if err := river.RecordOutput(ctx, PruneUsageOutput{Cutoff: cutoff, Deleted: n}); err != nil {
		return fmt.Errorf("prune usage: record output: %w", err)
	}
	return nil
}
