package impact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// candidateText is testRules with the threshold of big lowered, the value
// tripled instead of doubled, and a.amount removed (known reads only
// a.born).
func candidateText(t testing.TB) string {
	t.Helper()
	src := testRulesText
	for _, c := range [][2]string{
		{"a.n >= 12", "a.n >= 10"},
		{"a.n * 2", "a.n * 3"},
		{"field a.amount decimal weight 1\n", ""},
		{"present(a.born) or a.amount <= 100", "present(a.born)"},
	} {
		if !strings.Contains(src, c[0]) {
			t.Fatalf("no %q in the test rules", c[0])
		}
		src = strings.Replace(src, c[0], c[1], 1)
	}
	return src
}

const reportCaseload = `{"field_values":{"a.n":12,"a.kind":"x","a.born":"2000-01-01"},"reference":"r1"}
{"field_values":{"a.n":11,"a.kind":"x","a.born":"2000-01-01"},"reference":"r2"}
{"field_values":{"a.n":5,"a.amount":5}}
oops
{"field_values":{"a.n":"x"}}
{"field_values":{"a.kind":"x","a.born":"2000-01-01"},"reference":"r6"}
{"field_values":{"a.n":20,"a.kind":"y","a.flag":false}}
`

// TestRunReport: the whole report of a small caseload whose every count
// was worked out by hand.
func TestRunReport(t *testing.T) {
	t.Parallel()
	base, cand := testRules(t), compile(t, "candidate.rules", candidateText(t))
	rep, err := Run(context.Background(), strings.NewReader(reportCaseload), Options{Baseline: base, Candidate: cand, Examples: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep.Baseline, rep.Candidate = RulesetInfo{}, RulesetInfo{}
	const want = `{
  "baseline": {"section_id": "", "content_digest": ""},
  "candidate": {"section_id": "", "content_digest": ""},
  "cases": 6,
  "changed": 1,
  "transitions": [
    {"from": "eligible", "to": "eligible", "count": 1, "examples": ["r1"]},
    {"from": "not_eligible", "to": "eligible", "count": 1, "examples": ["r2"]},
    {"from": "not_eligible", "to": "not_eligible", "count": 2, "examples": ["line 3"]},
    {"from": "undetermined", "to": "undetermined", "count": 2, "examples": ["line 5"]}
  ],
  "criteria": [{"id": "known", "count": 3}, {"id": "big", "count": 1}],
  "values": [{"id": "doubled", "output": true, "count": 4}],
  "bad_rows": [{"reason": "the line is not JSON", "count": 1, "lines": [4]}],
  "unread_answers": [{"reason": "answers a field the candidate does not read: a.amount", "count": 1, "lines": [3]}],
  "undecided": [
    {"reason": "the baseline refuses the answer to a.n (int)", "count": 1, "lines": [5]},
    {"reason": "the candidate refuses the answer to a.n (int)", "count": 1, "lines": [5]}
  ]
}`
	gotJSON, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, gotJSON); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&b, []byte(want)); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("report:\n got %s\nwant %s", a.String(), b.String())
	}
}

