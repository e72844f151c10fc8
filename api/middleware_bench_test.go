package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
)

// BenchmarkRequest measures a whole round trip over real HTTP through the
// middleware (request id, log line, route lookup, CORS, body cap) to a
// trivial handler, anonymous and with a key (one PostgreSQL lookup).
func BenchmarkRequest(b *testing.B) {
	f := newFixture(b)
	key := f.key(b, "bench", []auth.Scope{auth.ScopeDecide}, time.Time{})
	for name, headers := range map[string]map[string]string{
		"anonymous": nil,
		"keyed":     {"x-api-key": key},
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r := f.do(b, http.MethodPost, "/test/open", headers, strings.NewReader(`{"name":"x"}`))
				if r.Status != http.StatusOK {
					b.Fatalf("status %d", r.Status)
				}
			}
		})
	}
}
