package metering

import "time"

// Window lengths in hourly buckets.
const (
	// WindowHours is the rolling budget window: the current hour's bucket
	// and the 23 before it.
	WindowHours = 24
	// WeekHours and MonthHours are the longer totals /usage reports.
	WeekHours  = 7 * 24
	MonthHours = 30 * 24
)

// HourOf returns the start of the UTC hour holding t: the bucket t counts
// in.
func HourOf(t time.Time) time.Time {
	return t.UTC().Truncate(time.Hour)
}

// Span is the inclusive range of bucket hours [First, Last] of a window.
type Span struct {
	// First and Last are the starts of the window's oldest and newest
	// (current) hourly buckets, UTC.
	First, Last time.Time
}

// WindowEnding returns the window of hours buckets that ends with the bucket
// of now.
func WindowEnding(now time.Time, hours int) Span {
	last := HourOf(now)
	return Span{First: last.Add(-time.Duration(hours-1) * time.Hour), Last: last}
}

// NextReset returns the next hourly boundary after now: when the oldest
// bucket leaves the window and usage can fall. It is X-RateLimit-Reset.
func NextReset(now time.Time) time.Time {
	return HourOf(now).Add(time.Hour)
}
