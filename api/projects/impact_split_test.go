package projects

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// runParts reads the parts a run was split into, in file order.
func (f *impactFixture) runParts(t *testing.T, id string) []store.ImpactPart {
	t.Helper()
	rows, err := f.Pool.Query(context.Background(), `SELECT seq, byte_offset, byte_end, first_line, state, rows_done, cases_done
FROM impact_run_parts WHERE run_id = $1 ORDER BY seq`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []store.ImpactPart
	for rows.Next() {
		p := store.ImpactPart{RunID: id}
		if err := rows.Scan(&p.Seq, &p.Offset, &p.End, &p.FirstLine, &p.State, &p.RowsDone, &p.CasesDone); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// startSplit starts a run of v1 against v2 over the caseload while acme's
// CPU slots are held, so that no part decides until the run has been split
// and then split has been called; it returns the run's id.
func (f *impactFixture) startSplit(t *testing.T, caseload string, split func()) string {
	t.Helper()
	took, giveBack := f.Gate.For("acme").TryMore(1 << 10)
	release := sync.OnceFunc(giveBack)
	defer release()
	if took == 0 {
		t.Fatal("no slot of the gate was free")
	}
	id := f.start(t, map[string]any{"caseload_id": caseload, "decision_date": "2026-01-15", "examples": 0,
		"candidate": map[string]any{"slug": "acme/snap", "version": "v2"}, "baseline": map[string]any{"version": "v1"}})
	deadline := time.Now().Add(60 * time.Second)
	for len(f.runParts(t, id)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the run was not split")
		}
		time.Sleep(10 * time.Millisecond)
	}
	split()
	return id
}

// snapCSV writes the cases as CSV, every fifth reference quoted over two
// lines, so that a part must not start inside a record.
func snapCSV(cases []snapCase) string {
	var b strings.Builder
	b.WriteString("reference,decision_date,household.region,household.size,household.elderly_or_disabled_member,income.gross_monthly,income.net_monthly\n")
	for i, c := range cases {
		ref := c.Reference
		if i%5 == 0 {
			ref = `"` + ref + "\nsecond line\""
		}
		v := c.FieldValues
		region, _ := v["household.region"].(string)
		fmt.Fprintf(&b, "%s,%s,%s,%v,%v,%v,%v\n", ref, c.DecisionDate, region, v["household.size"], v["household.elderly_or_disabled_member"],
			v["income.gross_monthly"], v["income.net_monthly"])
		if i == len(cases)/3 {
			b.WriteString("not,a,row\n")
		}
	}
	return b.String()
}

// TestImpactSplitRunIsTheOneJobRun: a caseload cut into many parts (a
// part size of a few kilobytes), each decided by its own job, gives
// exactly the report and progress a run of one part gives, in JSON Lines
// and in CSV whose records span lines; every part ends succeeded and the
// parts cover the file.
func TestImpactSplitRunIsTheOneJobRun(t *testing.T) {
	t.Parallel()
	whole := newImpactFixture(t, worker.ImpactConfig{})
	split := newImpactFixture(t, worker.ImpactConfig{PartBytes: 2 << 10})
	cases, jsonl := snapCaseload(600)
	for _, tc := range []struct{ name, contentType, body string }{
		{"json lines", "application/x-ndjson", jsonl},
		{"csv", "text/csv", snapCSV(cases)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs [2]map[string]any
			var parts []store.ImpactPart
			for i, f := range []*impactFixture{whole, split} {
				r := f.upload(t, f.key, tc.contentType, "", tc.body)
				want(t, r, http.StatusCreated)
				id := f.start(t, map[string]any{"caseload_id": obj(t, r.Body)["caseload_id"], "decision_date": "2026-01-15", "examples": 7,
					"candidate": map[string]any{"slug": "acme/snap", "version": "v2"}, "baseline": map[string]any{"version": "v1"}})
				runs[i] = f.ended(t, f.key, id)
				if got := len(f.runParts(t, id)); i == 0 && got != 1 {
					t.Fatalf("the run of one part has %d parts", got)
				}
				if i == 1 {
					parts = split.runParts(t, id)
				}
			}
			if len(parts) < 8 {
				t.Fatalf("the caseload was cut into %d parts, want many", len(parts))
			}
			end := int64(0)
			for _, p := range parts {
				if p.State != store.ImpactSucceeded || p.Offset != end || p.End <= p.Offset {
					t.Errorf("part %+v: want succeeded, starting where the one before ended (%d)", p, end)
				}
				end = p.End
			}
			if end != int64(len(tc.body)) {
				t.Errorf("the parts end at byte %d of %d", end, len(tc.body))
			}
			for _, member := range []string{"state", "partial", "progress", "report"} {
				if !reflect.DeepEqual(runs[0][member], runs[1][member]) {
					a, _ := json.Marshal(runs[0][member])
					b, _ := json.Marshal(runs[1][member])
					t.Errorf("%s of the split run\n%s\nwant the one-part run's\n%s", member, b, a)
				}
			}
			if runs[1]["state"] != "succeeded" || runs[1]["partial"] != false {
				t.Errorf("split run = %v, want succeeded and complete", runs[1])
			}
		})
	}
}

// TestImpactSplitCancel: a cancel stops every part of a split run: each
// ends stopped (or had already succeeded), and the run keeps the merged
// report of what its parts decided, partial.
func TestImpactSplitCancel(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{PartBytes: 1 << 20})
	const rows = 60_000
	line := `{"field_values":{"household.size":2,"household.region":"alaska","income.gross_monthly":2350,"income.net_monthly":1500,"household.elderly_or_disabled_member":false}}` + "\n"
	caseload := f.uploaded(t, strings.Repeat(line, rows))
	id := f.startSplit(t, caseload, func() {})
	f.progressing(t, id)
	want(t, call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact/"+id+"/cancel", nil), http.StatusOK)
	run := f.withReport(t, id)
	cases := obj(t, obj(t, run["report"])["cases"])["count"].(float64)
	if run["state"] != "cancelled" || run["partial"] != true || cases <= 0 || cases >= rows {
		t.Errorf("run = %v with %v cases, want cancelled, partial, with some of the %d cases decided", run["state"], cases, rows)
	}
	parts := f.runParts(t, id)
	stopped, sum := 0, int64(0)
	for _, p := range parts {
		switch p.State {
		case store.ImpactPartStopped:
			stopped++
		case store.ImpactSucceeded:
		default:
			t.Errorf("part %+v after the cancel: want stopped or succeeded", p)
		}
		sum += p.CasesDone
	}
	if len(parts) < 2 || stopped == 0 {
		t.Errorf("%d parts, %d stopped: want several, stopped by the cancel", len(parts), stopped)
	}
	if done := obj(t, run["progress"])["cases_done"].(float64); done != cases || float64(sum) != cases {
		t.Errorf("progress says %v cases done, the parts %d, the report %v", done, sum, cases)
	}
}

// TestImpactSplitFailedPart: a part that fails (here its bytes are gone
// from the store when it reads them) fails the run, with the message, and
// the run keeps the merged report of the parts that decided, partial.
func TestImpactSplitFailedPart(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{PartBytes: 128 << 10})
	cases, _ := snapCaseload(1)
	line, _ := json.Marshal(cases[0])
	body := strings.Repeat(string(line)+"\n", (store.CaseloadChunkBytes+store.CaseloadChunkBytes/4)/(len(line)+1))
	caseload := f.uploaded(t, body)
	// The second chunk holds the last parts' rows: the first parts, which
	// River fetches first, decide; the last ones fail.
	id := f.startSplit(t, caseload, func() {
		if _, err := f.Pool.Exec(context.Background(), `DELETE FROM caseload_chunks WHERE caseload_id = $1 AND seq = 1`, caseload); err != nil {
			t.Fatal(err)
		}
	})
	run := f.withReport(t, id)
	if run["state"] != "failed" || run["partial"] != true || run["error"] != "the run failed on the server; start it again" {
		t.Errorf("run = %v, %v, error %v: want failed on the server, partial", run["state"], run["partial"], run["error"])
	}
	cases0 := obj(t, obj(t, run["report"])["cases"])["count"]
	if n, ok := cases0.(float64); !ok || n <= 0 || int(n) >= strings.Count(body, "\n") {
		t.Errorf("the report counts %v cases, want some of the %d", cases0, strings.Count(body, "\n"))
	}
	failed := 0
	for _, p := range f.runParts(t, id) {
		if p.State == store.ImpactFailed {
			failed++
		} else if p.State != store.ImpactSucceeded && p.State != store.ImpactPartStopped {
			t.Errorf("part %+v did not end", p)
		}
	}
	if failed == 0 {
		t.Error("no part failed")
	}
}

