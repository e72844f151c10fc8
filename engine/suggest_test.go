package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
)

// TestNearest is the rule every "did you mean" follows: a slip of a letter
// or of case is close, a short name is not close to every short name, and
// nothing is suggested when nothing is close.
func TestNearest(t *testing.T) {
	t.Parallel()
	fields := []string{"employment.months_employed", "employment.hours_12_months", "employment.sector", "a.n", "a.m"}
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"employment.month_employed", fields, "employment.months_employed"},
		{"Employment.Sector", fields, "employment.sector"},
		{"employment.hours_12_month", fields, "employment.hours_12_months"},
		{"a.nn", fields, "a.n"}, // one letter more
		{"a.x", fields, ""},     // a one-letter name for another
		{"person.age", []string{"person.sex", "person.date_of_birth"}, ""}, // the group alone is shared
		{"a.mn", fields, "a.n"},            // the first of a tie wins
		{"employment.colour", fields, ""},  // a different word
		{"worksite.employees", fields, ""}, // nothing like it
		{"usc_2611", []string{"usc29_2611", "cfr29_825"}, "usc29_2611"},
		{"lw", []string{"law", "rules"}, "law"},
		{"a", []string{"A", "B"}, "A"}, // case only
		{"b", []string{"A"}, ""},       // one letter is not close to another
		{"servic", []string{"service", "worksite"}, "service"},
		{"anything", nil, ""},                                            // nothing declared
		{strings.Repeat("x", 65), []string{strings.Repeat("x", 64)}, ""}, // too long to compare
	}
	for _, tt := range tests {
		if got := Nearest(tt.name, tt.names); got != tt.want {
			t.Errorf("Nearest(%q, %q) = %q, want %q", tt.name, tt.names, got, tt.want)
		}
	}
}

// TestSuggestCompile checks the compiler's suggestions for each kind of
// unknown name, among the names the file declares only.
func TestSuggestCompile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr, cite, outcome string
		want                      string
	}{
		{name: "field", expr: "a.nn > 1", want: "unknown field a.nn: declare it with a field line (did you mean a.n?)"},
		{name: "field, nothing close", expr: "worksite.size > 1", want: "unknown field worksite.size: declare it with a field line\n"},
		{name: "source", expr: "a.b", cite: "ss", want: "criterion k cites unknown source ss: declare it with a source line (did you mean s?)"},
		{name: "source, nothing close", expr: "a.b", cite: "regulations", want: "criterion k cites unknown source regulations: declare it with a source line\n"},
		{name: "group", expr: "a.b", outcome: "gg", want: "the outcome names gg, which is not a group (did you mean g?)"},
		{name: "group, nothing close", expr: "a.b", outcome: "residence", want: "the outcome names residence, which is not a group\n"},
		// A name that only a keyword or a function is close to gets no
		// suggestion: only declared names are proposed.
		{name: "group, keyword close", expr: "a.b", outcome: "g and anx", want: "the outcome names anx, which is not a group\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := fmt.Sprintf(testfiles.OpsRules, tt.expr)
			if tt.cite != "" {
				src = strings.Replace(src, `cite s "quote"`, fmt.Sprintf("cite %s \"quote\"", tt.cite), 1)
			}
			if tt.outcome != "" {
				src += "outcome " + tt.outcome + "\n"
			}
			_, _, err := Compile("s.rules", []byte(src))
			if err == nil || !strings.Contains(err.Error()+"\n", tt.want) {
				t.Errorf("errors:\n%v\nwant one ending %q", err, tt.want)
			}
		})
	}
}

// TestSuggestFieldValues checks the suggestion in the field error of an
// unknown field_values key, and that only the first maxSuggestions
// unknown keys are compared.
func TestSuggestFieldValues(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("ops.rules", fmt.Appendf(nil, testfiles.OpsRules, "a.b"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key, want string
	}{
		{"a.nn", `unknown field "a.nn": this ruleset has no such field; did you mean "a.n"?`},
		{"A.Born", `unknown field "A.Born": this ruleset has no such field; did you mean "a.born"?`},
		{"applicant.age", `unknown field "applicant.age": this ruleset has no such field`},
	}
	for _, tt := range tests {
		in, err := r.Convert([]byte(fmt.Sprintf(`{%q: 1}`, tt.key)))
		if err != nil {
			t.Fatal(err)
		}
		if len(in.FieldErrors) != 1 || in.FieldErrors[0].Message != tt.want {
			t.Errorf("%s: field errors %+v, want the message %q", tt.key, in.FieldErrors, tt.want)
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range maxSuggestions + 2 {
		fmt.Fprintf(&b, "%q: 1,", fmt.Sprintf("a.n%c", 'a'+i)) // each close to a.n
	}
	b.WriteString(`"a.z": 1}`)
	in, err := r.Convert([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	suggested := 0
	for _, fe := range in.FieldErrors {
		if strings.Contains(fe.Message, "did you mean") {
			suggested++
		}
	}
	if suggested != maxSuggestions {
		t.Errorf("%d of %d unknown keys got a suggestion, want the first %d", suggested, len(in.FieldErrors), maxSuggestions)
	}
}
