package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/eligo/eligo/engine/value"
)

// Case is one test case, the shape docs/folders.md#casesjson describes
// and the API's project test cases use.
type Case struct {
	// Name identifies the case in reports.
	Name string `json:"name"`
	// FieldValues is the answers object exactly as /decide takes it;
	// empty means {}.
	FieldValues json.RawMessage `json:"field_values"`
	// ExpectedOutcome is the outcome's wire spelling: eligible,
	// not_eligible or undetermined.
	ExpectedOutcome string `json:"expected_outcome"`
	// DecisionDate ("YYYY-MM-DD") is the date the case is decided as of:
	// what decision_date() reads and what the effective period is checked
	// against. Required when the ruleset reads decision_date(), so cases
	// never depend on the day they run; see Ruleset.CaseDate for the
	// default.
	DecisionDate string `json:"decision_date,omitempty"`
	// Expectations are finer checks beyond the outcome; nil for none.
	Expectations *Expectations `json:"expectations,omitempty"`
}

// Expectations are optional finer checks; each member is checked when
// present.
type Expectations struct {
	// Criteria maps criterion ids to satisfied, not_satisfied or pending.
	Criteria map[string]string `json:"criteria,omitempty"`
	// Groups maps group ids to satisfied, not_satisfied or pending.
	Groups map[string]string `json:"groups,omitempty"`
	// FieldErrors, when present (even empty), lists exactly the field ids
	// reported as field errors.
	FieldErrors *[]string `json:"field_errors,omitempty"`
	// MissingFields must all be among the missing fields.
	MissingFields []string `json:"missing_fields,omitempty"`
	// Values maps named values to the figures they must have: a number,
	// true/false, a "YYYY-MM-DD" date, or null for unknown ("net_income":
	// 1187.40). Numbers compare exactly: 1187.4 and 1187.40 are equal.
	Values map[string]json.RawMessage `json:"values,omitempty"`
}

// CaseResult is the verdict on one case.
type CaseResult struct {
	// Name is the case's name.
	Name string
	// Pass is true when there are no Mismatches.
	Pass bool
	// Mismatches say, one sentence each, what differed from the case.
	Mismatches []string
	// FailingCriteria are the criteria that kept the decision from being
	// eligible (not satisfied or pending, in groups that are not satisfied),
	// plus any criterion whose expectation failed.
	FailingCriteria []string
	// Result is the decision, with trace and explanation.
	Result *Result
}

// OutcomeMismatch is the sentence a case's mismatches give a decision
// other than the one it expects, so that a reader that already says the
// two outcomes can leave it out.
func OutcomeMismatch(expected string, got Outcome) string {
	return fmt.Sprintf("expected %s, got %s", expected, got)
}

// maxListedCaseFieldErrors bounds the field errors a failing case lists.
const maxListedCaseFieldErrors = 5

// RunCase evaluates a case and compares the decision with what it expects.
func (r *Ruleset) RunCase(c Case) CaseResult {
	cr := CaseResult{Name: c.Name}
	fail := func(format string, args ...any) {
		cr.Mismatches = append(cr.Mismatches, fmt.Sprintf(format, args...))
	}
	var opts Options
	opts.Trace, opts.Explanation = true, true
	d, err := r.CaseDate(c)
	if err != nil {
		fail("%v", err)
		return cr
	}
	opts.DecisionDate = d
	if len(c.FieldValues) == 0 {
		c.FieldValues = json.RawMessage("{}")
	}
	in, err := r.Convert(c.FieldValues)
	if err != nil {
		fail("field_values: %v", err)
		return cr
	}
	res := r.Evaluate(in, opts)
	if c.Expectations != nil && len(c.Expectations.Values) > 0 {
		r.computeValues(in, res) // a case may assert a value the outcome did not need
	}
	cr.Result = res
	if res.Outcome.String() != c.ExpectedOutcome {
		// Answers the rules could not take come first: they are most
		// often the cause (a misspelt field id leaves its field
		// unanswered), as /decide's field_errors say.
		if c.Expectations == nil || c.Expectations.FieldErrors == nil {
			for i, e := range res.FieldErrors {
				if i == maxListedCaseFieldErrors {
					fail("field_values: %d more field errors", len(res.FieldErrors)-i)
					break
				}
				fail("field_values: %s", e.Message)
			}
		}
		fail("%s", OutcomeMismatch(c.ExpectedOutcome, res.Outcome))
		if res.OutsidePeriod {
			fail("%s", r.PeriodWarning(res.DecisionDate))
		}
	}
	if res.Outcome.String() != c.ExpectedOutcome {
		for g := range r.Groups {
			for ci := range r.Groups[g].Criteria {
				if res.Groups[g] != Satisfied && res.Criteria[r.CriterionIndex(g, ci)] != Satisfied {
					cr.FailingCriteria = append(cr.FailingCriteria, r.Groups[g].Criteria[ci].ID)
				}
			}
		}
	}
	if x := c.Expectations; x != nil {
		r.checkExpectations(x, res, fail, &cr)
	}
	cr.Pass = len(cr.Mismatches) == 0
	return cr
}

