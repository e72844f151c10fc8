package present_test

import (
	"fmt"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
)

// The graph of a ruleset, then the same graph coloured by one decision:
// what GET /rulesets/{id}/graph and /decide's graph_overlay serve.
func ExampleNewGraph() {
	src := []byte(`ruleset "us/fmla-mini"
section fmla_mini
source s "29 U.S.C. 2611" url "https://example.org/2611" licence "public-domain"
field employment.months_employed int
field employment.sector enum ["private", "public", "federal"]
group service all "Length of service" {
  criterion tenure "Employed for at least 12 months" {
    employment.months_employed >= 12
    cite s "12 months"
  }
}
group employer any "Covered employer" {
  criterion public "Public agency employer" {
    employment.sector in ["public", "federal"]
    cite s "public agency"
  }
}
`)
	r, _, err := engine.Compile("mini.rules", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := present.NewGraph(r, "", nil, nil)
	fmt.Println(g.Sections, g.Stats.TotalFields, g.Stats.TotalCriteria, g.Stats.TotalGroups)
	for _, n := range g.Nodes {
		if n.Type == present.NodeTypeCriterion {
			fmt.Printf("%s: %s\n", n.ID, n.Display.Sentence)
		}
	}

	in, _ := r.Convert([]byte(`{"employment.months_employed": 14}`))
	g = present.NewGraph(r, "", in, r.Evaluate(in, engine.Options{}))
	for _, n := range g.Nodes {
		fmt.Println(n.ID, n.Overlay.Status)
	}
	fmt.Print(g.Mermaid())
	// Output:
	// [us/fmla-mini] 2 2 2
	// criterion:tenure: months employed is at least 12
	// criterion:public: sector is public or federal
	// field:employment.months_employed satisfied
	// field:employment.sector pending
	// criterion:tenure satisfied
	// criterion:public pending
	// group:service satisfied
	// group:employer pending
	// outcome pending
	// flowchart LR
	//   field_employment_months_employed["months employed"]
	//   field_employment_sector["sector"]
	//   criterion_tenure["Employed for at least 12 months"]
	//   criterion_public["Public agency employer"]
	//   group_service["Length of service (all of)"]
	//   group_employer["Covered employer (any of)"]
	//   outcome["Fmla Mini"]
	//   field_employment_months_employed --> criterion_tenure
	//   criterion_tenure --> group_service
	//   field_employment_sector --> criterion_public
	//   criterion_public --> group_employer
	//   group_service --> outcome
	//   group_employer --> outcome
	//   classDef satisfied fill:#d9f2d9,stroke:#2e7d32
	//   class field_employment_months_employed,criterion_tenure,group_service satisfied
	//   classDef pending fill:#eeeeee,stroke:#757575
	//   class field_employment_sector,criterion_public,group_employer,outcome pending
}
