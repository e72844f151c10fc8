package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/clock/clocktest"
)

// testServe is one `eligo serve` running inside the test process on a free
// port, with the HTTP client the test talks to it through.
type testServe struct {
	root    string // the versioned root, e.g. http://127.0.0.1:1234/api/v1/public
	metrics string // the metrics URL when --metrics-addr was given
	client  *http.Client
	cancel  context.CancelFunc
	done    <-chan error
}

// startServe runs `eligo serve` with args on a free port until stop, with
// a decision spool of its own (args may name another).
func startServe(t *testing.T, args ...string) *testServe {
	t.Helper()
	args = append([]string{"--decision-spool", t.TempDir()}, args...)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out, outWriter := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, testClock(t), append([]string{"--addr", "127.0.0.1:0", "--shutdown-timeout", "10s"}, args...), outWriter, io.Discard)
		outWriter.Close()
	}()
	lines := bufio.NewReader(out)
	srv := &testServe{client: &http.Client{Transport: &http.Transport{}}, cancel: cancel, done: done}
	for srv.root == "" {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("serve printed no address: %v (serve: %v)", err, <-done)
		}
		if m, ok := strings.CutPrefix(line, "eligo metrics on "); ok {
			srv.metrics = strings.TrimSpace(m)
		}
		if root, ok := strings.CutPrefix(line, "eligo serving on "); ok {
			srv.root = strings.TrimSpace(root)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	return srv
}

// stop shuts the server down as SIGTERM would and fails the test unless
// serve returns cleanly. It first closes the client's idle connections:
// net/http's Transport may dial a connection that a concurrent request
// then never uses, and Server.Shutdown waits up to five seconds for such
// a never-used connection before it counts as idle, which is a client
// artefact rather than an in-flight request.
func (s *testServe) stop(t *testing.T) {
	t.Helper()
	s.client.CloseIdleConnections()
	s.cancel()
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("serve returned %v after cancel", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
}

// testClock is the clock the in-process commands run with: the run's
// ELIGO_TODAY, as the binary's dispatcher reads it.
func testClock(t *testing.T) clock.Clock {
	t.Helper()
	return clocktest.FromEnv(t)
}
