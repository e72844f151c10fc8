package impact

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/eligo/eligo/engine"
)

// Summary is what Scan found in a caseload: its rows, the ones a run
// would decide, and the ones it could not read, by reason.
type Summary struct {
	// Rows counts the rows read, bad ones included (blank lines are not
	// rows).
	Rows int64 `json:"rows"`
	// Cases counts the rows that read as cases.
	Cases int64 `json:"cases"`
	// Bytes counts the bytes read.
	Bytes int64 `json:"bytes"`
	// BadRows count the rows that could not be read, by reason, with
	// their first line numbers, as a run's report counts them.
	BadRows []Reason `json:"bad_rows"`
}

// Scan reads a caseload as Run reads it, without deciding it: an upload
// checks a file with it before keeping it, so that the file's bad rows are
// known (and counted by line) before any run. A CSV cell is typed by its
// field only in a run, when the rulesets say what the field is; Scan reads
// every cell as text, so it finds the bad rows of the file's structure (a
// row that is not JSON, a record with a cell too many, a decision_date
// that is not a date) and a run may find more. It fails as Run does: when
// the stream fails, a CSV header cannot be read, there are more than
// maxRows rows (ErrTooManyRows; maxRows <= 0 or over MaxRows means
// MaxRows), or ctx ends.
func Scan(ctx context.Context, caseload io.Reader, format Format, maxRows int64) (Summary, error) {
	if maxRows <= 0 || maxRows > MaxRows {
		maxRows = MaxRows
	}
	rd, err := newReader(ctx, caseload, format, func(string) (engine.Sort, bool) { return 0, false })
	if err != nil {
		return Summary{}, err
	}
	var sum Summary
	var bad tally
	var r row
	for {
		err := rd.next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Summary{}, fmt.Errorf("read caseload: %w", err)
		}
		if sum.Rows++; sum.Rows > maxRows {
			return Summary{}, fmt.Errorf("%w: more than %d (docs/limits.md#caseloads)", ErrTooManyRows, maxRows)
		}
		if r.bad != "" {
			bad.add(r.bad, r.line)
			continue
		}
		sum.Cases++
	}
	sum.Bytes, sum.BadRows = rd.bytesRead(), bad.list()
	return sum, nil
}
