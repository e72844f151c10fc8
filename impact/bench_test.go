package impact

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/engine/value"
)

// benchCases is the size of the benchmark's caseload.
const benchCases = 1_000_000

// writeSNAPCaseload writes n snap-income cases as JSON Lines to path,
// drawn from a fixed seed so every run reads the same file: households of
// 1 to 10 in the three regions, a fifth with an elderly or disabled member,
// incomes in cents up to $6,000, dated across fiscal year 2026.
func writeSNAPCaseload(tb testing.TB, path string, n int) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(2026, 1))
	regions := []string{"contiguous_us_guam_vi", "contiguous_us_guam_vi", "contiguous_us_guam_vi", "alaska", "hawaii"}
	start, _ := value.ParseDate("2025-10-01")
	for i := range n {
		gross := rng.IntN(600_000)
		net := gross * (40 + rng.IntN(50)) / 100
		fmt.Fprintf(w, `{"field_values":{"household.region":%q,"household.size":%d,"household.elderly_or_disabled_member":%t,"income.gross_monthly":%d.%02d,"income.net_monthly":%d.%02d},"decision_date":%q,"reference":"case-%07d"}`+"\n",
			regions[rng.IntN(len(regions))], 1+rng.IntN(10), rng.IntN(5) == 0, gross/100, gross%100, net/100, net%100,
			value.FormatDate(start+int64(rng.IntN(365))), i)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return st.Size()
}

// BenchmarkCaseload runs a million snap-income cases end to end (read,
// decode, decide on both rulesets, aggregate) against a candidate with the
// gross limits of households of 2 and 3 raised, and reports cases per
// second and the peak heap the run reached (sampled at every progress
// report, docs/performance.md#caseload-impact). The caseload is written
// first, outside the timing.
func BenchmarkCaseload(b *testing.B) {
	base, f := loadFolder(b, "snap-income")
	src := string(f.Rules)
	for _, c := range [][2]string{{"income.gross_monthly <= 2292", "income.gross_monthly <= 2400"}, {"income.gross_monthly <= 2888", "income.gross_monthly <= 3000"}} {
		src = strings.Replace(src, c[0], c[1], 1)
	}
	cand := compile(b, "raised.rules", src)
	path := filepath.Join(b.TempDir(), "caseload.jsonl")
	size := writeSNAPCaseload(b, path, benchCases)

	var peak uint64
	var ms runtime.MemStats
	sample := func(Progress) {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	b.ReportAllocs()
	b.SetBytes(size)
	b.ResetTimer()
	var elapsed time.Duration
	for b.Loop() {
		file, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		rep, err := Run(context.Background(), file, Options{Baseline: base, Candidate: cand, Examples: 5, Progress: sample})
		elapsed += time.Since(t0)
		file.Close()
		if err != nil {
			b.Fatal(err)
		}
		if rep.Cases != benchCases || rep.Changed == 0 || len(rep.BadRows) != 0 {
			b.Fatalf("report: %+v", rep)
		}
	}
	b.ReportMetric(float64(benchCases)*float64(b.N)/elapsed.Seconds(), "cases/s")
	b.ReportMetric(float64(peak-min(peak, before))/(1<<20), "peak-heap-MiB")
}
