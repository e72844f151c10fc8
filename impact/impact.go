// Package impact answers "whom does this rule change affect, and how
// many?": it decides every case of a caseload (applicants' answers, read
// from JSON Lines or CSV as a stream) on a baseline and a candidate ruleset
// and counts what changed: outcome transitions, the criteria and named
// values that moved, and the rows it could not decide, each by reason.
//
// A run holds one row at a time and a fixed set of counters, so its memory
// does not grow with the caseload; it is deterministic (the same file gives
// the same report) and bounded by the limits in limits.go. It does no I/O
// beyond reading the stream it is given and imports only the engine, so the
// CLI (`eligo impact`) and later jobs over uploaded caseloads call the same
// code. docs/impact.md describes the formats and the report.
package impact

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// ErrTooManyRows is returned (wrapped) when a caseload has more rows than
// a run may read (MaxRows, or Options.MaxRows).
var ErrTooManyRows = errors.New("the caseload has more rows than one run reads")

// Options configure a run.
type Options struct {
	// Baseline is the ruleset in force; Candidate the one proposed.
	// Both are required; they may be the same ruleset.
	Baseline, Candidate *engine.Ruleset
	// Format is the caseload's layout; zero means JSONLines.
	Format Format
	// DefaultDate is the decision date (an ordinal, see value.ParseDate) of
	// a case that gives none; 0 for none, so that rules that depend on the
	// date decide such a case undetermined, as /decide would.
	DefaultDate int64
	// Examples is how many references each transition keeps (the first,
	// in file order), at most MaxExamples; 0 keeps none.
	Examples int
	// MaxRows caps the rows read, below MaxRows (a smaller allowance);
	// 0 means MaxRows.
	MaxRows int64
	// FirstLine is the number, in its file, of the caseload's first line
	// when the stream is one part of a file (Split): rows are reported by
	// their line in the file. 0 or 1 for a whole file.
	FirstLine int64
	// Header reads a CSV file from its start, for a part after the first
	// (which has no header row of its own): the part's cells are typed by
	// the file's header. Unused for JSON Lines and for a whole file.
	Header io.Reader
	// Progress, when set, is called every few thousand rows and once at
	// the end with how far the run has got, from the run's goroutine: it
	// should return quickly.
	Progress func(Progress)
}

// Progress is how far a run has got.
type Progress struct {
	// Rows counts the rows read, bad ones included.
	Rows int64
	// Cases counts the rows decided.
	Cases int64
	// Bytes counts the bytes of the caseload read.
	Bytes int64
}

// side is one of the two rulesets of a run, with the result it reuses
// from case to case.
type side struct {
	name  string // "baseline" or "candidate", as reasons say it
	rules *engine.Ruleset
	res   engine.Result
}

// pair maps an item (a criterion or named value) of the baseline to the
// candidate's item of the same id.
type pair struct {
	base, cand int
	id         string
	// For values: compare unknown against known too (an output of both),
	// and the two sorts.
	output             bool
	baseSort, candSort engine.Sort
}

// run is the state of one run: the two sides and the counters.
type run struct {
	opts        Options
	sides       [2]*side
	criteria    []pair
	values      []pair
	critCounts  []int64
	valueCounts []int64
	transitions [3][3]Transition
	bad         tally
	unread      tally
	undecided   tally
	report      Report
}

// Run decides every case of the caseload on both rulesets and returns
// the report. A row it cannot read is counted as a bad row and the run
// goes on; it fails only when the stream fails, a CSV header cannot be
// read, the caseload has more rows than allowed (ErrTooManyRows), or ctx
// ends (its error, wrapped). When ctx ends after the header was read, the
// report of the cases decided so far comes back with the error, so that a
// caller that stops a run (a cancel, a time limit) can show what it
// decided, marked as partial.
func Run(ctx context.Context, caseload io.Reader, opts Options) (*Report, error) {
	if opts.Baseline == nil || opts.Candidate == nil {
		return nil, errors.New("impact: a run needs a baseline and a candidate ruleset")
	}
	if opts.Examples < 0 || opts.Examples > MaxExamples {
		return nil, fmt.Errorf("impact: examples must be from 0 to %d, not %d", MaxExamples, opts.Examples)
	}
	if opts.MaxRows <= 0 || opts.MaxRows > MaxRows {
		opts.MaxRows = MaxRows
	}
	rd, err := newPartReader(ctx, caseload, opts)
	if err != nil {
		return nil, err
	}
	ru := newRun(opts)
	var r row
	var rows int64
	for {
		if rows%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return ru.finish(), fmt.Errorf("impact run stopped after %d rows: %w", rows, err)
			}
		}
		if rows > 0 && rows%progressEvery == 0 && opts.Progress != nil {
			opts.Progress(Progress{Rows: rows, Cases: ru.report.Cases, Bytes: rd.bytesRead()})
		}
		err := rd.next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && ctx.Err() != nil {
			return ru.finish(), fmt.Errorf("impact run stopped after %d rows: %w", rows, err)
		}
		if err != nil {
			return nil, fmt.Errorf("read caseload: %w", err)
		}
		if rows++; rows > opts.MaxRows {
			return nil, fmt.Errorf("%w: more than %d (docs/limits.md#caseload-impact-runs)", ErrTooManyRows, opts.MaxRows)
		}
		if r.bad != "" {
			ru.bad.add(r.bad, r.line)
			continue
		}
		ru.decide(&r)
	}
	if opts.Progress != nil {
		opts.Progress(Progress{Rows: rows, Cases: ru.report.Cases, Bytes: rd.bytesRead()})
	}
	return ru.finish(), nil
}

