// Package decisionlog writes decision records to PostgreSQL in batches, off
// the request path. A request hands its record to Record, which only queues
// it; background writers copy the queue to the database every BatchSize
// records or every FlushInterval, whichever comes first. There are several
// writers so that one slow COPY does not hold up the next batch. Close
// stops taking records and writes everything queued, so a graceful shutdown
// loses none.
//
// Nothing is dropped silently. When the queue is full (the database is slower
// than the traffic, or down), Record waits up to EnqueueTimeout for room and
// then fails with ErrBacklogged; the API turns that into a 503 and the caller
// retries. A batch that fails for a transient reason (connection lost,
// timeout, server overloaded or shutting down) is retried with backoff until
// it is written or Close's context ends, which is then reported as an error
// naming the records lost.
//
// So every decision a caller was shown has a record, with one exception: a
// record PostgreSQL refuses as invalid data (SQLSTATE class 22 or 23, such as
// U+0000 in a string or a value breaking a CHECK) can never be written.
// Retrying its batch would only stall the writer until the queue filled and
// every request was refused, so a refused batch is written in halves,
// recursively, until every other record is stored. Each record refused on
// its own is left out, logged at ERROR with its decision id and SQLSTATE
// (never its values), and counted by Refused. A record refused because its
// decision id is already in the table was stored by an earlier COPY whose
// acknowledgement was lost, and counts as written.
package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eligo/eligo/store"
)

// ErrBacklogged is returned by Record when the queue stayed full for
// EnqueueTimeout: the decision must not be served, since it could not be
// recorded.
var ErrBacklogged = errors.New("decision log backlogged: the record queue is full")

// ErrClosed is returned by Record after Close has begun.
var ErrClosed = errors.New("decision log closed")

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
	// BatchSize is the most records one COPY writes; default 2000. Fewer,
	// larger COPYs cost PostgreSQL and the server less per record (README,
	// "Tuning choices", has the measurement behind the default).
	BatchSize int
	// FlushInterval is the longest a queued record waits before its batch
	// is written; default 250ms.
	FlushInterval time.Duration
	// QueueSize bounds the records waiting to be written; default 65536,
	// a few seconds of peak traffic in about 20 MB: enough to ride out a
	// checkpoint or a failover without refusing requests.
	QueueSize int
	// EnqueueTimeout is how long Record waits for room in a full queue
	// before failing with ErrBacklogged; default 1s.
	EnqueueTimeout time.Duration
	// Writers is the number of batches that may be written at once (each
	// holds one pool connection while it writes); default 2.
	Writers int
	// Logger receives write failures; slog.Default() when nil.
	Logger *slog.Logger
}

// Recorder queues decision records and writes them in batches. Build it with
// New; it is safe for concurrent use.
type Recorder struct {
	cfg    Config
	writer Writer
	// queue holds pointers rather than records: a buffer of 65,536
	// records (about 15 MB of strings' headers) would be scanned by every
	// garbage collection cycle however empty it is, where one of pointers
	// is half a megabyte. Measured: the server's live heap fell from
	// about 18 MB to a few, and with it the length of each GC cycle.
	queue chan *store.DecisionRecord

	// mu guards closed against Record sending on a closed queue: Record
	// holds it for reading while it sends, Close for writing to close.
	mu     sync.RWMutex
	closed bool

	done    chan struct{} // closed when every writer has returned
	stop    chan struct{} // closed when Close's context ends: give up retrying
	lost    atomic.Int64  // records abandoned after stop
	refused atomic.Int64  // records PostgreSQL refused as invalid data
	stopped sync.Once
}

