package authoring

import (
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// Coverage over statute-like text counts the provisions, not their
// headings: a source whose every provision is quoted is fully covered
// however many headings and section titles it has, and the headings are
// never listed as uncited.
func TestCoverageLeavesOutHeadings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		quotes     []string
		clauses    int
		cited      int
	}{
		{"US Code style",
			"§ 2611. Definitions\nAs used in this subchapter the terms below apply.\n\n(2) Eligible employee\n\n(A) In general\nThe term means an employee who has been employed for at least 12 months.\n\n(B) Exclusions\nThe term does not include any Federal officer or employee.",
			[]string{"As used in this subchapter", "employed for at least 12 months", "does not include any Federal officer"}, 3, 3},
		{"UK style",
			"PART 9\nCHILD BENEFIT\n\n142 “Child” and “qualifying young person”.\n(1) A person is a child if he has not attained the age of 16.\n(2) A qualifying young person is a person over 16 in education.",
			[]string{"has not attained the age of 16", "over 16 in education"}, 2, 2},
		{"a provision left uncited still counts",
			"Eligibility of applicants for the grant\n\nAn applicant must live in the State.\n\nAn applicant must be at least 18 years old.",
			[]string{"must live in the State"}, 2, 1},
	}
	for _, tt := range tests {
		src := store.ProjectSource{ID: "src_a", Filename: "law.txt", Status: "active", Text: tt.text}
		var quotes []QuoteCheck
		for _, q := range tt.quotes {
			c := QuoteCheck{CriterionID: "c", SourceID: "law", ProjectSourceID: "src_a", Quote: q, Verified: true}
			var ok bool
			if c.start, c.end, ok = engine.NewSourceText(tt.text).Locate(q); !ok {
				t.Fatalf("%s: %q is not in the text", tt.name, q)
			}
			quotes = append(quotes, c)
		}
		cov := provenanceReport(&engine.Ruleset{}, []store.ProjectSource{src}, quotes).Coverage[0]
		if cov.Clauses != tt.clauses || cov.CitedClauses != tt.cited {
			t.Errorf("%s: %d of %d clauses cited, want %d of %d (uncited %q)", tt.name, cov.CitedClauses, cov.Clauses, tt.cited, tt.clauses, cov.Uncited)
		}
		st := sourceText(src, quotes)
		if st.Coverage.Clauses != tt.clauses || st.Coverage.CitedClauses != tt.cited {
			t.Errorf("%s: the source text counts %+v, want %d of %d", tt.name, st.Coverage, tt.cited, tt.clauses)
		}
		for _, c := range st.Clauses {
			title := strings.Contains(c.Text, "Definitions") || strings.Contains(c.Text, "In general") || strings.Contains(c.Text, "CHILD BENEFIT") || strings.HasPrefix(c.Text, "Eligibility")
			if title && (!c.Heading || c.Counted) {
				t.Errorf("%s: %q should be a heading, not counted: %+v", tt.name, c.Text, c)
			}
		}
	}
}
