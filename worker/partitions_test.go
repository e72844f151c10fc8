package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
	"github.com/eligo/eligo/worker"
)

// decidedAt is a valid decision record decided at at, its id made of
// name.
func decidedAt(name string, at time.Time) store.DecisionRecord {
	return store.DecisionRecord{
		DecisionID: "dec_" + fmt.Sprintf("%016s", name), RulesetID: "all_types:20260101-000000000000",
		RulesetVersion: "v1", ContentDigest: "sha256:" + strings.Repeat("a", 64), EngineVersion: "eligo-core@1", Outcome: "eligible",
		InputsHash: "sha256:" + strings.Repeat("b", 64), DecidedAt: at, Duration: time.Microsecond,
	}
}

// partitionOutput reads a decision_partitions job's output.
func partitionOutput(t *testing.T, ev *river.Event) worker.DecisionPartitionsOutput {
	t.Helper()
	var out worker.DecisionPartitionsOutput
	if err := json.Unmarshal(ev.Job.Output(), &out); err != nil {
		t.Fatalf("job output %s: %v", ev.Job.Output(), err)
	}
	return out
}

// partitionNames lists the decisions table's month partitions.
func partitionNames(t *testing.T, st *store.Store) []string {
	t.Helper()
	parts, err := st.DecisionPartitions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range parts {
		names = append(names, p.Name)
	}
	return names
}

// TestDecisionPartitionsJob runs the job on a real River client: on start
// it creates the current month's partition and the next three, files the
// records the default partition caught into their months, and drops
// nothing by default; run again, it finds nothing to do.
func TestDecisionPartitionsJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	now := time.Date(2031, 5, 31, 22, 0, 0, 0, time.UTC) // AddDate(0, 1, 0) would skip June
	// Recorded before any partition of theirs exists: both in the default.
	june, september := decidedAt("june", time.Date(2031, 6, 10, 0, 0, 0, 0, time.UTC)), decidedAt("september", time.Date(2031, 9, 3, 0, 0, 0, 0, time.UTC))
	if err := st.InsertDecisions(ctx, []store.DecisionRecord{june, september}); err != nil {
		t.Fatal(err)
	}
	before := partitionNames(t, st)

	client, events := startJobs(t, st, worker.Config{Now: func() time.Time { return now }})
	out := partitionOutput(t, completed(t, events, worker.DecisionPartitionsArgs{}.Kind()))
	wantCreated := []string{"decisions_2031_05", "decisions_2031_06", "decisions_2031_07", "decisions_2031_08"}
	if !slices.Equal(out.Created, wantCreated) || !slices.Equal(out.Filed, []string{"2031-09"}) || out.Cutoff != nil || len(out.Dropped) > 0 {
		t.Errorf("first run: %+v, want created %v, 2031-09 filed, nothing dropped", out, wantCreated)
	}
	for rec, want := range map[string]string{june.DecisionID: "decisions_2031_06", september.DecisionID: "decisions_2031_09"} {
		var table string
		if err := pool.QueryRow(ctx, `SELECT tableoid::regclass::text FROM decisions WHERE decision_id = $1`, rec).Scan(&table); err != nil || table != want {
			t.Errorf("%s is in %q (%v), want %s", rec, table, err, want)
		}
	}
	after := partitionNames(t, st)
	for _, name := range before {
		if !slices.Contains(after, name) {
			t.Errorf("partition %s dropped without a retention", name)
		}
	}

	// Again: nothing to create, file or drop.
	if _, err := client.Insert(ctx, worker.DecisionPartitionsArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	if again := partitionOutput(t, completed(t, events, worker.DecisionPartitionsArgs{}.Kind())); len(again.Created)+len(again.Filed)+len(again.Dropped) > 0 {
		t.Errorf("second run: %+v, want nothing done", again)
	}
	if again := partitionNames(t, st); !slices.Equal(again, after) {
		t.Errorf("partitions after the second run: %v, want %v", again, after)
	}
}

