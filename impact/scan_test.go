package impact

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestScan: an upload's check reads a caseload as a run does, counting its
// rows, cases and bad rows by reason and line, without rulesets; a CSV
// cell is not typed (a run types it), its record's structure is.
func TestScan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		format Format
		text   string
		want   Summary
	}{
		{"jsonl", JSONLines,
			"{\"field_values\": {\"a.n\": 3}}\n\nnot json\n{\"field_values\": {}, \"decision_date\": \"2026-13-01\"}\n{\"field_values\": {\"a.n\": \"x\"}}\n",
			Summary{Rows: 4, Cases: 2, BadRows: []Reason{
				{Reason: reasonDate, Count: 1, Lines: []int64{4}}, {Reason: reasonNotJSON, Count: 1, Lines: []int64{3}}}}},
		{"csv", CSV,
			"a.n,a.flag,decision_date\n3,maybe,\n4,yes,2026-01-01,extra\n5,no,2026-01-02\n",
			Summary{Rows: 3, Cases: 2, BadRows: []Reason{{Reason: reasonCells, Count: 1, Lines: []int64{3}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := Scan(context.Background(), strings.NewReader(c.text), c.format, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.want.Bytes = int64(len(c.text)) // every byte is read
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Scan = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestScanRefuses: a caseload over the row allowance, a CSV header that
// cannot be read and an ended context fail the scan.
func TestScanRefuses(t *testing.T) {
	t.Parallel()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name   string
		ctx    context.Context
		format Format
		text   string
		max    int64
		want   string
	}{
		{"rows", context.Background(), JSONLines, strings.Repeat("{\"field_values\": {}}\n", 3), 2, ErrTooManyRows.Error()},
		{"header", context.Background(), CSV, "a.n,a.n\n1,2\n", 0, "twice"},
		{"cancelled", done, JSONLines, "{\"field_values\": {}}\n", 0, context.Canceled.Error()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Scan(c.ctx, strings.NewReader(c.text), c.format, c.max)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Scan err = %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestRunStoppedReportsPartial: a run whose context ends part-way returns
// the report of the cases it decided with the context's error, so that a
// stopped run can be shown as partial.
func TestRunStoppedReportsPartial(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	var b strings.Builder
	const total = 5 * progressEvery
	for i := range total {
		fmt.Fprintf(&b, "{\"field_values\": {\"a.n\": %d}}\n", i%20)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := Run(ctx, strings.NewReader(b.String()), Options{Baseline: r, Candidate: r, Progress: func(p Progress) {
		if p.Rows >= progressEvery {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run err = %v, want context.Canceled", err)
	}
	if rep == nil || rep.Cases < progressEvery || rep.Cases >= total {
		t.Fatalf("Run's report = %+v, want the cases decided before the cancel", rep)
	}
	var counted int64
	for _, tr := range rep.Transitions {
		counted += tr.Count
	}
	if counted != rep.Cases {
		t.Errorf("transitions count %d cases, report says %d", counted, rep.Cases)
	}
}
