package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/syntax"
)

// tableRules is testfiles.TableRules: tables with periods and keys.
const tableRules = testfiles.TableRules

func compileTables(t *testing.T) *Ruleset {
	t.Helper()
	r, warnings, err := Compile("tables.rules", []byte(tableRules))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	return r
}

func TestTablesLookUp(t *testing.T) {
	t.Parallel()
	r := compileTables(t)
	for _, tt := range []struct {
		answers, date, limit string
	}{
		{`{"household.region": "states", "household.size": 1}`, "2025-01-15", "1632"},
		{`{"household.region": "states", "household.size": 3}`, "2025-01-15", "2774"},
		{`{"household.region": "states", "household.size": 10}`, "2025-01-15", "6771"},
		{`{"household.region": "states", "household.size": 10}`, "2025-10-01", "7060"},
		{`{"household.region": "alaska", "household.size": 2}`, "2026-09-30", "3540"},
		{`{"household.region": "alaska"}`, "2026-09-30", "?"},
		{`{"household.size": 2}`, "2026-09-30", "?"},
	} {
		in, err := r.Convert([]byte(tt.answers))
		if err != nil {
			t.Fatal(err)
		}
		d := date(t, tt.date)
		res := r.Evaluate(in, Options{DecisionDate: d})
		r.computeValues(in, res)
		got := "?"
		if v := res.Values[valueSlot(t, r, "gross_limit")]; v.Known {
			got = v.NumberString()
		}
		if got != tt.limit {
			t.Errorf("%s on %s: limit %s, want %s", tt.answers, tt.date, got, tt.limit)
		}
	}
	in, _ := r.Convert([]byte(`{"household.region": "states", "household.size": 2, "household.elderly": true, "income.gross": 2812}`))
	res := r.Evaluate(in, Options{DecisionDate: date(t, "2026-01-01")})
	if res.Outcome != Eligible || res.Values[valueSlot(t, r, "allowance")].NumberString() != "420" {
		t.Errorf("at the limit with the allowance and the extra: %s (%v)", res.Outcome, res.Values)
	}
	in, _ = r.Convert([]byte(`{"household.region": "states", "household.size": 2, "household.elderly": true, "income.gross": 2812.01}`))
	if res := r.Evaluate(in, Options{DecisionDate: date(t, "2026-01-01")}); res.Outcome != NotEligible {
		t.Errorf("a cent over: %s", res.Outcome)
	}
}

func TestTablesLoadAndPrint(t *testing.T) {
	t.Parallel()
	r := compileTables(t)
	ir, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ir), `{"match":[{"enum":"states"},{"min":9}],"value":`) {
		t.Errorf("IR rows: %s", ir)
	}
	loaded, err := LoadIR(2, ir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ContentDigest() != r.ContentDigest() {
		t.Error("digest changed on load")
	}
	in, _ := loaded.Convert([]byte(`{"household.region": "states", "household.size": 10, "household.elderly": false, "income.gross": 7480}`))
	if res := loaded.Evaluate(in, Options{DecisionDate: date(t, "2026-01-01")}); res.Outcome != Eligible {
		t.Errorf("loaded: %s", res.Outcome)
	}
	for _, tt := range []struct{ from, to, want string }{
		{`{"enum":"alaska"},{"any":true}`, `{"enum":"alaska"},{"min":2}`, "no row covers household.region \"alaska\", household.size 1"},
		{`{"enum":"states"},{"min":9}`, `{"enum":"states"},{"min":8}`, "both cover household.region \"states\", household.size 8"},
		{`{"enum":"alaska"}`, `{"enum":"yukon"}`, "not a value of household.region"},
	} {
		doc := strings.Replace(string(ir), tt.from, tt.to, 1)
		if doc == string(ir) {
			t.Fatalf("%s not in the IR", tt.from)
		}
		if _, err := LoadIR(2, []byte(doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.to, err, tt.want)
		}
	}
	f, errs := syntax.Parse("tables.rules", []byte(tableRules))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	out := string(syntax.Print(f))
	for _, want := range []string{
		"    \"states\", 1    => 1632\n    \"states\", 2..8 => 1632 + 571 * (household.size - 1)\n    \"states\", 9..  => 5629",
		"  period 2024-10-01 until 2025-09-30 {\n    400\n  }",
		"  keys household.elderly\n  true  => 100\n  false => 0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("printed form lacks %q:\n%s", want, out)
		}
	}
	checkRoundTrip(t, "tables", f)
}

func TestTableErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, from, to, want string }{
		{"a gap", `"states", 9.. => 5868`, `"states", 10.. => 5868`, "table gross_limit in the period 2025-10-01 until 2026-09-30: no row covers household.region \"states\", household.size 9"},
		{"an overlap", `"states", 1..8 => 1696`, `"states", 1..9 => 1696`, "rows 1 and 2 both cover household.region \"states\", household.size 9"},
		{"an open key", "  range 1..\nfield household.elderly", "\nfield household.elderly", "no row covers household.region \"states\", household.size 0 and less"},
		{"a value the key lacks", `"alaska", any => 2100`, `"yukon", any => 2100`, `"yukon" is not a value of household.region`},
		{"a period gap", "period 2025-10-01 until 2026-09-30 {\n    \"states\", 1..8", "period 2025-10-02 until 2026-09-30 {\n    \"states\", 1..8", "no period covers 2025-10-01 to 2025-10-01"},
		{"periods that overlap", "period 2025-10-01 until 2026-09-30 { 420 }", "period 2025-09-30 until 2026-09-30 { 420 }", "overlap"},
		{"a decimal key", "keys household.elderly", "keys income.gross", "a table is looked up by an enum field, a whole number or true/false, not a decimal"},
		{"too few matches", "  true => 100", "  => 100", "expected what the key matches"},
		{"a wrong kind of match", "  true => 100", "  1 => 100", "the key household.elderly is true or false"},
		{"a table of dates", `table allowance int "Standard allowance"`, `table allowance date "Standard allowance"`, "holds figures: its type is int or decimal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(tableRules, tt.from, tt.to, 1)
			if src == tableRules {
				t.Fatalf("%q is not in the rules", tt.from)
			}
			_, _, err := Compile("tables.rules", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestTablesExplainTheirRow checks that an explanation of a figure looked
// up in a table names the row it came from and that row's period, as the
// rules write them, so a reader can find the line of the law.
func TestTablesExplainTheirRow(t *testing.T) {
	t.Parallel()
	r := compileTables(t)
	for _, tt := range []struct {
		answers, date, value, definition, period string
	}{
		{`{"household.region": "states", "household.size": 10, "income.gross": 9000}`, "2025-01-15",
			"gross_limit", `"states", 9.. => 5629 + 571 * (household.size - 8)`, "2024-10-01 until 2025-09-30"},
		{`{"household.region": "states", "household.size": 1, "income.gross": 9000}`, "2025-01-15",
			"gross_limit", `"states", 1 => 1632`, "2024-10-01 until 2025-09-30"},
		{`{"household.region": "alaska", "household.size": 2, "income.gross": 9000}`, "2026-09-30",
			"gross_limit", `"alaska", any => 2100 + 720 * household.size`, "2025-10-01 until 2026-09-30"},
		{`{"household.region": "alaska", "household.size": 2, "income.gross": 9000}`, "2026-09-30",
			"allowance", `420`, "2025-10-01 until 2026-09-30"},
		{`{"household.region": "alaska", "household.size": 2, "household.elderly": false, "income.gross": 9000}`, "2026-09-30",
			"elderly_extra", `false => 0`, ""},
	} {
		in, err := r.Convert([]byte(tt.answers))
		if err != nil {
			t.Fatal(err)
		}
		res := r.Evaluate(in, Options{DecisionDate: date(t, tt.date), Explanation: true})
		var found *ValueFact
		for _, g := range res.Explanation.Groups {
			for _, c := range g.Criteria {
				for i := range c.Values {
					if c.Values[i].Value == tt.value {
						found = &c.Values[i]
					}
				}
			}
		}
		if found == nil {
			t.Errorf("%s: %s not in the explanation", tt.answers, tt.value)
			continue
		}
		if found.Definition != tt.definition || found.Period != tt.period {
			t.Errorf("%s: %s explained as %q in %q, want %q in %q", tt.answers, tt.value, found.Definition, found.Period, tt.definition, tt.period)
		}
	}
}
