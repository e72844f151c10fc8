package main

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
	"github.com/eligo/eligo/worker"
)

// TestWorkerMigratesWorksAndStops runs `eligo worker` on an empty database:
// it migrates, runs the prune and the decision partitions job (with its
// --decision-retention) scheduled on start, and returns cleanly when its
// context ends.
func TestWorkerMigratesWorksAndStops(t *testing.T) {
	t.Parallel()
	pool := storetest.NewEmpty(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, outWriter := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runWorker(ctx, testClock(t), []string{"--database-url", pool.Config().ConnString(), "--decision-retention", "24mo"}, outWriter, io.Discard)
		outWriter.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "eligo worker running\n" {
		t.Fatalf("worker printed %q, %v (worker: %v)", line, err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()

	deadline := time.Now().Add(30 * time.Second)
	for _, kind := range []string{worker.PruneUsageArgs{}.Kind(), worker.DecisionPartitionsArgs{}.Kind()} {
		for {
			var n int
			err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'completed'`, kind).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no completed %s job within 30s", kind)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	var months int
	if err := pool.QueryRow(ctx, `SELECT (args->'retention'->>'months')::int FROM river_job WHERE kind = $1 LIMIT 1`,
		worker.DecisionPartitionsArgs{}.Kind()).Scan(&months); err != nil || months != 24 {
		t.Errorf("the partitions job's retention: %d months (%v), want the 24 of --decision-retention", months, err)
	}
	if _, err := store.New(pool).UsageSum(ctx, "key:1", "decide", time.Now(), time.Now()); err != nil {
		t.Fatalf("usage table after worker migration: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker returned %v after cancel", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("worker did not stop after cancel")
	}
}
