package authoring

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/eligo/eligo/engine"
)

// TestResult is one test case run against a draft.
type TestResult struct {
	// Name is the case's name.
	Name string `json:"name"`
	// Pass is true when the decision and every expectation matched.
	Pass bool `json:"pass"`
	// Expected and Got are the expected and actual outcomes.
	Expected string `json:"expected"`
	Got      string `json:"got"`
	// Mismatches say what differed, one sentence each.
	Mismatches []string `json:"mismatches" nullable:"false"`
	// IgnoredFields are the case's field names the draft does not declare:
	// a name must match exactly, and a mismatched one is treated as absent
	// (docs/authoring.md#1-create-a-project).
	IgnoredFields []string `json:"ignored_fields" nullable:"false"`
	// Hint points at what to look at first, or is empty on a pass.
	Hint string `json:"hint,omitempty"`
}

// ContractCheck is one check of an acceptance contract against a draft.
type ContractCheck struct {
	// Check names it: review_bindings.
	Check string `json:"check"`
	// Pass is true when the draft meets it.
	Pass bool `json:"pass"`
	// Problems say what fails, one sentence each.
	Problems []string `json:"problems" nullable:"false"`
}

// Acceptance is the verdict on a draft: every test, and the contract's
// checks. A draft is accepted only when every supplied check passes.
type Acceptance struct {
	// TestsPassing and TestsTotal count the cases.
	TestsPassing int `json:"tests_passing"`
	TestsTotal   int `json:"tests_total"`
	// Results are every case's result, in suite order.
	Results []TestResult `json:"results" nullable:"false"`
	// Contract are the contract's checks; empty without a contract.
	Contract []ContractCheck `json:"contract_checks" nullable:"false"`
	// Accepted is true when every case and every contract check passes.
	Accepted bool `json:"accepted"`
	// Cases are the cases as run (unknown fields dropped), for the
	// review and the publish gate; not on the wire.
	Cases []engine.Case `json:"-"`
	// Outcomes are the engine's results, parallel to Cases.
	Outcomes []engine.CaseResult `json:"-"`
}

// Failures are the failing cases in the failures[] shape of docs/authoring.md#8-publish.
func (a Acceptance) Failures() []TestResult {
	var out []TestResult
	for _, r := range a.Results {
		if !r.Pass {
			out = append(out, r)
		}
	}
	return out
}

// accept runs cases and the contract against rules.
func accept(rules *engine.Ruleset, cases []engine.Case, contract *Contract) Acceptance {
	a := Acceptance{TestsTotal: len(cases), Results: []TestResult{}, Contract: []ContractCheck{}}
	for _, c := range cases {
		run, ignored := withDeclaredFields(rules, c)
		cr := rules.RunCase(run)
		invalidInputs(&cr, run)
		tr := TestResult{Name: c.Name, Pass: cr.Pass, Expected: c.ExpectedOutcome, Mismatches: cr.Mismatches, IgnoredFields: ignored}
		if tr.Mismatches == nil {
			tr.Mismatches = []string{}
		}
		if cr.Result != nil {
			tr.Got = cr.Result.Outcome.String()
		}
		if !cr.Pass {
			tr.Hint = caseHint(cr, ignored, c.ExpectedOutcome)
		} else {
			a.TestsPassing++
		}
		a.Results, a.Cases, a.Outcomes = append(a.Results, tr), append(a.Cases, run), append(a.Outcomes, cr)
	}
	if contract != nil && contract.ExpectedReviewBindings != nil {
		a.Contract = append(a.Contract, checkReviewBindings(rules, *contract.ExpectedReviewBindings))
	}
	a.Accepted = a.TestsPassing == a.TestsTotal
	for _, c := range a.Contract {
		a.Accepted = a.Accepted && c.Pass
	}
	return a
}

// withDeclaredFields drops the case's answers to fields rules does not
// declare, and names them.
func withDeclaredFields(rules *engine.Ruleset, c engine.Case) (engine.Case, []string) {
	ignored := []string{}
	if len(c.FieldValues) == 0 {
		return c, ignored
	}
	kept := map[string]json.RawMessage{}
	gjson.ParseBytes(c.FieldValues).ForEach(func(k, v gjson.Result) bool {
		if rules.FieldIndex(k.String()) < 0 {
			ignored = append(ignored, k.String())
		} else {
			kept[k.String()] = json.RawMessage(v.Raw)
		}
		return true
	})
	if len(ignored) == 0 {
		return c, ignored
	}
	c.FieldValues, _ = json.Marshal(kept) // raw messages of a parsed object always marshal
	slices.Sort(ignored)
	return c, ignored
}

