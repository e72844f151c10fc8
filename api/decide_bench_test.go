package api

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/eligo/eligo/api/auth"
)

// BenchmarkDecide measures POST /decide over real HTTP on loopback, decision
// records on, for the largest casebank ruleset: plain and with trace and
// explanation, served from the cache and evaluated afresh. Requests run in
// parallel (b.RunParallel) so the figure is the server's throughput on
// this machine, load generator included.
func BenchmarkDecide(b *testing.B) {
	// Key rows are reused for 10s, as `eligo serve` does by default.
	f := newDecideFixture(b, Config{KeyCacheTTL: 10 * time.Second})
	key := f.key(b, "bench", []auth.Scope{auth.ScopeDecide}, time.Time{})
	if _, err := f.store.Pool().Exec(b.Context(), `UPDATE api_keys SET tier = 'internal'`); err != nil {
		b.Fatal(err)
	}
	_, cb := f.publishCasebank(b, "bench", "snap-income", "bench/snap-income", false)
	for _, sc := range []struct{ name, flags string }{
		{"plain", ``},
		{"plain_no_cache", `,"no_cache":true`},
		{"trace_explanation", `,"include_trace":true,"include_explanation":true`},
		{"trace_explanation_no_cache", `,"include_trace":true,"include_explanation":true,"no_cache":true`},
	} {
		bodies := make([][]byte, len(cb.Cases))
		for i, c := range cb.Cases {
			bodies[i] = []byte(`{"ruleset_id":"bench/snap-income","field_values":` + string(c.FieldValues) + sc.flags + `}`)
		}
		b.Run(sc.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
			defer client.CloseIdleConnections()
			b.RunParallel(func(pb *testing.PB) {
				buf := new(bytes.Buffer)
				for i := 0; pb.Next(); i++ {
					req, _ := http.NewRequest(http.MethodPost, f.url+"/decide", bytes.NewReader(bodies[i%len(bodies)]))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("X-Api-Key", key)
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
