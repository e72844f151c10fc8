// Package clock is the one place Eligo reads the time of day. The server,
// the CLI and the workers are handed a Clock by their composition root and
// ask it for "now" and "today"; nothing else calls time.Now for a date a
// decision, an expiry or a record depends on (a check in the test suite
// finds any that does). Tests, example recording and benchmarks hand in a
// clock set to the date they need, so an answer never changes because the
// calendar moved.
//
// Measuring how much time passed is not reading the calendar: a latency,
// a deadline, a timeout, a cache's TTL or a rate limit's window counts
// real elapsed time and may use time.Now and time.Since. Timestamps the
// database stamps (created_at, a record's decided_at) come from
// PostgreSQL's clock.
package clock

import (
	"fmt"
	"time"
)

// Clock tells the time. It is safe for concurrent use.
type Clock interface {
	// Now is the current instant.
	Now() time.Time
}

// System is the machine's clock: the default everywhere.
type System struct{}

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// shifted is the system clock moved by a constant offset.
type shifted struct{ offset time.Duration }

func (s shifted) Now() time.Time { return time.Now().Add(s.offset) }

// Starting returns a clock that reads the given day now, at the current
// UTC time of day, and then runs as the system clock does. A server, a
// test or a demo given it decides as of that day while its timeouts,
// expiries and caches still see time pass.
func Starting(day time.Time) Clock { return shifted{OffsetTo(day)} }

// OffsetTo is what to add to the system clock's now for it to read day's
// date (in UTC) at the same time of day: whole days, so hourly windows
// and time-of-day stay aligned.
func OffsetTo(day time.Time) time.Duration {
	y, m, d := day.UTC().Date()
	ny, nm, nd := time.Now().UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Sub(time.Date(ny, nm, nd, 0, 0, 0, 0, time.UTC))
}

// Parse reads the clock setting of `eligo serve`, `eligo worker` and the
// CLI (--today, env ELIGO_TODAY): empty for the system clock, or a
// YYYY-MM-DD day for a clock Starting that day.
func Parse(s string) (Clock, error) {
	if s == "" {
		return System{}, nil
	}
	day, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return nil, fmt.Errorf("today %q: want a YYYY-MM-DD date, or nothing for the system clock", s)
	}
	return Starting(day), nil
}

// Or returns c, or the system clock when c is nil, so that a zero
// configuration means the real clock.
func Or(c Clock) Clock {
	if c == nil {
		return System{}
	}
	return c
}
