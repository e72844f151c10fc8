package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/migrations"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// decisionAt is a valid decision record with id dec_<suffix padded to 16>,
// decided at at.
func decisionAt(suffix string, at time.Time) store.DecisionRecord {
	return store.DecisionRecord{
		DecisionID: "dec_" + fmt.Sprintf("%016s", suffix), TenantID: "tnt_a", RulesetID: "all_types:20260101-000000000000",
		RulesetVersion: "v1", ContentDigest: "sha256:" + strings.Repeat("a", 64), EngineVersion: "eligo-core@1", Outcome: "eligible",
		InputsHash: "sha256:" + strings.Repeat("b", 64), DecidedAt: at, Duration: 42 * time.Microsecond,
		CallerRef: map[string]string{"case": suffix}, DecisionDate: time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC),
	}
}

// partitionOfDecision returns the table holding the record of id.
func partitionOfDecision(t *testing.T, pool *pgxpool.Pool, id string) string {
	t.Helper()
	var table string
	if err := pool.QueryRow(context.Background(), `SELECT tableoid::regclass::text FROM decisions WHERE decision_id = $1`, id).Scan(&table); err != nil {
		t.Fatalf("the partition of %s: %v", id, err)
	}
	return table
}

// TestMigrationPartitionsRecordedDecisions: migration 0014 on a table that
// already holds records moves each into its month's partition, keeps every
// column, and leaves months ahead ready.
func TestMigrationPartitionsRecordedDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.NewUpTo(t, 13)
	st := store.New(pool)
	recorded := map[string]struct {
		at        time.Time
		partition string
	}{
		"old":          {time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC), "decisions_2024_02"},
		"monthend":     {time.Date(2026, 10, 31, 23, 59, 59, 999999000, time.UTC), "decisions_2026_10"},
		"monthstart":   {time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "decisions_2026_11"},
		"offset":       {time.Date(2026, 11, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600)), "decisions_2026_10"},
		"farahead":     {time.Date(2399, 1, 15, 0, 0, 0, 0, time.UTC), "decisions_2399_01"},
		"withrulebook": {time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC), "decisions_2026_11"},
	}
	var batch []store.DecisionRecord
	for suffix, r := range recorded {
		rec := decisionAt(suffix, r.at)
		if suffix == "withrulebook" {
			rec.RulebookID, rec.ReleaseID = "benefits", "0193a3b0-0000-7000-8000-000000000001"
		}
		batch = append(batch, rec)
	}
	if err := st.InsertDecisions(ctx, batch); err != nil {
		t.Fatal(err)
	}

	if _, err := store.Migrate(ctx, pool, migrations.FS); err != nil {
		t.Fatalf("migrate to the partitioned table: %v", err)
	}
	for _, want := range batch {
		suffix := strings.TrimLeft(strings.TrimPrefix(want.DecisionID, "dec_"), "0")
		if got := partitionOfDecision(t, pool, want.DecisionID); got != recorded[suffix].partition {
			t.Errorf("%s (decided %s) is in %s, want %s", suffix, want.DecidedAt, got, recorded[suffix].partition)
		}
		got, err := st.DecisionByID(ctx, want.DecisionID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.DecidedAt.Equal(want.DecidedAt) || got.CallerRef["case"] != suffix || got.RulebookID != want.RulebookID ||
			got.ReleaseID != want.ReleaseID || !got.DecisionDate.Equal(want.DecisionDate) || got.TenantID != want.TenantID {
			t.Errorf("%s after the migration: %+v, want %+v", suffix, got, want)
		}
	}
	var total int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM decisions`).Scan(&total); err != nil || total != len(batch) {
		t.Errorf("decisions holds %d rows (%v), want %d", total, err, len(batch))
	}
	var leftover bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('decisions_unpartitioned') IS NOT NULL`).Scan(&leftover); err != nil || leftover {
		t.Errorf("the unpartitioned table is still there (%v)", err)
	}
	parts, err := st.DecisionPartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, p := range parts {
		have[p.Name] = true
	}
	for i := range 4 {
		if name := "decisions_" + store.MonthStart(time.Now()).AddDate(0, i, 0).Format("2006_01"); !have[name] {
			t.Errorf("no partition %s after the migration (have %v)", name, parts)
		}
	}
}

