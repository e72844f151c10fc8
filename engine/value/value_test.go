package value

import "testing"

func TestDateOrdinals(t *testing.T) {
	t.Parallel()
	// Ordinals from Python's date.toordinal().
	known := map[string]int64{"0001-01-01": 1, "1970-01-01": 719163, "2000-02-29": 730179,
		"2024-02-29": 738945, "9999-12-31": 3652059, "1900-03-01": 693655}
	for s, want := range known {
		got, ok := ParseDate(s)
		if !ok || got != want {
			t.Errorf("ParseDate(%s) = %d %v, want %d", s, got, ok, want)
		}
		if FormatDate(want) != s {
			t.Errorf("FormatDate(%d) = %s, want %s", want, FormatDate(want), s)
		}
	}
	// Every day round-trips and consecutive ordinals are consecutive days.
	prevY, prevM, prevD := Civil(0)
	for ord := int64(1); ord <= MaxOrdinal; ord++ {
		y, m, d := Civil(ord)
		if DateOrdinal(y, m, d) != ord {
			t.Fatalf("DateOrdinal(Civil(%d)) = %d", ord, DateOrdinal(y, m, d))
		}
		next := d == prevD+1 && m == prevM && y == prevY ||
			d == 1 && prevD == daysIn(prevY, prevM) && (m == prevM+1 && y == prevY || m == 1 && prevM == 12 && y == prevY+1)
		if ord > 1 && !next {
			t.Fatalf("ordinal %d is %d-%d-%d after %d-%d-%d", ord, y, m, d, prevY, prevM, prevD)
		}
		prevY, prevM, prevD = y, m, d
	}
}