// CaseDate returns the ordinal date a case is decided as of: its
// decision_date; without one, the first day of the ruleset's effective
// period (a case tests the rules, not the calendar, so a suite keeps
// passing after its period has ended), or 0, today, for a ruleset whose
// decisions depend on no date. It fails when decision_date is not a
// YYYY-MM-DD date, or is missing while the ruleset reads decision_date().
func (r *Ruleset) CaseDate(c Case) (int64, error) {
	switch {
	case c.DecisionDate != "":
		d, ok := value.ParseDate(c.DecisionDate)
		if !ok {
			return 0, fmt.Errorf("decision_date %q is not a YYYY-MM-DD date", c.DecisionDate)
		}
		return d, nil
	case r.ReadsDecisionDate:
		return 0, errors.New("the ruleset reads decision_date(), so the case needs a decision_date")
	case r.Effective != nil:
		return r.Effective.From, nil
	}
	return 0, nil
}

func (r *Ruleset) checkExpectations(x *Expectations, res *Result, fail func(string, ...any), cr *CaseResult) {
	crit := map[string]Status{}
	for i := range r.criteria {
		c, _ := r.CriterionAt(i)
		crit[c.ID] = res.Criteria[i]
	}
	for _, id := range sortedKeys(x.Criteria) {
		got, ok := crit[id]
		switch {
		case !ok:
			fail("expectations name criterion %s, which the ruleset does not have", id)
		case got.String() != x.Criteria[id]:
			fail("criterion %s: expected %s, got %s", id, x.Criteria[id], got)
			if !slices.Contains(cr.FailingCriteria, id) {
				cr.FailingCriteria = append(cr.FailingCriteria, id)
			}
		}
	}
	groups := map[string]Status{}
	for g := range r.Groups {
		groups[r.Groups[g].ID] = res.Groups[g]
	}
	for _, id := range sortedKeys(x.Groups) {
		got, ok := groups[id]
		switch {
		case !ok:
			fail("expectations name group %s, which the ruleset does not have", id)
		case got.String() != x.Groups[id]:
			fail("group %s: expected %s, got %s", id, x.Groups[id], got)
		}
	}
	if x.FieldErrors != nil {
		var got []string
		for _, e := range res.FieldErrors {
			got = append(got, e.Field)
		}
		want := append([]string{}, *x.FieldErrors...)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			fail("field errors: expected %v, got %v", want, got)
		}
	}
	for _, f := range x.MissingFields {
		if !slices.Contains(res.MissingFields, f) {
			fail("missing fields: expected %s among %v", f, res.MissingFields)
		}
	}
	r.checkValues(x.Values, res, fail)
}

// checkValues compares the named values a case expects with the figures
// the decision computed, naming the value and both figures when they
// differ.
func (r *Ruleset) checkValues(want map[string]json.RawMessage, res *Result, fail func(string, ...any)) {
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		i := slices.IndexFunc(r.Values, func(v NamedValue) bool { return v.ID == id })
		if i < 0 {
			fail("expectations name value %s, which the ruleset does not have", id)
			continue
		}
		v := &r.Values[i]
		got := "unknown"
		if res.Values[i].Known {
			got = string(constJSON(v.Type, res.Values[i], ""))
		}
		expected, ok := parseFigure(v.Type, want[id])
		switch {
		case !ok:
			fail("value %s: the expectation %s is not %s", id, want[id], an(v.Type))
		case !expected.Known && !res.Values[i].Known:
		case !expected.Known || !res.Values[i].Known || value.Compare(expected, res.Values[i]) != 0:
			fail("value %s: expected %s, got %s", id, string(want[id]), got)
		}
	}
}

// parseFigure reads an expected figure of sort s: a JSON number, bool or
// date string, or null for unknown.
func parseFigure(s Sort, raw json.RawMessage) (value.Value, bool) {
	text := string(raw)
	if text == "null" {
		return value.Value{}, true
	}
	switch s {
	case SortInt, SortDecimal:
		v, err := value.ParseNumber(text)
		return v, err == nil && (s == SortDecimal || v.Scale == 0)
	case SortBool:
		if text == "true" || text == "false" {
			return value.BoolValue(text == "true"), true
		}
	case SortDate:
		var d string
		if json.Unmarshal(raw, &d) == nil {
			if ord, ok := value.ParseDate(d); ok {
				return value.Value{Num: ord, Known: true}, true
			}
		}
	}
	return value.Value{}, false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
