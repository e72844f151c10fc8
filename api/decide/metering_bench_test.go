package decide

import (
	"bytes"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
)

// BenchmarkDecideMetering measures the cost of metering on POST /decide:
// the same requests, in the same run, alternately against two servers on
// one database that differ only in having a meter. It reports each
// server's mean time per call and the metered server's overhead in per
// cent; in a closed loop that is the throughput loss. Budgets are set so that no request is
// refused and the slack is 1,000 units (a pro key's), so the metered
// server reads the window from the database every 1,000 decisions or every
// second, as it would in production. Requests run in parallel over real
// HTTP on loopback, keyed and anonymous, plain decisions served from the
// decision cache (the cheapest call, where metering weighs most).
func BenchmarkDecideMetering(b *testing.B) {
	budgets := apitest.OverrideBudgets(b, "pro.decide=100000000,anonymous.decide=100000000")
	cfg := api.Config{KeyCacheTTL: 10 * time.Second, Metering: metering.Config{Budgets: budgets, SlackFraction: 1e-5}}
	f := newFixture(b, cfg)
	key := apitest.TierKey(b, f.Store, auth.TierPro, auth.ScopeDecide)
	_, cb := f.PublishCasebank(b, "bench", "snap-income", "bench/snap-income", true)
	bodies := decideBodies(b, cb, "bench/snap-income", "")

	cfg.Unmetered = true
	plain := apitest.NewOn(b, f.Pool, cfg, func(s *api.Server, sv apitest.Services) {
		Register(s, Deps{Catalog: sv.Catalog, Decisions: sv.Decisions, Clock: sv.Clock, Metrics: sv.Metrics}, Config{})
	})

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	defer client.CloseIdleConnections()
	urls := [2]string{f.URL, plain.URL}
	for _, caller := range []struct{ name, key string }{{"keyed", key}, {"anonymous", ""}} {
		b.Run(caller.name, func(b *testing.B) {
			// Each goroutine alternates between the two servers, so both
			// see the same machine load at the same moments; the time of
			// each call is added to its server's total.
			var spent [2]atomic.Int64
			var calls [2]atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				buf := new(bytes.Buffer)
				for i := 0; pb.Next(); i++ {
					which := i % 2
					start := time.Now()
					res, err := postDecide(client, urls[which], caller.key, bodies[i%len(bodies)], buf)
					if err != nil {
						b.Error(err)
						return
					}
					spent[which].Add(int64(time.Since(start)))
					calls[which].Add(1)
					if (which == 0) != (res.Header.Get("X-RateLimit-Class") == "decide") {
						b.Errorf("server %d: X-RateLimit-Class %q", which, res.Header.Get("X-RateLimit-Class"))
						return
					}
				}
			})
			if calls[0].Load() == 0 || calls[1].Load() == 0 {
				return
			}
			metered := float64(spent[0].Load()) / float64(calls[0].Load())
			unmetered := float64(spent[1].Load()) / float64(calls[1].Load())
			b.ReportMetric(metered/1e3, "metered-µs/call")
			b.ReportMetric(unmetered/1e3, "unmetered-µs/call")
			b.ReportMetric(100*(metered-unmetered)/unmetered, "overhead-%")
		})
	}
}
