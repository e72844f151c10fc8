package clock_test

import (
	"testing"
	"time"

	"github.com/eligo/eligo/clock"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantDay string // "" for the system clock's day
		wantErr bool
	}{
		{in: ""},
		{in: "2026-06-30", wantDay: "2026-06-30"},
		{in: "2028-02-29", wantDay: "2028-02-29"},
		{in: "2027-02-29", wantErr: true},
		{in: "2026-06-30T00:00:00Z", wantErr: true},
		{in: "tomorrow", wantErr: true},
	} {
		c, err := clock.Parse(tc.in)
		if (err != nil) != tc.wantErr {
			t.Fatalf("Parse(%q): error %v, want error %v", tc.in, err, tc.wantErr)
		}
		if err != nil {
			continue
		}
		want := tc.wantDay
		if want == "" {
			want = time.Now().UTC().Format(time.DateOnly)
		}
		if got := c.Now().UTC().Format(time.DateOnly); got != want {
			t.Errorf("Parse(%q) reads %s, want %s", tc.in, got, want)
		}
	}
}

// TestStartingRuns: a clock set to a day keeps the time of day and runs,
// so a server given it still sees timeouts and expiries pass.
func TestStartingRuns(t *testing.T) {
	day := time.Date(2031, time.March, 1, 0, 0, 0, 0, time.UTC)
	c := clock.Starting(day)
	first := c.Now()
	if y, m, d := c.Now().UTC().Date(); y != 2031 || m != time.March || d != 1 {
		// Only at midnight UTC could the day have turned in between.
		if !(y == 2031 && m == time.March && d == 2) {
			t.Fatalf("today = %d-%d-%d, want 2031-3-1", y, m, d)
		}
	}
	now := time.Now().UTC()
	if got, want := first.UTC().Hour()*60+first.UTC().Minute(), now.Hour()*60+now.Minute(); got != want && got != want-1 {
		t.Errorf("time of day %v, want the system's %v", first.UTC().Format(time.TimeOnly), now.Format(time.TimeOnly))
	}
	time.Sleep(2 * time.Millisecond)
	if !c.Now().After(first) {
		t.Error("the clock does not run")
	}
}

func TestOr(t *testing.T) {
	if _, ok := clock.Or(nil).(clock.System); !ok {
		t.Error("Or(nil) is not the system clock")
	}
	if c := clock.Starting(time.Date(2020, time.January, 2, 0, 0, 0, 0, time.UTC)); clock.Or(c) != c {
		t.Error("Or(c) is not c")
	}
}
