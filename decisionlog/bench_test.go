package decisionlog_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// BenchmarkRecordAndWrite measures the whole path of a record with the
// default configuration: queued by Record, copied to PostgreSQL by the
// writers, flushed by Close. It is dominated by the COPYs, which is the
// point: it shows whether the writer adds anything to them.
func BenchmarkRecordAndWrite(b *testing.B) {
	ctx := context.Background()
	st := store.New(storetest.New(b))
	offset := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		batch := make([]store.DecisionRecord, 10000)
		for i := range batch {
			batch[i] = record(offset + i)
		}
		offset += len(batch)
		b.StartTimer()
		r := decisionlog.New(st, decisionlog.Config{Logger: quiet()})
		for _, rec := range batch {
			if err := r.Record(ctx, rec); err != nil {
				b.Fatal(err)
			}
		}
		if err := r.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(offset), "ns/record")
}

// BenchmarkRewriteWrittenBatch measures a full default batch (2,000 records)
// whose COPY committed but whose acknowledgement was lost, so the writer
// copies it again and PostgreSQL refuses every record as a duplicate.
func BenchmarkRewriteWrittenBatch(b *testing.B) {
	ctx := context.Background()
	st := store.New(storetest.New(b))
	batch := make([]store.DecisionRecord, 2000)
	for i := range batch {
		batch[i] = record(i)
	}
	if err := st.InsertDecisions(ctx, batch); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r := decisionlog.New(st, decisionlog.Config{FlushInterval: time.Hour, Writers: 1, Logger: quiet()})
		for _, rec := range batch {
			if err := r.Record(ctx, rec); err != nil {
				b.Fatal(err)
			}
		}
		if err := r.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// unreachable is a store whose database does not answer (nothing listens
// on port 1): a spooling recorder over it spools and never ships, so that
// a benchmark measures the spool alone.
func unreachable(b *testing.B) *store.Store {
	pool, err := pgxpool.New(context.Background(), "postgres://eligo@127.0.0.1:1/eligo?connect_timeout=1")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return store.New(pool)
}

// BenchmarkRecordModes measures Record as concurrent requests call it (16
// goroutines per core), in each mode: database (returns once the record
// is committed in the table), spool (once the spool's group write
// returned) and spool with fsync (once it is flushed to disk). The spool
// modes do not ship here (BenchmarkShip measures that); the database mode
// includes its COPYs, which is its cost. ns/record is the time per record
// across all goroutines, the inverse of throughput.
func BenchmarkRecordModes(b *testing.B) {
	for _, mode := range []string{"database", "spool", "spool-fsync"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			var r *decisionlog.Recorder
			switch mode {
			case "database":
				r = decisionlog.New(store.New(storetest.New(b)), decisionlog.Config{Logger: quiet()})
			default:
				var err error
				r, err = decisionlog.Open(unreachable(b), decisionlog.Config{Logger: quiet(), Spool: decisionlog.SpoolConfig{
					Dir: b.TempDir(), MaxBytes: 16 << 30, Fsync: mode == "spool-fsync", ShipInterval: time.Hour}})
				if err != nil {
					b.Fatal(err)
				}
			}
			var next atomic.Int64
			b.SetParallelism(16)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := r.Record(ctx, record(int(next.Add(1)))); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
			// The spool modes' records stay spooled: Close gives up at once.
			closing, cancel := context.WithCancel(ctx)
			if mode != "database" {
				cancel()
			}
			if err := r.Close(closing); err != nil {
				b.Fatal(err)
			}
			cancel()
		})
	}
}

// BenchmarkShip measures the shipper: a spool holding 20,000 records left
// by an earlier process is shipped to the table (COPY batches of 10,000)
// by the next recorder's start and Close. ns/record is the shipping time
// per record. It runs against the decisions table as it is, partitioned
// by month (the records land in the current month's partition), and as it
// was before migration 0014, one plain table, for the ratio
// docs/performance.md#decision-partitions reports.
func BenchmarkShip(b *testing.B) {
	for _, table := range []struct {
		name string
		open func(testing.TB) *pgxpool.Pool
	}{
		{"partitioned", storetest.New},
		{"unpartitioned", func(tb testing.TB) *pgxpool.Pool { return storetest.NewUpTo(tb, 13) }},
	} {
		b.Run(table.name, func(b *testing.B) { benchmarkShip(b, store.New(table.open(b))) })
	}
}

func benchmarkShip(b *testing.B, st *store.Store) {
	ctx := context.Background()
	gone := unreachable(b)
	const n = 20000
	offset := 0
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		left, err := decisionlog.Open(gone, decisionlog.Config{Logger: quiet(), Spool: decisionlog.SpoolConfig{Dir: dir, ShipInterval: time.Hour}})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			if err := left.Record(ctx, record(offset+i)); err != nil {
				b.Fatal(err)
			}
		}
		offset += n
		stopped, cancel := context.WithCancel(ctx)
		cancel()
		if err := left.Close(stopped); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		r, err := decisionlog.Open(st, decisionlog.Config{Logger: quiet(), Spool: decisionlog.SpoolConfig{Dir: dir, ShipInterval: time.Hour}})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Close(ctx); err != nil {
			b.Fatal(err)
		}
		if s := r.Status(); s.Spool.Shipped != n {
			b.Fatalf("shipped %d of %d", s.Spool.Shipped, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(offset), "ns/record")
}