// TestRunReadsCSVAsJSONLines: the same cases written as CSV give the same
// counts.
func TestRunReadsCSVAsJSONLines(t *testing.T) {
	t.Parallel()
	base, cand := testRules(t), compile(t, "candidate.rules", candidateText(t))
	const csv = "reference,a.n,a.kind,a.born,a.amount,a.flag\n" +
		"r1,12,x,2000-01-01,,\n" +
		"r2,11,x,2000-01-01,,\n" +
		",5,,,5,\n" +
		"oops\"x,,,,,\n" +
		",,,,,\n" +
		"r6,,x,2000-01-01,,\n" +
		",20,y,,,no\n"
	rep, err := Run(context.Background(), strings.NewReader(csv), Options{Baseline: base, Candidate: cand, Format: CSV, Examples: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The JSON Lines file's fifth case answers "x" for an int, which a CSV
	// cell cannot: here it is a row of blanks, which without a field error
	// the candidate decides not_eligible (it needs a.born), so two cases
	// change; and the bad row is a stray quote.
	if rep.Cases != 6 || rep.Changed != 2 || len(rep.Criteria) != 2 || rep.Criteria[0] != (Count{ID: "known", Count: 3}) ||
		len(rep.Values) != 1 || rep.Values[0].Count != 4 || len(rep.BadRows) != 1 || rep.BadRows[0].Reason != reasonBareQuote || rep.BadRows[0].Lines[0] != 5 {
		t.Errorf("report: %+v", rep)
	}
}

// TestRunDecidesOnEachCasesDate: a case is decided as of its own date, a
// case without one as of the default, and rules that need a date decide a
// case with neither undetermined, saying why.
func TestRunDecidesOnEachCasesDate(t *testing.T) {
	t.Parallel()
	src := strings.Replace(testRulesText, "section impact_test\n", "section impact_test\neffective 2026-01-01 until 2026-12-31\n", 1)
	r := compile(t, "dated.rules", src)
	lines := `{"field_values":{"a.n":12,"a.kind":"x","a.born":"2000-01-01"},"decision_date":"2026-06-01"}
{"field_values":{"a.n":12,"a.kind":"x","a.born":"2000-01-01"},"decision_date":"2025-06-01"}
{"field_values":{"a.n":12,"a.kind":"x","a.born":"2000-01-01"}}
`
	for _, tc := range []struct {
		date     string
		eligible int64
		reasons  string
	}{
		{"2026-03-01", 2, "the decision date is outside the baseline's effective period 1 [2]; the decision date is outside the candidate's effective period 1 [2]"},
		{"", 1, "the baseline could not decide: these rules depend on the decision date and none was given 1 [3]; the candidate could not decide: these rules depend on the decision date and none was given 1 [3]; the decision date is outside the baseline's effective period 1 [2]; the decision date is outside the candidate's effective period 1 [2]"},
	} {
		var d int64
		if tc.date != "" {
			d = date(tc.date)
		}
		rep, err := Run(context.Background(), strings.NewReader(lines), Options{Baseline: r, Candidate: r, DefaultDate: d})
		if err != nil {
			t.Fatal(err)
		}
		var reasons []string
		for _, u := range rep.Undecided {
			reasons = append(reasons, fmt.Sprintf("%s %d %v", u.Reason, u.Count, u.Lines))
		}
		if rep.Transitions[0].Count != tc.eligible || strings.Join(reasons, "; ") != tc.reasons {
			t.Errorf("default date %q: %+v\nreasons %s", tc.date, rep.Transitions, strings.Join(reasons, "; "))
		}
	}
}

// TestRunBounds: progress is reported with the bytes read, a cancel stops
// the run at the next check, and a caseload over the row cap is refused.
func TestRunBounds(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	line := `{"field_values":{"a.n":12}}` + "\n"
	n := 3*progressEvery + 5
	file := strings.Repeat(line, n)

	var seen []Progress
	rep, err := Run(context.Background(), strings.NewReader(file), Options{Baseline: r, Candidate: r, Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	last := seen[len(seen)-1]
	if rep.Cases != int64(n) || len(seen) != 4 || last != (Progress{Rows: int64(n), Cases: int64(n), Bytes: int64(len(file))}) || seen[0].Rows != progressEvery {
		t.Errorf("%d cases, progress %+v", rep.Cases, seen)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	_, err = Run(ctx, strings.NewReader(file), Options{Baseline: r, Candidate: r, Progress: func(p Progress) {
		calls++
		cancel() // at the first report, after progressEvery rows
	}})
	// The run looks at its context every checkEvery rows: it stops at the
	// first look after the cancel.
	stop := (progressEvery/checkEvery + 1) * checkEvery
	if !errors.Is(err, context.Canceled) || calls != 1 || !strings.Contains(err.Error(), fmt.Sprintf("after %d rows", stop)) {
		t.Errorf("cancelled run: %v after %d progress calls", err, calls)
	}

	// A cancel while the first row, one line of 5 MiB, is being skipped
	// stops the run inside the row.
	ctx, cancel = context.WithCancel(context.Background())
	reader := &cancelOnRead{r: strings.NewReader(strings.Repeat("x", 5*MaxLineBytes)), cancel: cancel}
	_, err = Run(ctx, reader, Options{Baseline: r, Candidate: r})
	if !errors.Is(err, context.Canceled) || reader.reads > 3 {
		t.Errorf("cancelled inside a long line: %v after %d reads", err, reader.reads)
	}

	_, err = Run(context.Background(), strings.NewReader(strings.Repeat(line, 4)), Options{Baseline: r, Candidate: r, MaxRows: 3})
	if !errors.Is(err, ErrTooManyRows) {
		t.Errorf("4 rows with a cap of 3: %v", err)
	}
	if _, err := Run(context.Background(), strings.NewReader(strings.Repeat(line, 3)), Options{Baseline: r, Candidate: r, MaxRows: 3}); err != nil {
		t.Errorf("3 rows with a cap of 3: %v", err)
	}
	if _, err := Run(context.Background(), strings.NewReader(line), Options{Baseline: r, Candidate: r, Examples: MaxExamples + 1}); err == nil {
		t.Error("more examples than MaxExamples were accepted")
	}
}

// cancelOnRead cancels a context at its first read and counts the reads.
type cancelOnRead struct {
	r      io.Reader
	cancel context.CancelFunc
	reads  int
}

func (c *cancelOnRead) Read(p []byte) (int, error) {
	c.reads++
	c.cancel()
	return c.r.Read(p)
}

// TestReasonsAreCapped: a file inventing a new field on every line counts
// the reasons past MaxReasons together, so the report stays small.
func TestReasonsAreCapped(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	var b strings.Builder
	for i := range MaxReasons + 50 {
		fmt.Fprintf(&b, `{"field_values":{"made.up%d":1}}`+"\n", i)
	}
	rep, err := Run(context.Background(), strings.NewReader(b.String()), Options{Baseline: r, Candidate: r})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	other := false
	for _, u := range rep.UnreadAnswers {
		total += u.Count
		other = other || u.Reason == OtherReasons
	}
	if len(rep.UnreadAnswers) > MaxReasons || !other || total != 2*int64(MaxReasons+50) {
		t.Errorf("%d reasons counting %d cases, other reasons counted: %v", len(rep.UnreadAnswers), total, other)
	}
}

// TestOutputFigureAgainstNone: an output value with a figure on one side
// and none on the other (the answers settle it only there) is a change.
func TestOutputFigureAgainstNone(t *testing.T) {
	t.Parallel()
	base := testRules(t)
	cand := compile(t, "constant.rules", strings.Replace(testRulesText, "a.n * 2", "7", 1))
	const lines = `{"field_values":{}}` + "\n" + `{"field_values":{"a.n":1}}` + "\n"
	rep, err := Run(context.Background(), strings.NewReader(lines), Options{Baseline: base, Candidate: cand})
	if err != nil {
		t.Fatal(err)
	}
	// Unanswered: none against 7; answered 1: 2 against 7.
	if len(rep.Values) != 1 || rep.Values[0] != (ValueCount{ID: "doubled", Output: true, Count: 2}) {
		t.Errorf("values: %+v", rep.Values)
	}
}
