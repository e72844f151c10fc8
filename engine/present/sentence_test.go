package present

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/internal/testfiles"
)

// sentenceRules declares fields with the kinds of names real rulesets use,
// so the sentences read as a citizen would see them.
const sentenceRules = `section sentences
source s "S" url "https://example.org/s" licence "public-domain"
field employment.months_employed int
field employment.hours decimal
field employment.sector enum ["private", "public", "federal", "public_agency"]
field person.us_citizen bool
field person.date_of_birth date
field job.start date
field income.wages int
field income.benefits int
field household.size int
field person.sex enum ["female", "male"]
field work.hours_12m decimal
  label "Hours worked in the last 12 months"
  unit "hours"
field work.employer enum ["federal_title5", "private", "tribe"]
  label "Employer"
  option "federal_title5" "The federal civil service (title 5)"
  option "private" "A private business"
field work.salary int
  label "FMLA salary"
  unit "USD"
group g all "G" {
  criterion k "K" {
    %s
    cite s "quote"
  }
  criterion official "Exceptional hardship shown" discretionary {
    cite s "quote"
  }
}
`

// sentenceOf compiles expr as criterion k and returns its sentence.
func sentenceOf(t *testing.T, expr string) string {
	t.Helper()
	r, _, err := engine.Compile("sentences.rules", fmt.Appendf(nil, sentenceRules, expr))
	if err != nil {
		t.Fatalf("compile %q: %v", expr, err)
	}
	c, _ := r.CriterionAt(0)
	return CriterionSentence(r, c)
}

