package verify_test

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/verify"
)

// casebankText reads a casebank ruleset's text.
func casebankText(t *testing.T, name string) string {
	t.Helper()
	text, err := os.ReadFile("../../casebank/" + name + "/" + name + ".rules")
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// withoutPeriod is a ruleset's text with its effective line removed: the
// same law, holding for every date, to check a witness of a diff whose
// periods were set aside.
func withoutPeriod(t *testing.T, text string) *engine.Ruleset {
	t.Helper()
	return compileDiff(t, regexp.MustCompile(`(?m)^effective .*$`).ReplaceAllString(text, ""))
}

// ratOf reads a witness's number.
func ratOf(t *testing.T, v any) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(strings.Trim(string(mustRaw(v)), `"`))
	if !ok {
		t.Fatalf("witness value %s is not a number", mustRaw(v))
	}
	return r
}

// A yearly figure update between consecutive cuts shows the applicants
// whose outcome flips because a limit moved, with a witness inside the
// law's ranges just across the moved limit, and says which limit moved
// and by how much.
func TestDiffYearlyUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		old, new, income string
		// one moved threshold to find, with its message
		criterion, from, to, message string
	}{
		{"medicaid-adult-expansion", "medicaid-adult-expansion-2026", "income.monthly_magi",
			"income_us_1", "1799.75", "1835.4", "criterion income_us_1: threshold changed from 1,799.75 to 1,835.4 (income.monthly_magi <=)"},
		{"snap-income", "snap-income-fy2027", "income.gross_monthly",
			"gross_us_1", "1696", "1729", "criterion gross_us_1: threshold changed from 1,696 to 1,729 (income.gross_monthly <=)"},
	} {
		t.Run(tc.new, func(t *testing.T) {
			t.Parallel()
			oldText, newText := casebankText(t, tc.old), casebankText(t, tc.new)
			older, newer := compileDiff(t, oldText), compileDiff(t, newText)
			d, err := verify.Diff(context.Background(), older, newer, verify.DiffOptions{DecisionDate: diffDay})
			if err != nil {
				t.Fatal(err)
			}
			if !d.PeriodsSetAside {
				t.Error("the periods differ, but were not set aside")
			}
			moved := map[string]verify.ThresholdChange{}
			for _, th := range d.Thresholds {
				moved[th.CriterionID] = th
			}
			th, ok := moved[tc.criterion]
			if !ok || th.Old != tc.from || th.New != tc.to || th.Subject != tc.income || th.Operator != "<=" {
				t.Fatalf("threshold of %s: %+v, want %s <= from %s to %s (all: %+v)", tc.criterion, th, tc.income, tc.from, tc.to, d.Thresholds)
			}
			if tc.message != "" && th.Message != tc.message {
				t.Errorf("message %q, want %q", th.Message, tc.message)
			}
			var raised *verify.Change
			for i, ch := range d.Changes {
				if ch.Kind == verify.ChangeNotEligibleToEligible {
					raised = &d.Changes[i]
				}
				if size, ok := ch.Witness["household.size"]; ok && ratOf(t, size).Sign() <= 0 {
					t.Errorf("%s: witness household.size %v is outside the law's range", ch.Kind, size)
				}
				if inc, ok := ch.Witness[tc.income]; ok && ratOf(t, inc).Sign() < 0 {
					t.Errorf("%s: witness %s %v is negative", ch.Kind, tc.income, inc)
				}
			}
			if raised == nil {
				t.Fatalf("the limits rose, but no applicant goes from not_eligible to eligible: %v", kinds(d))
			}
			// The witness sits halfway across a moved limit on its income.
			inc := ratOf(t, raised.Witness[tc.income])
			across := false
			for _, th := range d.Thresholds {
				lo, _ := new(big.Rat).SetString(th.Old)
				hi, _ := new(big.Rat).SetString(th.New)
				mid := new(big.Rat).Quo(new(big.Rat).Add(lo, hi), big.NewRat(2, 1))
				if th.Subject == tc.income && inc.Cmp(mid) == 0 {
					across = true
				}
			}
			if !across {
				t.Errorf("witness %v: the income is not halfway across a moved limit", raised.Witness)
			}
			checkWitnesses(t, withoutPeriod(t, oldText), withoutPeriod(t, newText), d, diffDay)
		})
	}
}

// A raised threshold is reported with both values; a ruleset compared
// with itself moves none.
func TestDiffThresholdChanges(t *testing.T) {
	t.Parallel()
	old := compileDiff(t, diffBase)
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"itself", "", "", nil},
		{"raised", ">= 12", ">= 13", []string{"criterion tenure: threshold changed from 12 to 13 (employment.months >=)"}},
		{"rewritten the other way round", "employment.months >= 12", "14 <= employment.months", []string{"criterion tenure: threshold changed from 12 to 14 (employment.months >=)"}},
		{"as arithmetic", "employment.months >= 12", "employment.months * 2 - 1 >= 1999", []string{"criterion tenure: threshold changed from 12 to 1,000 (employment.months >=)"}},
		{"same figure, rewritten", "employment.months >= 12", "employment.months - 2 >= 10", nil},
	} {
		d, err := verify.Diff(context.Background(), old, compileDiff(t, strings.Replace(diffBase, tc.from, tc.to, 1)), verify.DiffOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, th := range d.Thresholds {
			got = append(got, th.Message)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: thresholds %q, want %q", tc.name, got, tc.want)
		}
		if d.PeriodsSetAside {
			t.Errorf("%s: no period declared, but periods set aside", tc.name)
		}
	}
}

// Witnesses stay inside declared ranges, even where only an extreme value
// outside them would be simplest.
func TestDiffWitnessInsideRanges(t *testing.T) {
	t.Parallel()
	const rules = `section r
source s "S" url "u" licence "l"
field a.size int
  %s
field a.income decimal
  %s
group g all "G" {
  criterion c "C" {
    a.income <= LIMIT * a.size
    cite s "S"
  }
}
`
	mk := func(limit, sizeRange, incomeRange string) *engine.Ruleset {
		text := strings.Replace(rules, "LIMIT", limit, 1)
		text = strings.Replace(text, "%s", sizeRange, 1)
		return compileDiff(t, strings.Replace(text, "%s", incomeRange, 1))
	}
	old, new := mk("1255", "range 1..20", "range 0.."), mk("1305", "range 1..20", "range 0..")
	d, err := verify.Diff(context.Background(), old, new, verify.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) == 0 {
		t.Fatal("no change found")
	}
	for _, ch := range d.Changes {
		if s, ok := ch.Witness["a.size"]; ok && (ratOf(t, s).Cmp(big.NewRat(1, 1)) < 0 || ratOf(t, s).Cmp(big.NewRat(20, 1)) > 0) {
			t.Errorf("%s: a.size %v outside 1..20", ch.Kind, s)
		}
		if inc, ok := ch.Witness["a.income"]; ok && ratOf(t, inc).Sign() < 0 {
			t.Errorf("%s: a.income %v is negative", ch.Kind, inc)
		}
	}
	checkWitnesses(t, old, new, d, 0)
	var raw json.RawMessage
	raw, _ = json.Marshal(d)
	if !strings.Contains(string(raw), `"threshold_changes":[`) || !strings.Contains(string(raw), `"periods_set_aside":false`) {
		t.Errorf("wire shape lacks the new members: %s", raw)
	}
}