// TestDecisionRetention: with a retention, the job drops the month
// partitions that end at or before the cutoff, records and all, and keeps
// a month only partly past it; without one it keeps everything. Records
// the default partition caught are filed first, so an old one goes with
// its month.
func TestDecisionRetention(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 5, 15, 10, 0, 0, 0, time.UTC)
	months := []string{"2030_12", "2031_01", "2031_02", "2031_03", "2031_04"}
	cases := []struct {
		retention string
		kept      []string // of months, and 1999_12 for the stray record
	}{
		{"0", []string{"1999_12", "2030_12", "2031_01", "2031_02", "2031_03", "2031_04"}},
		{"3mo", []string{"2031_02", "2031_03", "2031_04"}}, // cutoff 2031-02-15: February partly past, kept
		{"45d", []string{"2031_03", "2031_04"}},            // cutoff 2031-03-31: March partly past, kept
		{"1mo", []string{"2031_04"}},                       // cutoff 2031-04-15
	}
	for _, c := range cases {
		t.Run(c.retention, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := store.New(storetest.New(t))
			var recs []store.DecisionRecord
			for _, m := range append([]string{"1999_12"}, months...) {
				at, err := time.Parse("2006_01", m)
				if err != nil {
					t.Fatal(err)
				}
				if m != "1999_12" { // that one stays in the default partition
					if _, err := st.AddDecisionPartition(ctx, at); err != nil {
						t.Fatal(err)
					}
				}
				recs = append(recs, decidedAt(m, at.Add(36*time.Hour)))
			}
			if err := st.InsertDecisions(ctx, recs); err != nil {
				t.Fatal(err)
			}
			retention, err := worker.ParseRetention(c.retention)
			if err != nil {
				t.Fatal(err)
			}
			_, events := startJobs(t, st, worker.Config{Now: func() time.Time { return now }, DecisionRetention: retention})
			out := partitionOutput(t, completed(t, events, worker.DecisionPartitionsArgs{}.Kind()))

			cutoff, limited := retention.Cutoff(now)
			if limited != (out.Cutoff != nil) || (limited && !out.Cutoff.Equal(cutoff)) {
				t.Errorf("output cutoff %v, want %v (set: %v)", out.Cutoff, cutoff, limited)
			}
			if !limited && len(out.Dropped) > 0 {
				t.Errorf("dropped %v without a retention", out.Dropped)
			}
			names := partitionNames(t, st)
			for _, dropped := range out.Dropped {
				if slices.Contains(names, dropped) {
					t.Errorf("%s reported dropped but still attached", dropped)
				}
				end, err := time.Parse("decisions_2006_01", dropped)
				if err != nil {
					t.Fatal(err)
				}
				if end = end.AddDate(0, 1, 0); end.After(cutoff) {
					t.Errorf("%s dropped, but it ends at %s, after the cutoff %s", dropped, end, cutoff)
				}
			}
			for _, rec := range recs {
				m := strings.TrimLeft(strings.TrimPrefix(rec.DecisionID, "dec_"), "0")
				_, err := st.DecisionByID(ctx, rec.DecisionID)
				if kept := err == nil; kept != slices.Contains(c.kept, m) {
					t.Errorf("record of %s kept = %v (%v), want %v", m, kept, err, !kept)
				}
				if slices.Contains(names, "decisions_"+m) != slices.Contains(c.kept, m) {
					t.Errorf("partition decisions_%s attached = %v, want %v", m, !slices.Contains(c.kept, m), slices.Contains(c.kept, m))
				}
			}
		})
	}
}

// TestParseRetention: months and days, 0 or nothing for every record,
// and a clear refusal of anything else.
func TestParseRetention(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want worker.Retention
		ok   bool
	}{
		{"", worker.Retention{}, true},
		{"0", worker.Retention{}, true},
		{"13mo", worker.Retention{Months: 13}, true},
		{" 400d ", worker.Retention{Days: 400}, true},
		{"12", worker.Retention{}, false},
		{"1y", worker.Retention{}, false},
		{"0d", worker.Retention{}, false},
		{"-3mo", worker.Retention{}, false},
		{"720h", worker.Retention{}, false},
	}
	for _, c := range cases {
		got, err := worker.ParseRetention(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseRetention(%q) = %+v, %v; want %+v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "13mo or 400d") {
			t.Errorf("ParseRetention(%q): %v, want the accepted forms named", c.in, err)
		}
		if c.ok && c.in != "" {
			if again, err := worker.ParseRetention(got.String()); err != nil || again != got {
				t.Errorf("%+v.String() = %q reads back as %+v (%v)", got, got.String(), again, err)
			}
		}
	}
}