// invalidInputs fails a case whose answers could not all be applied (a
// value the field's type cannot take): an invalid scenario input fails
// its check (docs/authoring.md#4-tests-and-the-acceptance-contract) rather than pass as undetermined,
// unless the case expects exactly those field errors.
func invalidInputs(cr *engine.CaseResult, c engine.Case) {
	if cr.Result == nil || len(cr.Result.FieldErrors) == 0 || c.Expectations != nil && c.Expectations.FieldErrors != nil {
		return
	}
	for _, fe := range cr.Result.FieldErrors {
		cr.Mismatches = append(cr.Mismatches, fmt.Sprintf("field_values: %s could not be applied (%s); fix the test's input, or expect it under expectations.field_errors", fe.Field, fe.Message))
	}
	cr.Pass = false
}

// caseHint says where to look first for a failing case. It never restates
// the two outcomes (every reader of a test result shows them beside the
// hint), so a case whose only mismatch is its outcome has no hint but its
// criteria.
func caseHint(cr engine.CaseResult, ignored []string, expected string) string {
	switch {
	case len(ignored) > 0:
		return fmt.Sprintf("the draft declares no field %s; the answer was treated as absent (field names must match exactly)", strings.Join(ignored, ", "))
	case len(cr.FailingCriteria) > 0:
		return "look at criterion " + strings.Join(cr.FailingCriteria, ", ")
	}
	for _, m := range cr.Mismatches {
		if cr.Result == nil || m != engine.OutcomeMismatch(expected, cr.Result.Outcome) {
			return m
		}
	}
	return ""
}

// ReviewPoints are the draft's review points: its discretionary criteria,
// which an official decides. A completion field identifies a review point
// by its name: the field group.<criterion_id> is the completion field of
// the discretionary criterion <criterion_id>. The map is completion field
// id to criterion id, for the review points that have one.
func ReviewPoints(rules *engine.Ruleset) map[string]string {
	points := map[string]string{}
	for gi := range rules.Groups {
		for _, c := range rules.Groups[gi].Criteria {
			if !c.Discretionary {
				continue
			}
			for _, f := range rules.Fields {
				if _, name, _ := strings.Cut(f.ID, "."); name == c.ID {
					points[f.ID] = c.ID
				}
			}
		}
	}
	return points
}

// answerTokens are the answers a completion field takes: its enum values,
// or true and false.
func answerTokens(f *engine.Field) ([]string, bool) {
	switch f.Type {
	case engine.SortEnum:
		return f.EnumValues, true
	case engine.SortBool:
		return []string{"false", "true"}, true
	}
	return nil, false
}

// checkReviewBindings checks expected_review_bindings against the draft:
// each declared field is a field of the draft that identifies exactly one
// review point, is an enum or bool, and maps exactly its answer tokens; no
// review point of the draft is left out of the bindings.
func checkReviewBindings(rules *engine.Ruleset, bindings map[string]map[string]*bool) ContractCheck {
	check := ContractCheck{Check: "review_bindings", Problems: []string{}}
	fail := func(format string, args ...any) {
		check.Problems = append(check.Problems, fmt.Sprintf(format, args...))
	}
	points := ReviewPoints(rules)
	for _, field := range slices.Sorted(maps.Keys(bindings)) {
		i := rules.FieldIndex(field)
		if i < 0 {
			fail("completion field %s is not a field of the draft", field)
			continue
		}
		if _, ok := points[field]; !ok {
			fail("completion field %s identifies no review point (a discretionary criterion named %s)", field, field[strings.IndexByte(field, '.')+1:])
			continue
		}
		tokens, ok := answerTokens(&rules.Fields[i])
		if !ok {
			fail("completion field %s is a %s field; a completion field is an enum or bool", field, rules.Fields[i].Type)
			continue
		}
		for _, tok := range slices.Sorted(maps.Keys(bindings[field])) {
			if !slices.Contains(tokens, tok) {
				fail("completion field %s: %q is not one of its answers (%s)", field, tok, strings.Join(tokens, ", "))
			}
		}
		for _, tok := range tokens {
			if _, ok := bindings[field][tok]; !ok {
				fail("completion field %s: the answer %q is not mapped", field, tok)
			}
		}
	}
	for _, field := range slices.Sorted(maps.Keys(points)) {
		if _, ok := bindings[field]; !ok {
			fail("review point %s (completion field %s) is not in the contract's bindings", points[field], field)
		}
	}
	check.Pass = len(check.Problems) == 0
	return check
}