// newReader opens the caseload in its format, typing CSV cells by
// fieldType.
func newReader(ctx context.Context, caseload io.Reader, format Format, fieldType func(id string) (engine.Sort, bool)) (rowReader, error) {
	lines := newLineReader(ctx, caseload, MaxLineBytes)
	switch format {
	case 0, JSONLines:
		return &jsonlReader{lines: lines}, nil
	case CSV:
		return newCSVReader(lines, fieldType)
	}
	return nil, fmt.Errorf("impact: unknown caseload format %v", format)
}

// newPartReader opens the caseload as newReader does, numbering its lines
// from opts.FirstLine and, for a CSV part with opts.Header, typing its
// cells by the header read from there.
func newPartReader(ctx context.Context, caseload io.Reader, opts Options) (rowReader, error) {
	fieldType := rulesetFieldType(opts.Baseline, opts.Candidate)
	if opts.Format == CSV && opts.Header != nil {
		rd, err := newReader(ctx, opts.Header, CSV, fieldType)
		if err != nil {
			return nil, err
		}
		csv := rd.(*csvReader)
		csv.lines = newLineReader(ctx, caseload, MaxLineBytes)
		csv.lines.line = max(opts.FirstLine-1, 0)
		return csv, nil
	}
	rd, err := newReader(ctx, caseload, opts.Format, fieldType)
	if err != nil {
		return nil, err
	}
	switch rd := rd.(type) {
	case *jsonlReader:
		rd.lines.line = max(opts.FirstLine-1, 0)
	case *csvReader:
		rd.lines.line += max(opts.FirstLine-1, 0)
	}
	return rd, nil
}

// rulesetFieldType types a CSV column by the field it names in the first
// of rulesets that declares it.
func rulesetFieldType(rulesets ...*engine.Ruleset) func(id string) (engine.Sort, bool) {
	return func(id string) (engine.Sort, bool) {
		for _, r := range rulesets {
			if i := r.FieldIndex(id); i >= 0 {
				return r.Fields[i].Type, true
			}
		}
		return 0, false
	}
}

// newRun pairs the two rulesets' criteria and named values by id.
func newRun(opts Options) *run {
	ru := &run{
		opts:  opts,
		sides: [2]*side{{name: "baseline", rules: opts.Baseline}, {name: "candidate", rules: opts.Candidate}},
		report: Report{
			Baseline:  infoOf(opts.Baseline),
			Candidate: infoOf(opts.Candidate),
		},
	}
	b, c := opts.Baseline, opts.Candidate
	candCrit := make(map[string]int, c.NumCriteria())
	for j := range c.NumCriteria() {
		cr, _ := c.CriterionAt(j)
		candCrit[cr.ID] = j
	}
	for i := range b.NumCriteria() {
		cr, _ := b.CriterionAt(i)
		if j, ok := candCrit[cr.ID]; ok {
			ru.criteria = append(ru.criteria, pair{base: i, cand: j, id: cr.ID})
		}
	}
	for i := range b.Values {
		bv := &b.Values[i]
		if j := c.ValueIndex(bv.ID); j >= 0 {
			cv := &c.Values[j]
			ru.values = append(ru.values, pair{base: i, cand: j, id: bv.ID, output: bv.Output && cv.Output, baseSort: bv.Type, candSort: cv.Type})
		}
	}
	ru.critCounts = make([]int64, len(ru.criteria))
	ru.valueCounts = make([]int64, len(ru.values))
	for from := range ru.transitions {
		for to := range ru.transitions[from] {
			ru.transitions[from][to] = Transition{From: engine.Outcome(from), To: engine.Outcome(to)}
		}
	}
	return ru
}

