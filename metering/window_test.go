package metering

import (
	"net/netip"
	"testing"
	"time"
)

func TestWindowBounds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 14, 59, 59, 999, time.FixedZone("CET", 3600))
	w := WindowEnding(now, WindowHours)
	if want := time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC); !w.Last.Equal(want) {
		t.Fatalf("last bucket %v, want %v", w.Last, want)
	}
	if got := w.Last.Sub(w.First); got != 23*time.Hour {
		t.Fatalf("window spans %v between first and last bucket, want 23h (24 buckets)", got)
	}
	if want := time.Date(2026, 3, 1, 14, 0, 0, 0, time.UTC); !NextReset(now).Equal(want) {
		t.Fatalf("reset %v, want %v", NextReset(now), want)
	}
	exact := time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC)
	if !NextReset(exact).Equal(exact.Add(time.Hour)) {
		t.Fatalf("on a boundary the reset is the next one, got %v", NextReset(exact))
	}
}

func TestAddrSubject(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"203.0.113.9":             "ip:203.0.113.9",
		"::ffff:203.0.113.9":      "ip:203.0.113.9",
		"2001:db8:1:2:3:4:5:6":    "ip:2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1234": "ip:2001:db8:1:2::/64",
	}
	for in, want := range cases {
		if got := AddrSubject(netip.MustParseAddr(in)); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
