package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a sink the flush goroutine and the test may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestBufferedLogKeepsEveryLineAndWritesWarningsAtOnce(t *testing.T) {
	var sink syncBuffer
	// An hour-long interval: only a warning, a full buffer or Close writes.
	logs := newBufferedLog(&sink, 4<<10, time.Hour)
	logger := slog.New(flushingHandler{slog.NewJSONHandler(logs, nil), logs}).With("request_id", "r1")

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				logger.Info("request", "goroutine", g, "i", i)
			}
		})
	}
	wg.Wait()
	before := strings.Count(sink.String(), "\n")
	if before >= 800 {
		t.Fatalf("all %d info lines were written before any flush: not buffered", before)
	}
	logger.Warn("slow database")
	if !strings.Contains(sink.String(), "slow database") {
		t.Fatal("a warning was not written at once")
	}
	if err := logs.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(sink.String()), "\n")
	if len(lines) != 801 {
		t.Fatalf("got %d lines, want 801", len(lines))
	}
	for _, line := range lines {
		// A torn or interleaved line would not be one JSON object with the id.
		if !strings.HasPrefix(line, "{") || !strings.HasSuffix(line, "}") || !strings.Contains(line, `"request_id":"r1"`) {
			t.Fatalf("malformed line %q", line)
		}
	}
}