// TestImpactSplitUnmergeablePart: a part whose report cannot be merged
// with the others' (here one of other rulesets, as a part that decided
// other rules would leave) fails the run on the server's account, with
// the merged report of the other parts, partial, rather than leaving the
// run running, holding one of its tenant's runs, until the stale prune.
func TestImpactSplitUnmergeablePart(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{PartBytes: 2 << 10})
	_, body := snapCaseload(120)
	caseload := f.uploaded(t, body)
	foreign := `{"baseline": {"section_id": "elsewhere", "content_digest": "sha256:0"}, "candidate": {"section_id": "elsewhere", "content_digest": "sha256:0"},
"cases": 1, "changed": 0, "transitions": [], "criteria": [], "values": [], "bad_rows": [], "unread_answers": [], "undecided": []}`
	// While no part can decide, the last is given the foreign report.
	id := f.startSplit(t, caseload, func() {
		tag, err := f.Pool.Exec(context.Background(), `UPDATE impact_run_parts p SET state = 'succeeded', report = $2
FROM impact_runs i WHERE i.id = p.run_id AND i.caseload_id = $1 AND p.state = 'queued'
  AND p.seq = (SELECT max(seq) FROM impact_run_parts q WHERE q.run_id = p.run_id) AND p.seq > 0`, caseload, foreign)
		if err != nil {
			t.Fatal(err)
		}
		if tag.RowsAffected() != 1 {
			t.Fatal("the run was not split into several parts still queued")
		}
	})
	run := f.withReport(t, id)
	if run["state"] != "failed" || run["partial"] != true || run["error"] != "the run failed on the server; start it again" {
		t.Errorf("run = %v, %v, error %v: want failed on the server, partial", run["state"], run["partial"], run["error"])
	}
	if n, ok := obj(t, obj(t, run["report"])["cases"])["count"].(float64); !ok || n <= 0 || n >= 120 {
		t.Errorf("the report counts %v cases, want those of the parts before the last", obj(t, run["report"])["cases"])
	}
}
