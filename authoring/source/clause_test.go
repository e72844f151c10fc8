package source

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/eligo/eligo/engine"
)

func TestClausesStatutes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"us-fmla-employee", "uk-child-benefit", "medicaid-adult-expansion"} {
		text := casebankSource(t, name)
		clauses := Clauses(text)
		if len(clauses) < 10 {
			t.Errorf("%s: %d clauses, want a statute's worth", name, len(clauses))
		}
		prevEnd := 0
		for i, c := range clauses {
			s := c.Text(text)
			switch {
			case c.Start >= c.End:
				t.Errorf("%s: clause %d is empty: %v", name, i, c)
			case c.Start < prevEnd:
				t.Errorf("%s: clause %d %v overlaps or precedes the one before (end %d)", name, i, c, prevEnd)
			case strings.TrimSpace(s) != s:
				t.Errorf("%s: clause %d %q is not trimmed", name, i, s)
			case !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }):
				t.Errorf("%s: clause %d %q has no letter or digit", name, i, s)
			}
			prevEnd = c.End
		}
		if again := Clauses(text); !slices.Equal(again, clauses) {
			t.Errorf("%s: Clauses is not deterministic", name)
		}
	}
}

func TestClauses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"enumerated lines", "(a) An eligible employee is an employee who:\n(1) Has been employed for 12 months, and\n(2) Has been employed for 1,250 hours.",
			[]string{"(a) An eligible employee is an employee who:", "(1) Has been employed for 12 months, and", "(2) Has been employed for 1,250 hours."}},
		{"paragraphs", "First paragraph\nwrapped over lines.\n\n \t\nSecond paragraph.\n",
			[]string{"First paragraph\nwrapped over lines.", "Second paragraph."}},
		{"sentences", "This applies. It also applies; (ii) to others: In particular children. but not this.",
			[]string{"This applies.", "It also applies;", "(ii) to others:", "In particular children. but not this."}},
		{"abbreviations", "Works of the U.S. Government under 17 U.S.C. 105 are free. See No. 5 and s. 146 e.g. Here.",
			[]string{"Works of the U.S. Government under 17 U.S.C. 105 are free.", "See No. 5 and s. 146 e.g. Here."}},
		{"UK numbering", "Education condition\n3.—(1) This regulation applies.\n(2) The condition is that—\n(i) one; or\n(ii) two.",
			[]string{"Education condition", "3.—(1) This regulation applies.", "(2) The condition is that—", "(i) one; or", "(ii) two."}},
		{"numbered list", "Steps:\n1. The applicant applies.\n2. The officer decides.\n10.2. Appeals lie.\na) first\nb) second",
			[]string{"Steps:", "1. The applicant applies.", "2. The officer decides.", "10.2. Appeals lie.", "a) first", "b) second"}},
		{"section sign and bullets", "Rules\n§ 825.110 Eligible employee.\n- one item\n• another item\n* a third",
			[]string{"Rules", "§ 825.110 Eligible employee.", "- one item", "• another item", "* a third"}},
		{"closing quotes", "The term means “child.” A person is “qualifying”. (b) Next.",
			[]string{"The term means “child.”", "A person is “qualifying”.", "(b) Next."}},
		{"not enumerators", "hours\n1.250 hours of service\n(see below) for details\n(civil) matters",
			[]string{"hours\n1.250 hours of service\n(see below) for details\n(civil) matters"}},
		{"no letters dropped", "[...]\n\n—\n\n(a) kept\n[...]\n***",
			[]string{"(a) kept\n[...]\n***"}},
		{"CRLF", "One.\r\n\r\nTwo.\r\n", []string{"One.", "Two."}},
		{"empty", "", nil},
		{"blank", " \n\n\t ", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range Clauses(tt.text) {
			got = append(got, c.Text(tt.text))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Clauses(%q)\n got %q\nwant %q", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestCoverage(t *testing.T) {
	t.Parallel()
	text := "(a) First provision.\n(b) Second provision.\n\n(c) Third provision."
	clauses := Clauses(text)
	if len(clauses) != 3 {
		t.Fatalf("clauses %v, want 3", clauses)
	}
	span := func(quote string) [2]int {
		start, end, ok := engine.LocateQuote(text, quote)
		if !ok {
			t.Fatalf("quote %q not found", quote)
		}
		return [2]int{start, end}
	}
	tests := []struct {
		name  string
		cited [][2]int
		want  []bool
	}{
		{"nothing cited", nil, []bool{false, false, false}},
		{"one clause", [][2]int{span("Second provision")}, []bool{false, true, false}},
		{"across clauses", [][2]int{span("First provision. (b) Second")}, []bool{true, true, false}},
		{"touching is not overlapping", [][2]int{{clauses[0].End, clauses[1].Start}}, []bool{false, false, false}},
		{"one byte", [][2]int{{clauses[2].End - 1, clauses[2].End}}, []bool{false, false, true}},
		{"unordered spans", [][2]int{span("(c)"), span("(a)")}, []bool{true, false, true}},
		{"clamped", [][2]int{{-10, 2}, {len(text) - 1, len(text) + 10}}, []bool{true, false, true}},
		{"empty and inverted", [][2]int{{5, 5}, {30, 10}}, []bool{false, false, false}},
		{"whole text", [][2]int{{0, len(text)}}, []bool{true, true, true}},
	}
	for _, tt := range tests {
		if got := Coverage(text, clauses, tt.cited); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Coverage = %v, want %v", tt.name, got, tt.want)
		}
		// Clauses out of order give the same answer, reordered.
		reversed := slices.Clone(clauses)
		slices.Reverse(reversed)
		got := Coverage(text, reversed, tt.cited)
		slices.Reverse(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Coverage of reversed clauses = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestClauseHeadings: over statute-like text, heading lines (short lines
// without a sentence, numbered section titles) are clauses of their own
// marked Heading, never cut inside; running text wrapped over lines, list
// items and sentences are not headings.
func TestClauseHeadings(t *testing.T) {
	t.Parallel()
	const h = "H:" // marks a heading in want
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"US Code subsection titles",
			"(2) Eligible employee\n\n(A) In general\nThe term “eligible employee” means an employee who has been employed—\n(i) for at least 12 months by the employer; and\n(ii) for at least 1,250 hours of service with such employer.\n\n(B) Exclusions\nThe term does not include any Federal officer.",
			[]string{h + "(2) Eligible employee", h + "(A) In general", "The term “eligible employee” means an employee who has been employed—",
				"(i) for at least 12 months by the employer; and", "(ii) for at least 1,250 hours of service with such employer.",
				h + "(B) Exclusions", "The term does not include any Federal officer."}},
		{"UK section titles ending in a full stop",
			"142 “Child” and “qualifying young person”.\n(1) For the purposes of this Part of this Act a person is a child if he has not attained the age of 16.",
			[]string{h + "142 “Child” and “qualifying young person”.", "(1) For the purposes of this Part of this Act a person is a child if he has not attained the age of 16."}},
		{"section sign title, not cut at its number",
			"§ 2611. Definitions\nFor purposes of this subchapter: the terms below apply.",
			[]string{h + "§ 2611. Definitions", "For purposes of this subchapter: the terms below apply."}},
		{"part and numbered titles",
			"PART 2 — ELIGIBILITY\n\n4. Residence\nAn applicant must live in the State.\n\nSection 5. Age.\nAn applicant must be 18.",
			[]string{h + "PART 2 — ELIGIBILITY", h + "4. Residence", "An applicant must live in the State.", h + "Section 5. Age.", "An applicant must be 18."}},
		{"a heading alone and one above a list",
			"Education condition\n3.—(1) This regulation applies.\n\nEligibility\n\nRules\n§ 825.110 Eligible employee.\n- one item",
			[]string{h + "Education condition", "3.—(1) This regulation applies.", h + "Eligibility", h + "Rules", h + "§ 825.110 Eligible employee.", "- one item"}},
		{"wrapped running text",
			"The applicant must live in\nNew York State for a year.\n\nA person qualifies if the person\nis at least 18 years old.",
			[]string{"The applicant must live in\nNew York State for a year.", "A person qualifies if the person\nis at least 18 years old."}},
		{"numbered list items ending in full stops",
			"Steps:\n1. The applicant applies.\n2. The officer decides.\n\n(1) A person is a child if under 16.\n(2) The officer decides.",
			[]string{"Steps:", "1. The applicant applies.", "2. The officer decides.", "(1) A person is a child if under 16.", "(2) The officer decides."}},
		{"list items and sentences",
			"The condition is that—\n(a) he has the child living with him; or\n(b) he is contributing to the cost.\n- Resident\n- Adult\n\nSection 6. An applicant must hold a licence.",
			[]string{"The condition is that—", "(a) he has the child living with him; or", "(b) he is contributing to the cost.", "- Resident", "- Adult",
				"Section 6.", "An applicant must hold a licence."}},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range Clauses(tt.text) {
			s := c.Text(tt.text)
			if c.Heading {
				s = h + s
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