func TestSentences(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		// Comparisons: numbers.
		{"employment.months_employed >= 12", "months employed is at least 12"},
		{"employment.months_employed > 12", "months employed is more than 12"},
		{"employment.months_employed <= 12", "months employed is at most 12"},
		{"employment.months_employed < 12", "months employed is less than 12"},
		{"employment.months_employed == 12", "months employed is 12"},
		{"employment.months_employed != 12", "months employed is not 12"},
		{"employment.hours >= 1250.50", "hours is at least 1,250.5"},
		{"income.wages < 1234567", "wages is less than 1,234,567"},
		{"income.wages > -5", "wages is more than -5"},
		// A constant on the left is moved right with the comparison mirrored.
		{"12 <= employment.months_employed", "months employed is at least 12"},
		{"12 > employment.months_employed", "months employed is less than 12"},
		// Generic one-word names keep their group.
		{"household.size >= 2", "household size is at least 2"},
		{`person.sex == "female"`, "sex is female"},
		// Two fields.
		{"income.wages >= income.benefits", "wages is at least benefits"},
		// Bools.
		{"person.us_citizen == true", "us citizen is yes"},
		{"person.us_citizen == false", "us citizen is no"},
		{"person.us_citizen != true", "us citizen is no"},
		{"person.us_citizen", "us citizen is yes"},
		{"true", "always met"},
		{"false", "never met"},
		// Enums: in, not in, equality.
		{`employment.sector in ["public", "federal"]`, "sector is public or federal"},
		{`employment.sector in ["public", "federal", "public_agency"]`, "sector is public, federal or public agency"},
		{`employment.sector in ["public"]`, "sector is public"},
		{`employment.sector not in ["public"]`, "sector is not public"},
		{`employment.sector not in ["public", "federal"]`, "sector is neither public nor federal"},
		{`employment.sector not in ["public", "federal", "private"]`, "sector is none of public, federal or private"},
		{`employment.sector == "public_agency"`, "sector is public agency"},
		// Labels: the field's label for its name (an acronym keeps its
		// capitals), its unit after a number, an enum value's label for
		// the value (an unlabelled value reads as before).
		{"work.hours_12m >= 1250", "hours worked in the last 12 months is at least 1,250 hours"},
		{"work.salary < 50000", "FMLA salary is less than 50,000 USD"},
		{"work.hours_12m >= employment.hours", "hours worked in the last 12 months is at least hours"},
		{`work.employer != "federal_title5"`, "employer is not the federal civil service (title 5)"},
		{`work.employer in ["private", "tribe"]`, "employer is a private business or tribe"},
		{`work.employer not in ["federal_title5", "private"]`, "employer is neither the federal civil service (title 5) nor a private business"},
		{`employment.sector != "private"`, "sector is not private"},
		// Dates and spans.
		{`person.date_of_birth < date("1952-07-01")`, "date of birth is before 1 July 1952"},
		{`person.date_of_birth <= date("1952-07-01")`, "date of birth is on or before 1 July 1952"},
		{`person.date_of_birth > date("1952-07-01")`, "date of birth is after 1 July 1952"},
		{`person.date_of_birth >= date("1952-07-01")`, "date of birth is on or after 1 July 1952"},
		{`person.date_of_birth == date("2000-02-29")`, "date of birth is on 29 February 2000"},
		{`person.date_of_birth != date("2000-02-29")`, "date of birth is not on 29 February 2000"},
		{"years_between(person.date_of_birth, decision_date()) >= 66", "age (from date of birth) is at least 66 years"},
		{"months_between(person.date_of_birth, decision_date()) >= 786", "age (from date of birth) is at least 786 months"},
		{"years_between(job.start, decision_date()) < 5", "time since job start is less than 5 years"},
		{"days_between(job.start, decision_date()) > 90", "time since job start is more than 90 days"},
		{"years_between(person.date_of_birth, job.start) >= 18", "time from date of birth to job start is at least 18 years"},
		{"job.start <= decision_date()", "job start is on or before the date of the decision"},
		// Presence and defaults.
		{"present(income.wages)", "wages has been answered"},
		{"absent(income.wages)", "wages has not been answered"},
		{"(income.wages ?? 0) < 100", "wages (or 0 if not answered) is less than 100"},
		{"person.us_citizen ?? false", "us citizen (or no if not answered) is yes"},
		// Arithmetic, min and max.
		{"income.wages + income.benefits <= 2000", "wages plus benefits is at most 2,000"},
		{"income.wages - income.benefits > 0", "wages minus benefits is more than 0"},
		{"income.wages * 2 >= 100", "wages times 2 is at least 100"},
		{"(income.wages + income.benefits) * 2 >= 100", "(wages plus benefits) times 2 is at least 100"},
		{"-income.wages < 0", "minus wages is less than 0"},
		{"min(income.wages, income.benefits) >= 10", "the smaller of wages and benefits is at least 10"},
		{"max(income.wages, income.benefits, 5) >= 10", "the largest of wages, benefits and 5 is at least 10"},
		// and, or, not, nesting.
		{"person.us_citizen and employment.months_employed >= 12",
			"us citizen is yes and months employed is at least 12"},
		{"person.us_citizen or employment.months_employed >= 12 or income.wages > 5",
			"us citizen is yes, months employed is at least 12, or wages is more than 5"},
		{`employment.sector == "private" or (employment.sector == "public" and employment.months_employed >= 6)`,
			"sector is private or both sector is public and months employed is at least 6"},
		{`person.us_citizen and (income.wages > 1 or income.benefits > 1)`,
			"us citizen is yes and either wages is more than 1 or benefits is more than 1"},
		{`person.us_citizen and (income.wages > 1 or income.benefits > 1 or employment.months_employed > 1)`,
			"us citizen is yes and any of wages is more than 1, benefits is more than 1, or months employed is more than 1"},
		{"not person.us_citizen", "us citizen is no"},
		{"not employment.months_employed >= 12", "months employed is less than 12"},
		{"not employment.months_employed == 12", "months employed is not 12"},
		{`not employment.sector in ["public", "federal"]`, "sector is neither public nor federal"},
		{"not present(income.wages)", "wages has not been answered"},
		{"not absent(income.wages)", "wages has been answered"},
		{`not person.date_of_birth < date("1952-07-01")`, "date of birth is on or after 1 July 1952"},
		{"not (person.us_citizen ?? false)", "it is not the case that us citizen (or no if not answered) is yes"},
		{"not (income.wages > 1 and income.benefits > 1)",
			"it is not the case that both wages is more than 1 and benefits is more than 1"},
	}
	for _, tt := range tests {
		if got := sentenceOf(t, tt.expr); got != tt.want {
			t.Errorf("%s\n got: %s\nwant: %s", tt.expr, got, tt.want)
		}
	}
}

