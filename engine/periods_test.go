package engine

import (
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/value"
)

// testPeriod is the period from..until (YYYY-MM-DD; until "" for an
// open-ended one).
func testPeriod(from, until string) *Period {
	f, _ := value.ParseDate(from)
	u, _ := value.ParseDate(until)
	return &Period{From: f, Until: u}
}

func TestCheckPeriods(t *testing.T) {
	t.Parallel()
	p := testPeriod
	tests := []struct {
		name    string
		entries []PeriodEntry
		want    []string
	}{
		{"consecutive", []PeriodEntry{{"fy27", p("2026-10-01", "")}, {"fy26", p("2025-10-01", "2026-09-30")}}, nil},
		{"one alone", []PeriodEntry{{"only", nil}}, nil},
		{"overlap", []PeriodEntry{{"fy26", p("2025-10-01", "2026-09-30")}, {"fy27", p("2026-09-30", "2027-09-30")}},
			[]string{"the periods of fy26 (2025-10-01 until 2026-09-30) and fy27 (2026-09-30 until 2027-09-30) overlap: on 2026-09-30 both would hold"}},
		{"open-ended then another", []PeriodEntry{{"old", p("2020-01-01", "")}, {"new", p("2026-01-01", "")}},
			[]string{"the periods of old (2020-01-01 onwards) and new (2026-01-01 onwards) overlap: on 2026-01-01 both would hold"}},
		{"gap", []PeriodEntry{{"a", p("2025-01-01", "2025-12-30")}, {"b", p("2026-01-01", "")}},
			[]string{"no ruleset holds from 2025-12-31 to 2025-12-31, between a (2025-01-01 until 2025-12-30) and b (2026-01-01 onwards)"}},
		{"no period beside one", []PeriodEntry{{"a", nil}, {"b", p("2026-01-01", "")}},
			[]string{"a declares no effective period"}},
	}
	for _, tt := range tests {
		got := CheckPeriods(tt.entries)
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tt.want[i]) {
				t.Errorf("%s: got %q, want %q", tt.name, got[i], tt.want[i])
			}
		}
	}
}

// TestStalePeriod: a period that ended before today, or before the live
// cut's period began, is each one notice; an open-ended or current period,
// or one that is merely shorter than the live cut's, is none.
func TestStalePeriod(t *testing.T) {
	t.Parallel()
	p := testPeriod
	today, _ := value.ParseDate("2026-11-29")
	tests := []struct {
		name   string
		period *Period
		live   *Period
		want   []string
	}{
		{"no period", nil, p("2026-01-01", ""), nil},
		{"open-ended", p("2020-01-01", ""), nil, nil},
		{"current", p("2026-01-01", "2026-12-31"), p("2025-01-01", "2025-12-31"), nil},
		{"ends today", p("2026-01-01", "2026-11-29"), nil, nil},
		{"shorter than the live one", p("2026-01-01", "2026-12-31"), p("2026-01-01", ""), nil},
		{"ended yesterday", p("2025-01-01", "2026-11-28"), nil, []string{PeriodEnded}},
		{"ended, before the live one", p("2024-01-01", "2024-12-31"), p("2025-01-01", ""),
			[]string{PeriodEnded, PeriodBeforeLive}},
		{"before the live one, not yet ended", p("2026-01-01", "2026-12-31"), p("2027-01-01", "2027-12-31"),
			[]string{PeriodBeforeLive}},
	}
	for _, tt := range tests {
		got := StalePeriod(tt.period, today, tt.live, "v3")
		var codes []string
		for _, n := range got {
			codes = append(codes, n.Code)
			if !strings.Contains(n.Message, tt.period.String()) {
				t.Errorf("%s: %q does not name the period %s", tt.name, n.Message, tt.period)
			}
		}
		if strings.Join(codes, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: codes %q, want %q (%v)", tt.name, codes, tt.want, got)
		}
	}
}
