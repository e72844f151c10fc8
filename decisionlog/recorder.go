// Package decisionlog writes decision records to PostgreSQL, in one of
// three modes. In spool mode (Open with Config.Spool.Dir set) Record
// returns once the record is in a local spool (package spool): the record
// survives a kill of the process (with Spool.Fsync, a machine crash too)
// without waiting for the database, and a shipper moves the spooled
// records to the table in large COPY batches, deleting a segment only once
// all its records are committed, retrying with backoff while the database
// is down, and shipping at start what an earlier process left. A full
// spool fails Record with ErrBacklogged; a record the database refuses as
// invalid data (see below) is set aside in the spool's quarantine rather
// than dropped. In buffered mode (Config.Buffered) Record returns once the
// record is queued in memory.
//
// In database mode, the default of New, records are written by group
// commit: a request hands its record to Record, which returns only once the
// record is durable in the table, so a decision is never shown without its
// record, not even when the process is killed the moment after. Records that
// arrive together share one COPY: a writer takes the first record waiting,
// adds every other one already queued (up to BatchSize, lingering up to
// Linger for one more when the queue runs dry, never past FlushInterval
// after the first), writes the batch and wakes each of its callers. Several
// writers run at once, so one batch's COPY overlaps the next batch's
// gathering. At low traffic a record is written at once, alone; under load
// batches grow by themselves, and with them the records per COPY.
//
// Nothing is dropped silently. When the queue is full (the database is slower
// than the traffic, or down), Record waits up to EnqueueTimeout for room and
// then fails with ErrBacklogged; when the record is queued but not confirmed
// within WaitTimeout, Record fails with ErrUnconfirmed. The API turns either
// into a 503 and the caller retries (the record may still be written, which
// is harmless: a record without a shown decision is allowed, the reverse
// never). A batch that fails for a transient reason (connection lost,
// timeout, server overloaded or shutting down) is retried with backoff until
// it is written or Close's context ends, which is then reported as an error
// naming the records lost.
//
// A record PostgreSQL refuses as invalid data (SQLSTATE class 22 or 23, such
// as U+0000 in a string or a value breaking a CHECK) can never be written.
// Retrying its batch would only stall the writer, so a refused batch is
// written in halves, recursively, until every other record is stored. Each
// record refused on its own is left out, logged at ERROR with its decision
// id and SQLSTATE (never its values), counted (the metrics' refused
// records and the total Close logs), and its Record fails with ErrRefused. A record refused because its decision id is already
// in the table was stored by an earlier COPY whose acknowledgement was lost,
// and counts as written.
package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eligo/eligo/decisionlog/spool"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/store"
)

// ErrBacklogged is returned by Record when the queue stayed full for
// EnqueueTimeout: the decision must not be served, since it could not be
// recorded.
var ErrBacklogged = errors.New("decision log backlogged: the record queue is full")

// ErrUnconfirmed is returned by Record when its record was queued but not
// confirmed written within WaitTimeout (the database is slow or down): the
// decision must not be served. The record may still be written later.
var ErrUnconfirmed = errors.New("decision log: the record was not confirmed written in time")

// ErrRefused is returned by Record when PostgreSQL refused the record itself
// as invalid data: it will never be written, so the decision must not be
// served.
var ErrRefused = errors.New("decision log: the database refused the record as invalid data")

// ErrClosed is returned by Record after Close has begun, and by a Record
// whose record Close could not write before its context ended.
var ErrClosed = errors.New("decision log closed")

// ErrSpoolUnavailable is returned by Open when the spool cannot be opened:
// its directory is not writable, or (spool.ErrLocked) another process
// holds it.
var ErrSpoolUnavailable = errors.New("decision spool unavailable")

// Writer stores a batch of records, all or none, and says which decision
// ids have no record yet (so a batch copied twice, after a lost
// acknowledgement, costs one more COPY rather than one per record).
// *store.Store is the production Writer.
type Writer interface {
	InsertDecisions(ctx context.Context, records []store.DecisionRecord) error
	MissingDecisionIDs(ctx context.Context, ids []string) ([]string, error)
}

