package decisionlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// recordedFrom is the decision time of record(0); record(i) is i µs
// later, so that record(i) built twice is the same record, as a record
// written twice always is (the table's key is decision id and time).
var recordedFrom = time.Now().UTC().Truncate(time.Second)

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
		DecidedAt:      recordedFrom.Add(time.Duration(i) * time.Microsecond),
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

// recordAll records every record at once, each from its own goroutine as
// concurrent requests would, and returns each Record's result in order.
func recordAll(ctx context.Context, r *decisionlog.Recorder, records []store.DecisionRecord) []error {
	errs := make([]error, len(records))
	var wg sync.WaitGroup
	for i := range records {
		wg.Go(func() { errs[i] = r.Record(ctx, records[i]) })
	}
	wg.Wait()
	return errs
}

// records returns record(i) for each i in [from, to).
func records(from, to int) []store.DecisionRecord {
	out := make([]store.DecisionRecord, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, record(i))
	}
	return out
}

// TestRecordReturnsOnceDurable: every Record that returned nil has its
// record in the table before Close, whether its batch closed by size, by
// the queue running dry, by the linger timer or by the flush interval;
// and Record after Close is refused.
func TestRecordReturnsOnceDurable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	cases := []struct {
		name string
		cfg  decisionlog.Config
		n    int
	}{
		{"batches closed by size", decisionlog.Config{BatchSize: 7, Linger: time.Hour, FlushInterval: time.Hour}, 700},
		{"batches closed when the queue runs dry", decisionlog.Config{}, 500},
		{"a linger", decisionlog.Config{Linger: time.Millisecond}, 300},
		{"one writer", decisionlog.Config{Writers: 1}, 300},
		{"one at a time", decisionlog.Config{BatchSize: 1, Writers: 1}, 50},
		{"buffered", decisionlog.Config{Buffered: true, FlushInterval: 20 * time.Millisecond}, 300},
	}
	offset := 0
	for _, c := range cases {
		c.cfg.Logger = quiet()
		r := decisionlog.New(st, c.cfg)
		for i, err := range recordAll(ctx, r, records(offset, offset+c.n)) {
			if err != nil {
				t.Fatalf("%s: record %d: %v", c.name, i, err)
			}
		}
		// Before Close: returning nil means written, unless buffered.
		check := func(when string) {
			missing, err := st.MissingDecisionIDs(ctx, ids(offset + c.n)[offset:])
			if err != nil {
				t.Fatal(err)
			}
			if len(missing) > 0 {
				t.Errorf("%s: %d records missing %s", c.name, len(missing), when)
			}
		}
		if !c.cfg.Buffered {
			check("although Record returned nil")
		}
		if err := r.Close(ctx); err != nil {
			t.Fatalf("%s: close: %v", c.name, err)
		}
		check("after Close")
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

// TestRecordsShareACopyUnderLoad: records that arrive while a write is under
// way are written together by the next, so fewer COPYs than records run.
func TestRecordsShareACopyUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	counter := &countingWriter{Store: store.New(storetest.New(t))}
	r := decisionlog.New(counter, decisionlog.Config{Writers: 1, Logger: quiet()})
	const n = 400
	for i, err := range recordAll(ctx, r, records(0, n)) {
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if copies := counter.copies.Load(); copies >= n/2 {
		t.Errorf("%d records took %d COPYs; concurrent records should share them", n, copies)
	}
}

// countingWriter counts the COPYs a Recorder runs and the largest batch
// it tried.
type countingWriter struct {
	*store.Store
	copies  atomic.Int64
	largest atomic.Int64
}

func (w *countingWriter) InsertDecisions(ctx context.Context, records []store.DecisionRecord) error {
	w.copies.Add(1)
	for {
		largest := w.largest.Load()
		if int64(len(records)) <= largest || w.largest.CompareAndSwap(largest, int64(len(records))) {
			break
		}
	}
	return w.Store.InsertDecisions(ctx, records)
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
	r := decisionlog.New(st, decisionlog.Config{BatchSize: 1, QueueSize: 2, Writers: 1, EnqueueTimeout: 50 * time.Millisecond,
		WaitTimeout: time.Minute, Logger: quiet()})
	type result struct {
		id  string
		err error
	}
	results := make(chan result, 10)
	recordInBackground := func(i int) {
		go func() { results <- result{record(i).DecisionID, r.Record(ctx, record(i))} }()
	}
	// The first record goes to the one writer, whose COPY (pgx first reads
	// the column types with a SELECT) then waits on the lock; wait until it
	// does, so what follows does not depend on how fast the writer
	// goroutine was scheduled.
	recordInBackground(0)
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
	for i := 1; i < 10; i++ {
		recordInBackground(i)
	}
	// One record is in the blocked COPY of the one writer, two wait in
	// the queue; the other seven are refused while the lock holds, and
	// none of the three returns before it goes.
	for range 7 {
		select {
		case res := <-results:
			if !errors.Is(res.err, decisionlog.ErrBacklogged) {
				t.Fatalf("record %s returned %v while the table was locked, want ErrBacklogged", res.id, res.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("fewer than seven records were refused")
		}
	}
	select {
	case res := <-results:
		t.Fatalf("record %s returned %v before its record could be written", res.id, res.err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var accepted []string
	for range 3 {
		res := <-results
		if res.err != nil {
			t.Fatalf("record %s: %v", res.id, res.err)
		}
		accepted = append(accepted, res.id)
	}
	missing, err := st.MissingDecisionIDs(ctx, accepted)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("accepted records missing: %v", missing)
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// refuseEveryInsert makes every write to the decisions table fail with
// sqlstate, the way the server fails a write for a reason of its own.
func refuseEveryInsert(t *testing.T, pool *pgxpool.Pool, sqlstate string) {
	t.Helper()
	_, err := pool.Exec(context.Background(), fmt.Sprintf(`
CREATE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '%s'; END $$;
CREATE TRIGGER refuse_insert BEFORE INSERT ON decisions
	FOR EACH STATEMENT EXECUTE FUNCTION refuse_insert();`, sqlstate))
	if err != nil {
		t.Fatal(err)
	}
}

// TestCloseReportsWhatItCouldNotWrite: when the database fails every write
// for a transient reason until Close's deadline, the batch is retried, not
// split or dropped, and Close says how many records were lost rather than
// returning quietly.
func TestCloseReportsWhatItCouldNotWrite(t *testing.T) {
	t.Parallel()
	for _, sqlstate := range []string{
		"08006", // connection_failure
		"40001", // serialization_failure
		"53100", // disk_full
		"57P01", // admin_shutdown
		"58030", // io_error
		"42501", // insufficient_privilege: a server setting, not the records
	} {
		t.Run(sqlstate, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := storetest.New(t)
			st := store.New(pool)
			refuseEveryInsert(t, pool, sqlstate)
			// The linger keeps the batch open until both records are in it.
			writer := &countingWriter{Store: st}
			r := decisionlog.New(writer, decisionlog.Config{Writers: 1, Linger: time.Second, FlushInterval: time.Minute,
				BatchSize: 2, WaitTimeout: time.Minute, Logger: quiet()})
			var errs []error
			recorded := make(chan struct{})
			go func() {
				defer close(recorded)
				errs = recordAll(ctx, r, records(0, 2))
			}()
			for writer.largest.Load() < 2 { // both in a batch that failed
				time.Sleep(5 * time.Millisecond)
			}
			closeCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			err := r.Close(closeCtx)
			<-recorded
			for i, err := range errs {
				if !errors.Is(err, decisionlog.ErrClosed) {
					t.Errorf("record %d returned %v, want ErrClosed: the decision must not be shown", i, err)
				}
			}
			if err == nil {
				t.Fatal("Close returned nil with records unwritten")
			}
			if got := err.Error(); got != "decision log: 2 records could not be written before shutdown" {
				t.Errorf("Close error %q", got)
			}
			if n := r.Refused(); n != 0 {
				t.Errorf("Refused() = %d after transient failures, want 0", n)
			}
		})
	}
}

// logLine is the part of a JSON log line the tests read.
type logLine struct {
	Level      string `json:"level"`
	Msg        string `json:"msg"`
	DecisionID string `json:"decision_id"`
	SQLState   string `json:"sqlstate"`
	Records    int    `json:"records"`
}

// capture returns a logger writing JSON lines to a buffer, and a function
// parsing what it wrote. Read it only after Close, when the writers are done.
func capture(t *testing.T) (*slog.Logger, func() (raw string, lines []logLine)) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return logger, func() (string, []logLine) {
		raw := buf.String()
		var lines []logLine
		for _, l := range strings.Split(strings.TrimSpace(raw), "\n") {
			if l == "" {
				continue
			}
			var line logLine
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			lines = append(lines, line)
		}
		return raw, lines
	}
}

// secret is a caller's value that must never reach the log.
const secret = "caller-secret"

// TestRefusedRecordsDoNotHoldUpTheOthers feeds batches holding records
// PostgreSQL refuses as invalid data among good ones. Every good record is
// written, each bad one is counted and logged by id (never by value), the
// queue keeps flowing for the records that follow, and Close reports nothing
// lost.
func TestRefusedRecordsDoNotHoldUpTheOthers(t *testing.T) {
	t.Parallel()
	nulInCallerRef := func(rec *store.DecisionRecord) {
		rec.TenantID = "tnt_test"
		rec.CallerRef = map[string]string{"order": secret + "\u0000"}
	}
	cases := []struct {
		name     string
		poison   func(*store.DecisionRecord)
		at       []int // positions among the first 10 records
		sqlstate string
	}{
		{"U+0000 in caller_ref (jsonb)", nulInCallerRef, []int{4}, "22P05"},
		{"U+0000 in a text column", func(rec *store.DecisionRecord) { rec.Slug = secret + "\u0000" }, []int{9}, "22021"},
		{"decision id breaking the CHECK", func(rec *store.DecisionRecord) { rec.DecisionID = "dec_bad" + rec.DecisionID[8:] }, []int{0}, "23514"},
		{"several in one batch", nulInCallerRef, []int{0, 1, 5, 9}, "22P05"},
		{"every record of the batch", nulInCallerRef, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "22P05"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := store.New(storetest.New(t))
			logger, logs := capture(t)
			// One writer and a queue smaller than what follows the bad
			// records: a writer stuck on them would fill the queue and
			// Record would refuse.
			// The linger gathers the first ten records into one batch.
			r := decisionlog.New(st, decisionlog.Config{BatchSize: 10, Linger: 200 * time.Millisecond, FlushInterval: time.Second,
				QueueSize: 8, EnqueueTimeout: 2 * time.Second, Writers: 1, Logger: logger})
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				_ = r.Close(ctx)
			})
			var good, bad []string
			first := records(0, 10)
			for i := range first {
				if slices.Contains(c.at, i) {
					c.poison(&first[i])
					bad = append(bad, first[i].DecisionID)
				} else {
					good = append(good, first[i].DecisionID)
				}
			}
			for i, err := range recordAll(ctx, r, first) {
				switch poisoned := slices.Contains(c.at, i); {
				case poisoned && !errors.Is(err, decisionlog.ErrRefused):
					t.Errorf("refused record %d returned %v, want ErrRefused", i, err)
				case !poisoned && err != nil:
					t.Errorf("record %d: %v", i, err)
				}
			}
			for i, err := range recordAll(ctx, r, records(10, 100)) {
				if err != nil {
					t.Fatalf("record %d: %v", 10+i, err)
				}
				good = append(good, record(10+i).DecisionID)
			}
			closeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := r.Close(closeCtx); err != nil {
				t.Fatalf("close: %v", err)
			}
			missing, err := st.MissingDecisionIDs(ctx, append(slices.Clone(good), bad...))
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(bad)
			if !slices.Equal(missing, bad) {
				t.Errorf("missing records %v, want only the refused %v", missing, bad)
			}
			if n := r.Refused(); n != int64(len(bad)) {
				t.Errorf("Refused() = %d, want %d", n, len(bad))
			}
			raw, lines := logs()
			if strings.Contains(raw, secret) {
				t.Errorf("the log quotes a refused value:\n%s", raw)
			}
			var logged []string
			for _, l := range lines {
				if l.Level == "ERROR" && l.DecisionID != "" {
					if l.SQLState != c.sqlstate {
						t.Errorf("record %s logged with SQLSTATE %q, want %q", l.DecisionID, l.SQLState, c.sqlstate)
					}
					logged = append(logged, l.DecisionID)
				}
			}
			slices.Sort(logged)
			if !slices.Equal(logged, bad) {
				t.Errorf("logged refused records %v, want %v", logged, bad)
			}
		})
	}
}

// TestAlreadyWrittenRecordsCountAsWritten simulates a COPY that committed
// but whose acknowledgement was lost: the records are in the table, and the
// writer, not knowing, copies them again. The batch completes, the records
// are neither duplicated nor counted as refused or lost, and the new records
// beside them are written. A record queued twice is stored once.
func TestAlreadyWrittenRecordsCountAsWritten(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		written func(i int) bool // whether record i is in the table beforehand
		twice   []int            // records queued a second time
	}{
		{"every record", func(int) bool { return true }, nil},
		{"every other record", func(i int) bool { return i%2 == 0 }, nil},
		{"one record", func(i int) bool { return i == 17 }, nil},
		{"one record queued twice", func(int) bool { return false }, []int{3}},
		{"written and queued twice", func(i int) bool { return i < 10 }, []int{3, 30}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := storetest.New(t)
			st := store.New(pool)
			const n = 40
			var before []store.DecisionRecord
			for i := range n {
				if c.written(i) {
					before = append(before, record(i))
				}
			}
			if err := st.InsertDecisions(ctx, before); err != nil {
				t.Fatal(err)
			}
			logger, logs := capture(t)
			// The linger gathers every copy into one batch.
			r := decisionlog.New(st, decisionlog.Config{BatchSize: n + len(c.twice), Linger: 200 * time.Millisecond,
				FlushInterval: time.Minute, Writers: 1, Logger: logger})
			queued := records(0, n)
			for _, i := range c.twice {
				queued = append(queued, record(i))
			}
			for i, err := range recordAll(ctx, r, queued) {
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
			}
			closeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := r.Close(closeCtx); err != nil {
				t.Fatalf("close: %v", err)
			}
			missing, err := st.MissingDecisionIDs(ctx, ids(n))
			if err != nil {
				t.Fatal(err)
			}
			if len(missing) > 0 {
				t.Errorf("records missing: %v", missing)
			}
			var total int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM decisions`).Scan(&total); err != nil {
				t.Fatal(err)
			}
			if total != n {
				t.Errorf("table holds %d records, want %d", total, n)
			}
			if got := r.Refused(); got != 0 {
				t.Errorf("Refused() = %d, want 0: a record already written is not refused", got)
			}
			_, lines := logs()
			reported := 0
			for _, l := range lines {
				if l.DecisionID != "" {
					t.Errorf("record %s logged as refused", l.DecisionID)
				}
				if l.Level == "INFO" && strings.Contains(l.Msg, "already") {
					reported += l.Records
				}
			}
			if want := len(before) + len(c.twice); reported != want {
				t.Errorf("logged %d records as already written, want %d", reported, want)
			}
		})
	}
}
