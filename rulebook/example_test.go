package rulebook_test

import (
	"fmt"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/rulebook"
)

// Compose two small rulesets into one rulebook that is satisfied when
// either section is, evaluate it, and read each section's own decision.
func Example() {
	tenure, _, err := engine.Compile("tenure.rules", []byte(`section tenure
source s "Employment Act, s. 1" url "https://example.org/act" licence "public-domain"
field employment.months_employed int
group service all "Service" {
  criterion months "Employed for at least 12 months" {
    employment.months_employed >= 12
    cite s "for at least 12 months"
  }
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	hardship, _, err := engine.Compile("hardship.rules", []byte(`section hardship
source s "Hardship Regulations, reg. 2" url "https://example.org/regs" licence "public-domain"
field household.income int
field employment.months_employed int
group income all "Low income" {
  criterion low "Income under 1,000 a month" {
    household.income < 1000 and employment.months_employed >= 3
    cite s "an income of less than 1,000 a month"
  }
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	outcome, problems := rulebook.ParseOutcomeTree([]byte(`{"op": "or", "args": [{"section": "A"}, {"section": "B"}]}`), 2)
	if problems != nil {
		fmt.Println(problems)
		return
	}
	section := func(i int, r *engine.Ruleset) rulebook.Section {
		return rulebook.Section{Letter: rulebook.Letter(i), SectionID: r.SectionID, RulesetID: r.SectionID + ":20260115-1",
			ContentDigest: r.ContentDigest(), Rules: r}
	}
	c, err := rulebook.Compose(rulebook.Spec{Name: "Leave support", Slug: "example/leave-support",
		Sections: []rulebook.Section{section(0, tenure), section(1, hardship)}, Outcome: outcome})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range c.Rules.Groups {
		fmt.Println("group", g.ID, "criterion", g.Criteria[0].ID)
	}
	fmt.Println("fields:", len(c.Rules.Fields), "shared:", c.FieldSections["employment.months_employed"])

	in, err := c.Rules.Convert([]byte(`{"employment.months_employed": 6, "household.income": 800}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res := c.Rules.Evaluate(in, engine.Options{})
	fmt.Println(outcome, "->", res.Outcome)
	for _, s := range c.SectionResults(res) {
		fmt.Println(s.Letter, s.SectionID, s.Decision)
	}
	// Output:
	// group tenure.service criterion tenure.months
	// group hardship.income criterion hardship.low
	// fields: 2 shared: [tenure hardship]
	// A or B -> eligible
	// A tenure not_eligible
	// B hardship eligible
}

// Release labels: a deterministic, collision-free allocation.
func ExampleAllocateLabel() {
	taken := map[string]bool{}
	for range 2 {
		label, err := rulebook.AllocateLabel(2026, func(l string) bool { return taken[l] })
		if err != nil {
			fmt.Println(err)
			return
		}
		taken[label] = true
		fmt.Println(rulebook.ValidLabel(label), label != "")
	}
	fmt.Println(rulebook.ValidLabel("falcon-amber"), rulebook.LabelCount())
	// Output:
	// true true
	// true true
	// false 40000
}
