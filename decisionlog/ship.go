package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/eligo/eligo/decisionlog/spool"
	"github.com/eligo/eligo/store"
)

// spoolRecord is Record in spool mode: the record is encoded and appended
// to the spool, and Record returns once the spool's write returned.
func (r *Recorder) spoolRecord(ctx context.Context, rec store.DecisionRecord) error {
	buf := r.encodings.Get().(*[]byte)
	defer r.encodings.Put(buf)
	*buf = appendRecord((*buf)[:0], &rec) // Append copies it into its frame
	payload := *buf
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return ErrClosed
	}
	switch err := r.spool.Append(ctx, payload); {
	case err == nil:
		if r.full.Load() {
			r.full.Store(false)
		}
		return nil
	case errors.Is(err, spool.ErrFull):
		r.full.Store(true)
		return fmt.Errorf("%w: %w", ErrBacklogged, err)
	case errors.Is(err, spool.ErrClosed):
		return ErrClosed
	case ctx.Err() != nil:
		return err
	default:
		r.cfg.Logger.Error("append decision record to the spool", "error", err)
		return fmt.Errorf("%w: %w", ErrUnconfirmed, err)
	}
}

// ship is the shipper of spool mode: every ShipInterval it seals the
// segment being written and ships every sealed segment, oldest first, and
// once Close has begun it makes a last pass. It returns after that pass,
// or when Close gives up waiting (the rest stays in the spool).
func (r *Recorder) ship() {
	tick := time.NewTicker(r.cfg.Spool.ShipInterval)
	defer tick.Stop()
	for {
		last := false
		select {
		case <-tick.C:
		case <-r.draining:
			last = true
		}
		if !r.shipAll() || last {
			return
		}
	}
}

// shipAll seals the segment being written and ships every sealed segment;
// it is false once Close has given up.
func (r *Recorder) shipAll() bool {
	if err := r.spool.Seal(); err != nil {
		r.cfg.Logger.Error("seal the decision spool's segment", "error", err)
	}
	for _, seg := range r.spool.Segments() {
		if !r.shipSegment(seg) {
			return false
		}
	}
	return true
}

// shipSegment copies a segment's records to the table in batches of
// BatchSize (retrying transient failures with backoff, as the writers do,
// and counting a record already in the table as shipped), sets aside in
// the spool's quarantine any record the database refuses as invalid data,
// and only then deletes the segment. It is false once Close has given up:
// the segment stays in the spool.
func (r *Recorder) shipSegment(seg spool.Segment) bool {
	payloads, err := r.spool.Read(seg)
	if err != nil {
		// A damaged segment has been quarantined and logged; another
		// failure to read is retried on the next pass.
		r.cfg.Logger.Error("read the decision spool's segment", "segment", seg.Path, "error", err)
		return true
	}
	var setAside [][]byte
	batch := make([]*pending, 0, min(len(payloads), r.cfg.BatchSize))
	from := make([][]byte, 0, cap(batch)) // each pending's payload
	flush := func() bool {
		r.write(batch)
		for i, p := range batch {
			switch err := <-p.done; {
			case errors.Is(err, ErrClosed):
				return false
			case err != nil: // ErrRefused, already logged by decision id
				setAside = append(setAside, from[i])
			}
		}
		batch, from = batch[:0], from[:0]
		return true
	}
	for _, payload := range payloads {
		rec, err := decodeRecord(payload)
		if err != nil {
			r.cfg.Logger.Error("a spooled decision record cannot be decoded; setting it aside", "segment", seg.Path, "error", err)
			setAside = append(setAside, payload)
			continue
		}
		batch = append(batch, &pending{rec: rec, done: make(chan error, 1)})
		from = append(from, payload)
		if len(batch) == r.cfg.BatchSize && !flush() {
			return false
		}
	}
	if len(batch) > 0 && !flush() {
		return false
	}
	if len(setAside) > 0 {
		if err := r.spool.Quarantine(seg, setAside); err != nil {
			r.cfg.Logger.Error("set aside refused decision records; the segment is kept", "segment", seg.Path, "error", err)
			return true
		}
	}
	if err := r.spool.Remove(seg); err != nil {
		r.cfg.Logger.Error("remove a shipped decision spool segment", "segment", seg.Path, "error", err)
		return true
	}
	r.shipped.Add(int64(len(payloads) - len(setAside)))
	// The segment's room is free again: the spool is no longer full (an
	// append that still finds no room says so again), so that /readyz
	// stops saying spool_full once the spool drains, not at the next
	// decision.
	r.full.Store(false)
	return true
}

// Status is the decision log's state as /readyz reports it.
type Status struct {
	// Mode is spool, database or buffered.
	Mode Mode `json:"mode"`
	// State is ok; database_unavailable while writes to the table fail
	// and are retried (in spool mode decisions are still answered); or
	// spool_full when the last record was refused for lack of room in the
	// spool and no segment has been shipped since (decisions are answered
	// 503 decision_log_backlogged).
	State string `json:"state"`
	// Spool is the spool's lag, in spool mode.
	Spool *SpoolStatus `json:"spool,omitempty"`
}

// SpoolStatus is how far shipping lags behind the spool. It names no path:
// /readyz shows it to anyone (the directory is in the start-up log line).
type SpoolStatus struct {
	// Bytes is what the spool holds on disk, and MaxBytes its bound.
	Bytes    int64 `json:"bytes"`
	MaxBytes int64 `json:"max_bytes"`
	// Segments counts the segments holding unshipped records.
	Segments int `json:"segments"`
	// OldestAgeSeconds is the age of the oldest unshipped record (of its
	// segment); 0 when the spool is empty.
	OldestAgeSeconds float64 `json:"oldest_unshipped_age_seconds"`
	// Shipped counts the records shipped since the process started.
	Shipped int64 `json:"shipped"`
	// Fsync says whether records are flushed to disk before the answer.
	Fsync bool `json:"fsync"`
}

// Status reports the decision log's mode, state and, in spool mode, lag.
func (r *Recorder) Status() Status {
	st := Status{Mode: r.Mode(), State: "ok"}
	if r.failing.Load() {
		st.State = "database_unavailable"
	}
	if r.spool == nil {
		return st
	}
	if r.full.Load() {
		st.State = "spool_full"
	}
	stats := r.spool.Stats()
	st.Spool = &SpoolStatus{Bytes: stats.Bytes, MaxBytes: r.spool.MaxBytes(), Segments: stats.Segments,
		Shipped: r.shipped.Load(), Fsync: r.cfg.Spool.Fsync}
	if !stats.Oldest.IsZero() {
		st.Spool.OldestAgeSeconds = max(0, time.Since(stats.Oldest).Seconds())
	}
	return st
}
