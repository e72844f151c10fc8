package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/impact"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/store"
)

// An impact run (docs/impact.md#over-http) decides a stored caseload on a
// baseline and a candidate ruleset as a River job on the impact queue,
// which every `eligo serve` works: the job needs the catalog that loads
// published cuts and the process's CPU gate, which the server holds. Its
// row records its progress and its end; a cancel ends the row at once and
// the job, which looks at its row every ImpactPoll, stops within that and
// leaves the report of what it decided, marked partial.

// ImpactArgs names the run a job decides; nothing else.
type ImpactArgs struct {
	RunID string `json:"run_id"`
}

// Kind is the job's name in River's table.
func (ImpactArgs) Kind() string { return "impact_run" }

// ImpactQueue is the River queue impact runs go to.
const ImpactQueue = "impact"

// ImpactPoll is how often a running run looks whether it was cancelled,
// and the least time between two progress writes: a cancel stops a run
// within it (the run itself looks at its context every 256 rows).
const ImpactPoll = 200 * time.Millisecond

// ImpactStaleAfter is how long a run may go without a word (queued, or
// running without reporting) before the hourly prune fails it as
// abandoned by a process that stopped: well past ImpactConfig.RunTimeout,
// so that no live run is failed.
const ImpactStaleAfter = time.Hour

// The defaults and floors of ImpactConfig (docs/limits.md#caseloads).
const (
	DefaultImpactActiveRuns = 2
	DefaultImpactRunTimeout = 10 * time.Minute
	// MinSmallCount is the least a count must be to be shown as it is;
	// configuration may raise it, never lower it.
	MinSmallCount = 10
	// ImpactRetryAfter is the Retry-After of a start over the tenant's
	// limit of runs under way.
	ImpactRetryAfter = 30 * time.Second
)

// ImpactConfig bounds impact runs; a zero member takes its default.
type ImpactConfig struct {
	// MaxActiveRuns is the most runs one tenant may have queued or
	// running at once (DefaultImpactActiveRuns).
	MaxActiveRuns int
	// RunTimeout bounds one run, waiting for a CPU slot included
	// (DefaultImpactRunTimeout); a run that reaches it ends failed with
	// the report of what it decided, marked partial.
	RunTimeout time.Duration
	// SmallCount is the threshold below which a report's counts are
	// shown as "fewer than" it; at least MinSmallCount, which a lower
	// setting is raised to.
	SmallCount int64
}

// withDefaults fills in the zero members and raises SmallCount to its
// floor.
func (c ImpactConfig) withDefaults() ImpactConfig {
	if c.MaxActiveRuns <= 0 {
		c.MaxActiveRuns = DefaultImpactActiveRuns
	}
	if c.RunTimeout <= 0 {
		c.RunTimeout = DefaultImpactRunTimeout
	}
	c.SmallCount = max(c.SmallCount, MinSmallCount)
	return c
}

// ErrImpactWorkerUnavailable is Start's refusal on a process that runs no
// River client for the impact queue.
var ErrImpactWorkerUnavailable = errors.New("this server runs no impact worker")

// ImpactRunner starts, runs and cancels impact runs. Build one with
// NewImpactRunner and give it to New (Config.Impact), which registers its
// worker and queue and hands it the client that enqueues.
type ImpactRunner struct {
	store   *store.Store
	catalog *catalog.Catalog
	gate    *bound.Gate
	cfg     ImpactConfig
	logger  *slog.Logger
	client  *river.Client[pgx.Tx]
}

// NewImpactRunner builds a runner that loads published cuts through cat
// and decides under gate (narrowed to each run's tenant).
func NewImpactRunner(st *store.Store, cat *catalog.Catalog, gate *bound.Gate, cfg ImpactConfig, logger *slog.Logger) *ImpactRunner {
	if logger == nil {
		logger = slog.Default()
	}
	return &ImpactRunner{store: st, catalog: cat, gate: gate, cfg: cfg.withDefaults(), logger: logger}
}

// Config is the runner's configuration, defaults filled in.
func (r *ImpactRunner) Config() ImpactConfig { return r.cfg }

// Start records a queued run and enqueues its job in one transaction.
// The error wraps store.ErrImpactLimit over the tenant's limit,
// store.ErrNotFound for a caseload the tenant does not have, and is
// ErrImpactWorkerUnavailable on a process without a worker.
func (r *ImpactRunner) Start(ctx context.Context, run store.ImpactRun) (store.ImpactRun, error) {
	if r.client == nil {
		return store.ImpactRun{}, ErrImpactWorkerUnavailable
	}
	run.ID = store.NewImpactRunID()
	return r.store.StartImpactRun(ctx, run, r.cfg.MaxActiveRuns, func(ctx context.Context, tx pgx.Tx) (int64, error) {
		res, err := r.client.InsertTx(ctx, tx, ImpactArgs{RunID: run.ID}, &river.InsertOpts{Queue: ImpactQueue, MaxAttempts: 1})
		if err != nil {
			return 0, err
		}
		return res.Job.ID, nil
	})
}

// ImpactWorker runs impact jobs.
type ImpactWorker struct {
	river.WorkerDefaults[ImpactArgs]
	runner *ImpactRunner
}

// Timeout is River's bound on the job: the run's own, with a minute to
// record its end.
func (w *ImpactWorker) Timeout(*river.Job[ImpactArgs]) time.Duration {
	return w.runner.cfg.RunTimeout + time.Minute
}

