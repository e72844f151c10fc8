package review_test

import (
	"strings"
	"testing"

	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// TestEffectivePeriod: the effective_period check warns, unscored, when
// the draft's period ended before today or before the live version's
// period began, with the same words publish answers with; passes for a
// current period and is na without one.
func TestEffectivePeriod(t *testing.T) {
	t.Parallel()
	const body = `section leave
source law "Leave Act" url "https://example.org/leave" licence "public-domain"
field a.months int
group g all "G" {
  criterion c "C" {
    a.months >= 12
    cite law "twelve months"
  }
}
`
	date := func(s string) int64 {
		d, ok := value.ParseDate(s)
		if !ok {
			t.Fatalf("date %q", s)
		}
		return d
	}
	live := &engine.Period{From: date("2025-01-01")}
	tests := []struct {
		name, header string
		live         *engine.Period
		status       string
		evidence     []string
	}{
		{"no period", "", nil, review.StatusNA, []string{"declares no effective period"}},
		{"current", "effective 2026-01-01 until 2026-12-31\n", live, review.StatusPass, []string{"effective 2026-01-01 until 2026-12-31, current as of 2026-06-15"}},
		{"ended", "effective 2025-01-01 until 2025-12-31\n", nil, review.StatusWarn,
			[]string{"period_ended: the rules' effective period (2025-01-01 until 2025-12-31) ended before today, 2026-06-15"}},
		{"ended, before the live one", "effective 2024-01-01 until 2024-12-31\n", live, review.StatusWarn,
			[]string{"period_ended: ", "period_before_live: the rules' effective period (2024-01-01 until 2024-12-31) ends before the period of v2, live under the slug (2025-01-01 onwards), begins"}},
	}
	for _, tt := range tests {
		rules, _, err := engine.Compile("draft.rules", []byte(tt.header+body))
		if err != nil {
			t.Fatal(err)
		}
		in := review.Input{Rules: rules, Today: date("2026-06-15"), LivePeriod: tt.live}
		if tt.live != nil {
			in.LiveLabel = "v2"
		}
		rep := build(t, in, review.Options{})
		var c review.Check
		for _, ch := range rep.Checks {
			if ch.ID == review.CheckEffectivePeriod {
				c = ch
			}
		}
		if c.Status != tt.status || c.Scored || c.Weight != 0 || len(c.Evidence) != len(tt.evidence) {
			t.Errorf("%s: %+v, want %s with %d evidence, unscored", tt.name, c, tt.status, len(tt.evidence))
			continue
		}
		for i, want := range tt.evidence {
			if !strings.Contains(c.Evidence[i], want) {
				t.Errorf("%s: evidence %q, want it to contain %q", tt.name, c.Evidence[i], want)
			}
		}
	}
}
