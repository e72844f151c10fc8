package decide

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/folder"
)

// BenchmarkDecide measures POST /decide over real HTTP on loopback, decision
// records on, for the largest casebank ruleset: plain and with trace and
// explanation, served from the cache and evaluated afresh. Requests run in
// parallel (b.RunParallel) so the figure is the server's throughput on
// this machine, load generator included.
func BenchmarkDecide(b *testing.B) {
	// Key rows are reused for 10s, as `eligo serve` does by default.
	f := newFixture(b, api.Config{KeyCacheTTL: 10 * time.Second})
	key := f.Key(b, "bench", []auth.Scope{auth.ScopeDecide}, time.Time{})
	if _, err := f.Store.Pool().Exec(b.Context(), `UPDATE api_keys SET tier = 'internal'`); err != nil {
		b.Fatal(err)
	}
	_, cb := f.PublishCasebank(b, "bench", "snap-income", "bench/snap-income", false)
	for _, sc := range []struct{ name, flags string }{
		{"plain", ``},
		{"plain_no_cache", `,"no_cache":true`},
		{"trace_explanation", `,"include_trace":true,"include_explanation":true`},
		{"trace_explanation_no_cache", `,"include_trace":true,"include_explanation":true,"no_cache":true`},
	} {
		bodies := decideBodies(b, cb, "bench/snap-income", sc.flags)
		b.Run(sc.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
			defer client.CloseIdleConnections()
			b.RunParallel(func(pb *testing.PB) {
				buf := new(bytes.Buffer)
				for i := 0; pb.Next(); i++ {
					if _, err := postDecide(client, f.URL, key, bodies[i%len(bodies)], buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// decideBodies is one /decide body per case of cb against slug, as of
// the case's date, with flags (further members, each after a comma) added.
func decideBodies(tb testing.TB, cb *folder.Folder, slug, flags string) [][]byte {
	tb.Helper()
	bodies, err := cb.DecideBodies(slug, flags)
	if err != nil {
		tb.Fatal(err)
	}
	return bodies
}

// postDecide sends body to base's /decide, with key unless it is empty,
// and reads the whole response into buf. A response other than 200 is an
// error that quotes it.
func postDecide(client *http.Client, base, key string, body []byte, buf *bytes.Buffer) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/decide", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	buf.Reset()
	_, err = io.Copy(buf, res.Body)
	res.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", res.StatusCode, buf)
	}
	return res, nil
}
