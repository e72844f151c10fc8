package impact

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// fuzzRows reads a caseload in format f and checks what must hold for any
// input: no panic, no error but io.EOF (a header aside), rows numbered
// upwards from 1, each either bad with a reason or read with answers; and a
// whole run over the same bytes agrees on how many rows there are.
func fuzzRows(t *testing.T, f Format, text string) {
	r := testRules(t)
	rd, err := newReader(context.Background(), strings.NewReader(text), f, rulesetFieldType(r, r))
	if err != nil {
		if f == CSV {
			return // a header that cannot be read fails the run, as it should
		}
		t.Fatal(err)
	}
	var prev, rows, cases int64
	for {
		var x row
		err := rd.next(&x)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading a string failed: %v", err)
		}
		if x.line <= prev {
			t.Fatalf("row at line %d after line %d", x.line, prev)
		}
		if (x.bad == "") == (x.values == nil) {
			t.Fatalf("row %+v is neither bad nor read", x)
		}
		if x.bad == "" {
			cases++
		}
		prev = x.line
		rows++
	}
	rep, err := Run(context.Background(), strings.NewReader(text), Options{Format: f, Baseline: r, Candidate: r})
	if err != nil {
		t.Fatal(err)
	}
	var bad int64
	for _, b := range rep.BadRows {
		bad += b.Count
	}
	if rep.Cases != cases || rep.Cases+bad != rows || rep.Changed != 0 {
		t.Fatalf("run: %d cases, %d bad rows, %d changed; read: %d rows, %d cases", rep.Cases, bad, rep.Changed, rows, cases)
	}
}

// FuzzJSONLines: any bytes read as JSON Lines (seeds in
// testdata/fuzz/FuzzJSONLines).
func FuzzJSONLines(f *testing.F) {
	f.Add(`{"field_values":{"a.n":12},"decision_date":"2026-01-02","reference":"r"}` + "\n")
	f.Fuzz(func(t *testing.T, text string) { fuzzRows(t, JSONLines, text) })
}

// FuzzCSV: any bytes read as CSV (seeds in testdata/fuzz/FuzzCSV).
func FuzzCSV(f *testing.F) {
	f.Add("a.n,a.flag,reference\n12,yes,\"r,1\"\n")
	f.Fuzz(func(t *testing.T, text string) { fuzzRows(t, CSV, text) })
}
