package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// runWorker migrates the database, then works background jobs until ctx
// ends (SIGTERM/SIGINT), letting running jobs finish within the grace period.
// Run it where `eligo serve --worker=false` serves the API, to scale the two
// apart.
func runWorker(ctx context.Context, _ clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	grace := fs.Duration("shutdown-timeout", 15*time.Second, "how long running jobs may finish at shutdown")
	retention := fs.String("decision-retention", envOr("ELIGO_DECISION_RETENTION", "0"), decisionRetentionUsage)
	if err := fs.Parse(args); err != nil {
		return err
	}
	keep, err := worker.ParseRetention(*retention)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	pool, _, err := openMigrated(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	stop, err := startWorker(ctx, store.New(pool), worker.Config{Logger: logger, DecisionRetention: keep})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "eligo worker running")
	<-ctx.Done()
	return stop(*grace)
}

// decisionRetentionUsage is the help of --decision-retention, a flag of
// both serve and worker: whichever process leads the workers applies its
// own setting, so give every one the same.
const decisionRetentionUsage = "how long decision records are kept, in months (13mo) or days (400d): the hourly job drops each month partition of the decisions table entirely older than this; 0 keeps every record (env ELIGO_DECISION_RETENTION)"

// startWorker starts the background jobs on st's pool, for `eligo worker` and
// `eligo serve` alike. stop ends them, letting running jobs finish within
// grace, and may be called after ctx has ended.
func startWorker(ctx context.Context, st *store.Store, cfg worker.Config) (stop func(grace time.Duration) error, err error) {
	jobs, err := worker.New(st, cfg)
	if err != nil {
		return nil, err
	}
	if err := jobs.Start(ctx); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	return func(grace time.Duration) error {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
		defer cancel()
		return worker.Stop(stopCtx, jobs)
	}, nil
}