// errCancelled is the cause of a run's context when its row was
// cancelled.
var errCancelled = errors.New("the run was cancelled")

// Work runs one impact run. It never asks River to retry: a failed run
// records why, and the caller starts another.
func (w *ImpactWorker) Work(ctx context.Context, job *river.Job[ImpactArgs]) error {
	r, id := w.runner, job.Args.RunID
	run, err := r.store.MarkImpactRunning(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // cancelled, or deleted with its caseload, before it started
	}
	if err != nil {
		return err
	}
	detached := context.WithoutCancel(ctx)
	end, err := w.run(ctx, run)
	if err != nil {
		r.logger.Error("impact run", "run", id, "err", err)
		end = store.ImpactEnd{State: store.ImpactFailed, Message: "the run failed on the server; start it again"}
	}
	if _, err := r.store.FinishImpactRun(detached, id, end); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// run decides run's caseload and says how it ended; an error is the
// server's, not the caseload's.
func (w *ImpactWorker) run(ctx context.Context, run store.ImpactRun) (store.ImpactEnd, error) {
	r := w.runner
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	ctx, cancel := context.WithTimeout(ctx, r.cfg.RunTimeout)
	defer cancel()
	go r.watch(ctx, run.ID, stop)

	baseline, candidate, err := r.rulesets(ctx, run)
	if err != nil {
		return store.ImpactEnd{}, err
	}
	caseload, err := r.store.CaseloadOf(ctx, run.TenantID, run.ProjectID, run.CaseloadID)
	if err != nil {
		return store.ImpactEnd{}, err
	}
	format, err := impact.ParseFormat(caseload.Format)
	if err != nil {
		return store.ImpactEnd{}, err
	}
	content, err := r.store.CaseloadContent(ctx, run.CaseloadID)
	if err != nil {
		return store.ImpactEnd{}, err
	}
	release, err := r.gate.For(run.TenantID).Enter(ctx)
	if err != nil {
		return stopped(ctx, nil, r.cfg.RunTimeout, "waiting for a CPU slot")
	}
	defer release()
	var last time.Time
	rep, err := impact.Run(ctx, bytes.NewReader(content), impact.Options{
		Baseline: baseline, Candidate: candidate, Format: format, DefaultDate: value.DateOf(run.DecisionDate), Examples: run.Examples,
		Progress: func(p impact.Progress) {
			if time.Since(last) < ImpactPoll {
				return
			}
			last = time.Now()
			if err := r.store.ImpactProgress(ctx, run.ID, p.Rows, p.Cases); errors.Is(err, store.ErrNotFound) {
				stop(errCancelled)
			} else if err != nil && ctx.Err() == nil {
				r.logger.Warn("impact progress", "run", run.ID, "err", err)
			}
		}})
	if ctx.Err() != nil {
		return stopped(ctx, rep, r.cfg.RunTimeout, "")
	}
	if err != nil {
		// The caseload cannot be read as a whole (a CSV header the
		// rulesets cannot type, more rows than a run reads).
		return store.ImpactEnd{State: store.ImpactFailed, Message: err.Error()}, nil
	}
	return ended(store.ImpactSucceeded, false, rep, "")
}

// watch stops the run (stop, errCancelled) once its row is no longer
// running: a cancel, or its caseload deleted. It looks every ImpactPoll
// until ctx ends.
func (r *ImpactRunner) watch(ctx context.Context, id string, stop context.CancelCauseFunc) {
	t := time.NewTicker(ImpactPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		state, err := r.store.ImpactState(ctx, id)
		if errors.Is(err, store.ErrNotFound) || (err == nil && state != store.ImpactRunning) {
			stop(errCancelled)
			return
		}
	}
}

// stopped is the end of a run whose context ended, with the report of
// what it decided (nil when it had not begun): cancelled when its row was
// cancelled, else failed for its time limit.
func stopped(ctx context.Context, rep *impact.Report, limit time.Duration, while string) (store.ImpactEnd, error) {
	if errors.Is(context.Cause(ctx), errCancelled) {
		return ended(store.ImpactCancelled, true, rep, "")
	}
	msg := fmt.Sprintf("the run reached its time limit of %s", limit)
	if while != "" {
		msg += " " + while
	}
	return ended(store.ImpactFailed, rep != nil, rep, msg)
}

// ended is an end with the report encoded, and the final counts taken
// from it.
func ended(state string, partial bool, rep *impact.Report, msg string) (store.ImpactEnd, error) {
	end := store.ImpactEnd{State: state, Partial: partial, Message: msg}
	if rep == nil {
		return end, nil
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		return end, fmt.Errorf("encode impact report: %w", err)
	}
	end.Report = raw
	rows, cases := rep.Cases, rep.Cases
	for _, b := range rep.BadRows {
		rows += b.Count
	}
	end.Rows, end.Cases = &rows, &cases
	return end, nil
}

// published loads the cut id names.
func (r *ImpactRunner) published(ctx context.Context, id string) (*engine.Ruleset, error) {
	row, err := r.store.RulesetByRef(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read ruleset %s: %w", id, err)
	}
	rs, err := r.catalog.Load(ctx, row)
	if err != nil {
		return nil, fmt.Errorf("load ruleset %s: %w", id, err)
	}
	return rs.Rules, nil
}
