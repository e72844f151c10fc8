package decisionlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/decisionlog/spool"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// openSpooled starts a recorder in spool mode over st in dir.
func openSpooled(t *testing.T, st decisionlog.Writer, dir string, sc decisionlog.SpoolConfig) *decisionlog.Recorder {
	t.Helper()
	sc.Dir = dir
	if sc.ShipInterval == 0 {
		sc.ShipInterval = 20 * time.Millisecond
	}
	r, err := decisionlog.Open(st, decisionlog.Config{Spool: sc, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// requireStored fails the test unless every record of want is in the table.
func requireStored(t *testing.T, st *store.Store, want []string) {
	t.Helper()
	missing, err := st.MissingDecisionIDs(context.Background(), want)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged records are not in the table, e.g. %s", len(missing), len(want), missing[0])
	}
}

// segmentsIn lists the segment files left in a spool directory.
func segmentsIn(t *testing.T, dir string) []string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, "*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// databaseDown makes every write to the decisions table fail as a lost
// connection would (SQLSTATE 08006), until the returned function brings
// the database back.
func databaseDown(t *testing.T, pool *pgxpool.Pool) (up func()) {
	t.Helper()
	refuseEveryInsert(t, pool, "08006")
	return func() {
		if _, err := pool.Exec(context.Background(), `DROP TRIGGER refuse_insert ON decisions`); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSpoolRoundTrip: in spool mode every acknowledged record reaches the
// table, with and without fsync, and a shipped segment is deleted.
func TestSpoolRoundTrip(t *testing.T) {
	t.Parallel()
	for _, fsync := range []bool{false, true} {
		t.Run(map[bool]string{false: "write", true: "fsync"}[fsync], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := store.New(storetest.New(t))
			dir := t.TempDir()
			r := openSpooled(t, st, dir, decisionlog.SpoolConfig{Fsync: fsync, SegmentBytes: 16 << 10})
			if r.Mode() != decisionlog.ModeSpool {
				t.Fatalf("mode %s", r.Mode())
			}
			for i, err := range recordAll(ctx, r, records(0, 1000)) {
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
			}
			// Shipped while running, not only at Close.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if missing, err := st.MissingDecisionIDs(ctx, ids(1000)); err == nil && len(missing) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the records were not shipped while the recorder ran")
				}
			}
			if err := r.Close(ctx); err != nil {
				t.Fatal(err)
			}
			requireStored(t, st, ids(1000))
			if left := segmentsIn(t, dir); len(left) > 0 {
				t.Errorf("segments left after every record was shipped: %v", left)
			}
		})
	}
}

// TestSpoolAnswersWhileTheDatabaseIsDown: with the table refusing every
// write for a transient reason, Record still returns nil, /readyz's status
// says the database is unavailable and shows the lag, Close leaves the
// records in the spool (losing none), and the next recorder on the same
// directory ships them once the database is back: the restart of a process
// that could not ship.
func TestSpoolAnswersWhileTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	dir := t.TempDir()
	up := databaseDown(t, pool)
	r := openSpooled(t, st, dir, decisionlog.SpoolConfig{})
	for i, err := range recordAll(ctx, r, records(0, 300)) {
		if err != nil {
			t.Fatalf("record %d while the database is down: %v", i, err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); r.Status().State != "database_unavailable"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("status while the database is down: %+v", r.Status())
		}
	}
	if st := r.Status(); st.Spool == nil || st.Spool.Bytes == 0 || st.Spool.OldestAgeSeconds <= 0 || st.Mode != decisionlog.ModeSpool {
		t.Errorf("status: %+v %+v", st, st.Spool)
	}
	closing, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := r.Close(closing); err != nil {
		t.Fatalf("Close with the database down: %v (the records stay spooled, nothing is lost)", err)
	}
	if len(segmentsIn(t, dir)) == 0 {
		t.Fatal("no segment left in the spool after a Close that could not ship")
	}

	up()
	r = openSpooled(t, st, dir, decisionlog.SpoolConfig{})
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	requireStored(t, st, ids(300))
	if left := segmentsIn(t, dir); len(left) > 0 {
		t.Errorf("segments left after shipping: %v", left)
	}
}

// TestFullSpoolRefusesAndLosesNothing: with the database down and a small
// spool, Record fails with ErrBacklogged once the spool is full (the
// status says so), and every record acknowledged before reaches the table
// once the database is back.
func TestFullSpoolRefusesAndLosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	dir := t.TempDir()
	up := databaseDown(t, pool)
	r := openSpooled(t, st, dir, decisionlog.SpoolConfig{MaxBytes: 64 << 10, SegmentBytes: 8 << 10})
	var acknowledged []string
	backlogged := 0
	for i := range 2000 {
		switch err := r.Record(ctx, record(i)); {
		case err == nil:
			acknowledged = append(acknowledged, record(i).DecisionID)
		case errors.Is(err, decisionlog.ErrBacklogged):
			backlogged++
		default:
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if backlogged == 0 || len(acknowledged) == 0 {
		t.Fatalf("%d acknowledged, %d backlogged: want both", len(acknowledged), backlogged)
	}
	if s := r.Status(); s.State != "spool_full" {
		t.Errorf("state with the spool full: %s", s.State)
	}
	// /readyz shows the status to anyone: it names no path of the
	// machine's.
	if raw, err := json.Marshal(r.Status()); err != nil || strings.Contains(string(raw), dir) {
		t.Errorf("status %s (%v) shows the spool's directory %s", raw, err, dir)
	}
	up()
	// Once the shipper has drained the spool, the status says ok, with
	// no decision recorded since.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s := r.Status()
		if s.Spool.Segments == 0 && s.State == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status after the spool drained: %s with %d segments, %d bytes", s.State, s.Spool.Segments, s.Spool.Bytes)
		}
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	requireStored(t, st, acknowledged)
}

