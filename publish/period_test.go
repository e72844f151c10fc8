package publish_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
)

// periodRules are leaveRules with an effective header.
func periodRules(effective string) []byte {
	return []byte(strings.Replace(strings.Replace(leaveRules, "THRESHOLD", "12", 1),
		"name \"Leave\"\n", "name \"Leave\"\neffective "+effective+"\n", 1))
}

// TestPublishWarnsOfStalePeriods: a publish whose effective period ended
// before the publisher's today, or before the period of the cut live
// under the slug began, is stored and says so in PeriodNotices; a current
// or open-ended period says nothing. Each row publishes after the rows
// before it, under one slug, as of 2026-06-15.
func TestPublishWarnsOfStalePeriods(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	pub := newPublisher(st, publish.Config{Clock: clock.Starting(time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC))})
	tests := []struct {
		name, effective string
		want            []string
	}{
		{"current", "2026-01-01 until 2026-12-31", nil},
		{"ended before today and before the live period", "2024-01-01 until 2024-12-31", []string{engine.PeriodEnded, engine.PeriodBeforeLive}},
		{"open-ended", "2025-01-01", nil},
		{"ends today", "2025-06-16 until 2026-06-15", nil},
		{"ended yesterday, the live period began before it", "2025-01-01 until 2026-06-14", []string{engine.PeriodEnded}},
		{"future, then the past: before the live period only", "2027-01-01", nil},
		{"next year, before the live one's", "2026-06-01 until 2026-12-31", []string{engine.PeriodBeforeLive}},
	}
	for _, tt := range tests {
		res, err := pub.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "leave.rules",
			Source: periodRules(tt.effective), Cases: nil, Actor: "test"})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if res.RulesetID == "" || res.Reused {
			t.Fatalf("%s: not stored as a new cut: %+v", tt.name, res)
		}
		var codes []string
		for _, n := range res.PeriodNotices {
			codes = append(codes, n.Code)
			if !strings.Contains(n.Message, tt.effective) {
				t.Errorf("%s: %q does not name the period", tt.name, n.Message)
			}
		}
		if strings.Join(codes, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: notices %v, want codes %q", tt.name, res.PeriodNotices, tt.want)
		}
	}
}