// Config tunes a Recorder. Zero members take the defaults.
type Config struct {
	// Metrics counts records taken, refused and backlogged; nil counts
	// nothing.
	Metrics *metrics.Metrics
	// BatchSize is the most records one COPY writes; default 2000.
	BatchSize int
	// Linger is how long a writer whose queue has run dry waits for one
	// more record before it closes the batch; default 0, close at once
	// (docs/performance.md#tuning-choices has the measurement behind it).
	Linger time.Duration
	// FlushInterval bounds how long a batch stays open after its first
	// record, however fast records keep arriving; default 2ms.
	FlushInterval time.Duration
	// QueueSize bounds the records waiting for a writer; default 65536.
	QueueSize int
	// EnqueueTimeout is how long Record waits for room in a full queue
	// before failing with ErrBacklogged; default 1s.
	EnqueueTimeout time.Duration
	// WaitTimeout is how long Record waits for its record to be confirmed
	// written before failing with ErrUnconfirmed; default 5s.
	WaitTimeout time.Duration
	// Writers is the number of batches that may be written at once (each
	// holds one pool connection while it writes); default 4, so that a
	// batch gathers while others are being written.
	Writers int
	// Buffered makes Record return as soon as the record is queued, before
	// it is written, and gathers records for FlushInterval (default then
	// 250ms) into large COPYs: several times the throughput on a small
	// machine, at the price of losing the records of the last moments
	// when the process is killed (docs/decision-records.md#decision-records). Off by
	// default, so that nothing a caller was shown is ever lost.
	Buffered bool
	// Spool, when its Dir is set, makes Open run the recorder in spool
	// mode (New ignores it): Record returns once the record is in the
	// spool, and a shipper copies spooled records to the table in batches
	// of BatchSize (default then 10,000).
	Spool SpoolConfig
	// Logger receives write failures; slog.Default() when nil.
	Logger *slog.Logger
}

// SpoolConfig configures spool mode. Zero members take the defaults.
type SpoolConfig struct {
	// Dir is the spool's directory, locked by the process while it runs;
	// empty means no spool (database or buffered mode).
	Dir string
	// MaxBytes bounds the spool on disk; a Record that would pass it
	// fails with ErrBacklogged. Default 1 GiB (spool.Config).
	MaxBytes int64
	// SegmentBytes is the size of the spool's segments (spool.Config).
	SegmentBytes int64
	// Fsync makes Record wait for the spool's fsync: records then
	// survive a machine crash or power loss, not only a process kill.
	Fsync bool
	// ShipInterval is how often the shipper seals the segment being
	// written and ships every sealed one; default 200ms, which bounds how
	// long a record waits in the spool while the database is up.
	ShipInterval time.Duration
}

// Mode names a recorder's mode, as the serve flag and /readyz spell it.
type Mode string

// The recorder's modes.
const (
	// ModeSpool answers once the record is in the local spool.
	ModeSpool Mode = "spool"
	// ModeDatabase answers once the record is committed in the table.
	ModeDatabase Mode = "database"
	// ModeBuffered answers once the record is queued in memory.
	ModeBuffered Mode = "buffered"
)

// pending is one record on its way to the table, with the channel its
// caller waits on for the outcome (nil: written).
type pending struct {
	rec  store.DecisionRecord
	done chan error
}

// finish tells p's caller the outcome. done has room for one value and is
// sent on once, so this never blocks, even when the caller stopped waiting;
// a buffered record has no caller waiting (done is nil).
func (p *pending) finish(err error) {
	if p.done != nil {
		p.done <- err
	}
}

// Recorder writes decision records by group commit. Build it with New; it
// is safe for concurrent use.
type Recorder struct {
	cfg    Config
	writer Writer
	// queue holds pointers rather than records: a buffer of 65,536
	// records (about 15 MB of strings' headers) would be scanned by every
	// garbage collection cycle however empty it is, where one of pointers
	// is half a megabyte.
	queue chan *pending
	// pool recycles pendings (and their channels) whose caller received
	// the outcome.
	pool sync.Pool

	// mu guards closed against Record sending on a closed queue: Record
	// holds it for reading while it sends, Close for writing to close.
	mu     sync.RWMutex
	closed bool

	done    chan struct{} // closed when every writer (or the shipper) has returned
	stop    chan struct{} // closed when Close's context ends: give up retrying
	lost    atomic.Int64  // records abandoned after stop
	refused atomic.Int64  // records PostgreSQL refused as invalid data
	stopped sync.Once

	// failing is true while the last write to the database failed and is
	// being retried.
	failing atomic.Bool

	// Spool mode only.
	spool    *spool.Spool
	draining chan struct{} // closed by Close: the shipper's last pass
	full     atomic.Bool   // the last spool append was refused for room
	// encodings recycles the buffers records are encoded in (*[]byte).
	encodings sync.Pool
	shipped   atomic.Int64 // records shipped since Open
}

