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

// sentenceOf compiles expr as criterion k of sentenceRules and returns
// its sentence.
func sentenceOf(t *testing.T, expr string) string {
	t.Helper()
	return sentenceIn(t, sentenceRules, expr)
}

// sentenceIn compiles expr as the first criterion of the rules template
// rules (a %s where the expression goes) and returns its sentence.
func sentenceIn(t *testing.T, rules, expr string) string {
	t.Helper()
	r, _, err := engine.Compile("sentences.rules", fmt.Appendf(nil, rules, expr))
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
		{"person.us_citizen == true", "US citizen: yes"},
		{"person.us_citizen == false", "US citizen: no"},
		{"person.us_citizen != true", "US citizen: no"},
		{"person.us_citizen", "US citizen: yes"},
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
		{"work.salary < 50000", "FMLA salary is less than $50,000"},
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
		{"person.us_citizen ?? false", "US citizen: yes (counted as no if not answered)"},
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
			"US citizen: yes and months employed is at least 12"},
		{"person.us_citizen or employment.months_employed >= 12 or income.wages > 5",
			"US citizen: yes, months employed is at least 12, or wages is more than 5"},
		{`employment.sector == "private" or (employment.sector == "public" and employment.months_employed >= 6)`,
			"sector is private or both sector is public and months employed is at least 6"},
		{`person.us_citizen and (income.wages > 1 or income.benefits > 1)`,
			"US citizen: yes and either wages is more than 1 or benefits is more than 1"},
		{`person.us_citizen and (income.wages > 1 or income.benefits > 1 or employment.months_employed > 1)`,
			"US citizen: yes and any of wages is more than 1, benefits is more than 1, or months employed is more than 1"},
		{"not person.us_citizen", "US citizen: no"},
		{"not employment.months_employed >= 12", "months employed is less than 12"},
		{"not employment.months_employed == 12", "months employed is not 12"},
		{`not employment.sector in ["public", "federal"]`, "sector is neither public nor federal"},
		{"not present(income.wages)", "wages has not been answered"},
		{"not absent(income.wages)", "wages has been answered"},
		{`not person.date_of_birth < date("1952-07-01")`, "date of birth is on or after 1 July 1952"},
		{"not (person.us_citizen ?? false)", "it is not the case that US citizen: yes (counted as no if not answered)"},
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
				if namesID(s, f) {
					t.Errorf("%s: %s: sentence %q names field id %q", path, c.ID, s, f)
				}
			}
		}
	}
}

