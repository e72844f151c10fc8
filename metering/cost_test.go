package metering

import (
	"fmt"
	"testing"
)

// TestDecideCostEveryFlagCombination checks the spec's arithmetic (Limits
// 6) for all sixteen combinations: 1 plain, +5 per costly flag.
func TestDecideCostEveryFlagCombination(t *testing.T) {
	t.Parallel()
	// want[mask] with bits no_cache=1, include_trace=2,
	// include_explanation=4, include_graph_overlay=8.
	want := [16]int64{1, 6, 6, 11, 6, 11, 11, 16, 6, 11, 11, 16, 11, 16, 16, 21}
	for mask := range 16 {
		f := DecideFlags{
			NoCache:             mask&1 != 0,
			IncludeTrace:        mask&2 != 0,
			IncludeExplanation:  mask&4 != 0,
			IncludeGraphOverlay: mask&8 != 0,
		}
		t.Run(fmt.Sprintf("%+v", f), func(t *testing.T) {
			if got := DecideCost(f); got != want[mask] {
				t.Fatalf("cost %d, want %d", got, want[mask])
			}
		})
	}
	if got := DecideCost(DecideFlags{IncludeTrace: true, IncludeExplanation: true}); got != 11 {
		t.Fatalf("trace plus explanation costs %d, the spec says 11", got)
	}
	if got := DecideCost(DecideFlags{true, true, true, true}); got != PlainDecideCost+4*FlagSurcharge {
		t.Fatalf("every flag costs %d, want the plain cost plus four surcharges", got)
	}
}
