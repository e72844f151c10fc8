package present

import (
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/internal/testfiles"
)

// TestMembersInSentences: what a household's criteria and values say in
// plain language names the list by its title and a member's field by its
// own name, never the first member's copy of it.
func TestMembersInSentences(t *testing.T) {
	t.Parallel()
	r, _, err := engine.Compile("household.rules", []byte(testfiles.HouseholdRules))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"young_or_pregnant": "for at least one of the people in the household, age is less than 5 years or pregnant: yes",
		"residents":         "for each of the people in the household, resident: yes",
		"income":            "household earnings is at most 1,000 plus (500 times the number of people in the household)",
	}
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		if got := CriterionSentence(r, c); want[c.ID] != "" && got != want[c.ID] {
			t.Errorf("%s reads %q, want %q", c.ID, got, want[c.ID])
		}
	}
	if got := (rules{r}).term(r.Values[1].Expr); got != "the number of people in the household for whom age is less than 5 years" {
		t.Errorf("young_children reads %q", got)
	}
	if got := (rules{r}).term(r.Values[0].Expr); got != "the total of earnings over the people in the household" {
		t.Errorf("household_earnings reads %q", got)
	}
	if got, want := (rules{r}).term(r.Values[2].Expr), "the highest earnings among the people in the household for whom age is at least 16 years, or 0 when there is none"; got != want {
		t.Errorf("top_earnings reads %q, want %q", got, want)
	}
}
