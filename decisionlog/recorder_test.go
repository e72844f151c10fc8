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
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
			r := decisionlog.New(st, decisionlog.Config{BatchSize: 10, FlushInterval: 5 * time.Millisecond, Logger: quiet()})
			for i := range 2 {
				if err := r.Record(ctx, record(i)); err != nil {
					t.Fatal(err)
				}
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
			r := decisionlog.New(st, decisionlog.Config{BatchSize: 10, FlushInterval: 5 * time.Millisecond,
				QueueSize: 8, EnqueueTimeout: 2 * time.Second, Writers: 1, Logger: logger})
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				_ = r.Close(ctx)
			})
			var good, bad []string
			for i := range 100 {
				rec := record(i)
				if i < 10 && slices.Contains(c.at, i) {
					c.poison(&rec)
					bad = append(bad, rec.DecisionID)
				} else {
					good = append(good, rec.DecisionID)
				}
				if err := r.Record(ctx, rec); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
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
			// One batch, written by Close, holds every copy.
			r := decisionlog.New(st, decisionlog.Config{BatchSize: 1000, FlushInterval: time.Hour, Writers: 1, Logger: logger})
			var queued []int
			for i := range n {
				queued = append(queued, i)
			}
			for _, i := range append(queued, c.twice...) {
				if err := r.Record(ctx, record(i)); err != nil {
					t.Fatal(err)
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
