package impact

import "github.com/eligo/eligo/engine/syntax"

// The bounds of one run (docs/limits.md#caseload-impact-runs). A run reads
// a file a caller chose, so nothing in it may make the run hold more than a
// constant amount of memory or take longer than a bounded time.
const (
	// MaxLineBytes is the longest line (a JSON Lines case, or a CSV record
	// with its quoted line breaks) a run reads, in bytes. One applicant's
	// answers to the largest ruleset the engine compiles (syntax.MaxFields
	// fields) take a few tens of kilobytes; a longer line is almost always a
	// broken file (a lost line break), so it is skipped and counted as a bad
	// row without being held in memory: the reader's buffer is this size.
	MaxLineBytes = 1 << 20

	// MaxColumns is the most columns a CSV header may name: every field of a
	// baseline and a candidate of syntax.MaxFields fields each, plus the
	// decision_date and reference columns, fits. A header with more is
	// refused before any row is read, since every row is typed by it.
	MaxColumns = 2*syntax.MaxFields + 2

	// MaxRows is the most rows (cases and bad rows) one run reads. At the
	// throughput docs/performance.md#caseload-impact reports, ten million
	// cases take minutes of one core; a larger caseload is refused with
	// ErrTooManyRows rather than holding a worker for an unbounded time, and
	// is split into several runs.
	MaxRows = 10_000_000

	// MaxReasons is the most distinct reasons a report counts in one of its
	// lists (bad rows, unread answers, refused answers). A reason may name a
	// field the file made up, so without a cap a file of a million invented
	// keys would grow the report with the file; past the cap the rest are
	// counted under OtherReasons.
	MaxReasons = 1_000

	// MaxLinesPerReason is how many line numbers a reason keeps (the first
	// ones, in file order): enough to find and fix the rows, constant in the
	// size of the file.
	MaxLinesPerReason = 10

	// MaxExamples is the most example references a transition may keep
	// (Options.Examples): examples are for reading, not for export.
	MaxExamples = 100

	// progressEvery is how many rows pass between two progress reports,
	// and checkEvery how many between two looks at the context: often
	// enough that a cancel stops the run within milliseconds, rarely enough
	// to cost nothing.
	progressEvery = 10_000
	checkEvery    = 256
)

// OtherReasons is the reason the rows past MaxReasons distinct reasons are
// counted under.
const OtherReasons = "other reasons (more distinct reasons than a report lists)"