// New starts a Recorder writing to w in database mode, or buffered mode
// when cfg.Buffered (it ignores cfg.Spool; Open spools). Call Close to
// flush and stop it.
func New(w Writer, cfg Config) *Recorder {
	r := newRecorder(w, withDefaults(cfg), true)
	var writers sync.WaitGroup
	for range r.cfg.Writers {
		writers.Go(r.run)
	}
	go func() {
		writers.Wait()
		close(r.done)
	}()
	return r
}

// Open starts a Recorder in the mode cfg asks for: spool mode when
// cfg.Spool.Dir is set (it opens and locks the spool, and starts the
// shipper, which first ships what an earlier process left), otherwise as
// New. It fails when the spool cannot be opened: the directory is not
// writable, or another process holds it (spool.ErrLocked).
func Open(w Writer, cfg Config) (*Recorder, error) {
	if cfg.Spool.Dir == "" {
		return New(w, cfg), nil
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 10000
	}
	if cfg.Spool.ShipInterval <= 0 {
		cfg.Spool.ShipInterval = 200 * time.Millisecond
	}
	cfg.Buffered = false
	cfg = withDefaults(cfg)
	sp, err := spool.Open(cfg.Spool.Dir, spool.Config{MaxBytes: cfg.Spool.MaxBytes, SegmentBytes: cfg.Spool.SegmentBytes,
		Fsync: cfg.Spool.Fsync, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("decision log: %w: %w", ErrSpoolUnavailable, err)
	}
	r := newRecorder(w, cfg, false)
	r.spool = sp
	r.draining = make(chan struct{})
	go func() {
		defer close(r.done)
		r.ship()
	}()
	return r, nil
}

// newRecorder builds a Recorder with no writer running; its queue holds
// QueueSize records when queued, none otherwise (spool mode queues
// nothing).
func newRecorder(w Writer, cfg Config, queued bool) *Recorder {
	r := &Recorder{
		cfg:    cfg,
		writer: w,
		done:   make(chan struct{}),
		stop:   make(chan struct{}),
	}
	r.queue = make(chan *pending)
	if queued {
		r.queue = make(chan *pending, cfg.QueueSize)
	}
	r.pool.New = func() any { return &pending{done: make(chan error, 1)} }
	r.encodings.New = func() any { return new(make([]byte, 0, 512)) }
	return r
}

// withDefaults fills cfg's zero members with their defaults.
func withDefaults(cfg Config) Config {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 2000
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = 2 * time.Millisecond
		if cfg.Buffered {
			cfg.FlushInterval = 250 * time.Millisecond
		}
	}
	if cfg.Buffered {
		cfg.Linger = cfg.FlushInterval // batches close on size or interval
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 65536
	}
	if cfg.EnqueueTimeout <= 0 {
		cfg.EnqueueTimeout = time.Second
	}
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = 5 * time.Second
	}
	if cfg.Writers <= 0 {
		cfg.Writers = 4
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

// Mode is the mode the recorder runs in.
func (r *Recorder) Mode() Mode {
	switch {
	case r.spool != nil:
		return ModeSpool
	case r.cfg.Buffered:
		return ModeBuffered
	default:
		return ModeDatabase
	}
}

// Record writes rec and returns nil once it is durable in the table (in
// spool mode, once it is in the spool; when Buffered, once it is queued),
// or fails: ErrBacklogged when the queue stayed full for EnqueueTimeout
// (in spool mode, when the spool is full), ErrUnconfirmed when the write
// was not confirmed within WaitTimeout (in spool mode, when the spool's
// write failed), ErrRefused when PostgreSQL refused the record as invalid
// data, ErrClosed after Close (or when Close gave up on it), or ctx's error
// when ctx ends first. Only a nil return allows the decision to be shown.
func (r *Recorder) Record(ctx context.Context, rec store.DecisionRecord) error {
	err := r.record(ctx, rec)
	switch {
	case err == nil:
		r.cfg.Metrics.LogRecords(metrics.LogWritten, 1)
	case errors.Is(err, ErrRefused):
		r.cfg.Metrics.LogRecords(metrics.LogRefused, 1)
	case errors.Is(err, ErrBacklogged), errors.Is(err, ErrUnconfirmed):
		r.cfg.Metrics.LogRecords(metrics.LogBacklogged, 1)
	}
	return err
}

// record is Record without the counting.
func (r *Recorder) record(ctx context.Context, rec store.DecisionRecord) error {
	if r.spool != nil {
		return r.spoolRecord(ctx, rec)
	}
	if r.cfg.Buffered {
		return r.enqueue(ctx, &pending{rec: rec})
	}
	p := r.pool.Get().(*pending)
	p.rec = rec
	if err := r.enqueue(ctx, p); err != nil {
		p.rec = store.DecisionRecord{}
		r.pool.Put(p)
		return err
	}
	timer := time.NewTimer(r.cfg.WaitTimeout)
	defer timer.Stop()
	select {
	case err := <-p.done:
		p.rec = store.DecisionRecord{}
		r.pool.Put(p) // only now: the writer is done with it
		return err
	case <-timer.C:
		return ErrUnconfirmed
	case <-ctx.Done():
		return fmt.Errorf("record decision: %w", ctx.Err())
	}
}

// enqueue puts p on the queue, waiting up to EnqueueTimeout for room.
func (r *Recorder) enqueue(ctx context.Context, p *pending) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return ErrClosed
	}
	select {
	case r.queue <- p:
		return nil
	default:
	}
	timer := time.NewTimer(r.cfg.EnqueueTimeout)
	defer timer.Stop()
	select {
	case r.queue <- p:
		return nil
	case <-timer.C:
		return ErrBacklogged
	case <-ctx.Done():
		return fmt.Errorf("record decision: %w", ctx.Err())
	}
}

