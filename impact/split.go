package impact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/eligo/eligo/engine"
)

// Part is a slice of a caseload that one worker decides on its own: whole
// rows, from the byte Offset where a row begins to End, where the next part
// begins. Split cuts a file into parts; Run decides one when given its bytes
// with Options.FirstLine (and Options.Header for a CSV part after the
// first); Report.Merge adds the parts' reports up, in file order, to the
// report of one run over the whole file (docs/impact.md#over-http).
type Part struct {
	// Offset and End are the part's first byte and the byte past its last.
	Offset int64 `json:"offset"`
	End    int64 `json:"end"`
	// Line is the number of the part's first line in the file, from 1.
	Line int64 `json:"line"`
}

// Split cuts a caseload into parts of about partBytes bytes each, at row
// boundaries: a part ends at the end of the first row that takes it to
// partBytes or more, so a row is never cut, and a CSV record whose quoted
// cell holds line breaks stays whole. It reads lines and CSV quotes only,
// without decoding a row, so it costs a small fraction of a run. The first
// part starts at 0 (with a CSV file's header); the last ends at the end of
// the stream; an empty file is one empty part. It fails when the stream
// fails, a CSV header cannot be read (as Run would), or ctx ends.
func Split(ctx context.Context, caseload io.Reader, format Format, partBytes int64) ([]Part, error) {
	if partBytes <= 0 {
		return nil, fmt.Errorf("impact: a part must be at least one byte, not %d", partBytes)
	}
	rd, err := newReader(ctx, caseload, format, func(string) (engine.Sort, bool) { return 0, false })
	if err != nil {
		return nil, err
	}
	var lines *lineReader
	var step func() error
	switch rd := rd.(type) {
	case *jsonlReader:
		lines = rd.lines
		step = func() error { _, _, err := lines.next(); return err }
	case *csvReader:
		lines = rd.lines
		step = func() error { _, _, err := rd.record(); return err }
	}
	parts := []Part{{Offset: 0, Line: 1}}
	for {
		err := step()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("split caseload: %w", err)
		}
		if last := &parts[len(parts)-1]; lines.bytes-last.Offset >= partBytes {
			last.End = lines.bytes
			parts = append(parts, Part{Offset: lines.bytes, Line: lines.line + 1})
		}
	}
	last := &parts[len(parts)-1]
	last.End = lines.bytes
	if last.End == last.Offset && len(parts) > 1 {
		parts = parts[:len(parts)-1] // the file ended at a cut
	}
	return parts, nil
}

// Merge adds to r the report of the rows that follow r's in the same file
// (the next part of a split run, Split), so that merging the parts of a
// file in file order gives the report one run over the whole file gives:
// counts add up, each transition keeps the first examples references (the
// run's Options.Examples) in file order, each reason its first line
// numbers, and the lists are ordered as a run orders them. The one case it
// cannot tell exactly is a list past MaxReasons distinct reasons within one
// part: that part's rows counted under OtherReasons stay there, though the
// whole file would have counted some of them under a reason an earlier
// part kept; every total stays exact. It refuses reports of other rulesets.
func (r *Report) Merge(next *Report, examples int) error {
	if r.Baseline != next.Baseline || r.Candidate != next.Candidate {
		return errors.New("impact: the reports merged are of different rulesets")
	}
	r.Cases += next.Cases
	r.Changed += next.Changed
	r.Transitions = mergeTransitions(r.Transitions, next.Transitions, examples)
	r.Criteria = mergeCounts(r.Criteria, next.Criteria, func(c Count) string { return c.ID },
		func(a, b Count) Count { a.Count += b.Count; return a }, func(c Count) int64 { return c.Count })
	r.Values = mergeCounts(r.Values, next.Values, func(c ValueCount) string { return c.ID },
		func(a, b ValueCount) ValueCount { a.Count += b.Count; return a }, func(c ValueCount) int64 { return c.Count })
	r.BadRows = mergeReasons(r.BadRows, next.BadRows)
	r.UnreadAnswers = mergeReasons(r.UnreadAnswers, next.UnreadAnswers)
	r.Undecided = mergeReasons(r.Undecided, next.Undecided)
	return nil
}