// namesID reports whether sentence s writes id as the rules language
// does: as a whole id, not inside a longer word or id ("child" is not
// named by "children", nor "income.wages" by "income.wages_net"). A list's
// own id has no dot and is an English word too ("member", "child"), which
// a sentence may use as one ("a counted member aged 60"), so it counts
// only where the rules would write it: before "." or "[" (member.age,
// member[0].age) or inside "(" (count(member)).
func namesID(s, id string) bool {
	isIDByte := func(b byte) bool {
		return b == '_' || b == '.' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	for from := 0; ; {
		at := strings.Index(s[from:], id)
		if at < 0 {
			return false
		}
		start, end := from+at, from+at+len(id)
		from = start + 1
		var before, after byte
		if start > 0 {
			before = s[start-1]
		}
		if end < len(s) {
			after = s[end]
		}
		if after == '.' && (end+1 == len(s) || !isIDByte(s[end+1])) {
			after = ' ' // a full stop, not a member's field
		}
		if isIDByte(before) || (after != '.' && isIDByte(after)) {
			continue // inside a longer word or id
		}
		if strings.Contains(id, ".") || after == '.' || after == '[' || before == '(' {
			return true
		}
	}
}

// TestNamesID: the casebank check finds field ids as the rules write them,
// never inside a longer word (the list "child" in "children") nor a list's
// id used as the English word it is.
func TestNamesID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s, id string
		want  bool
	}{
		{"for at least one of the children and young people", "child", false},
		{"the members counted is at least 1", "member", false},
		{"the household has a counted member aged 60", "member", false},
		{"it ends with the member.", "member", false},
		{"child.date_of_birth is before 2000", "child", true},
		{"child[0].date_of_birth is before 2000", "child", true},
		{"count(member) is at least 1", "member", true},
		{"income.wages is more than 1", "income.wages", true},
		{"wages are income.wages.", "income.wages", true},
		{"income.wages_net is more than 1", "income.wages", false},
		{"gross income.wages2 is more than 1", "income.wages", false},
		{"my_income.wages is more than 1", "income.wages", false},
	} {
		if got := namesID(tc.s, tc.id); got != tc.want {
			t.Errorf("namesID(%q, %q) = %v, want %v", tc.s, tc.id, got, tc.want)
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

// formsRules declares fields the way real rulesets name them without a
// label: two questions whose names read the same, proper nouns, a table
// keyed by region and size, a birth date and money.
const formsRules = `section forms
source s "S" url "https://example.org/s" licence "public-domain"
field claimant.in_great_britain bool
  question "Are you in England, Scotland or Wales this week?"
field child.in_great_britain bool
field residence.lives_in_canada bool
  question "Do you live in Canada? Canada includes its territories."
field person.medicare_part_a bool
  question "Are you entitled to Medicare Part A?"
field person.pregnant bool
  question "Are you pregnant? A yes here is never shared."
field household.region enum ["contiguous", "alaska"]
field household.size int
field income.gross_monthly decimal
field child.date_of_birth date
field job.pay decimal
  unit "USD a year"
field job.monthly_pay decimal
  unit "USD per month"
field job.fee int
  unit "CHF"
field job.hours int
  unit "hours per week"
field job.gross_annual_salary_eur decimal
group g all "G" {
  criterion k "K" {
    %s
    cite s "quote"
  }
}
`

// TestSentenceForms: the sentences an applicant reads say a yes/no
// answer as a form does, keep proper nouns' capitals, never give two
// questions the same words, read a table row as "if ..., ...", count
// years from a day of the year as the law does and write money as people
// write it.
func TestSentenceForms(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		// Yes/no answers; two fields named alike keep their groups; a place
		// name and an initialism keep their capitals, from the name or from
		// the question.
		{"claimant.in_great_britain", "claimant in Great Britain: yes"},
		{"not child.in_great_britain", "child in Great Britain: no"},
		{"residence.lives_in_canada == true", "lives in Canada: yes"},
		{"person.medicare_part_a == false", "Medicare Part A: no"},
		// "A" starts a sentence of the question: no capital from it.
		{"person.pregnant", "pregnant: yes"},
		// A table row: the guards say whom it is about.
		{`household.region != "alaska" or household.size != 2 or income.gross_monthly <= 2864`,
			"if household region is alaska and household size is 2, gross monthly is at most 2,864"},
		{`household.region not in ["alaska"] or household.size < 9 or income.gross_monthly <= 5867 + (household.size - 8) * 596`,
			"if household region is alaska and household size is at least 9, gross monthly is at most 5,867 plus ((household size minus 8) times 596)"},
		{`household.size != 1 or income.gross_monthly <= 1696`, "if household size is 1, gross monthly is at most 1,696"},
		// Plain alternatives are not a table row.
		{`household.size >= 3 or income.gross_monthly <= 1000`, "household size is at least 3 or gross monthly is at most 1,000"},
		{`claimant.in_great_britain or household.size != 1 or income.gross_monthly <= 1`,
			"claimant in Great Britain: yes, household size is not 1, or gross monthly is at most 1"},
		// Years counted from 1 September: a school year.
		{`years_between(date("1900-09-01"), decision_date()) == years_between(date("1900-09-01"), child.date_of_birth) + 16`,
			"the date of the decision falls in the same year from 1 September to 31 August as the date 16 years after date of birth"},
		{`years_between(date("1900-01-01"), decision_date()) == years_between(date("1900-01-01"), child.date_of_birth)`,
			"the date of the decision falls in the same year from 1 January to 31 December as date of birth"},
		{`years_between(date("1900-09-01"), decision_date()) >= years_between(date("1900-09-01"), child.date_of_birth) + 16`,
			"counting years from 1 September to 31 August, the time from date of birth to the date of the decision is at least 16 years"},
		{`days_between(date("2000-01-01"), decision_date()) > days_between(date("2000-01-01"), child.date_of_birth) + 30`,
			"age (from date of birth) is more than 30 days"},
		// Money with its sign and rate; other units after the number.
		{"job.pay >= 30000", "pay is at least $30,000 a year"},
		{"job.monthly_pay < 2345.5", "monthly pay is less than $2,345.5 a month"},
		{"job.fee <= 1200", "fee is at most CHF 1,200"},
		{"job.hours >= 1", "hours is at least 1 hour per week"},
		// A name that states its currency: the amount says it instead.
		{"job.gross_annual_salary_eur >= 43759.8", "gross annual salary is at least €43,759.8"},
	}
	for _, tt := range tests {
		if got := sentenceIn(t, formsRules, tt.expr); got != tt.want {
			t.Errorf("%s\n got: %s\nwant: %s", tt.expr, got, tt.want)
		}
	}
}
