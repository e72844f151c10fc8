// The race detector keeps its own shadow memory for every allocation and
// grows the resident set by itself, so resident memory measures the
// detector rather than this package under -race; the leak test runs in the
// plain build only.

//go:build !race

package z3_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/eligo/eligo/solver/z3"
)

// residentBytes reads the process's resident set size from /proc.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestNoLeak runs 10,000 queries, each on a fresh solver (and every
// hundredth on a fresh context), and checks that resident memory stays flat
// after warm-up: a leak of anything made per query grows it steadily.
func TestNoLeak(t *testing.T) {
	const total, warmup = 10_000, 1_000
	// Every Z3 call of the loop runs on one OS thread, so the C allocator
	// serves it from one arena: a new thread would otherwise bring a new
	// arena partway through, a step in resident memory that is not a leak.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Close() }()
	var rss []int64
	for q := range total {
		if q%100 == 0 {
			c.Close()
			if c, err = z3.NewContext(); err != nil {
				t.Fatal(err)
			}
		}
		if err := linearQuery(c, int64(q)); err != nil {
			t.Fatalf("query %d: %v", q, err)
		}
		if q+1 == warmup || q+1 == total/2 || q+1 == total {
			runtime.GC() // run the cleanups of dropped terms
			rss = append(rss, residentBytes(t))
		}
	}
	const margin = 16 << 20
	t.Logf("RSS after %d: %d KiB, %d: %d KiB, %d: %d KiB", warmup, rss[0]>>10, total/2, rss[1]>>10, total, rss[2]>>10)
	// The allocator settles during the first half; a per-query leak keeps
	// growing through the second.
	if grown := rss[2] - rss[1]; grown > margin {
		t.Errorf("resident memory grew by %d KiB over the last %d queries", grown>>10, total/2)
	}
}