// mergeTransitions adds b's transitions to a's, keeping the first examples
// references of each (a's, which come first in the file, then b's), in a
// run's order.
func mergeTransitions(a, b []Transition, examples int) []Transition {
	var grid [3][3]*Transition
	out := make([]Transition, 0, len(a)+len(b))
	for _, t := range slices.Concat(a, b) {
		g := &grid[t.From][t.To]
		if *g == nil {
			t.Examples = slices.Clone(t.Examples)
			out = append(out, t)
			*g = &out[len(out)-1]
			continue
		}
		(*g).Count += t.Count
		room := max(examples-len((*g).Examples), 0)
		(*g).Examples = append((*g).Examples, t.Examples[:min(room, len(t.Examples))]...)
	}
	rank := map[engine.Outcome]int{engine.Eligible: 0, engine.NotEligible: 1, engine.Undetermined: 2}
	slices.SortFunc(out, func(x, y Transition) int {
		return cmp.Or(cmp.Compare(rank[x.From], rank[y.From]), cmp.Compare(rank[x.To], rank[y.To]))
	})
	return out
}

// mergeCounts adds b's counts to a's by id and orders them as a run does,
// most frequent first, then by id.
func mergeCounts[T any](a, b []T, id func(T) string, add func(T, T) T, count func(T) int64) []T {
	out := slices.Clone(a)
	at := make(map[string]int, len(a))
	for i, c := range out {
		at[id(c)] = i
	}
	for _, c := range b {
		if i, ok := at[id(c)]; ok {
			out[i] = add(out[i], c)
			continue
		}
		at[id(c)] = len(out)
		out = append(out, c)
	}
	byCountThenID(out, count, id)
	if out == nil {
		out = []T{}
	}
	return out
}

// mergeReasons adds b's reasons to a's (b's rows follow a's in the file).
// As a run's tally keeps the first MaxReasons-1 distinct reasons in file
// order and counts the rest under OtherReasons, so does the merge, telling
// the first by each reason's first line.
func mergeReasons(a, b []Reason) []Reason {
	byReason := make(map[string]*Reason, len(a)+len(b))
	var kept []*Reason
	for _, r := range slices.Concat(a, b) {
		if k := byReason[r.Reason]; k != nil {
			k.Count += r.Count
			k.Lines = appendLines(k.Lines, r.Lines)
			continue
		}
		k := &Reason{Reason: r.Reason, Count: r.Count, Lines: appendLines(nil, r.Lines)}
		byReason[r.Reason] = k
		kept = append(kept, k)
	}
	other := byReason[OtherReasons]
	named := slices.DeleteFunc(kept, func(r *Reason) bool { return r.Reason == OtherReasons })
	if len(named) > MaxReasons-1 {
		slices.SortStableFunc(named, func(x, y *Reason) int { return cmp.Compare(firstLine(x), firstLine(y)) })
		if other == nil {
			other = &Reason{Reason: OtherReasons}
		}
		for _, r := range named[MaxReasons-1:] {
			other.Count += r.Count
			other.Lines = append(other.Lines, r.Lines...)
		}
		named = named[:MaxReasons-1]
	}
	var t tally
	t.byReason = make(map[string]*Reason, len(named)+1)
	for _, r := range named {
		t.byReason[r.Reason] = r
	}
	if other != nil {
		slices.Sort(other.Lines)
		other.Lines = other.Lines[:min(len(other.Lines), MaxLinesPerReason)]
		t.byReason[OtherReasons] = other
	}
	return t.list()
}

// appendLines appends more line numbers to lines, up to MaxLinesPerReason.
func appendLines(lines, more []int64) []int64 {
	return append(lines, more[:min(len(more), max(MaxLinesPerReason-len(lines), 0))]...)
}

// firstLine is the line of a reason's first row; reasons always keep at
// least one.
func firstLine(r *Reason) int64 {
	if len(r.Lines) == 0 {
		return 0
	}
	return r.Lines[0]
}
