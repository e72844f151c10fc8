package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/eligo/eligo/engine"
)

// Compile a ruleset, convert a request's field_values, evaluate, and read
// the decision and its explanation.
func Example() {
	src := []byte(`section fmla_employee
source usc29_2611 "29 U.S.C. 2611(2)" url "https://www.law.cornell.edu/uscode/text/29/2611" licence "public-domain"
field employment.months_employed int
  question "How many months have you worked for this employer?"
field employment.hours_12_months decimal weight 2
group service all "Length and amount of service" {
  criterion tenure "Employed for at least 12 months" {
    employment.months_employed >= 12
    cite usc29_2611 "for at least 12 months by the employer"
  }
  criterion hours "At least 1,250 hours in the previous 12 months" {
    employment.hours_12_months >= 1250
    cite usc29_2611 "at least 1,250 hours of service"
  }
}
`)
	rules, _, err := engine.Compile("fmla.rules", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := rules.Convert([]byte(`{"employment.months_employed": 1.3e1}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res := rules.Evaluate(in, engine.Options{Explanation: true})
	fmt.Println(rules.Name, "->", res.Outcome)
	fmt.Println("missing:", res.MissingFields)
	tenure := res.Explanation.Groups[0].Criteria[0]
	fmt.Println(tenure.CriterionID, tenure.Status, string(tenure.SupportingFacts[0].Value))
	fmt.Println(tenure.SourceReferences[0].DeepLink)

	in, _ = rules.Convert([]byte(`{"employment.months_employed": 12, "employment.hours_12_months": 1249.5}`))
	res = rules.Evaluate(in, engine.Options{Trace: true})
	fmt.Println(res.Outcome, res.Trace.FailureReasons[0].Items[1].Expression)

	_, _, err = engine.Compile("bad.rules", []byte("section x\nfield a.b int\ngroup g all \"G\" {\n  criterion c \"C\" {\n    a.bb > 1\n    cite s \"q\"\n  }\n}\n"))
	fmt.Println(err)
	// Output:
	// Fmla Employee -> undetermined
	// missing: [employment.hours_12_months]
	// tenure satisfied 13
	// https://www.law.cornell.edu/uscode/text/29/2611#:~:text=for%20at%20least%2012%20months%20by%20the%20employer
	// not_eligible employment.hours_12_months >= 1250
	// bad.rules:5:5: unknown field a.bb: declare it with a field line (did you mean a.b?)
	// bad.rules:6:5: criterion c cites unknown source s: declare it with a source line
}

// Store a compiled ruleset's IR, load it back without its source, and
// decide with it: the loaded ruleset has the same digest and decides the
// same way.
func ExampleLoadIR() {
	rules, _, err := engine.Compile("tenure.rules", []byte(`section tenure
source s "29 U.S.C. 2611(2)" url "https://www.law.cornell.edu/uscode/text/29/2611" licence "public-domain"
field employment.months_employed int
group service all "Service" {
  criterion tenure "Employed for at least 12 months" {
    employment.months_employed >= 12
    cite s "for at least 12 months by the employer"
  }
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	stored, err := json.Marshal(rules) // what the store keeps, with rules.FormatVersion() beside it
	if err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := engine.LoadIR(rules.FormatVersion(), stored)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("same digest:", loaded.ContentDigest() == rules.ContentDigest())
	in, _ := loaded.Convert([]byte(`{"employment.months_employed": 7}`))
	res := loaded.Evaluate(in, engine.Options{Trace: true})
	fmt.Println(res.Outcome, res.Trace.FailureReasons[0].Items[1].Expression)

	_, err = engine.LoadIR(engine.IRVersion+1, stored)
	fmt.Println(errors.Is(err, engine.ErrUnknownIRVersion), err)
	// Output:
	// same digest: true
	// not_eligible employment.months_employed >= 12
	// true compiled IR version 4 is not one this engine reads (it reads versions 1 to 3)
}
