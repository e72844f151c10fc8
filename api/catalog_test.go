package api

import (
	"context"
	"testing"
)

// BenchmarkResolveRuleset measures the per-decision cost of resolving a
// slug and a concrete id once both caches are warm: what /decide pays
// before it evaluates.
func BenchmarkResolveRuleset(b *testing.B) {
	f := newDecideFixture(b, Config{})
	res, _ := f.publishCasebank(b, "bench", "snap-income", "bench/snap-income", true)
	ctx := context.Background()
	for _, ref := range []struct{ name, ref string }{{"slug", "bench/snap-income"}, {"id", res.RulesetID}} {
		b.Run(ref.name, func(b *testing.B) {
			if _, err := f.server.resolveRuleset(ctx, ref.ref); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := f.server.resolveRuleset(ctx, ref.ref); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
