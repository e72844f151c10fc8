package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// baseline and a candidate ruleset in River jobs on the impact queue,
// which every `eligo serve` works: the jobs need the catalog that loads
// published cuts and the process's CPU gate, which the server holds. The
// run's first job (ImpactArgs) cuts the caseload into parts of about
// ImpactConfig.PartBytes at row boundaries (impact.Split) and enqueues a
// job for each (ImpactPartArgs), so that the parts of one run spread over
// every worker of every replica with nothing more to operate. Each part
// decides its rows under a CPU slot, reports its progress on its own row
// (the run's progress is their sum) and leaves its report; the last part
// to end merges the reports in file order into the run's and ends it.
// A cancel ends the run's row at once; every part, which looks at the row
// every ImpactPoll, stops within that and leaves the report of what it
// decided, so the merged report is marked partial. A part that fails (its
// time limit, the server) fails the run, which stops the others the same
// way.

// ImpactArgs names the run a job splits into parts; nothing else.
type ImpactArgs struct {
	RunID string `json:"run_id"`
}

// Kind is the job's name in River's table.
func (ImpactArgs) Kind() string { return "impact_run" }

// ImpactPartArgs names the part of a run a job decides.
type ImpactPartArgs struct {
	RunID string `json:"run_id"`
	Seq   int    `json:"seq"`
}

// Kind is the job's name in River's table.
func (ImpactPartArgs) Kind() string { return "impact_run_part" }

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
	// DefaultImpactPartBytes is the size of a run's parts: about 17,000
	// cases of the casebank's SNAP rules, a quarter of a second of one
	// core (docs/performance.md#caseload-impact), so that the largest
	// caseload kept is eight parts, enough to spread over a deployment's
	// cores, while what a part costs beyond its rows (a job, loading the
	// rulesets, merging a report) stays a small fraction.
	DefaultImpactPartBytes = 4 << 20
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
	// PartBytes is the size in bytes a run's parts are cut to, at row
	// boundaries (DefaultImpactPartBytes); tests set it small to split
	// small caseloads.
	PartBytes int64
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
	if c.PartBytes <= 0 {
		c.PartBytes = DefaultImpactPartBytes
	}
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

// ImpactWorker runs a run's first job: it splits the run into parts.
type ImpactWorker struct {
	river.WorkerDefaults[ImpactArgs]
	runner *ImpactRunner
}

// Timeout is River's bound on the job: the run's own, with a minute to
// record its end.
func (w *ImpactWorker) Timeout(*river.Job[ImpactArgs]) time.Duration {
	return w.runner.cfg.RunTimeout + time.Minute
}

// errCancelled is the cause of a part's context when its run's row was
// ended by something else: a cancel, or another part's failure.
var errCancelled = errors.New("the run was cancelled")

