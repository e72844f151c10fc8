// Package clocktest gives tests the clock a test run is set to. `make
// test` runs the suites whose answers depend on the date with ELIGO_TODAY
// set to several days (the first and last day of every casebank period,
// today, two years ahead), so a test that decides "as of today" without
// saying which day fails the run long before a period's end turns main red.
package clocktest

import (
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eligo/eligo/clock"
)

// Env names the variable that sets the run's day, as for the eligo
// binary: empty for the system clock, else YYYY-MM-DD.
const Env = "ELIGO_TODAY"

// FromEnv is the clock the run is set to: clock.Parse of ELIGO_TODAY.
// It fails the test on a malformed value.
func FromEnv(tb testing.TB) clock.Clock {
	tb.Helper()
	c, err := clock.Parse(os.Getenv(Env))
	if err != nil {
		tb.Fatalf("%s: %v", Env, err)
	}
	return c
}

// Dial is a running clock whose day a test can turn: it reads the day
// last set, at the current time of day, and time passes as on the system
// clock. Safe for concurrent use, so a server can read it while the test
// turns it.
type Dial struct {
	offset atomic.Int64 // nanoseconds added to the system clock
}

// NewDial returns a Dial set to day.
func NewDial(day time.Time) *Dial {
	d := &Dial{}
	d.Set(day)
	return d
}

// Now is the system clock moved to the day last set.
func (d *Dial) Now() time.Time { return time.Now().Add(time.Duration(d.offset.Load())) }

// Set turns the dial to day (its date in UTC; the time of day is kept).
func (d *Dial) Set(day time.Time) { d.offset.Store(int64(clock.OffsetTo(day))) }

// Advance moves the dial on by by, for a test of something that ends
// within the day (an idle console session) rather than at its end.
func (d *Dial) Advance(by time.Duration) { d.offset.Add(int64(by)) }