// Close stops taking records, writes every queued record and returns when
// the writers have finished. If ctx ends first, the writers stop retrying,
// the callers still waiting get ErrClosed, and Close reports how many
// records could not be written.
//
// In spool mode Close stops taking records, ships what the spool holds and
// releases the spool; if ctx ends first (the database is down), the
// records not shipped stay in the spool for the next process, and are not
// counted as lost.
func (r *Recorder) Close(ctx context.Context) error {
	r.mu.Lock()
	first := !r.closed
	if first {
		r.closed = true
		close(r.queue)
		if r.draining != nil {
			close(r.draining)
		}
	}
	r.mu.Unlock()
	select {
	case <-r.done:
	case <-ctx.Done():
		r.stopped.Do(func() { close(r.stop) })
		<-r.done
	}
	if r.spool != nil && first {
		left := r.spool.Stats()
		if err := r.spool.Close(); err != nil {
			return fmt.Errorf("decision log: close spool: %w", err)
		}
		if left.Bytes > 0 {
			r.cfg.Logger.Warn("decision records left in the spool for the next start to ship",
				"dir", r.spool.Dir(), "bytes", left.Bytes, "segments", left.Segments)
		}
	}
	if refused := r.refused.Load(); refused > 0 {
		// Each was logged as it happened; the total is what an operator
		// checks at the end of a run.
		r.cfg.Logger.Warn("decision records refused as invalid data during this run", "refused", refused)
	}
	if lost := r.lost.Load(); lost > 0 {
		return fmt.Errorf("decision log: %d records could not be written before shutdown", lost)
	}
	return nil
}

// run is one writer: it gathers a batch (see gather) and writes it, until
// Close has closed the queue and it is empty.
func (r *Recorder) run() {
	batch := make([]*pending, 0, r.cfg.BatchSize)
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		first, ok := <-r.queue
		if !ok {
			return
		}
		batch = append(batch[:0], first)
		batch, ok = r.gather(batch, linger)
		r.write(batch)
		clear(batch) // let the written records' strings be collected
		if !ok {
			return
		}
	}
}