// TestShipperIdempotentAfterLostAcknowledgement: a segment whose records
// were committed but not deleted (the process died between the COPY and
// the delete) ships again without error and without a refusal: the
// records already in the table count as shipped, the others are copied.
func TestShipperIdempotentAfterLostAcknowledgement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	// Half of the records are already in the table.
	if err := st.InsertDecisions(ctx, records(0, 500)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A spool holding all of them, as the earlier process left it.
	r := openSpooled(t, st, dir, decisionlog.SpoolConfig{ShipInterval: time.Hour})
	for i, err := range recordAll(ctx, r, records(0, 1000)) {
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if r.Refused() != 0 {
		t.Errorf("%d records refused", r.Refused())
	}
	requireStored(t, st, ids(1000))
	// And again: the whole segment is already in the table.
	if err := st.InsertDecisions(ctx, records(1000, 1001)); err != nil {
		t.Fatal(err)
	}
	r = openSpooled(t, st, dir, decisionlog.SpoolConfig{ShipInterval: time.Hour})
	if err := r.Record(ctx, record(1000)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(ctx); err != nil || r.Refused() != 0 {
		t.Fatalf("shipping a record already in the table: %v, %d refused", err, r.Refused())
	}
	if left := segmentsIn(t, dir); len(left) > 0 {
		t.Errorf("segments left: %v", left)
	}
}

// TestShipperIdempotentAcrossPartitions: the decisions table is
// partitioned by month, and a spool whose records span two month
// partitions and the default one, half of them already in the table,
// ships without a refusal and stores each record once, in its month.
func TestShipperIdempotentAcrossPartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	months := []time.Time{
		time.Date(2031, 1, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2031, 2, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC), // no partition: the default
	}
	for _, m := range months[:2] {
		if _, err := st.AddDecisionPartition(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	const n = 300
	all := make([]store.DecisionRecord, n)
	var before []store.DecisionRecord
	for i := range all {
		all[i] = record(i)
		all[i].DecidedAt = months[i%len(months)].Add(time.Duration(i) * time.Microsecond)
		if i%2 == 0 {
			before = append(before, all[i])
		}
	}
	if err := st.InsertDecisions(ctx, before); err != nil {
		t.Fatal(err)
	}
	r := openSpooled(t, st, t.TempDir(), decisionlog.SpoolConfig{ShipInterval: time.Hour})
	for i, err := range recordAll(ctx, r, all) {
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if err := r.Close(ctx); err != nil || r.Refused() != 0 {
		t.Fatalf("close: %v, %d refused", err, r.Refused())
	}
	requireStored(t, st, ids(n))
	rows, err := pool.Query(ctx, `SELECT tableoid::regclass::text, count(*), count(DISTINCT decision_id) FROM decisions GROUP BY 1 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int{}
	for rows.Next() {
		var table string
		var count, distinct int
		if err := rows.Scan(&table, &count, &distinct); err != nil {
			t.Fatal(err)
		}
		got[table] = [2]int{count, distinct}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"decisions_2031_01": {n / 3, n / 3}, "decisions_2031_02": {n / 3, n / 3}, "decisions_default": {n / 3, n / 3}}
	if len(got) != len(want) {
		t.Errorf("rows by partition: %v, want %v", got, want)
	}
	for table, w := range want {
		if got[table] != w {
			t.Errorf("%s holds %v rows (all, distinct ids), want %v", table, got[table], w)
		}
	}
}

// TestShipperSetsAsideRefusedRecords: a spooled record the database
// refuses as invalid data cannot be stored; it is written to the spool's
// quarantine (not dropped), the others are stored, and the segment is
// deleted.
func TestShipperSetsAsideRefusedRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	dir := t.TempDir()
	r := openSpooled(t, st, dir, decisionlog.SpoolConfig{ShipInterval: time.Hour})
	recs := records(0, 20)
	recs[7].Slug = "bad\u0000slug"
	for i, err := range recordAll(ctx, r, recs) {
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if r.Refused() != 1 {
		t.Errorf("%d refused, want 1", r.Refused())
	}
	good := append(ids(7), ids(20)[8:]...)
	requireStored(t, st, good)
	quarantined, err := filepath.Glob(filepath.Join(dir, spool.QuarantineDir, "*-refused-*.seg"))
	if err != nil || len(quarantined) != 1 {
		t.Fatalf("quarantined files: %v %v", quarantined, err)
	}
	data, err := os.ReadFile(quarantined[0])
	if err != nil {
		t.Fatal(err)
	}
	if d := spool.Decode(data); d.Damage != spool.Intact || len(d.Records) != 1 || !bytes.Contains(d.Records[0], []byte(recs[7].DecisionID)) {
		t.Errorf("quarantine holds %d records (%s), want the refused one", len(d.Records), d.Damage)
	}
	if left := segmentsIn(t, dir); len(left) > 0 {
		t.Errorf("segments left: %v", left)
	}
}

// TestSpoolLockedByAnotherRecorder: a second recorder cannot open a spool
// that one holds.
func TestSpoolLockedByAnotherRecorder(t *testing.T) {
	t.Parallel()
	st := store.New(storetest.New(t))
	dir := t.TempDir()
	r := openSpooled(t, st, dir, decisionlog.SpoolConfig{})
	if _, err := decisionlog.Open(st, decisionlog.Config{Spool: decisionlog.SpoolConfig{Dir: dir}, Logger: quiet()}); !errors.Is(err, spool.ErrLocked) {
		t.Errorf("a second Open: %v, want spool.ErrLocked", err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
