package impact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// Format is the layout of a caseload file (docs/impact.md#caseload-files).
type Format int

const (
	// JSONLines is one case per line:
	// {"field_values": {...}, "decision_date": "YYYY-MM-DD", "reference": "..."},
	// the last two optional.
	JSONLines Format = iota + 1
	// CSV is a header row of field ids (plus optional decision_date and
	// reference columns) and one case per record, each cell read by its
	// field's type.
	CSV
)

// String is the format's name as --format takes it.
func (f Format) String() string {
	switch f {
	case JSONLines:
		return "jsonl"
	case CSV:
		return "csv"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat reads a format's name: jsonl or csv.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "jsonl", "ndjson", "json-lines":
		return JSONLines, nil
	case "csv":
		return CSV, nil
	}
	return 0, fmt.Errorf("caseload format %q: want jsonl or csv", s)
}

// FormatOf guesses a file's format from its name: CSV for .csv, JSON Lines
// otherwise, so a caller need only name the format of a file named
// otherwise.
func FormatOf(path string) Format {
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return CSV
	}
	return JSONLines
}

// The columns of a CSV caseload, and the members of a JSON Lines case,
// that are not answers.
const (
	dateColumn      = "decision_date"
	referenceColumn = "reference"
)

// Why a row is bad: each is a reason the report counts rows under. They
// name no value from the row, so that there are few of them.
var (
	reasonLong = fmt.Sprintf("the line is longer than %d bytes", MaxLineBytes)
)

const (
	reasonNotJSON       = "the line is not JSON"
	reasonNotObject     = "the line is not a JSON object"
	reasonNoValues      = "field_values is missing or not a JSON object"
	reasonDate          = "decision_date is not a YYYY-MM-DD date"
	reasonReference     = "reference is not a string"
	reasonMember        = "the line has a member other than field_values, decision_date and reference"
	reasonCells         = "the record does not have one cell per header column"
	reasonOpenQuote     = "a quoted cell is not closed before the end of the file"
	reasonBareQuote     = `a cell holds a " but is not quoted`
	reasonAfterQuote    = "a quoted cell is followed by more text before the next comma"
	reasonCellNumber    = "the cell for %s is not a number"
	reasonCellBool      = "the cell for %s is not yes, no, true or false"
	reasonCellDate      = "the cell for %s is not a YYYY-MM-DD date"
	reasonRecordTooLong = "the record is longer than %d bytes"
)

// row is one case as a reader hands it over: its answers, decision date
// and reference, or why it could not be read.
type row struct {
	// line is the number of the row's (first) line, from 1.
	line int64
	// bad says why the row could not be read; the members below are then
	// unset.
	bad string
	// values are the answers as engine.Ruleset.ConvertMap takes them
	// (numbers as json.Number).
	values map[string]any
	// date is the row's decision date as an ordinal; 0 when it gives none.
	date int64
	// ref is the row's reference; empty when it gives none.
	ref string
}

// rowReader reads the rows of a caseload one at a time.
type rowReader interface {
	// next fills r with the next row, skipping blank lines, or returns
	// io.EOF at the end. Any other error (the stream failed) ends the run.
	next(r *row) error
	// bytesRead is how many bytes of the stream have been read.
	bytesRead() int64
}

// jsonlReader reads JSON Lines cases.
type jsonlReader struct {
	lines *lineReader
}

// jsonlCase is one line of a JSON Lines caseload. Pointers tell a member
// that is absent (or null) from one that is empty.
type jsonlCase struct {
	FieldValues  *map[string]any `json:"field_values"`
	DecisionDate *string         `json:"decision_date"`
	Reference    *string         `json:"reference"`
}

func (j *jsonlReader) bytesRead() int64 { return j.lines.bytes }