// gather adds queued records to batch until it holds BatchSize, or the
// queue has run dry (after waiting up to Linger for one more), or
// FlushInterval has passed since the batch began. ok is false once the
// queue is closed and drained.
func (r *Recorder) gather(batch []*pending, linger *time.Timer) (_ []*pending, ok bool) {
	deadline := time.Now().Add(r.cfg.FlushInterval)
	for len(batch) < r.cfg.BatchSize {
		select {
		case p, open := <-r.queue:
			if !open {
				return batch, false
			}
			batch = append(batch, p)
			continue
		default:
		}
		wait := min(r.cfg.Linger, time.Until(deadline))
		if wait <= 0 {
			return batch, true
		}
		linger.Reset(wait)
		select {
		case p, open := <-r.queue:
			linger.Stop()
			if !open {
				return batch, false
			}
			batch = append(batch, p)
		case <-linger.C:
			return batch, true
		}
	}
	return batch, true
}

// write stores batch and tells each of its callers the outcome. Transient
// failures are retried with backoff until the batch is written or Close
// gives up (the records are then counted in lost); a batch PostgreSQL
// refuses as invalid data is written without the records it refuses (see
// isolate).
func (r *Recorder) write(batch []*pending) {
	if len(batch) == 0 {
		return
	}
	refusal, gaveUp := r.insert(batch)
	switch {
	case gaveUp:
		r.giveUp(batch)
		return
	case refusal == nil:
		finishAll(batch, nil)
		return
	}
	r.cfg.Logger.Warn("decision records refused as invalid data or as already written; isolating them",
		"records", len(batch), "sqlstate", refusal.Code)
	if already := r.isolate(batch, refusal); already > 0 {
		r.cfg.Logger.Info("decision records were already in the table (a write committed but its acknowledgement was lost)",
			"records", already)
	}
}

// finishAll tells every caller of batch the same outcome.
func finishAll(batch []*pending, err error) {
	for _, p := range batch {
		p.finish(err)
	}
}

