package authoring

import (
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// TestQuoteCheckersAgree holds the three places that check a citation's
// quote against its source's text to one answer on quotes that are easy
// to get wrong: authoring's provenance check (what a draft reports as
// verified), publish's quotes stage and the casebank's citation check.
// All three call engine.SourceText; this test keeps it so.
//
// Before they did, publish and the casebank collapsed white space with
// strings.Fields and asked strings.Contains, and authoring had its own
// locator. They agreed on every quote but one kind: a quote that is empty
// or only white space was "found" by publish and the casebank
// (strings.Contains(s, "") is true) and not by authoring. The compiler
// refuses such a quote ("criterion ... has an empty quote") before either
// check runs, so no publish and no casebank folder changes answer.
func TestQuoteCheckersAgree(t *testing.T) {
	t.Parallel()
	const text = "(a) An eligible\temployee\r\n\n  is an employee\u00a0who has been employed\u2003for at least 12 months;\u0085and\n" +
		"§ 825.110 “eligible”—café résumé\u200bdone \xff\xfe raw"
	tests := []struct {
		name  string
		quote string
		want  bool
	}{
		{"as written", "(a) An eligible\temployee", true},
		{"runs of white space", "An   eligible \n\t employee", true},
		{"across lines and CRLF", "employee is an employee", true},
		{"leading and trailing space", " \n\tAn eligible employee\u00a0 ", true},
		{"non-breaking space in the text", "employee who has", true},
		{"non-breaking space in the quote", "An\u00a0eligible\u00a0employee", true},
		{"em space and NEL in the text", "employed for at least 12 months; and", true},
		{"curly quotes and dashes", "§ 825.110 “eligible”—café", true},
		{"straight quotes for curly", `"eligible"`, false},
		{"hyphen for em dash", "“eligible”-café", false},
		{"case", "an eligible employee", false},
		{"missing space", "Aneligible employee", false},
		{"extra word", "An eligible new employee", false},
		{"decomposed accent", "cafe\u0301", false},
		{"zero-width space is not white space", "résumé done", false},
		{"zero-width space as written", "résumé\u200bdone", true},
		{"invalid UTF-8 as written", "done \xff\xfe raw", true},
		{"invalid UTF-8 is not white space", "done raw", false},
		{"empty", "", false},
		{"only white space", " \n\t\u00a0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &engine.Ruleset{
				Sources: []engine.Source{{ID: "s"}},
				Groups: []engine.Group{{ID: "g", Criteria: []engine.Criterion{{ID: "c",
					Citations: []engine.Citation{{Source: "s", Quote: tt.quote}}}}}},
			}
			checks := checkQuotes(r, []binding{{decl: engine.Source{ID: "s"}, src: &store.ProjectSource{ID: "src_1", Text: text}}})
			_, published := publish.VerifySources(r, map[string][]byte{"s": []byte(text)}, time.Unix(0, 0))
			inFolder := folder.VerifyCitations(r, []byte("== s ==\n"+text+"\n"))
			got := map[string]bool{
				"authoring": len(checks) == 1 && checks[0].Verified,
				"publish":   len(published) == 0,
				"casebank":  len(inFolder) == 0,
			}
			for who, ok := range got {
				if ok != tt.want {
					t.Errorf("%s: quote %q found %v, want %v (publish %q, casebank %q)", who, tt.quote, ok, tt.want, published, inFolder)
				}
			}
		})
	}
}
