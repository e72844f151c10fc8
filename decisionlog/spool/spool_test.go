package spool_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/eligo/eligo/decisionlog/spool"
)

// holdEnv, when set to a directory, makes the test binary open the spool
// there, print "locked" and hold it until its stdin closes: a second
// process for the lock test.
const holdEnv = "ELIGO_SPOOL_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		sp, err := spool.Open(dir, spool.Config{})
		if err != nil {
			fmt.Println("open:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		_ = sp.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// logged is a logger whose lines the test can read.
type logged struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logged) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logged) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logged) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func open(t *testing.T, dir string, cfg spool.Config) *spool.Spool {
	t.Helper()
	sp, err := spool.Open(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Close() })
	return sp
}

func payload(i int) []byte { return fmt.Appendf(nil, "record %06d %s", i, strings.Repeat("x", i%50)) }

// appendAll appends payload(from..to-1), each from its own goroutine as
// concurrent requests would, and fails the test on any error.
func appendAll(t *testing.T, sp *spool.Spool, from, to int) {
	t.Helper()
	errs := make([]error, to-from)
	var wg sync.WaitGroup
	for i := from; i < to; i++ {
		wg.Go(func() { errs[i-from] = sp.Append(context.Background(), payload(i)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// readAll seals the spool and returns every record of its sealed
// segments, as strings, in order.
func readAll(t *testing.T, sp *spool.Spool) []string {
	t.Helper()
	if err := sp.Seal(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, seg := range sp.Segments() {
		recs, err := sp.Read(seg)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			out = append(out, string(r))
		}
	}
	return out
}

// sorted returns the set of payload(from..to-1) as a map.
func want(from, to int) map[string]bool {
	m := map[string]bool{}
	for i := from; i < to; i++ {
		m[string(payload(i))] = true
	}
	return m
}

func sameSet(t *testing.T, got []string, want map[string]bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for _, g := range got {
		if !want[g] {
			t.Fatalf("unexpected record %q", g)
		}
	}
}

// TestRoundTrip: records appended concurrently, in one segment or across
// several, with and without fsync, read back whole, in the same process
// and after reopening; removing a segment frees its bytes.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  spool.Config
	}{
		{"one segment", spool.Config{}},
		{"many segments", spool.Config{SegmentBytes: 2048}},
		{"fsync", spool.Config{Fsync: true, SegmentBytes: 4096}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			sp := open(t, dir, tc.cfg)
			appendAll(t, sp, 0, 500)
			if st := sp.Stats(); st.Bytes == 0 || st.Segments == 0 || st.Oldest.IsZero() {
				t.Errorf("stats after appends: %+v", st)
			}
			sameSet(t, readAll(t, sp), want(0, 500))
			if err := sp.Close(); err != nil {
				t.Fatal(err)
			}
			sp = open(t, dir, tc.cfg)
			segs := sp.Segments()
			if len(segs) == 0 {
				t.Fatal("no segments after reopening")
			}
			sameSet(t, readAll(t, sp), want(0, 500))
			for _, seg := range segs {
				if err := sp.Remove(seg); err != nil {
					t.Fatal(err)
				}
			}
			if st := sp.Stats(); st.Bytes != 0 || st.Segments != 0 || !st.Oldest.IsZero() {
				t.Errorf("stats after removing every segment: %+v", st)
			}
		})
	}
}

// TestTornFinalRecordTruncated: a segment cut off mid-record, as a crash
// mid-write leaves it, keeps every whole record at reopening, loses the
// cut one, says so in the log, and takes new appends after them.
func TestTornFinalRecordTruncated(t *testing.T) {
	t.Parallel()
	for _, cut := range []int{1, 5, 9, 20} { // inside the header of the last frame, or its payload
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			sp := open(t, dir, spool.Config{})
			for i := range 10 {
				if err := sp.Append(context.Background(), payload(i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := sp.Close(); err != nil {
				t.Fatal(err)
			}
			path := onlySegment(t, dir)
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			last := int64(spool.FrameOverhead + len(payload(9)))
			if err := os.Truncate(path, info.Size()-last+int64(cut)); err != nil {
				t.Fatal(err)
			}
			var log logged
			sp = open(t, dir, spool.Config{Logger: log.logger()})
			if !strings.Contains(log.String(), "torn final record truncated") {
				t.Errorf("no log line for the torn record: %s", log.String())
			}
			if err := sp.Append(context.Background(), payload(10)); err != nil {
				t.Fatal(err)
			}
			got := want(0, 9)
			got[string(payload(10))] = true
			sameSet(t, readAll(t, sp), got)
		})
	}
}

// TestCorruptMiddleRecordQuarantined: a flipped byte in a record that
// other records follow is not a torn write: the segment is moved to the
// quarantine directory whole and logged, and the spool's other segments
// are kept.
func TestCorruptMiddleRecordQuarantined(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sp := open(t, dir, spool.Config{})
	for i := range 10 {
		if err := sp.Append(context.Background(), payload(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Seal(); err != nil {
		t.Fatal(err)
	}
	damaged := sp.Segments()[0].Path
	appendAll(t, sp, 10, 20)
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	data[spool.HeaderSize+3*spool.FrameOverhead+len(payload(0))+len(payload(1))+len(payload(2))+2] ^= 0x40 // inside the fourth record's payload
	if err := os.WriteFile(damaged, data, 0o640); err != nil {
		t.Fatal(err)
	}

	var log logged
	sp = open(t, dir, spool.Config{Logger: log.logger()})
	if !strings.Contains(log.String(), "damaged segment quarantined") || !strings.Contains(log.String(), "records_before_damage=3") {
		t.Errorf("no quarantine log line: %s", log.String())
	}
	sameSet(t, readAll(t, sp), want(10, 20))
	moved, err := filepath.Glob(filepath.Join(dir, spool.QuarantineDir, "*.seg"))
	if err != nil || len(moved) != 1 {
		t.Fatalf("quarantined files: %v %v", moved, err)
	}
	kept, err := os.ReadFile(moved[0])
	if err != nil || !bytes.Equal(kept, data) {
		t.Errorf("the quarantined segment is not the damaged one, byte for byte (%v)", err)
	}
}

// TestFullSpoolRefuses: an append that would pass MaxBytes fails with
// ErrFull and leaves the spool as it was; removing a shipped segment makes
// room again. Every append that returned nil is read back.
func TestFullSpoolRefuses(t *testing.T) {
	t.Parallel()
	sp := open(t, t.TempDir(), spool.Config{MaxBytes: 4096, SegmentBytes: 1024})
	var accepted []string
	full := 0
	for i := range 200 {
		switch err := sp.Append(context.Background(), payload(i)); {
		case err == nil:
			accepted = append(accepted, string(payload(i)))
		case errors.Is(err, spool.ErrFull):
			full++
		default:
			t.Fatal(err)
		}
	}
	if full == 0 || len(accepted) == 0 {
		t.Fatalf("%d accepted, %d refused as full: want both", len(accepted), full)
	}
	if st := sp.Stats(); st.Bytes > 4096 {
		t.Errorf("spool holds %d bytes, past its bound of 4096", st.Bytes)
	}
	got := readAll(t, sp)
	if strings.Join(got, "\n") != strings.Join(accepted, "\n") {
		t.Errorf("read back %d records, want the %d accepted", len(got), len(accepted))
	}
	if err := sp.Remove(sp.Segments()[0]); err != nil {
		t.Fatal(err)
	}
	if err := sp.Append(context.Background(), payload(0)); err != nil {
		t.Errorf("append after a segment was removed: %v", err)
	}
}

// TestTwoProcessesCannotShare: while another process holds a spool, Open
// fails with ErrLocked; once that process is gone (here killed), the
// kernel releases its lock and Open succeeds.
func TestTwoProcessesCannotShare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = child.Process.Kill(); _ = child.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	if _, err := spool.Open(dir, spool.Config{}); !errors.Is(err, spool.ErrLocked) {
		t.Fatalf("Open while another process holds the spool: %v, want ErrLocked", err)
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	sp, err := spool.Open(dir, spool.Config{})
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	// And within one process, a second Open is refused as well.
	if _, err := spool.Open(dir, spool.Config{}); !errors.Is(err, spool.ErrLocked) {
		t.Errorf("second Open in one process: %v, want ErrLocked", err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAppendAfterClose is refused.
func TestAppendAfterClose(t *testing.T) {
	t.Parallel()
	sp := open(t, t.TempDir(), spool.Config{})
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sp.Append(context.Background(), payload(1)); !errors.Is(err, spool.ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
}

func onlySegment(t *testing.T, dir string) string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, "*.seg"))
	if err != nil || len(segs) != 1 {
		t.Fatalf("segments: %v %v", segs, err)
	}
	return segs[0]
}
