package impact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// readAll reads every row of a caseload in format f, typing CSV cells by
// the test ruleset.
func readAll(t *testing.T, f Format, text string) ([]row, error) {
	t.Helper()
	r := testRules(t)
	rd, err := newReader(context.Background(), strings.NewReader(text), f, rulesetFieldType(r, r))
	if err != nil {
		return nil, err
	}
	var rows []row
	for {
		var x row
		err := rd.next(&x)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows = append(rows, x)
	}
}

func date(s string) int64 {
	d, ok := value.ParseDate(s)
	if !ok {
		panic(s)
	}
	return d
}

func badRow(line int64, reason string) row { return row{line: line, bad: reason} }

// rowCase is a caseload and the rows it must read as.
type rowCase struct {
	name, text string
	want       []row
}

// checkRows reads each case's text in format f and compares the rows.
func checkRows(t *testing.T, f Format, cases []rowCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := readAll(t, f, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rows:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestJSONLinesRows(t *testing.T) {
	t.Parallel()
	long := `{"field_values":{"a.n":"` + strings.Repeat("x", MaxLineBytes) + `"}}`
	checkRows(t, JSONLines, []rowCase{
		{"a full case", `{"field_values":{"a.n":12,"a.kind":"x"},"decision_date":"2026-01-02","reference":"r1"}` + "\n",
			[]row{{line: 1, values: map[string]any{"a.n": json.Number("12"), "a.kind": "x"}, date: date("2026-01-02"), ref: "r1"}}},
		{"blank lines are skipped, CRLF and a last line without a break are read", "\n  \r\n" + `{"field_values":{}}` + "\r\n\n" + `{"field_values":{"a.flag":true}}`,
			[]row{{line: 3, values: map[string]any{}}, {line: 5, values: map[string]any{"a.flag": true}}}},
		{"null answers and a null date", `{"field_values":{"a.n":null},"decision_date":null}`,
			[]row{{line: 1, values: map[string]any{"a.n": nil}}}},
		{"not JSON", "not json\n{\"field_values\":{}\n{\"field_values\":{}} {}\n",
			[]row{badRow(1, reasonNotJSON), badRow(2, reasonNotJSON), badRow(3, reasonNotJSON)}},
		{"not an object", "[1,2]\n\"x\"\nnull\n12\n",
			[]row{badRow(1, reasonNotObject), badRow(2, reasonNotObject), badRow(3, reasonNotObject), badRow(4, reasonNotObject)}},
		{"field_values missing or not an object", "{}\n" + `{"field_values":[1]}` + "\n" + `{"field_values":null}` + "\n" + `{"field_values":"a"}`,
			[]row{badRow(1, reasonNoValues), badRow(2, reasonNoValues), badRow(3, reasonNoValues), badRow(4, reasonNoValues)}},
		{"a bad decision date", `{"field_values":{},"decision_date":"2026-13-01"}` + "\n" + `{"field_values":{},"decision_date":20260101}` + "\n" + `{"field_values":{},"decision_date":"2026-01-01T00:00:00Z"}`,
			[]row{badRow(1, reasonDate), badRow(2, reasonDate), badRow(3, reasonDate)}},
		{"a reference that is not a string", `{"field_values":{},"reference":5}`,
			[]row{badRow(1, reasonReference)}},
		{"an unknown member", `{"field_values":{},"fieldvalues":{}}`,
			[]row{badRow(1, reasonMember)}},
		{"a line over the limit, then a good one", long + "\n" + `{"field_values":{}}` + "\n",
			[]row{badRow(1, reasonLong), {line: 2, values: map[string]any{}}}},
		{"a line over the limit at the end", `{"field_values":{}}` + "\n" + long,
			[]row{{line: 1, values: map[string]any{}}, badRow(2, reasonLong)}},
	})
}

func TestCSVRows(t *testing.T) {
	t.Parallel()
	const header = "a.n,a.flag,a.kind,a.born,a.amount,decision_date,reference,other.x\n"
	long := "1,yes,x,,,,\"" + strings.Repeat("x", MaxLineBytes) + "\",\n"
	checkRows(t, CSV, []rowCase{
		{"every kind of cell", header + "12,yes,x,2000-01-31,1.50,2026-01-02,r1,zzz\n",
			[]row{{line: 2, values: map[string]any{"a.n": json.Number("12"), "a.flag": true, "a.kind": "x", "a.born": "2000-01-31", "a.amount": json.Number("1.50"), "other.x": "zzz"}, date: date("2026-01-02"), ref: "r1"}}},
		{"empty cells are unanswered; bools in any case; numbers as JSON and the rules write them", header + ",,,,,,,\n1e1,No,y,,-0.5,,,\n12,TRUE,,,,,,\n",
			[]row{{line: 2, values: map[string]any{}}, {line: 3, values: map[string]any{"a.n": json.Number("1e1"), "a.flag": false, "a.kind": "y", "a.amount": json.Number("-0.5")}}, {line: 4, values: map[string]any{"a.n": json.Number("12"), "a.flag": true}}}},
		{"a byte order mark, CRLF, blank lines and a header in another order", "\uFEFFreference,a.n\r\n\r\nr1,3\r\n\n\"r,2\",4",
			[]row{{line: 3, values: map[string]any{"a.n": json.Number("3")}, ref: "r1"}, {line: 5, values: map[string]any{"a.n": json.Number("4")}, ref: "r,2"}}},
		{"a quoted cell over two lines, then a row numbered by its own line", header + "1,yes,x,,,,\"first\nsecond \"\"quoted\"\"\",\n2,no,y,,,,,\n",
			[]row{{line: 2, values: map[string]any{"a.n": json.Number("1"), "a.flag": true, "a.kind": "x"}, ref: "first\nsecond \"quoted\""}, {line: 4, values: map[string]any{"a.n": json.Number("2"), "a.flag": false, "a.kind": "y"}}}},
		{"cells that do not convert", header + "abc,,,,,,,\n,maybe,,,,,,\n,,,2000-02-30,,,,\n,,,,1.2.3,,,\n,,,,,2026-1-1,,\n",
			[]row{badRow(2, fmt.Sprintf(reasonCellNumber, "a.n")), badRow(3, fmt.Sprintf(reasonCellBool, "a.flag")), badRow(4, fmt.Sprintf(reasonCellDate, "a.born")), badRow(5, fmt.Sprintf(reasonCellNumber, "a.amount")), badRow(6, reasonDate)}},
		{"the wrong number of cells", header + "1,yes\n1,yes,x,,,,,,\n",
			[]row{badRow(2, reasonCells), badRow(3, reasonCells)}},
		{"bad quotes", header + "1\"2,,,,,,,\n\"1\"2,,,,,,,\n3,,,,,,,\n",
			[]row{badRow(2, reasonBareQuote), badRow(3, reasonAfterQuote), {line: 4, values: map[string]any{"a.n": json.Number("3")}}}},
		{"a quote left open to the end", header + "1,,,,,,,\n2,,,,,,\"open\nmore\n",
			[]row{{line: 2, values: map[string]any{"a.n": json.Number("1")}}, badRow(3, reasonOpenQuote)}},
		{"a line over the limit", header + long + "5,,,,,,,\n",
			[]row{badRow(2, reasonLong), {line: 3, values: map[string]any{"a.n": json.Number("5")}}}},
		{"a record over the limit across lines", header + "1,,,,,,\"" + strings.Repeat("x\n", MaxLineBytes/2+1) + "\",\n6,,,,,,,\n",
			[]row{badRow(2, fmt.Sprintf(reasonRecordTooLong, MaxLineBytes)), {line: MaxLineBytes/2 + 4, values: map[string]any{"a.n": json.Number("6")}}}},
	})
}

func TestCSVHeaderErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, text, want string }{
		{"no header", "", "has no header row"},
		{"only blank lines", "\n\r\n", "has no header row"},
		{"a column twice", "a.n,a.n\n1,2\n", `names column "a.n" twice`},
		{"a column without a name", "a.n,,a.flag\n", "column 2 has no name"},
		{"too many columns", strings.Repeat("x,", MaxColumns) + "y\n", "more than the 1002"},
		{"a header that is not CSV", "a.n,\"b\n", "cannot be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := readAll(t, CSV, tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// testRules is a small ruleset with a field of every type and an output
// value.
func testRules(t testing.TB) *engine.Ruleset {
	t.Helper()
	r, _, err := engine.Compile("test.rules", []byte(testRulesText))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const testRulesText = `section impact_test

source s "S" url "https://example.org/s" licence "public-domain"

field a.n int weight 1
field a.flag bool weight 1
field a.kind enum ["x", "y"] weight 1
field a.born date weight 1
field a.amount decimal weight 1

value doubled int "Twice n" output {
  a.n * 2
  cite s "twice"
}

group g all "G" {
  criterion big "At least 12" {
    a.n >= 12
    cite s "at least 12"
  }
  criterion kind "Kind x, or flagged" {
    a.kind == "x" or a.flag == true
    cite s "kind"
  }
  criterion known "Born, or a small amount" {
    present(a.born) or a.amount <= 100
    cite s "born"
  }
}
`