func TestDiscretionarySentence(t *testing.T) {
	t.Parallel()
	r, _, err := engine.Compile("sentences.rules", fmt.Appendf(nil, sentenceRules, "person.us_citizen"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.CriterionAt(1)
	if got, want := CriterionSentence(r, c), "decided by an official: exceptional hardship shown"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Every criterion of every casebank ruleset has a sentence free of the
// rules language's symbols and field ids.
func TestCasebankSentencesArePlain(t *testing.T) {
	t.Parallel()
	for _, path := range testfiles.Casebank(t) {
		r := compilePath(t, path)
		for i := range r.NumCriteria() {
			c, _ := r.CriterionAt(i)
			s := CriterionSentence(r, c)
			if s == "" {
				t.Errorf("%s: %s: empty sentence", path, c.ID)
			}
			for _, bad := range []string{">=", "<=", "==", "!=", "??", "_", "decision_date", "[", "\""} {
				if strings.Contains(s, bad) {
					t.Errorf("%s: %s: sentence %q contains %q", path, c.ID, s, bad)
				}
			}
			for _, f := range c.Fields {
				if strings.Contains(s, f) {
					t.Errorf("%s: %s: sentence %q names field id %q", path, c.ID, s, f)
				}
			}
		}
	}
}

func TestGroupThousands(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0": "0", "999": "999", "1000": "1,000", "-1250": "-1,250", "43759.8": "43,759.8",
		"123456789": "123,456,789", "-0.05": "-0.05", "100000.001": "100,000.001",
	} {
		if got := GroupThousands(in); got != want {
			t.Errorf("GroupThousands(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWordsKeepTheirOwnCapitals: a label lowered to read inside a sentence
// keeps the capitals that belong to it (names, acronyms, programmes).
func TestWordsKeepTheirOwnCapitals(t *testing.T) {
	for _, tc := range []struct {
		label, field, value string
	}{
		{"Household size", "household size", "household size"},
		{"Public agency", "public agency", "public agency"},
		{"Employer", "employer", "Employer"},
		{"Medicaid", "medicaid", "Medicaid"},
		{"SNAP benefits", "SNAP benefits", "SNAP benefits"},
		{"Supplemental Security Income", "Supplemental Security Income", "Supplemental Security Income"},
		{"The Federal Employment Agency consents to the card", "the Federal Employment Agency consents to the card", "the Federal Employment Agency consents to the card"},
		{"Temporary Assistance for Needy Families", "Temporary Assistance for Needy Families", "Temporary Assistance for Needy Families"},
	} {
		if got := lowerFirst(tc.label); got != tc.field {
			t.Errorf("lowerFirst(%q) = %q, want %q", tc.label, got, tc.field)
		}
		if got := lowerValueLabel(tc.label); got != tc.value {
			t.Errorf("lowerValueLabel(%q) = %q, want %q", tc.label, got, tc.value)
		}
	}
}

// TestUnitsCountOne: a unit after 1 is singular ("at least 1 person"), after
// any other number as declared.
func TestUnitsCountOne(t *testing.T) {
	for _, tc := range []struct{ unit, n, want string }{
		{"people", "1", "person"},
		{"people", "2", "people"},
		{"years", "1", "year"},
		{"hours a week", "1", "hour a week"},
		{"hours a week", "1.5", "hours a week"},
		{"children", "1", "child"},
		{"USD", "1", "USD"},
		{"dollars a month", "1", "dollar a month"},
		{"%", "1", "%"},
		{"class", "1", "class"},
	} {
		if got := countUnit(tc.unit, tc.n); got != tc.want {
			t.Errorf("countUnit(%q, %s) = %q, want %q", tc.unit, tc.n, got, tc.want)
		}
	}
}

func TestAddDatesSentence(t *testing.T) {
	t.Parallel()
	r, _, err := engine.Compile("ops.rules", []byte(strings.Replace(testfiles.OpsRules, "%s", `years_between(add_days(a.born, -1), decision_date()) >= 66 and a.on >= add_years(a.born, 66) and a.on < add_months(a.born, a.n)`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.CriterionAt(0)
	got := CriterionSentence(r, c)
	for _, want := range []string{"the day before born", "66 years after born", "born plus n months"} {
		if !strings.Contains(got, want) {
			t.Errorf("sentence %q lacks %q", got, want)
		}
	}
}
