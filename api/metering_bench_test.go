package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/eligo/eligo/api/auth"
	"github.com/eligo/eligo/metering"
)

// BenchmarkDecideMetering measures the cost of metering on POST /decide:
// the same requests, in the same run, against two servers on one database
// that differ only in having a meter. Budgets are set so that no request is
// refused and the slack is 1,000 units (a pro key's), so the metered
// server reads the window from the database every 1,000 decisions or every
// second, as it would in production. Requests run in parallel over real
// HTTP on loopback, keyed and anonymous, plain decisions served from the
// decision cache (the cheapest call, where metering weighs most).
func BenchmarkDecideMetering(b *testing.B) {
	budgets := overrideBudgets(b, "pro.decide=100000000,anonymous.decide=100000000")
	cfg := Config{KeyCacheTTL: 10 * time.Second, Metering: metering.Config{Budgets: budgets, SlackFraction: 1e-5}}
	f := newDecideFixture(b, cfg)
	key := tierKey(b, f.store, auth.TierPro, auth.ScopeDecide)
	_, cb := f.publishCasebank(b, "bench", "snap-income", "bench/snap-income", true)
	bodies := make([][]byte, len(cb.Cases))
	for i, c := range cb.Cases {
		bodies[i] = []byte(`{"ruleset_id":"bench/snap-income","field_values":` + string(c.FieldValues) + `}`)
	}

	cfg.Logger = slog.New(slog.DiscardHandler)
	unmetered := New(cfg, f.store)
	unmetered.meter = nil
	plain := httptest.NewServer(unmetered.Handler())
	defer func() {
		plain.Close()
		if err := unmetered.decisions.Close(context.Background()); err != nil {
			b.Error(err)
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	defer client.CloseIdleConnections()
	for _, caller := range []struct{ name, key string }{{"keyed", key}, {"anonymous", ""}} {
		for _, server := range []struct{ name, url string }{{"metered", f.url}, {"unmetered", plain.URL + RootPath}} {
			b.Run(caller.name+"/"+server.name, func(b *testing.B) {
				b.RunParallel(func(pb *testing.PB) {
					buf := new(bytes.Buffer)
					for i := 0; pb.Next(); i++ {
						req, _ := http.NewRequest(http.MethodPost, server.url+"/decide", bytes.NewReader(bodies[i%len(bodies)]))
						req.Header.Set("Content-Type", "application/json")
						if caller.key != "" {
							req.Header.Set("X-Api-Key", caller.key)
						}
						res, err := client.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						buf.Reset()
						_, _ = io.Copy(buf, res.Body)
						res.Body.Close()
						if res.StatusCode != http.StatusOK {
							b.Errorf("status %d: %s", res.StatusCode, buf)
							return
						}
					}
				})
			})
		}
	}
}