// Work starts a run and splits it into parts, each enqueued as a job in
// the transaction that records it. It never asks River to retry: a failed
// run records why, and the caller starts another.
func (w *ImpactWorker) Work(ctx context.Context, job *river.Job[ImpactArgs]) error {
	r, id := w.runner, job.Args.RunID
	run, err := r.store.MarkImpactRunning(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // cancelled, or deleted with its caseload, before it started
	}
	if err != nil {
		return err
	}
	parts, err := w.split(ctx, run)
	if err == nil {
		err = r.store.AddImpactParts(ctx, id, parts, func(ctx context.Context, tx pgx.Tx, seq int) (int64, error) {
			res, err := r.client.InsertTx(ctx, tx, ImpactPartArgs{RunID: id, Seq: seq}, &river.InsertOpts{Queue: ImpactQueue, MaxAttempts: 1})
			if err != nil {
				return 0, err
			}
			return res.Job.ID, nil
		})
		if errors.Is(err, store.ErrNotFound) {
			return nil // cancelled, or deleted, while it was split
		}
	}
	if err == nil {
		return nil
	}
	var unreadable *caseloadError
	end := store.ImpactEnd{State: store.ImpactFailed, Message: "the run failed on the server; start it again"}
	if errors.As(err, &unreadable) {
		end.Message = unreadable.Error()
	} else {
		r.logger.Error("impact run", "run", id, "err", err)
	}
	if _, err := r.store.FinishImpactRun(context.WithoutCancel(ctx), id, end); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// caseloadError is a caseload that cannot be split, read as a whole (a
// CSV header that cannot be read): the run fails saying so.
type caseloadError struct{ err error }

func (e *caseloadError) Error() string { return e.err.Error() }

// split cuts run's caseload into parts of about PartBytes, at row
// boundaries.
func (w *ImpactWorker) split(ctx context.Context, run store.ImpactRun) ([]store.ImpactPart, error) {
	r := w.runner
	caseload, err := r.store.CaseloadOf(ctx, run.TenantID, run.ProjectID, run.CaseloadID)
	if err != nil {
		return nil, err
	}
	format, err := impact.ParseFormat(caseload.Format)
	if err != nil {
		return nil, err
	}
	parts, err := impact.Split(ctx, r.store.CaseloadReader(ctx, run.CaseloadID, 0, caseload.Size), format, r.cfg.PartBytes)
	if err != nil && ctx.Err() == nil {
		return nil, &caseloadError{err}
	}
	if err != nil {
		return nil, err
	}
	out := make([]store.ImpactPart, len(parts))
	for i, p := range parts {
		out[i] = store.ImpactPart{RunID: run.ID, Seq: i, Offset: p.Offset, End: p.End, FirstLine: p.Line}
	}
	return out, nil
}

// ImpactPartWorker runs the job of one part of a run.
type ImpactPartWorker struct {
	river.WorkerDefaults[ImpactPartArgs]
	runner *ImpactRunner
}

// Timeout is River's bound on the job: the run's own (which counts from
// the run's start), with a minute to record its end.
func (w *ImpactPartWorker) Timeout(*river.Job[ImpactPartArgs]) time.Duration {
	return w.runner.cfg.RunTimeout + time.Minute
}

// Work decides one part of a run and records its end; the last part of
// the run to end merges the parts' reports and ends the run. A part whose
// run ended before it began (a cancel, another part's failure) ends
// stopped without deciding.
func (w *ImpactPartWorker) Work(ctx context.Context, job *river.Job[ImpactPartArgs]) error {
	r, id, seq := w.runner, job.Args.RunID, job.Args.Seq
	end := store.ImpactPartEnd{State: store.ImpactPartStopped}
	run, part, err := r.store.MarkImpactPartRunning(ctx, id, seq)
	switch {
	case err == nil:
		end, err = w.decide(ctx, run, part)
		if err != nil {
			r.logger.Error("impact run part", "run", id, "part", seq, "err", err)
			end = store.ImpactPartEnd{State: store.ImpactFailed, Message: "the run failed on the server; start it again"}
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	_, err = r.store.FinishImpactPart(context.WithoutCancel(ctx), id, seq, end, r.merge)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// decide decides one part of run's caseload and says how it ended; an
// error is the server's, not the caseload's.
func (w *ImpactPartWorker) decide(ctx context.Context, run store.ImpactRun, part store.ImpactPart) (store.ImpactPartEnd, error) {
	r := w.runner
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	// The time limit is the run's, counted from its start (by the
	// database's clock, which recorded it), whenever the part begins.
	var cancel context.CancelFunc
	if run.StartedAt != nil {
		ctx, cancel = context.WithDeadline(ctx, run.StartedAt.Add(r.cfg.RunTimeout))
	} else {
		ctx, cancel = context.WithTimeout(ctx, r.cfg.RunTimeout)
	}
	defer cancel()
	go r.watch(ctx, run.ID, stop)

	baseline, candidate, err := r.rulesets(ctx, run)
	if err != nil {
		return store.ImpactPartEnd{}, err
	}
	caseload, err := r.store.CaseloadOf(ctx, run.TenantID, run.ProjectID, run.CaseloadID)
	if err != nil {
		return store.ImpactPartEnd{}, err
	}
	format, err := impact.ParseFormat(caseload.Format)
	if err != nil {
		return store.ImpactPartEnd{}, err
	}
	opts := impact.Options{Baseline: baseline, Candidate: candidate, Format: format, DefaultDate: value.DateOf(run.DecisionDate),
		Examples: run.Examples, FirstLine: part.FirstLine}
	if part.Offset > 0 {
		opts.Header = &storeReader{r: r.store.CaseloadReader(ctx, run.CaseloadID, 0, part.Offset)}
	}
	body := &storeReader{r: r.store.CaseloadReader(ctx, run.CaseloadID, part.Offset, part.End)}
	release, err := r.gate.For(run.TenantID).Enter(ctx)
	if err != nil {
		return stopped(ctx, nil, r.cfg.RunTimeout, "waiting for a CPU slot")
	}
	defer release()
	var last time.Time
	opts.Progress = func(p impact.Progress) {
		if time.Since(last) < ImpactPoll {
			return
		}
		last = time.Now()
		if err := r.store.ImpactPartProgress(ctx, run.ID, part.Seq, p.Rows, p.Cases); errors.Is(err, store.ErrNotFound) {
			stop(errCancelled)
		} else if err != nil && ctx.Err() == nil {
			r.logger.Warn("impact progress", "run", run.ID, "part", part.Seq, "err", err)
		}
	}
	rep, err := impact.Run(ctx, body, opts)
	if ctx.Err() != nil {
		return stopped(ctx, rep, r.cfg.RunTimeout, "")
	}
	if h, _ := opts.Header.(*storeReader); body.err != nil || (h != nil && h.err != nil) {
		return store.ImpactPartEnd{}, fmt.Errorf("read part %d: %w", part.Seq, err)
	}
	if err != nil {
		// The caseload cannot be read as a whole (a CSV header the
		// rulesets cannot type, more rows than a run reads).
		return store.ImpactPartEnd{State: store.ImpactFailed, Message: err.Error()}, nil
	}
	return partEnded(store.ImpactSucceeded, rep, "")
}

// storeReader remembers a failed read of a caseload's bytes, so that the
// store's failure is told from a caseload that cannot be read.
type storeReader struct {
	r   io.Reader
	err error
}

func (s *storeReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}

// merge adds the reports of a run's parts up, in file order, into the
// run's end: succeeded when every part left one (the store marks the
// report partial on a run a cancel or a failed part ended). A part's
// report that cannot be read or merged with the others' fails the run on
// the server's account with the others' merged report, partial: an error
// here would roll the last part's end back and leave the run running,
// holding one of its tenant's runs, until the stale prune.
func (r *ImpactRunner) merge(run store.ImpactRun, reports []json.RawMessage) (store.ImpactEnd, error) {
	var rep *impact.Report
	state, partial, msg := store.ImpactSucceeded, false, ""
	for i, raw := range reports {
		if raw == nil {
			partial = true
			continue
		}
		var part impact.Report
		err := json.Unmarshal(raw, &part)
		if err == nil && rep != nil {
			err = rep.Merge(&part, run.Examples)
		}
		if err != nil {
			r.logger.Error("impact run merge", "run", run.ID, "part", i, "err", err)
			state, partial, msg = store.ImpactFailed, true, "the run failed on the server; start it again"
			continue
		}
		if rep == nil {
			rep = &part
		}
	}
	return ended(state, partial, rep, msg)
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

// stopped is the end of a part whose context ended, with the report of
// what it decided (nil when it had not begun): stopped when its run's row
// was ended by something else, else failed for its run's time limit.
func stopped(ctx context.Context, rep *impact.Report, limit time.Duration, while string) (store.ImpactPartEnd, error) {
	if errors.Is(context.Cause(ctx), errCancelled) {
		return partEnded(store.ImpactPartStopped, rep, "")
	}
	msg := fmt.Sprintf("the run reached its time limit of %s", limit)
	if while != "" {
		msg += " " + while
	}
	return partEnded(store.ImpactFailed, rep, msg)
}

// partEnded is a part's end with its report encoded and its final counts
// taken from it.
func partEnded(state string, rep *impact.Report, msg string) (store.ImpactPartEnd, error) {
	end, err := ended(state, false, rep, msg)
	return store.ImpactPartEnd{State: end.State, Report: end.Report, Message: end.Message, Rows: end.Rows, Cases: end.Cases}, err
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
