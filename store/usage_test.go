package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

func TestUsageBuckets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(storetest.New(t))
	h := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	hour := func(n int) time.Time { return h.Add(time.Duration(n) * time.Hour) }
	err := st.AddUsage(ctx, []store.UsageCount{
		{"key:1", "decide", hour(0), 2},
		{"key:1", "decide", hour(0), 3}, // merged with the row above
		{"key:1", "decide", hour(-30), 7},
		{"key:1", "rulesets", hour(-200), 11},
		{"key:2", "decide", hour(0), 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Adding to an existing bucket increments it, and the sum in the same
	// round trip sees the increment.
	sum, err := st.AddUsageAndSum(ctx, []store.UsageCount{{"key:1", "decide", hour(0), 1}}, "key:1", "decide", hour(-23), hour(0))
	if err != nil || sum != 6 {
		t.Fatalf("24-hour sum %d %v, want 6 (the bucket 30 hours back is outside)", sum, err)
	}
	if sum, err := st.UsageSum(ctx, "key:1", "decide", hour(-30), hour(0)); err != nil || sum != 13 {
		t.Fatalf("31-hour sum %d %v, want 13", sum, err)
	}
	totals, err := st.UsageTotals(ctx, "key:1", []time.Time{hour(-23), hour(-167), hour(-719)}, hour(0))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{"decide": {6, 13, 13}, "rulesets": {0, 0, 11}}
	if !reflect.DeepEqual(totals, want) {
		t.Fatalf("totals %v, want %v", totals, want)
	}
	byHour, err := st.UsageByHour(ctx, "key:1", "decide", hour(-30), hour(0))
	wantByHour := []store.UsageCount{{"key:1", "decide", hour(-30), 7}, {"key:1", "decide", hour(0), 6}}
	if err != nil || !reflect.DeepEqual(byHour, wantByHour) {
		t.Fatalf("by hour %v %v, want %v", byHour, err, wantByHour)
	}
	n, err := st.DeleteUsageBefore(ctx, hour(-100))
	if err != nil || n != 1 {
		t.Fatalf("deleted %d %v, want the one bucket 200 hours back", n, err)
	}
	if err := st.AddUsage(ctx, []store.UsageCount{{"key:1", "decide", hour(0).Add(time.Minute), 1}}); err == nil {
		t.Fatal("a bucket hour that is not on the hour was accepted")
	}
}
