package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eligo/eligo/impact"
)

// TestImpact runs `eligo impact` on the casebank's snap-income folder
// against a copy with the household-of-2 gross limit raised, over a JSON
// Lines and a CSV caseload, and checks the report it prints and its
// summary.
func TestImpact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile("../../casebank/snap-income/snap-income.rules")
	if err != nil {
		t.Fatal(err)
	}
	raised := writeFile(t, dir, "raised.rules", strings.Replace(string(src), "income.gross_monthly <= 2292", "income.gross_monthly <= 2400", 1))
	const answers = `"household.region":"contiguous_us_guam_vi","household.size":2,"household.elderly_or_disabled_member":false,"income.net_monthly":1000`
	jsonl := writeFile(t, dir, "cases.jsonl",
		`{"field_values":{`+answers+`,"income.gross_monthly":2350},"reference":"a"}`+"\n"+
			`{"field_values":{`+answers+`,"income.gross_monthly":2000},"reference":"b"}`+"\n"+
			`{"field_values":{`+answers+`,"income.gross_monthly":2350},"decision_date":"2027-01-01","reference":"c"}`+"\n"+
			"not json\n")
	csv := writeFile(t, dir, "cases.csv",
		"reference,household.region,household.size,household.elderly_or_disabled_member,income.net_monthly,income.gross_monthly\n"+
			"a,contiguous_us_guam_vi,2,no,1000,2350\n"+
			"b,contiguous_us_guam_vi,2,no,1000,2000\n"+
			"c,contiguous_us_guam_vi,2,maybe,1000,2350\n")
	for _, tc := range []struct {
		name string
		args []string
		bad  string // the one bad row's reason
	}{
		{"jsonl, a folder against a file", []string{"--baseline", "../../casebank/snap-income", "--candidate", raised, jsonl, "--date", "2026-01-15", "--examples", "1"}, "the line is not JSON"},
		{"csv by its extension, flags after the file", []string{csv, "--baseline", "../../casebank/snap-income/snap-income.rules", "--candidate", raised, "--date", "2026-01-15", "--examples", "1"}, "the cell for household.elderly_or_disabled_member is not yes, no, true or false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCLI(append([]string{"impact"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			// engine.Outcome only marshals, so the outcomes are read back as
			// their wire spelling.
			var rep struct {
				Cases, Changed int64
				Transitions    []struct {
					From, To string
					Count    int64
					Examples []string
				}
				Criteria []impact.Count
				BadRows  []impact.Reason `json:"bad_rows"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("stdout is not a report: %v\n%s", err, out)
			}
			tr := rep.Transitions
			if rep.Cases != 2+int64(strings.Count(tc.name, "jsonl")) || rep.Changed != 1 || len(tr) < 2 ||
				tr[0].From != "eligible" || tr[0].Count != 1 || tr[0].Examples[0] != "b" ||
				tr[1].From != "not_eligible" || tr[1].To != "eligible" || tr[1].Examples[0] != "a" ||
				len(rep.Criteria) != 1 || rep.Criteria[0].ID != "gross_us_2" ||
				len(rep.BadRows) != 1 || rep.BadRows[0].Reason != tc.bad {
				t.Errorf("report: %s", out)
			}
			if !strings.Contains(errs, "with a different outcome, 1 bad rows") || !strings.Contains(errs, "not_eligible -> eligible: 1") ||
				!strings.Contains(errs, "criteria changed most often: gross_us_2 (") {
				t.Errorf("summary: %s", errs)
			}
		})
	}
	// The case dated 2027-01-01 is outside FY2026: undetermined on both.
	_, out, _ := runCLI("impact", "--baseline", "../../casebank/snap-income", "--candidate", raised, jsonl, "--date", "2026-01-15")
	if !strings.Contains(out, `"reason": "the decision date is outside the baseline's effective period"`) {
		t.Errorf("the case out of the period is not counted:\n%s", out)
	}
}

// TestImpactRefuses: what `eligo impact` refuses, each with exit 1 and a
// message saying why.
func TestImpactRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeFile(t, dir, "good.rules", cliRules)
	bad := writeFile(t, dir, "bad.rules", strings.Replace(cliRules, "a.n >= 12", "a.m >= 12", 1))
	cases := writeFile(t, dir, "cases.jsonl", `{"field_values":{"a.n":12}}`+"\n")
	header := writeFile(t, dir, "dup.csv", "a.n,a.n\n1,2\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no candidate", []string{"--baseline", good, cases}, "usage: eligo impact"},
		{"no caseload", []string{"--baseline", good, "--candidate", good}, "usage: eligo impact"},
		{"a bad date", []string{"--baseline", good, "--candidate", good, "--date", "2026-02-30", cases}, `--date "2026-02-30" is not a YYYY-MM-DD date`},
		{"a bad format", []string{"--baseline", good, "--candidate", good, "--format", "xml", cases}, `caseload format "xml": want jsonl or csv`},
		{"too many examples", []string{"--baseline", good, "--candidate", good, "--examples", "101", cases}, "examples must be from 0 to 100"},
		{"rules that do not compile", []string{"--baseline", good, "--candidate", bad, cases}, "bad.rules:10:5: unknown field a.m"},
		{"a missing caseload", []string{"--baseline", good, "--candidate", good, filepath.Join(dir, "none.jsonl")}, "open caseload"},
		{"a CSV header naming a column twice", []string{"--baseline", good, "--candidate", good, header}, `names column "a.n" twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := runCLI(append([]string{"impact"}, tc.args...)...)
			if code != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 1 with %q\nstdout %s\nstderr %s", code, tc.want, out, errs)
			}
		})
	}
}
