package auth

import (
	"fmt"
	"testing"
	"time"
)

// An AttemptLimiter allows burst attempts at once, then one per
// window/burst, per subject; a given-back attempt does not count.
func TestAttemptLimiter(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	type step struct {
		subject string
		at      time.Duration // after t0
		give    bool          // give the attempt back instead
		wait    time.Duration // Take's answer
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"burst then refused", []step{{"a", 0, false, 0}, {"a", 0, false, 0}, {"a", 0, false, 0}, {"a", time.Second, false, 19 * time.Second}}},
		{"refilled after window/burst", []step{{"a", 0, false, 0}, {"a", 0, false, 0}, {"a", 0, false, 0}, {"a", 20 * time.Second, false, 0}, {"a", 20 * time.Second, false, 20 * time.Second}}},
		{"subjects are apart", []step{{"a", 0, false, 0}, {"a", 0, false, 0}, {"a", 0, false, 0}, {"b", 0, false, 0}, {"a", 0, false, 20 * time.Second}}},
		{"a given-back attempt does not count", []step{{"a", 0, false, 0}, {"a", 0, true, 0}, {"a", 0, false, 0}, {"a", 0, false, 0}, {"a", 0, false, 0}, {"a", 0, false, 20 * time.Second}}},
		{"a full window frees the whole burst", []step{{"a", 0, false, 0}, {"a", 0, false, 0}, {"a", 0, false, 0}, {"a", time.Minute, false, 0}, {"a", time.Minute, false, 0}, {"a", time.Minute, false, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewAttemptLimiter(3, time.Minute)
			for i, s := range tc.steps {
				if s.give {
					l.Give(s.subject)
					continue
				}
				if got := l.Take(s.subject, t0.Add(s.at)); got != s.wait {
					t.Fatalf("step %d (%s at +%v): wait %v, want %v", i, s.subject, s.at, got, s.wait)
				}
			}
		})
	}
}

// The limiter's memory does not grow with the subjects it sees: taking an
// attempt for a new subject allocates nothing, and after 100,000 addresses
// failed once a fresh one is still allowed.
func TestAttemptLimiterIsBounded(t *testing.T) {
	l := NewAttemptLimiter(SignInFailuresPerAddress, SignInWindow)
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	subjects := make([]string, 100_000)
	for i := range subjects {
		subjects[i] = fmt.Sprintf("ip:10.%d.%d.%d", i>>16, i>>8&255, i&255)
	}
	i := 0
	if allocs := testing.AllocsPerRun(len(subjects)-1, func() { l.Take(subjects[i], now); i++ }); allocs != 0 {
		t.Fatalf("%v allocations per new subject", allocs)
	}
	if wait := l.Take("ip:192.0.2.1", now); wait != 0 {
		t.Fatalf("a fresh address after 100,000 others waits %v", wait)
	}
}