func (j *jsonlReader) next(r *row) error {
	for {
		line, long, err := j.lines.next()
		if err != nil {
			return err
		}
		*r = row{line: j.lines.line}
		if long {
			r.bad = reasonLong
			return nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		decodeJSONLine(line, r)
		return nil
	}
}

// decodeJSONLine reads one non-blank JSON Lines case into r, or says in
// r.bad why it cannot.
func decodeJSONLine(line []byte, r *row) {
	trimmed := bytes.TrimLeft(line, " \t\r")
	if trimmed[0] != '{' {
		if json.Valid(line) {
			r.bad = reasonNotObject
		} else {
			r.bad = reasonNotJSON
		}
		return
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var c jsonlCase
	if err := dec.Decode(&c); err != nil {
		r.bad = jsonReason(err)
		return
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		r.bad = reasonNotJSON // more after the object
		return
	}
	if c.FieldValues == nil {
		r.bad = reasonNoValues
		return
	}
	if c.DecisionDate != nil {
		d, ok := value.ParseDate(*c.DecisionDate)
		if !ok {
			r.bad = reasonDate
			return
		}
		r.date = d
	}
	if c.Reference != nil {
		r.ref = *c.Reference
	}
	r.values = *c.FieldValues
}

// jsonReason is the bad-row reason of a JSON Lines case the decoder
// refused.
func jsonReason(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		switch strings.SplitN(typeErr.Field, ".", 2)[0] {
		case "field_values":
			return reasonNoValues
		case "decision_date":
			return reasonDate
		case "reference":
			return reasonReference
		}
		return reasonNotObject
	}
	// encoding/json has no error type for a member DisallowUnknownFields
	// refuses; its message is documented to start so.
	if strings.HasPrefix(err.Error(), "json: unknown field") {
		return reasonMember
	}
	return reasonNotJSON
}

// cellKind is how a CSV cell is read: by the type of the field its column
// names.
type cellKind uint8

const (
	cellText   cellKind = iota // an enum value as written, or a column no ruleset declares
	cellNumber                 // int or decimal
	cellBool                   // yes/no, true/false
	cellDate                   // YYYY-MM-DD or a day number
	cellDecisionDate
	cellReference
)

// column is one column of a CSV caseload.
type column struct {
	id   string
	kind cellKind
}

// csvReader reads CSV cases, record by record.
type csvReader struct {
	lines *lineReader
	cols  []column
	split cellSplitter
}

// newCSVReader reads the header of a CSV caseload and types its columns
// by fieldType (the field's sort, false for a column no ruleset declares).
// A header that cannot be read is an error of the whole run: no row could
// be typed without it.
func newCSVReader(lines *lineReader, fieldType func(id string) (engine.Sort, bool)) (*csvReader, error) {
	c := &csvReader{lines: lines}
	var header []string
	for header == nil {
		cells, bad, err := c.record()
		switch {
		case errors.Is(err, io.EOF):
			return nil, errors.New("the CSV caseload has no header row")
		case err != nil:
			return nil, err
		case bad != "":
			return nil, fmt.Errorf("the CSV header on line %d cannot be read: %s", c.lines.line, bad)
		}
		header = cells
	}
	if len(header) > MaxColumns {
		return nil, fmt.Errorf("the CSV header names %d columns, more than the %d a caseload may have (docs/limits.md#caseload-impact-runs)", len(header), MaxColumns)
	}
	header[0] = strings.TrimPrefix(header[0], "\uFEFF") // a byte order mark some spreadsheets write
	seen := make(map[string]bool, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			return nil, fmt.Errorf("the CSV header's column %d has no name", i+1)
		case seen[h]:
			return nil, fmt.Errorf("the CSV header names column %q twice", h)
		}
		seen[h] = true
		col := column{id: h}
		switch h {
		case dateColumn:
			col.kind = cellDecisionDate
		case referenceColumn:
			col.kind = cellReference
		default:
			if sort, ok := fieldType(h); ok {
				col.kind = kindOf(sort)
			}
		}
		c.cols = append(c.cols, col)
	}
	return c, nil
}

// kindOf is how a cell answering a field of sort s is read.
func kindOf(s engine.Sort) cellKind {
	switch s {
	case engine.SortInt, engine.SortDecimal:
		return cellNumber
	case engine.SortBool:
		return cellBool
	case engine.SortDate:
		return cellDate
	}
	return cellText
}

func (c *csvReader) bytesRead() int64 { return c.lines.bytes }

func (c *csvReader) next(r *row) error {
	for {
		cells, bad, err := c.record()
		if err != nil {
			return err
		}
		*r = row{line: c.split.first}
		if bad != "" {
			r.bad = bad
			return nil
		}
		if cells == nil {
			continue // a blank line
		}
		if len(cells) != len(c.cols) {
			r.bad = reasonCells
			return nil
		}
		r.values = make(map[string]any, len(cells))
		for i, cell := range cells {
			if r.bad = c.cell(r, c.cols[i], cell); r.bad != "" {
				r.values = nil
				return nil
			}
		}
		return nil
	}
}