// insert writes batch, retrying transient failures with backoff until it is
// written or Close stops the retries (gaveUp). When PostgreSQL refuses the
// batch's data it returns the refusal at once: the same COPY would fail the
// same way on every attempt.
func (r *Recorder) insert(batch []*pending) (refusal *pgconn.PgError, gaveUp bool) {
	records := make([]store.DecisionRecord, len(batch))
	for i, p := range batch {
		records[i] = p.rec
	}
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := r.writer.InsertDecisions(ctx, records)
		cancel()
		if err == nil {
			r.failing.Store(false)
			return nil, false
		}
		if refusal := refusedData(err); refusal != nil {
			r.failing.Store(false)
			return refusal, false
		}
		r.failing.Store(true)
		r.cfg.Logger.Error("write decision records", "records", len(batch), "attempt", attempt, "error", err)
		select {
		case <-r.stop:
			return nil, true
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// isolate writes every record of batch that PostgreSQL accepts, given that
// the whole batch was just refused with refusal, and tells each caller its
// outcome: it writes each half and splits again whichever half is refused,
// so a batch of n records with one bad record costs about 2·log2(n) COPYs.
// When the refusal is a duplicate decision id, it first asks which records
// are missing and copies only those (see unrecorded). A record refused
// because its decision id is already in the table was written before (by a
// COPY whose acknowledgement was lost) and counts as written; isolate
// returns how many there were. Any other record refused on its own is
// counted in refused, logged by decision id, and its caller gets
// ErrRefused.
func (r *Recorder) isolate(batch []*pending, refusal *pgconn.PgError) (already int) {
	if len(batch) == 1 {
		if isDuplicate(refusal) {
			batch[0].finish(nil)
			return 1
		}
		r.refused.Add(1)
		// Names only, never refusal.Message: the message of a data error
		// can quote the value refused, which may be the caller's.
		r.cfg.Logger.Error("decision record refused by the database as invalid data; it is not stored",
			"decision_id", batch[0].rec.DecisionID, "sqlstate", refusal.Code,
			"constraint", refusal.ConstraintName, "column", refusal.ColumnName)
		batch[0].finish(ErrRefused)
		return 0
	}
	select {
	case <-r.stop: // Close gave up: no more COPYs
		r.giveUp(batch)
		return 0
	default:
	}
	var parts [][]*pending
	if missing, written, ok := r.unrecorded(batch, refusal); ok {
		already = len(written)
		finishAll(written, nil)
		parts = [][]*pending{missing}
	} else {
		half := len(batch) / 2
		parts = [][]*pending{batch[:half], batch[half:]}
	}
	for _, part := range parts {
		switch refusal, gaveUp := r.insert(part); {
		case gaveUp:
			r.giveUp(part)
		case refusal != nil:
			already += r.isolate(part, refusal)
		default:
			finishAll(part, nil)
		}
	}
	return already
}

// unrecorded splits batch into the records whose decision ids are not in
// the table yet and those that are, when refusal says some are and the
// table confirms it; otherwise ok is false and the batch is split instead.
// It must leave out at least one record, or isolate could ask again forever
// (two copies of one record in the same batch are refused as duplicates
// while neither is stored).
func (r *Recorder) unrecorded(batch []*pending, refusal *pgconn.PgError) (missing, written []*pending, ok bool) {
	if !isDuplicate(refusal) {
		return nil, nil, false
	}
	ids := make([]string, len(batch))
	for i, p := range batch {
		ids[i] = p.rec.DecisionID
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	missingIDs, err := r.writer.MissingDecisionIDs(ctx, ids)
	cancel()
	if err != nil {
		r.cfg.Logger.Warn("look up which decision records are already written; splitting the batch instead",
			"records", len(batch), "error", err)
		return nil, nil, false
	}
	if len(missingIDs) >= len(batch) {
		return nil, nil, false
	}
	wanted := make(map[string]bool, len(missingIDs))
	for _, id := range missingIDs {
		wanted[id] = true
	}
	missing = make([]*pending, 0, len(missingIDs))
	for _, p := range batch {
		if wanted[p.rec.DecisionID] {
			missing = append(missing, p)
		} else {
			written = append(written, p)
		}
	}
	return missing, written, true
}

// isDuplicate reports whether refusal is the one a record's second copy
// gets: its decision id is already in the table. The table is partitioned
// by month, and PostgreSQL names the violated index of the partition the
// copy landed in (decisions_2026_11_pkey, decisions_default_pkey), not the
// parent's decisions_pkey; a second copy has the first's decided_at, so it
// lands in the same partition and meets its primary key.
func isDuplicate(refusal *pgconn.PgError) bool {
	name := refusal.ConstraintName
	return refusal.Code == sqlstateUniqueViolation &&
		strings.HasPrefix(name, decisionsTable) && strings.HasSuffix(name, primaryKeySuffix)
}

// giveUp counts batch as lost after Close's context ended, and with it
// everything still queued, which cannot be written either; their callers
// get ErrClosed. Spooled records are not lost: they stay in the spool for
// the next start.
func (r *Recorder) giveUp(batch []*pending) {
	if r.spool == nil {
		r.lost.Add(int64(len(batch)))
	}
	finishAll(batch, ErrClosed)
	for p := range r.queue {
		r.lost.Add(1)
		p.finish(ErrClosed)
	}
}

const (
	// sqlstateUniqueViolation is unique_violation (23505).
	sqlstateUniqueViolation = "23505"
	// decisionsTable and primaryKeySuffix frame the name of the
	// constraint a second copy of a record violates: decisions_pkey, or
	// a partition's, decisions_YYYY_MM_pkey (the table has no other
	// unique constraint).
	decisionsTable   = "decisions"
	primaryKeySuffix = "_pkey"
)

// refusedData returns err's PostgreSQL error when it refuses the data itself
// (SQLSTATE class 22, data exception, or 23, integrity constraint
// violation): the same records would be refused on every attempt. It
// returns nil for everything worth retrying: connection failures and
// timeouts, which are not PostgreSQL errors, and every other class, which
// concerns the server rather than the records (08 connection exception, 40
// serialization failure, 53 insufficient resources, 57 operator
// intervention such as admin shutdown, 58 system error, and the rest).
func refusedData(err error) *pgconn.PgError {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return nil
	}
	if class := pgErr.Code[:min(2, len(pgErr.Code))]; class == "22" || class == "23" {
		return pgErr
	}
	return nil
}