// TestDecisionsLandInTheirMonth: a record goes to its month's partition,
// by UTC, at the edges too; one no partition covers goes to the default
// partition, is never refused, and moves to its month's partition once
// that is added; lookups by id find it wherever it is.
func TestDecisionsLandInTheirMonth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	for _, month := range []time.Time{time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2031, 2, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := st.AddDecisionPartition(ctx, month); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		suffix    string
		at        time.Time
		partition string
	}{
		{"jan", time.Date(2031, 1, 15, 12, 0, 0, 0, time.UTC), "decisions_2031_01"},
		{"janlast", time.Date(2031, 1, 31, 23, 59, 59, 999999000, time.UTC), "decisions_2031_01"},
		{"febfirst", time.Date(2031, 2, 1, 0, 0, 0, 0, time.UTC), "decisions_2031_02"},
		{"febbyoffset", time.Date(2031, 3, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600)), "decisions_2031_02"},
		{"farfuture", time.Date(2400, 6, 1, 0, 0, 0, 0, time.UTC), "decisions_default"},
		{"farpast", time.Date(1999, 12, 31, 23, 0, 0, 0, time.UTC), "decisions_default"},
	}
	var batch []store.DecisionRecord
	for _, c := range cases {
		batch = append(batch, decisionAt(c.suffix, c.at))
	}
	// Both ways of writing: pipelined INSERTs (one record) and COPY (many).
	if err := st.InsertDecisions(ctx, batch[:1]); err != nil {
		t.Fatal(err)
	}
	copied := batch[1:]
	for i := range 40 {
		copied = append(copied, decisionAt(fmt.Sprintf("pad%d", i), cases[0].at))
	}
	if err := st.InsertDecisions(ctx, copied); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if got := partitionOfDecision(t, pool, batch[i].DecisionID); got != c.partition {
			t.Errorf("%s (%s) is in %s, want %s", c.suffix, c.at, got, c.partition)
		}
		if got, err := st.DecisionByID(ctx, batch[i].DecisionID); err != nil || !got.DecidedAt.Equal(c.at) {
			t.Errorf("%s by id: %v, decided %s, want %s", c.suffix, err, got.DecidedAt, c.at)
		}
	}
	months, err := st.DefaultDecisionMonths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(months) != 2 || !months[0].Equal(time.Date(1999, 12, 1, 0, 0, 0, 0, time.UTC)) || !months[1].Equal(time.Date(2400, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("months in the default partition: %v, want 1999-12 and 2400-06", months)
	}

	// The far future's month gets its partition: its record moves there.
	for run, want := range []bool{true, false} {
		created, err := st.AddDecisionPartition(ctx, time.Date(2400, 6, 20, 0, 0, 0, 0, time.UTC))
		if err != nil || created != want {
			t.Fatalf("add 2400-06, run %d: created %v (%v), want %v", run+1, created, err, want)
		}
	}
	if got := partitionOfDecision(t, pool, batch[4].DecisionID); got != "decisions_2400_06" {
		t.Errorf("after adding its month, farfuture is in %s, want decisions_2400_06", got)
	}
	if got := partitionOfDecision(t, pool, batch[5].DecisionID); got != "decisions_default" {
		t.Errorf("farpast moved to %s, want it left in decisions_default", got)
	}
	missing, err := st.MissingDecisionIDs(ctx, []string{batch[4].DecisionID, batch[5].DecisionID, "dec_0000000000nothere"})
	if err != nil || len(missing) != 1 || missing[0] != "dec_0000000000nothere" {
		t.Errorf("MissingDecisionIDs = %v (%v), want only the unknown id", missing, err)
	}
}

