package decisionlog_test

import (
	"context"
	"testing"
	"time"

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