// New starts a Recorder writing to w. Call Close to flush and stop it.
func New(w Writer, cfg Config) *Recorder {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 2000
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = 250 * time.Millisecond
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 65536
	}
	if cfg.EnqueueTimeout <= 0 {
		cfg.EnqueueTimeout = time.Second
	}
	if cfg.Writers <= 0 {
		cfg.Writers = 2
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Recorder{
		cfg:    cfg,
		writer: w,
		queue:  make(chan *store.DecisionRecord, cfg.QueueSize),
		done:   make(chan struct{}),
		stop:   make(chan struct{}),
	}
	var writers sync.WaitGroup
	for range cfg.Writers {
		writers.Go(r.run)
	}
	go func() {
		writers.Wait()
		close(r.done)
	}()
	return r
}

// Record queues rec for writing. It returns at once when the queue has
// room; otherwise it waits up to EnqueueTimeout (or until ctx ends) and
// returns ErrBacklogged. After Close it returns ErrClosed.
func (r *Recorder) Record(ctx context.Context, rec store.DecisionRecord) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return ErrClosed
	}
	queued := &rec
	select {
	case r.queue <- queued:
		return nil
	default:
	}
	timer := time.NewTimer(r.cfg.EnqueueTimeout)
	defer timer.Stop()
	select {
	case r.queue <- queued:
		return nil
	case <-timer.C:
		return ErrBacklogged
	case <-ctx.Done():
		return fmt.Errorf("record decision: %w", ctx.Err())
	}
}