// TestDecisionWrittenTwiceIsRefusedInItsPartition: a second copy of a
// record (same id, same time) is refused by its partition's primary key,
// in a month partition and in the default partition alike; that refusal
// is what the writer counts as already written.
func TestDecisionWrittenTwiceIsRefusedInItsPartition(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	if _, err := st.AddDecisionPartition(ctx, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at         time.Time
		constraint string
	}{
		{time.Date(2031, 1, 9, 0, 0, 0, 0, time.UTC), "decisions_2031_01_pkey"},
		{time.Date(2500, 1, 9, 0, 0, 0, 0, time.UTC), "decisions_default_pkey"},
	} {
		rec := decisionAt("twice"+c.at.Format("2006"), c.at)
		if err := st.InsertDecisions(ctx, []store.DecisionRecord{rec}); err != nil {
			t.Fatal(err)
		}
		err := st.InsertDecisions(ctx, []store.DecisionRecord{rec})
		if err == nil || !strings.Contains(err.Error(), c.constraint) {
			t.Errorf("second copy of a record of %s: %v, want a violation of %s", c.at.Format("2006-01"), err, c.constraint)
		}
	}
}

// BenchmarkDecisionByID measures the replay lookup, by decision id alone,
// as the table grows partitions: the id leads each partition's primary
// key, so a lookup is one index probe per partition (the id carries no
// time to prune by). 500 records a month; "unpartitioned" is the table
// before migration 0014, holding as many records as the largest case.
func BenchmarkDecisionByID(b *testing.B) {
	const perMonth = 500
	for _, c := range []struct {
		name   string
		months int
		last   int // the last migration applied
	}{
		{"unpartitioned, 60 months of records", 60, 13},
		{"partitioned, 4 months", 4, 1 << 30},
		{"partitioned, 24 months", 24, 1 << 30},
		{"partitioned, 60 months", 60, 1 << 30},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			st := store.New(storetest.NewUpTo(b, c.last))
			first := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			var ids []string
			for m := range c.months {
				month := first.AddDate(0, m, 0)
				if c.last > 13 {
					if _, err := st.AddDecisionPartition(ctx, month); err != nil {
						b.Fatal(err)
					}
				}
				batch := make([]store.DecisionRecord, perMonth)
				for i := range batch {
					batch[i] = decisionAt(fmt.Sprintf("m%03di%05d", m, i), month.Add(time.Duration(i)*time.Minute))
					ids = append(ids, batch[i].DecisionID)
				}
				if err := st.InsertDecisions(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := st.Pool().Exec(ctx, `ANALYZE decisions`); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				if _, err := st.DecisionByID(ctx, ids[(i*7919)%len(ids)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// TestAddPartitionBesideOpenWrites: adding a month's partition does not
// wait for a write in flight to another month (ATTACH locks the parent in
// a mode writes share), so the job never stalls the writers.
func TestAddPartitionBesideOpenWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	if _, err := st.AddDecisionPartition(ctx, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `INSERT INTO decisions (decision_id, ruleset_id, ruleset_version, content_digest, engine_version, outcome,
		inputs_hash, cache_hit, fields_provided, field_errors, decided_at, duration_us)
		VALUES ('dec_openwrite0000000', 'r', 'v1', 'sha256:'||repeat('a', 64), 'e', 'eligible', 'sha256:'||repeat('b', 64),
		false, 0, 0, '2031-01-05T00:00:00Z', 1)`); err != nil {
		t.Fatal(err)
	}
	// A lock wait would run into the deadline; it is generous, so only a
	// wait for the open transaction can reach it.
	bounded, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if created, err := st.AddDecisionPartition(bounded, time.Date(2031, 2, 1, 0, 0, 0, 0, time.UTC)); err != nil || !created {
		t.Fatalf("add a partition beside an open write: created %v, %v", created, err)
	}
}
