// Package worker runs Eligo's background jobs on River, PostgreSQL's job
// queue: work that must happen eventually and exactly once across replicas,
// but never on a request's path.
//
// New builds a River client over the store's pool with every job kind
// registered and the periodic schedule set; `eligo worker` runs one on its
// own and `eligo serve` runs one beside the API (its --worker flag). River
// elects one leader among all clients on a database, and only the leader
// schedules periodic jobs, so any number of processes may run a worker.
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/store"
)

// Config is what a worker needs besides its store.
type Config struct {
	// Logger receives River's and the jobs' log lines; slog.Default() when
	// nil.
	Logger *slog.Logger
	// Now is the clock jobs read; time.Now when nil. Tests move it.
	Now func() time.Time
	// MaxWorkers bounds the jobs this process runs at once; default 4.
	MaxWorkers int
	// Generator, when set, has its generation jobs worked on its own
	// queue by this client, which it then uses to enqueue and cancel them.
	Generator *Generator
	// GenerationOnly works the Generator's queue alone: no default queue
	// and no periodic jobs (`eligo serve` without --worker).
	GenerationOnly bool
	// Impact, when set, has its impact runs worked on ImpactQueue by
	// this client, which it then uses to enqueue them; in GenerationOnly
	// mode too, since the runs need the server's catalog and CPU gate.
	Impact *ImpactRunner
	// Metrics counts the jobs that end, by kind and state; nil counts
	// nothing.
	Metrics *metrics.Metrics
	// DecisionRetention is how long decision records are kept
	// (`--decision-retention`); the zero value keeps every one. It rides
	// on the decision_partitions jobs this process schedules, so the
	// leader's setting is the one applied.
	DecisionRetention Retention
}

// New returns a River client, not yet started, that works every Eligo job
// kind and schedules the periodic ones. River runs on st's pool, so jobs and
// the queries they make share one set of connections. Start the client with
// its Start method and stop it with Stop; River's own schema must be
// migrated (`eligo migrate`).
func New(st *store.Store, cfg Config) (*river.Client[pgx.Tx], error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxWorkers <= 0 {
		cfg.MaxWorkers = 4
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &PruneUsageWorker{store: st, now: cfg.Now}); err != nil {
		return nil, fmt.Errorf("register workers: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &DecisionPartitionsWorker{store: st, now: cfg.Now}); err != nil {
		return nil, fmt.Errorf("register workers: %w", err)
	}
	rc := &river.Config{Logger: cfg.Logger, Queues: map[string]river.QueueConfig{}, Workers: workers}
	if !cfg.GenerationOnly || cfg.Generator == nil {
		rc.Queues[river.QueueDefault] = river.QueueConfig{MaxWorkers: cfg.MaxWorkers}
		rc.PeriodicJobs = periodicJobs(cfg)
	}
	if cfg.Generator != nil {
		if err := river.AddWorkerSafely(workers, &GenerateWorker{gen: cfg.Generator}); err != nil {
			return nil, fmt.Errorf("register workers: %w", err)
		}
		rc.Queues[cfg.Generator.queue] = river.QueueConfig{MaxWorkers: cfg.MaxWorkers}
	}
	if cfg.Impact != nil {
		if err := river.AddWorkerSafely(workers, &ImpactWorker{runner: cfg.Impact}); err != nil {
			return nil, fmt.Errorf("register workers: %w", err)
		}
		if err := river.AddWorkerSafely(workers, &ImpactPartWorker{runner: cfg.Impact}); err != nil {
			return nil, fmt.Errorf("register workers: %w", err)
		}
		rc.Queues[ImpactQueue] = river.QueueConfig{MaxWorkers: cfg.MaxWorkers}
	}
	client, err := river.NewClient(riverpgxv5.New(st.Pool()), rc)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	if cfg.Generator != nil {
		cfg.Generator.client = client
	}
	if cfg.Impact != nil {
		cfg.Impact.client = client
	}
	if cfg.Metrics != nil {
		countJobs(client, cfg.Metrics)
	}
	return client, nil
}

// countJobs counts every job client sees end, by kind and state, until the
// client stops (which closes the subscription).
func countJobs(client *river.Client[pgx.Tx], m *metrics.Metrics) {
	events, _ := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed)
	go func() {
		for e := range events {
			if e.Job != nil {
				m.JobEnded(e.Job.Kind, strings.TrimPrefix(string(e.Kind), "job_"))
			}
		}
	}()
}

// Kinds lists every job kind a worker registers: the label set of
// eligo_jobs_total (metrics.Labels.JobKinds), so that each kind's series
// exists before its first job ends.
func Kinds() []string {
	return []string{PruneUsageArgs{}.Kind(), DecisionPartitionsArgs{}.Kind(), GenerateArgs{}.Kind(), ImpactArgs{}.Kind(), ImpactPartArgs{}.Kind()}
}

// periodicJobs is the one schedule of recurring work.
func periodicJobs(cfg Config) []*river.PeriodicJob {
	partitions := DecisionPartitionsArgs{Retention: cfg.DecisionRetention}
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return PruneUsageArgs{}, nil },
			&river.PeriodicJobOpts{ID: PruneUsageArgs{}.Kind(), RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return partitions, nil },
			&river.PeriodicJobOpts{ID: partitions.Kind(), RunOnStart: true}),
	}
}

// Stop stops a started worker: it fetches no more jobs and lets running ones
// finish; if ctx ends first, their contexts are cancelled and Stop waits for
// them to return.
func Stop(ctx context.Context, client *river.Client[pgx.Tx]) error {
	if err := client.Stop(ctx); err == nil {
		return nil
	}
	if err := client.StopAndCancel(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("stop worker: %w", err)
	}
	return nil
}
