package source_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/engine"
)

// Extract an HTML upload and verify a model's quote against it: the quote
// may break lines differently, but every other character must match.
func Example() {
	mt, err := source.MediaType("2611.html", "application/octet-stream")
	if err != nil {
		panic(err)
	}
	page := `<html><head><script>track()</script></head><body>
<p>(A) In general<br>The term &ldquo;eligible employee&rdquo; means an employee
   who has been employed&mdash;</p>
<ul><li>(i) for at least 12 months by the employer; and</li></ul></body></html>`
	ex, err := source.Extract(context.Background(), mt, []byte(page))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n---\n", ex.Text)

	text := engine.NewSourceText(ex.Text)
	for _, quote := range []string{
		"means an employee who\nhas been employed",
		"means an Employee who has been employed",
	} {
		start, end, ok := text.Locate(quote)
		fmt.Printf("%q: %v %q\n", quote, ok, ex.Text[start:end])
	}
	// Output:
	// (A) In general
	// The term “eligible employee” means an employee who has been employed—
	//
	// (i) for at least 12 months by the employer; and
	// ---
	// "means an employee who\nhas been employed": true "means an employee who has been employed"
	// "means an Employee who has been employed": false ""
}

// Split a statute into clauses and see which of them a ruleset's citations
// cover.
func ExampleCoverage() {
	text := "(a) An employee is eligible if—\n(1) employed for 12 months; and\n(2) employed for 1,250 hours.\n\n(b) Exclusions. Federal officers are excluded."
	clauses := source.Clauses(text)
	start, end, _ := engine.LocateQuote(text, "employed for 12 months")
	for i, covered := range source.Coverage(text, clauses, [][2]int{{start, end}}) {
		fmt.Printf("%-5v %s\n", covered, clauses[i].Text(text))
	}
	// Output:
	// false (a) An employee is eligible if—
	// true  (1) employed for 12 months; and
	// false (2) employed for 1,250 hours.
	// false (b) Exclusions.
	// false Federal officers are excluded.
}

// Flag an upload that nearly duplicates a stored source: here the same
// section with one word changed, against a different section.
func ExampleSignature_Resemblance() {
	const s146 = `146 Presence in Great Britain
(1) No child benefit shall be payable in respect of a child for a week unless he is in Great Britain in that week.
(2) No person shall be entitled to child benefit for a week unless he is in Great Britain in that week.
(3) Circumstances may be prescribed in which a child or other person is to be treated for the purposes of this section as being, or as not being, in Great Britain.`
	stored := source.Sign(s146)
	edited := source.Sign(strings.Replace(s146, "Circumstances may", "Circumstances shall", 1))
	other := source.Sign("(1) For the purposes of this Part of this Act a person is a child if he has not attained the age of 16.")
	fmt.Printf("edited: %.2f near-duplicate %v\n", stored.Resemblance(edited), stored.Resemblance(edited) >= source.NearDuplicateThreshold)
	fmt.Printf("other:  %.2f near-duplicate %v\n", stored.Resemblance(other), stored.Resemblance(other) >= source.NearDuplicateThreshold)
	// Output:
	// edited: 0.89 near-duplicate true
	// other:  0.00 near-duplicate false
}
