package decisionlog_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

func record(i int) store.DecisionRecord {
	return store.DecisionRecord{
		DecisionID:     fmt.Sprintf("dec_test%012d", i),
		RulesetID:      "all_types:20260101-000000000000",
		Slug:           "acme/all-types",
		RulesetVersion: "v1",
		ContentDigest:  "sha256:" + fmt.Sprintf("%064x", i),
		EngineVersion:  "eligo-core@0.31.0",
		Outcome:        "eligible",
		InputsHash:     "sha256:" + fmt.Sprintf("%064x", i+1),
		DecidedAt:      time.Now().UTC(),
		Duration:       37 * time.Microsecond,
	}
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = record(i).DecisionID
	}
	return out
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestBatchesAndFlushOnClose: records written by size, by interval and by
// Close all land, once each.
func TestBatchesAndFlushOnClose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	cases := []struct {
		name string
		cfg  decisionlog.Config
		n    int
	}{
		{"full batches and a remainder", decisionlog.Config{BatchSize: 100, FlushInterval: time.Hour}, 1050},
		{"interval only", decisionlog.Config{BatchSize: 10000, FlushInterval: 10 * time.Millisecond}, 30},
		{"close only", decisionlog.Config{BatchSize: 10000, FlushInterval: time.Hour}, 7},
	}
	offset := 0
	for _, c := range cases {
		c.cfg.Logger = quiet()
		r := decisionlog.New(st, c.cfg)
		for i := range c.n {
			if err := r.Record(ctx, record(offset+i)); err != nil {
				t.Fatalf("%s: record %d: %v", c.name, i, err)
			}
		}
		if err := r.Close(ctx); err != nil {
			t.Fatalf("%s: close: %v", c.name, err)
		}
		want := ids(offset + c.n)[offset:]
		missing, err := st.MissingDecisionIDs(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		if len(missing) > 0 {
			t.Errorf("%s: %d records missing after Close", c.name, len(missing))
		}
		if err := r.Record(ctx, record(999999)); !errors.Is(err, decisionlog.ErrClosed) {
			t.Errorf("%s: Record after Close = %v, want ErrClosed", c.name, err)
		}
		offset += c.n
	}
	var total int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM decisions`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != offset {
		t.Errorf("table holds %d records, want %d", total, offset)
	}
}

// TestFullQueueRefusesInsteadOfDropping holds a lock on the table so the
// writer cannot write: the queue fills, Record refuses with ErrBacklogged
// (so the API issues no decision), and once the lock goes every record that
// was accepted is written.
func TestFullQueueRefusesInsteadOfDropping(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	lock, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Whatever happens below, release the lock so the writer and the
	// database cleanup can finish (a rollback after the first is a no-op).
	t.Cleanup(func() { _ = lock.Rollback(context.Background()) })
	if _, err := lock.Exec(ctx, `LOCK TABLE decisions IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	r := decisionlog.New(st, decisionlog.Config{BatchSize: 1, QueueSize: 2, Writers: 1, EnqueueTimeout: 50 * time.Millisecond, Logger: quiet()})
	// The first record goes to the one writer, whose COPY (pgx first reads
	// the column types with a SELECT) then waits on the lock; wait until it
	// does, so what follows does not depend on how fast the writer
	// goroutine was scheduled.
	if err := r.Record(ctx, record(0)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%decisions%'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer's COPY never waited on the table lock")
		}
	}
	accepted := []string{record(0).DecisionID}
	refused := 0
	for i := 1; i < 10; i++ {
		switch err := r.Record(ctx, record(i)); {
		case err == nil:
			accepted = append(accepted, record(i).DecisionID)
		case errors.Is(err, decisionlog.ErrBacklogged):
			refused++
		default:
			t.Fatalf("record %d: %v", i, err)
		}
	}
	// One record is in the blocked COPY of the one writer, two wait in
	// the queue.
	if len(accepted) != 3 || refused != 7 {
		t.Errorf("accepted %d, refused %d; want 3 and 7", len(accepted), refused)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	missing, err := st.MissingDecisionIDs(ctx, accepted)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("accepted records missing: %v", missing)
	}
}

// TestCloseReportsWhatItCouldNotWrite: when the database refuses the batch
// until Close's deadline, Close says how many records were lost rather
// than returning quietly.
func TestCloseReportsWhatItCouldNotWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	// A record the table refuses (its decision_id breaks the CHECK), so
	// every attempt of its batch fails.
	bad := record(1)
	bad.DecisionID = "not-a-decision-id"
	r := decisionlog.New(st, decisionlog.Config{BatchSize: 10, FlushInterval: 5 * time.Millisecond, Logger: quiet()})
	if err := r.Record(ctx, bad); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(ctx, record(2)); err != nil {
		t.Fatal(err)
	}
	closeCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := r.Close(closeCtx)
	if err == nil {
		t.Fatal("Close returned nil with records unwritten")
	}
	if got := err.Error(); got != "decision log: 2 records could not be written before shutdown" {
		t.Errorf("Close error %q", got)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM decisions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("a refused batch was partly written: %d rows", n)
	}
}
