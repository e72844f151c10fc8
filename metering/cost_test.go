package metering

import (
	"fmt"
	"testing"
)

// TestDecideCostEveryFlagCount checks the arithmetic of docs/metering.md for
// every number of the four costly flags: 1 plain, +5 per costly flag, so
// trace plus explanation costs 11.
func TestDecideCostEveryFlagCount(t *testing.T) {
	t.Parallel()
	want := [5]int64{1, 6, 11, 16, 21}
	for costly, w := range want {
		t.Run(fmt.Sprint(costly), func(t *testing.T) {
			if got := DecideCost(costly); got != w {
				t.Fatalf("cost %d, want %d", got, w)
			}
		})
	}
	if got := DecideCost(4); got != PlainDecideCost+4*FlagSurcharge {
		t.Fatalf("every flag costs %d, want the plain cost plus four surcharges", got)
	}
}
