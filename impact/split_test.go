package impact

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
)

// generatedCaseload writes n random cases of testRules' fields in format,
// with bad rows, blank lines, cases without a reference or a date, unread
// answers, refused answers and, in CSV, references quoted over two lines.
func generatedCaseload(rng *rand.Rand, format Format, n int) []byte {
	var b bytes.Buffer
	if format == CSV {
		b.WriteString("reference,decision_date,a.n,a.kind,a.born,a.amount,a.flag,a.extra\n")
	}
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	for i := range n {
		ref, n := fmt.Sprintf("r%d", i), fmt.Sprint(rng.IntN(25))
		kind, born, amount, flag, date := pick("x", "y", ""), pick("2000-01-01", ""), pick("5", "150", ""), pick("true", "false", ""), pick("2026-01-15", "")
		switch rng.IntN(12) {
		case 0:
			ref = ""
		case 1:
			b.WriteString("\n")
		case 2:
			b.WriteString(pick("oops\n", "[1]\n", `"x",,"y`+"\n"))
		case 3:
			n = pick("-1", "z")
		case 4:
			ref = "two\nlines"
		}
		if format == CSV {
			fmt.Fprintf(&b, "%q,%s,%s,%s,%s,%s,%s,%s\n", ref, date, n, kind, born, amount, flag, pick("", "1"))
			continue
		}
		values := map[string]any{"a.n": json.Number(n), "a.kind": kind, "a.born": born, "a.amount": json.Number(amount), "a.flag": flag == "true"}
		if n == "z" {
			values["a.n"] = "z"
		}
		for k, v := range values {
			if v == "" || v == json.Number("") || (k == "a.flag" && flag == "") {
				delete(values, k)
			}
		}
		if rng.IntN(3) == 0 {
			values[fmt.Sprintf("a.extra%d", rng.IntN(4))] = 1
		}
		line := map[string]any{"field_values": values}
		if ref != "" {
			line["reference"] = ref
		}
		if date != "" {
			line["decision_date"] = date
		}
		enc, _ := json.Marshal(line)
		b.Write(enc)
		b.WriteString("\n")
	}
	return b.Bytes()
}

// runInParts splits the caseload into parts of partBytes, runs each on its
// own bytes and merges their reports in file order, as split runs over
// HTTP do.
func runInParts(t *testing.T, file []byte, partBytes int64, opts Options) (*Report, []Part) {
	t.Helper()
	parts, err := Split(context.Background(), bytes.NewReader(file), opts.Format, partBytes)
	if err != nil {
		t.Fatal(err)
	}
	var merged *Report
	for _, p := range parts {
		o := opts
		o.FirstLine = p.Line
		if p.Offset > 0 {
			o.Header = bytes.NewReader(file)
		}
		rep, err := Run(context.Background(), bytes.NewReader(file[p.Offset:p.End]), o)
		if err != nil {
			t.Fatalf("part %+v: %v", p, err)
		}
		if merged == nil {
			merged = rep
		} else if err := merged.Merge(rep, opts.Examples); err != nil {
			t.Fatal(err)
		}
	}
	return merged, parts
}

func reportJSON(t *testing.T, rep *Report) string {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMergedPartsAreTheOneRun is the property split runs rest on: for
// generated caseloads in both formats and casebank caseloads, merging the
// reports of the parts of any split, in file order, gives exactly the
// report of one run over the file, examples and line numbers included.
func TestMergedPartsAreTheOneRun(t *testing.T) {
	t.Parallel()
	type caseloadCase struct {
		name       string
		base, cand *engine.Ruleset
		format     Format
		file       []byte
	}
	base, cand := testRules(t), compile(t, "candidate.rules", candidateText(t))
	var cases []caseloadCase
	for seed := range uint64(4) {
		for _, f := range []Format{JSONLines, CSV} {
			rng := rand.New(rand.NewPCG(seed, 7))
			cases = append(cases, caseloadCase{fmt.Sprintf("generated %s seed %d", f, seed), base, cand, f, generatedCaseload(rng, f, 20+rng.IntN(300))})
		}
	}
	snap, fs := loadFolder(t, "snap-income")
	next, fn := loadFolder(t, "snap-income-fy2027")
	cases = append(cases, caseloadCase{"casebank snap-income against fy2027", snap, next, JSONLines,
		jsonl(t, append(caseload(t, snap, fs.Cases), caseload(t, next, fn.Cases)...))})
	student, fst := loadFolder(t, "us-independent-student")
	student2, fst2 := loadFolder(t, "us-independent-student-2026-27")
	cases = append(cases, caseloadCase{"casebank us-independent-student against 2026-27", student, student2, JSONLines,
		jsonl(t, append(caseload(t, student, fst.Cases), caseload(t, student2, fst2.Cases)...))})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(len(tc.file)), 3))
			for _, examples := range []int{0, 3} {
				opts := Options{Baseline: tc.base, Candidate: tc.cand, Format: tc.format, Examples: examples}
				whole, err := Run(context.Background(), bytes.NewReader(tc.file), opts)
				if err != nil {
					t.Fatal(err)
				}
				want := reportJSON(t, whole)
				for _, size := range []int64{1, 2 + rng.Int64N(200), 1 + rng.Int64N(int64(len(tc.file))), int64(len(tc.file))} {
					merged, parts := runInParts(t, tc.file, size, opts)
					if got := reportJSON(t, merged); got != want {
						t.Fatalf("parts of %d bytes (%d parts), examples %d:\nmerged %s\none run %s", size, len(parts), examples, got, want)
					}
				}
			}
		})
	}
}

// TestSplit: parts cover the file without gap or overlap, end at row
// boundaries (a CSV record with a quoted line break stays whole), and
// number their first line.
func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		format Format
		file   string
		size   int64
		want   []Part
	}{
		{"empty", JSONLines, "", 10, []Part{{0, 0, 1}}},
		{"one part", JSONLines, "a\nb\n", 100, []Part{{0, 4, 1}}},
		{"a part per line", JSONLines, "a\nb\nc", 1, []Part{{0, 2, 1}, {2, 4, 2}, {4, 5, 3}}},
		{"ends at a cut", JSONLines, "aa\nbb\n", 3, []Part{{0, 3, 1}, {3, 6, 2}}},
		{"rows past the size", JSONLines, "a\nbbbbbb\nc\nd\n", 3, []Part{{0, 9, 1}, {9, 13, 3}}},
		{"csv header with the first record", CSV, "h,i\n1,2\n3,4\n", 1, []Part{{0, 8, 1}, {8, 12, 3}}},
		{"csv quoted line break", CSV, "h,i\n\"1\n2\",3\n4,5\n", 5, []Part{{0, 12, 1}, {12, 16, 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := Split(context.Background(), strings.NewReader(tc.file), tc.format, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(parts) != fmt.Sprint(tc.want) {
				t.Errorf("parts %v, want %v", parts, tc.want)
			}
		})
	}
}

// TestMergeRefusesOtherRulesets: reports of different rulesets do not add
// up.
func TestMergeRefusesOtherRulesets(t *testing.T) {
	t.Parallel()
	a := &Report{Baseline: RulesetInfo{SectionID: "a"}}
	if err := a.Merge(&Report{Baseline: RulesetInfo{SectionID: "b"}}, 5); err == nil {
		t.Error("merged reports of two baselines")
	}
}
