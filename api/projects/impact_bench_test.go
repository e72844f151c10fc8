package projects

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/eligo/eligo/worker"
)

// benchHTTPCases is as many snap-income cases as the largest caseload
// kept holds (MaxCaseloadBytes at about 235 bytes a case).
const benchHTTPCases = 130_000

// benchCaseload writes n snap-income cases as JSON Lines from a fixed seed,
// drawn as impact's BenchmarkCaseload draws them: households of 1 to 10 in
// the three regions, a fifth with an elderly or disabled member, incomes
// up to $6,000, dated across fiscal year 2026.
func benchCaseload(n int) []byte {
	var b bytes.Buffer
	rng := rand.New(rand.NewPCG(2026, 1))
	regions := []string{"contiguous_us_guam_vi", "contiguous_us_guam_vi", "contiguous_us_guam_vi", "alaska", "hawaii"}
	start := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		gross := rng.IntN(600_000)
		net := gross * (40 + rng.IntN(50)) / 100
		fmt.Fprintf(&b, `{"field_values":{"household.region":%q,"household.size":%d,"household.elderly_or_disabled_member":%t,"income.gross_monthly":%d.%02d,"income.net_monthly":%d.%02d},"decision_date":%q,"reference":"case-%07d"}`+"\n",
			regions[rng.IntN(len(regions))], 1+rng.IntN(10), rng.IntN(5) == 0, gross/100, gross%100, net/100, net%100,
			start.AddDate(0, 0, rng.IntN(365)).Format(time.DateOnly), i)
	}
	return b.Bytes()
}

// BenchmarkImpactOverHTTP is an impact run end to end over HTTP: upload
// the largest caseload kept (130,000 snap-income cases, 30 MiB) to a
// project, start a run of acme/snap v1 against v2 (a gross limit raised),
// and poll it until it ends, with the server's River client working the
// parts (DefaultImpactPartBytes) on this process's CPU gate. It reports
// cases per second over the run (from the start to the report), that per
// core the tenant may use (half the gate's slots, at least one), the
// upload's rate, and what a million cases would take at the run's rate
// (docs/performance.md#caseload-impact). The caseload is written first,
// outside the timing.
func BenchmarkImpactOverHTTP(b *testing.B) {
	f := newImpactFixture(b, worker.ImpactConfig{})
	body := benchCaseload(benchHTTPCases)
	var upload, run time.Duration
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		r := send(b, f.Fixture, f.key, http.MethodPost, f.project+"/caseloads", "application/x-ndjson", body)
		want(b, r, http.StatusCreated)
		t1 := time.Now()
		id := f.start(b, map[string]any{"caseload_id": obj(b, r.Body)["caseload_id"], "decision_date": "2026-01-15",
			"candidate": map[string]any{"slug": "acme/snap", "version": "v2"}, "baseline": map[string]any{"version": "v1"}})
		done := f.ended(b, f.key, id)
		run += time.Since(t1)
		upload += t1.Sub(t0)
		if done["state"] != "succeeded" || obj(b, obj(b, done["report"])["cases"])["count"] != float64(benchHTTPCases) {
			b.Fatalf("run = %v", done["state"])
		}
		want(b, call(b, f.Fixture, f.key, http.MethodDelete, f.project+"/caseloads/"+obj(b, r.Body)["caseload_id"].(string), nil), http.StatusNoContent)
	}
	cores := max(runtime.GOMAXPROCS(0)/2, 1)
	rate := float64(benchHTTPCases) * float64(b.N) / run.Seconds()
	b.ReportMetric(rate, "cases/s")
	b.ReportMetric(rate/float64(cores), "cases/s/core")
	b.ReportMetric(float64(len(body))*float64(b.N)/(1<<20)/upload.Seconds(), "upload-MiB/s")
	b.ReportMetric(1_000_000/rate, "s/million-cases")
}
