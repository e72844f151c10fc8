package metering

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// BenchmarkAdmit measures the per-request cost of metering itself, which is
// what the middleware adds to a request: parallel Admit calls against real
// PostgreSQL, with the window read and the pending counts written every
// Slack units (1,000 here, a pro key's) or every WindowCacheTTL. "one
// subject" is the contended case (every goroutine on one key); "many
// subjects" spreads calls over 1,000 keys.
func BenchmarkAdmit(b *testing.B) {
	st := store.New(storetest.New(b))
	m := New(Config{Budgets: Budgets{"pro": {ClassDecide: 100_000_000}}, SlackFraction: 1e-5}, st)
	defer m.Close(context.Background())
	for _, subjects := range []int{1, 1000} {
		name := "one subject"
		if subjects > 1 {
			name = "many subjects"
		}
		b.Run(name, func(b *testing.B) {
			var next atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					caller := Caller{Subject: "key:" + strconv.FormatInt(next.Add(1)%int64(subjects), 10), Tier: "pro"}
					d, err := m.Admit(context.Background(), caller, ClassDecide, 1)
					if err != nil || !d.Allowed {
						b.Fatalf("%+v %v", d, err)
					}
				}
			})
		})
	}
}
