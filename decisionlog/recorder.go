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
// retries, so every decision a caller was shown has a record. A batch the
// database refuses is retried with backoff until it is written or Close's
// context ends, which is then reported as an error naming the records lost.
package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eligo/eligo/store"
)

// ErrBacklogged is returned by Record when the queue stayed full for
// EnqueueTimeout: the decision must not be served, since it could not be
// recorded.
var ErrBacklogged = errors.New("decision log backlogged: the record queue is full")

// ErrClosed is returned by Record after Close has begun.
var ErrClosed = errors.New("decision log closed")

// Writer stores a batch of records, all or none. *store.Store is the
// production Writer.
type Writer interface {
	InsertDecisions(ctx context.Context, records []store.DecisionRecord) error
}

// Config tunes a Recorder. Zero members take the defaults.
type Config struct {
	// BatchSize is the most records one COPY writes; default 2000. Fewer,
	// larger COPYs cost PostgreSQL and the server less per record: against
	// 500 records or 100ms, 2000 or 250ms served about 13% more cached
	// decisions per second on the shared 2-core bench machine, at 10%
	// less server CPU per decision.
	BatchSize int
	// FlushInterval is the longest a queued record waits before its batch
	// is written; default 250ms.
	FlushInterval time.Duration
	// QueueSize bounds the records waiting to be written; default 65536
	// (a few seconds of traffic at the measured peak rate, about 20 MB):
	// enough to ride out a checkpoint or a failover without refusing
	// requests.
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
	if lost := r.lost.Load(); lost > 0 {
		return fmt.Errorf("decision log: %d records could not be written before shutdown", lost)
	}
	return nil
}

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

// write stores batch, retrying with backoff until it succeeds or Close gives
// up; records given up on are counted in lost.
func (r *Recorder) write(batch []store.DecisionRecord) {
	if len(batch) == 0 {
		return
	}
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := r.writer.InsertDecisions(ctx, batch)
		cancel()
		if err == nil {
			return
		}
		r.cfg.Logger.Error("write decision records", "records", len(batch), "attempt", attempt, "error", err)
		select {
		case <-r.stop:
			r.lost.Add(int64(len(batch)))
			// Drain what is still queued: it cannot be written either.
			for range r.queue {
				r.lost.Add(1)
			}
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}