// cell reads one cell into r, or returns why it cannot. An empty cell is
// an unanswered field.
func (c *csvReader) cell(r *row, col column, cell string) (bad string) {
	if cell == "" {
		return ""
	}
	switch col.kind {
	case cellDecisionDate:
		d, ok := value.ParseDate(cell)
		if !ok {
			return reasonDate
		}
		r.date = d
	case cellReference:
		r.ref = cell
	case cellNumber:
		if _, err := value.ParseNumber(cell); err != nil {
			return fmt.Sprintf(reasonCellNumber, col.id)
		}
		r.values[col.id] = json.Number(cell)
	case cellBool:
		switch {
		case strings.EqualFold(cell, "yes"), strings.EqualFold(cell, "true"):
			r.values[col.id] = true
		case strings.EqualFold(cell, "no"), strings.EqualFold(cell, "false"):
			r.values[col.id] = false
		default:
			return fmt.Sprintf(reasonCellBool, col.id)
		}
	case cellDate:
		if _, ok := value.ParseDate(cell); !ok {
			return fmt.Sprintf(reasonCellDate, col.id)
		}
		r.values[col.id] = cell
	default:
		r.values[col.id] = cell
	}
	return ""
}

// record reads the next CSV record: its cells, or why it is malformed
// (bad), or nil cells for a blank line. A quoted cell may span lines; a
// record over MaxLineBytes is read to its end but not kept.
func (c *csvReader) record() (cells []string, bad string, err error) {
	s := &c.split
	s.reset()
	size := 0
	for {
		line, long, err := c.lines.next()
		if errors.Is(err, io.EOF) && s.open {
			return nil, reasonOpenQuote, nil
		}
		if err != nil {
			return nil, "", err
		}
		if s.first == 0 {
			s.first = c.lines.line
		}
		if long {
			// The line was dropped unread, so where its quotes left the
			// record is unknown: the record ends with it.
			return nil, reasonLong, nil
		}
		if size == 0 && !s.open && len(bytes.TrimSpace(line)) == 0 {
			s.first = 0
			continue
		}
		size += len(line) + 1
		s.keep = size <= MaxLineBytes
		if !s.line(line) {
			break
		}
	}
	switch {
	case size > MaxLineBytes:
		return nil, fmt.Sprintf(reasonRecordTooLong, MaxLineBytes), nil
	case s.bad != "":
		return nil, s.bad, nil
	}
	return s.cells, "", nil
}

// cellSplitter splits a CSV record (RFC 4180: cells separated by commas, a
// cell in double quotes may hold commas, line breaks and "" for a quote) a
// line at a time, so that a record is never held whole before it is split.
type cellSplitter struct {
	cells  []string
	cell   []byte
	open   bool   // inside a quoted cell
	quoted bool   // the current cell was quoted and its quote is closed
	keep   bool   // the record is within its limit: keep its bytes
	bad    string // why the record is malformed; "" when it is not
	first  int64  // the number of the record's first line
}

func (s *cellSplitter) reset() {
	s.cells, s.cell = s.cells[:0], s.cell[:0]
	s.open, s.quoted, s.keep, s.bad, s.first = false, false, true, "", 0
}

// line splits one more line of the record (without its line break) and
// reports whether the record goes on to the next line, inside a quoted
// cell.
func (s *cellSplitter) line(b []byte) (more bool) {
	if s.open {
		s.add('\n')
	}
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if s.open {
			switch {
			case ch != '"':
				s.add(ch)
			case i+1 < len(b) && b[i+1] == '"':
				s.add('"')
				i++
			default:
				s.open, s.quoted = false, true
			}
			continue
		}
		switch {
		case ch == ',':
			s.endCell()
		case s.quoted:
			s.fail(reasonAfterQuote)
		case ch == '"' && len(s.cell) == 0:
			s.open = true
		case ch == '"':
			s.fail(reasonBareQuote)
		default:
			s.add(ch)
		}
	}
	if s.open {
		return true
	}
	s.endCell()
	return false
}

func (s *cellSplitter) add(ch byte) {
	if s.keep {
		s.cell = append(s.cell, ch)
	}
}

func (s *cellSplitter) endCell() {
	s.cells = append(s.cells, string(s.cell))
	s.cell, s.quoted = s.cell[:0], false
}

func (s *cellSplitter) fail(reason string) {
	if s.bad == "" {
		s.bad = reason
	}
}