// decide decides one case on both sides and counts what differs.
func (ru *run) decide(r *row) {
	date := r.date
	if date == 0 {
		date = ru.opts.DefaultDate
	}
	for _, s := range ru.sides {
		in := s.convert(r, &ru.unread)
		s.rules.EvaluateInto(in, engine.Options{DecisionDate: date}, &s.res)
		for _, fe := range s.res.FieldErrors {
			ru.undecided.add(s.undecidedReason(fe), r.line)
		}
		if s.res.OutsidePeriod {
			ru.undecided.add("the decision date is outside the "+s.name+"'s effective period", r.line)
		}
	}
	base, cand := &ru.sides[0].res, &ru.sides[1].res
	ru.report.Cases++
	t := &ru.transitions[base.Outcome][cand.Outcome]
	t.Count++
	if t.From != t.To {
		ru.report.Changed++
	}
	if len(t.Examples) < ru.opts.Examples {
		ref := r.ref
		if ref == "" {
			ref = fmt.Sprintf("line %d", r.line)
		}
		t.Examples = append(t.Examples, ref)
	}
	for k, p := range ru.criteria {
		if base.Criteria[p.base] != cand.Criteria[p.cand] {
			ru.critCounts[k]++
		}
	}
	for k, p := range ru.values {
		a, b := base.Values[p.base], cand.Values[p.cand]
		if !p.output && (!a.Known || !b.Known) {
			continue // a value one decision did not need is not a change
		}
		if !sameFigure(a, b, p.baseSort, p.candSort) {
			ru.valueCounts[k]++
		}
	}
}

// convert binds the case's answers to the side's fields. An answer to a
// field the ruleset does not declare is left out and counted (with the
// unread tally), so a field removed by the candidate neither goes unseen
// nor makes every case undetermined. A household answered in flat CSV
// columns ("member", "member[0].age") becomes the list /decide reads.
func (s *side) convert(r *row, unread *tally) *engine.Inputs {
	dropped := 0
	for k, v := range r.values {
		if s.rules.FieldIndex(k) < 0 {
			dropped++
			if v != nil {
				unread.add("answers a field the "+s.name+" does not read: "+k, r.line)
			}
		}
	}
	if dropped == 0 {
		return s.rules.ConvertMap(s.rules.NestMembers(r.values))
	}
	kept := make(map[string]any, len(r.values)-dropped)
	for k, v := range r.values {
		if s.rules.FieldIndex(k) >= 0 {
			kept[k] = v
		}
	}
	return s.rules.ConvertMap(s.rules.NestMembers(kept))
}

// undecidedReason words a field error of the side's decision without the
// answer itself, so that the cases it applies to count under one reason.
func (s *side) undecidedReason(fe engine.FieldError) string {
	if fe.Value != nil {
		return fmt.Sprintf("the %s refuses the answer to %s (%s)", s.name, fe.Field, fe.Type)
	}
	return "the " + s.name + " could not decide: " + fe.Message
}

// sameFigure reports whether two figures of a named value are the same:
// both unknown, or both known and equal (numbers by value, so 1 and 1.0
// are the same whatever the two declarations' sorts).
func sameFigure(a, b value.Value, sa, sb engine.Sort) bool {
	switch {
	case a.Known != b.Known:
		return false
	case !a.Known:
		return true
	case sa.Numeric() && sb.Numeric():
		return value.Compare(a, b) == 0
	}
	return sa == sb && a.Num == b.Num
}

// finish turns the counters into the report, in a deterministic order.
func (ru *run) finish() *Report {
	rep := &ru.report
	rep.Transitions = []Transition{}
	order := [...]engine.Outcome{engine.Eligible, engine.NotEligible, engine.Undetermined}
	for _, from := range order {
		for _, to := range order {
			if t := ru.transitions[from][to]; t.Count > 0 {
				if t.Examples == nil {
					t.Examples = []string{}
				}
				rep.Transitions = append(rep.Transitions, t)
			}
		}
	}
	rep.Criteria = []Count{}
	for k, p := range ru.criteria {
		if ru.critCounts[k] > 0 {
			rep.Criteria = append(rep.Criteria, Count{ID: p.id, Count: ru.critCounts[k]})
		}
	}
	byCountThenID(rep.Criteria, func(c Count) int64 { return c.Count }, func(c Count) string { return c.ID })
	rep.Values = []ValueCount{}
	for k, p := range ru.values {
		if ru.valueCounts[k] > 0 {
			rep.Values = append(rep.Values, ValueCount{ID: p.id, Output: p.output, Count: ru.valueCounts[k]})
		}
	}
	byCountThenID(rep.Values, func(c ValueCount) int64 { return c.Count }, func(c ValueCount) string { return c.ID })
	rep.BadRows = ru.bad.list()
	rep.UnreadAnswers = ru.unread.list()
	rep.Undecided = ru.undecided.list()
	return rep
}