// Close stops taking records, writes every queued record and returns when
// the writer has finished. If ctx ends first, the writer stops retrying and
// Close reports how many records could not be written.
func (r *Recorder) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.mu.Unlock()
	select {
	case <-r.done:
	case <-ctx.Done():
		r.stopped.Do(func() { close(r.stop) })
		<-r.done
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

// Refused returns how many records PostgreSQL refused as invalid data since
// New (a value it cannot store, such as U+0000 in a string, or a record
// breaking a CHECK): each is left out of the table, logged at ERROR with its
// decision id and SQLSTATE, and does not hold up the others. Close logs the
// total; tests read it to see that nothing else went missing.
func (r *Recorder) Refused() int64 { return r.refused.Load() }

// run is one writer: it gathers records into a batch until the batch is
// full or FlushInterval has passed, then writes it.
func (r *Recorder) run() {
	batch := make([]store.DecisionRecord, 0, r.cfg.BatchSize)
	ticker := time.NewTicker(r.cfg.FlushInterval)
	defer ticker.Stop()
	for {
		select {
		case rec, ok := <-r.queue:
			if !ok {
				r.write(batch)
				return
			}
			batch = append(batch, *rec)
			if len(batch) < r.cfg.BatchSize {
				continue
			}
		case <-ticker.C:
			if len(batch) == 0 {
				continue
			}
		}
		r.write(batch)
		clear(batch) // let the written records' strings be collected
		batch = batch[:0]
	}
}

// write stores batch. Transient failures are retried with backoff until
// the batch is written or Close gives up (the records are then counted in
// lost); a batch PostgreSQL refuses as invalid data is written without the
// records it refuses (see isolate).
func (r *Recorder) write(batch []store.DecisionRecord) {
	if len(batch) == 0 {
		return
	}
	refusal, gaveUp := r.insert(batch)
	switch {
	case gaveUp:
		r.giveUp(len(batch))
		return
	case refusal == nil:
		return
	}
	r.cfg.Logger.Warn("decision records refused as invalid data or as already written; isolating them",
		"records", len(batch), "sqlstate", refusal.Code)
	if already := r.isolate(batch, refusal); already > 0 {
		r.cfg.Logger.Info("decision records were already in the table (a write committed but its acknowledgement was lost)",
			"records", already)
	}
}

// insert writes batch, retrying transient failures with backoff until it is
// written or Close stops the retries (gaveUp). When PostgreSQL refuses the
// batch's data it returns the refusal at once: the same COPY would fail the
// same way on every attempt.
func (r *Recorder) insert(batch []store.DecisionRecord) (refusal *pgconn.PgError, gaveUp bool) {
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := r.writer.InsertDecisions(ctx, batch)
		cancel()
		if err == nil {
			return nil, false
		}
		if refusal := refusedData(err); refusal != nil {
			return refusal, false
		}
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
// the whole batch was just refused with refusal: it writes each half and
// splits again whichever half is refused, so a batch of n records with one
// bad record costs about 2·log2(n) COPYs. When the refusal is a duplicate
// decision id, it first asks which records are missing and copies only
// those (see unrecorded). A record refused because its
// decision id is already in the table was written before (by a COPY whose
// acknowledgement was lost) and counts as written; isolate returns how many
// there were. Any other record refused on its own is counted in refused and
// logged by decision id.
func (r *Recorder) isolate(batch []store.DecisionRecord, refusal *pgconn.PgError) (already int) {
	if len(batch) == 1 {
		if isDuplicate(refusal) {
			return 1
		}
		r.refused.Add(1)
		// Names only, never refusal.Message: the message of a data error
		// can quote the value refused, which may be the caller's.
		r.cfg.Logger.Error("decision record refused by the database as invalid data; it is not stored",
			"decision_id", batch[0].DecisionID, "sqlstate", refusal.Code,
			"constraint", refusal.ConstraintName, "column", refusal.ColumnName)
		return 0
	}
	select {
	case <-r.stop: // Close gave up: no more COPYs
		r.giveUp(len(batch))
		return 0
	default:
	}
	var parts [][]store.DecisionRecord
	if missing, ok := r.unrecorded(batch, refusal); ok {
		already = len(batch) - len(missing)
		parts = [][]store.DecisionRecord{missing}
	} else {
		half := len(batch) / 2
		parts = [][]store.DecisionRecord{batch[:half], batch[half:]}
	}
	for _, part := range parts {
		switch refusal, gaveUp := r.insert(part); {
		case gaveUp:
			r.giveUp(len(part))
		case refusal != nil:
			already += r.isolate(part, refusal)
		}
	}
	return already
}

// unrecorded returns the records of batch whose decision ids are not in
// the table yet, when refusal says some are and the table confirms it;
// otherwise ok is false and the batch is split instead. It must leave out
// at least one record, or isolate could ask again forever (two copies of
// one record in the same batch are refused as duplicates while neither is
// stored).
func (r *Recorder) unrecorded(batch []store.DecisionRecord, refusal *pgconn.PgError) (missing []store.DecisionRecord, ok bool) {
	if !isDuplicate(refusal) {
		return nil, false
	}
	ids := make([]string, len(batch))
	for i := range batch {
		ids[i] = batch[i].DecisionID
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	missingIDs, err := r.writer.MissingDecisionIDs(ctx, ids)
	cancel()
	if err != nil {
		r.cfg.Logger.Warn("look up which decision records are already written; splitting the batch instead",
			"records", len(batch), "error", err)
		return nil, false
	}
	if len(missingIDs) >= len(batch) {
		return nil, false
	}
	wanted := make(map[string]bool, len(missingIDs))
	for _, id := range missingIDs {
		wanted[id] = true
	}
	missing = make([]store.DecisionRecord, 0, len(missingIDs))
	for i := range batch {
		if wanted[batch[i].DecisionID] {
			missing = append(missing, batch[i])
		}
	}
	return missing, true
}

// isDuplicate reports whether refusal is the one a record's second copy
// gets: its decision id is already in the table.
func isDuplicate(refusal *pgconn.PgError) bool {
	return refusal.Code == sqlstateUniqueViolation && refusal.ConstraintName == decisionsPrimaryKey
}

// giveUp counts n records as lost after Close's context ended, and with
// them everything still queued, which cannot be written either.
func (r *Recorder) giveUp(n int) {
	r.lost.Add(int64(n))
	for range r.queue {
		r.lost.Add(1)
	}
}

const (
	// sqlstateUniqueViolation is unique_violation (23505).
	sqlstateUniqueViolation = "23505"
	// decisionsPrimaryKey is the constraint a second copy of a record
	// violates.
	decisionsPrimaryKey = "decisions_pkey"
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
