package routes

import (
	"bytes"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring/source/sourcetest"
)

// BenchmarkAttackBodies sends the bodies the limits of
// docs/limits.md#json-bodies-before-they-are-decoded answer to a
// server serving every resource over real HTTP, and reports per request:
// wall time (ns/op), the peak heap above the start (peak-heap-MB,
// sampled), the process's peak RSS (peak-rss-MB, reset before each
// body), the bytes allocated per byte of body (alloc/body-byte) and the
// answer's size and status. Run it with -benchtime 1x; scripts/bodycost.sh
// runs it on this tree and on another (main) in one go. The 4 MB project
// body is left out of a run on code without the limits unless asked for:
// it takes that process past 10 GB.
func BenchmarkAttackBodies(b *testing.B) {
	f := newFixture(b, api.Config{Metering: apitest.GenerousMetering()})
	key := f.Key(b, "acme", []auth.Scope{auth.ScopeProjectsWrite, auth.ScopeRulebooksWrite}, time.Time{})
	explain := apitest.RulesetPath("acme/x:20260101-0123456789ab", "/explain-failure")
	for _, c := range []struct {
		name, path, key string
		body            []byte
		at              int // how many at once
	}{
		{"project_100KB_free", "/projects/", key, apitest.EmptyCasesBody(34_000), 1},
		{"project_420KB_free", "/projects/", key, apitest.EmptyCasesBody(140_000), 1},
		{"project_4MB_free", "/projects/", key, apitest.EmptyCasesBody(1_400_000), 1},
		{"explain_1.2MB_anonymous", explain, "", apitest.UndeclaredMembersBody(1_200_000), 1},
		{"explain_1.2MB_anonymous_x4", explain, "", apitest.UndeclaredMembersBody(1_200_000), 4},
		{"rulebook_15MB_free", "/rulebooks/", key, apitest.OutcomeTreeBody(15_000_000), 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			var answer, status int
			var allocated uint64
			var peak uint64
			for b.Loop() {
				resetPeakRSS()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				peak = sourcetest.PeakHeap(func() {
					var wg sync.WaitGroup
					for range c.at {
						wg.Go(func() {
							r := f.Do(b, http.MethodPost, c.path, apitest.WithKey(c.key), bytes.NewReader(c.body))
							answer, status = len(r.Raw), r.Status
						})
					}
					wg.Wait()
				})
				runtime.ReadMemStats(&after)
				allocated = after.TotalAlloc - before.TotalAlloc
			}
			b.ReportMetric(float64(len(c.body)), "body-bytes")
			b.ReportMetric(float64(answer), "answer-bytes")
			b.ReportMetric(float64(status), "status")
			b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
			b.ReportMetric(float64(peakRSS())/1e6, "peak-rss-MB")
			b.ReportMetric(float64(allocated)/float64(c.at*len(c.body)), "alloc/body-byte")
		})
	}
}

// resetPeakRSS resets the process's peak resident set (Linux: VmHWM).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident set since its last reset, in
// bytes; 0 where /proc does not say.
func peakRSS() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
