package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/verify"
)

const diffBase = `section leave
source law "Leave Act" url "https://laws.example.org/leave" licence "public-domain"
field employment.months int weight 1
  question "Months employed?"
field employment.sector enum ["private", "public"] weight 1
  question "Sector?"
group service all "Service" {
  criterion tenure "At least 12 months" {
    employment.months >= 12
    cite law "at least 12 months"
  }
  criterion sector "Private sector" {
    employment.sector in ["private"]
    cite law "private sector"
  }
}
`

func compileDiff(t *testing.T, text string) *engine.Ruleset {
	t.Helper()
	r, _, err := engine.Compile("diff.rules", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// diffDay is the date the casebank diffs are made as of: inside the
// period of every ruleset they compare.
var diffDay = value.DateOrdinal(2026, 1, 15)

// checkWitnesses evaluates every witness with the engine under both
// versions, as of the diff's date: the outcomes must be the change's, or
// the diff is unsound.
func checkWitnesses(t *testing.T, old, new *engine.Ruleset, d verify.SemanticDiff, date int64) {
	t.Helper()
	for _, ch := range d.Changes {
		for _, side := range []struct {
			r    *engine.Ruleset
			want engine.Outcome
		}{{old, ch.From}, {new, ch.To}} {
			answers := map[string]any{}
			for k, v := range ch.Witness {
				if side.r.FieldIndex(k) >= 0 {
					answers[k] = v
				}
			}
			raw, _ := json.Marshal(answers)
			in, err := side.r.Convert(raw)
			if err != nil {
				t.Fatalf("%s: witness %s: %v", ch.Kind, raw, err)
			}
			if got := side.r.Evaluate(in, engine.Options{DecisionDate: date}).Outcome; got != side.want {
				t.Errorf("%s: witness %s gives %s, the diff says %s", ch.Kind, raw, got, side.want)
			}
		}
	}
}

func kinds(d verify.SemanticDiff) []string {
	var out []string
	for _, c := range d.Changes {
		out = append(out, c.Kind)
	}
	return out
}

// Each kind of change is found, with a witness the engine confirms, the
// criteria that changed and their quotes; identical rules are equivalent.
func TestDiffKinds(t *testing.T) {
	t.Parallel()
	old := compileDiff(t, diffBase)
	for _, tc := range []struct {
		name   string
		new    string
		kinds  []string
		fields string
	}{
		{"itself", diffBase, nil, ""},
		{"reformatted and retitled", strings.Replace(diffBase, `"At least 12 months"`, `"Twelve months or more"`, 1), nil, ""},
		// 12 months with the sector unanswered was pending on the sector;
		// now the tenure alone decides.
		{"threshold raised", strings.Replace(diffBase, ">= 12", ">= 13", 1), []string{verify.ChangeEligibleToNotEligible, verify.ChangeUndeterminedToNotEligible}, ""},
		{"threshold lowered", strings.Replace(diffBase, ">= 12", ">= 11", 1), []string{verify.ChangeNotEligibleToEligible, verify.ChangeNotEligibleToUndetermined}, ""},
		{"a new condition on a new field", strings.Replace(diffBase, "group service all \"Service\" {", "field person.resident bool weight 1\n  question \"Resident?\"\ngroup service all \"Service\" {\n  criterion resident \"Resident\" {\n    person.resident\n    cite law \"resident\"\n  }", 1),
			[]string{verify.ChangeEligibleToNotEligible, verify.ChangeEligibleToUndetermined, verify.ChangeUndeterminedToNotEligible}, "person.resident:added"},
		// Only the unanswered sector changes, and only towards eligible.
		{"a default for an unanswered sector", strings.Replace(diffBase, `employment.sector in ["private"]`, `(employment.sector ?? "private") in ["private"]`, 1),
			[]string{verify.ChangeUndeterminedToEligible}, ""},
		{"enum values changed", strings.Replace(diffBase, `["private", "public"]`, `["private", "public", "federal"]`, 1), nil, "employment.sector:values_changed"},
		{"type changed", strings.Replace(strings.Replace(diffBase, "employment.months int", "employment.months decimal", 1), ">= 12", ">= 12.5", 1),
			[]string{verify.ChangeEligibleToNotEligible, verify.ChangeUndeterminedToNotEligible}, "employment.months:type_changed"},
	} {
		new := compileDiff(t, tc.new)
		d, err := verify.Diff(context.Background(), old, new, verify.DiffOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := kinds(d)
		if strings.Join(got, ",") != strings.Join(tc.kinds, ",") || d.Equivalent != (len(tc.kinds) == 0) {
			t.Errorf("%s: changes %v (equivalent %v), want %v", tc.name, got, d.Equivalent, tc.kinds)
		}
		var fields []string
		for _, f := range d.Fields {
			fields = append(fields, f.Field+":"+f.Kind)
		}
		if strings.Join(fields, ",") != tc.fields {
			t.Errorf("%s: field changes %v, want %q", tc.name, fields, tc.fields)
		}
		checkWitnesses(t, old, new, d, 0)
	}
	// The raised threshold's witness: 12 months, where tenure changed.
	d, _ := verify.Diff(context.Background(), old, compileDiff(t, strings.Replace(diffBase, ">= 12", ">= 13", 1)), verify.DiffOptions{})
	ch := d.Changes[0]
	if ch.Witness["employment.months"] != json.Number("12") && ch.Witness["employment.months"] != 12 && !strings.Contains(string(mustRaw(ch.Witness["employment.months"])), "12") {
		t.Errorf("witness %v", ch.Witness)
	}
	if len(ch.Criteria) != 1 || ch.Criteria[0].CriterionID != "tenure" || ch.Criteria[0].Old != "satisfied" || ch.Criteria[0].New != "not_satisfied" ||
		ch.Criteria[0].OldQuotes[0] != "at least 12 months" {
		t.Errorf("criteria %+v", ch.Criteria)
	}
}

func mustRaw(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// On a casebank ruleset, each kind is found for an edit that causes it,
// with witnesses the engine confirms.
func TestDiffCasebank(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../../casebank/us-fmla-employee/us-fmla-employee.rules")
	if err != nil {
		t.Fatal(err)
	}
	old := compileDiff(t, string(text))
	for _, tc := range []struct {
		edit, by string
		want     string
	}{
		// 12 months, everything else unanswered, was pending; now the
		// tenure alone decides it.
		{"employment.months_employed >= 12", "employment.months_employed >= 13", verify.ChangeEligibleToNotEligible + "," + verify.ChangeUndeterminedToNotEligible},
		{"employment.months_employed >= 12", "employment.months_employed >= 11", verify.ChangeNotEligibleToEligible + "," + verify.ChangeNotEligibleToUndetermined},
		// Equivalent rewrites, proved so: a title-5 employer is excluded
		// anyway, and the employer group needs the type answered anyway.
		{`employment.employer_type == "public_agency"`, `employment.employer_type in ["public_agency", "federal_title5"]`, ""},
		{`employment.employer_type != "federal_title5"`, `(employment.employer_type ?? "private") != "federal_title5"`, ""},
	} {
		if !strings.Contains(string(text), tc.edit) {
			t.Fatalf("the casebank rules no longer say %q", tc.edit)
		}
		new := compileDiff(t, strings.Replace(string(text), tc.edit, tc.by, 1))
		d, err := verify.Diff(context.Background(), old, new, verify.DiffOptions{DecisionDate: diffDay})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(kinds(d), ","); got != tc.want {
			t.Errorf("%s -> %s: %v, want %s", tc.edit, tc.by, got, tc.want)
		}
		checkWitnesses(t, old, new, d, diffDay)
	}
	d, err := verify.Diff(context.Background(), old, old, verify.DiffOptions{DecisionDate: diffDay})
	if err != nil || !d.Equivalent {
		t.Fatalf("itself: %+v, %v", d, err)
	}
}

// BenchmarkDiff compares the two largest casebank rulesets' threshold
// edits: the whole diff, all six kinds with witnesses.
func BenchmarkDiff(b *testing.B) {
	for _, name := range []string{"medicaid-adult-expansion", "eu-blue-card-de", "us-fmla-employee"} {
		text, err := os.ReadFile("../../casebank/" + name + "/" + name + ".rules")
		if err != nil {
			b.Fatal(err)
		}
		old, _, err := engine.Compile(name, text)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := verify.Diff(context.Background(), old, old, verify.DiffOptions{DecisionDate: diffDay}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
