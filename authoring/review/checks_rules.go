package review

// This file holds the checks about the draft and its tests: whether it
// compiles, how many tests there are, whether they pass, whether they
// decide each criterion both ways, and whether tests and draft agree on
// field names.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// draftCompiles is info when there is a compiled draft (it earns nothing:
// a draft is where a project starts), fail with the problem otherwise.
func draftCompiles(_ context.Context, in *Input) (outcome, error) {
	if r := in.Rules; r != nil {
		return outcome{status: StatusInfo, evidence: []string{fmt.Sprintf("section %s compiles: %d %s, %d %s, %d %s",
			r.SectionID, len(r.Groups), plural(len(r.Groups), "group"), r.NumCriteria(), plural(r.NumCriteria(), "criterion", "criteria"),
			len(writtenFields(r)), plural(len(writtenFields(r)), "field"))}}, nil
	}
	problem := draftProblem(*in)
	advice := "Generate a first draft from the project's sources and tests."
	if in.DraftProblem != "" && in.DraftProblem != "no draft yet" {
		first, _, _ := strings.Cut(problem, "\n")
		advice = fmt.Sprintf("Fix the draft's compile error (%s) and write it again.", first)
	}
	return outcome{status: StatusFail, evidence: []string{problem}, advice: advice}, nil
}

// testsPerSection counts the project's cases against minTests.
func testsPerSection(_ context.Context, in *Input) (outcome, error) {
	n := len(in.Cases)
	section := "the project's section"
	if in.Rules != nil {
		section = "section " + in.Rules.SectionID
	}
	o := outcome{evidence: []string{fmt.Sprintf("%d test %s for %s (at least %d recommended)", n, plural(n, "case"), section, minTests)}}
	switch {
	case n >= minTests:
		o.status = StatusPass
		o.strength = fmt.Sprintf("The section has %d test cases, enough to start pinning it down.", n)
	case n > 0:
		o.status = StatusWarn
		o.advice = fmt.Sprintf("Add %d more test %s (%d of %d): one at each threshold's boundary and one for each criterion failing on its own.",
			minTests-n, plural(minTests-n, "case"), n, minTests)
	default:
		o.status = StatusFail
		o.advice = fmt.Sprintf("Write at least %d test cases, each with the answers and the outcome the law gives, before generating.", minTests)
	}
	return o, nil
}

// testsPass lists the failing cases with their first mismatch.
func testsPass(_ context.Context, in *Input) (outcome, error) {
	if len(in.Results) == 0 {
		return na("there are no test cases to run"), nil
	}
	var failing []string
	first := ""
	for _, r := range in.Results {
		if r.Pass {
			continue
		}
		why := "it could not be evaluated"
		if len(r.Mismatches) > 0 {
			why = r.Mismatches[0]
		}
		failing = append(failing, fmt.Sprintf("case %q: %s", r.Name, why))
		if first == "" {
			first = fmt.Sprintf("%q (%s)", r.Name, why)
		}
	}
	if len(failing) == 0 {
		n := len(in.Results)
		return outcome{status: StatusPass, evidence: []string{fmt.Sprintf("all %d test %s pass", n, plural(n, "case"))},
			strength: fmt.Sprintf("All %d test %s pass against the draft.", n, plural(n, "case"))}, nil
	}
	return outcome{status: StatusFail, evidence: failing,
		advice: fmt.Sprintf("Make the %d failing test %s pass, starting with %s: refine the draft (in the studio, Generate and choose “Refine the ruleset in force”; through the API, generate with mode refine), or correct the test if the law says otherwise.",
			len(failing), plural(len(failing), "case"), first)}, nil
}

// criteriaBothWays checks that every criterion that has an expression is
// seen satisfied by some case and not_satisfied by another.
func criteriaBothWays(_ context.Context, in *Input) (outcome, error) {
	r := in.Rules
	n := r.NumCriteria()
	sat, not := make([]bool, n), make([]bool, n)
	evaluated := 0
	for _, cr := range in.Results {
		if cr.Result == nil || len(cr.Result.Criteria) != n {
			continue
		}
		evaluated++
		for i, st := range cr.Result.Criteria {
			sat[i] = sat[i] || st == engine.Satisfied
			not[i] = not[i] || st == engine.NotSatisfied
		}
	}
	var discretionary, neither, onlyNot, onlySat []string
	checked := 0
	for i := range n {
		c, _ := r.CriterionAt(i)
		if c.Discretionary {
			discretionary = append(discretionary, c.ID)
			continue
		}
		checked++
		switch {
		case !sat[i] && !not[i]:
			neither = append(neither, c.ID)
		case !sat[i]:
			onlyNot = append(onlyNot, c.ID)
		case !not[i]:
			onlySat = append(onlySat, c.ID)
		}
	}
	note := ""
	if len(discretionary) > 0 {
		note = fmt.Sprintf("discretionary criteria excluded (always pending): %s", strings.Join(discretionary, ", "))
	}
	switch {
	case checked == 0:
		return na("every criterion is discretionary, so no case can decide one"), nil
	case evaluated == 0:
		return na("no test case could be evaluated against the draft"), nil
	}
	var ev []string
	for _, id := range neither {
		ev = append(ev, fmt.Sprintf("criterion %s: never decided by any case (neither satisfied nor not_satisfied)", id))
	}
	for _, id := range onlyNot {
		ev = append(ev, fmt.Sprintf("criterion %s: never satisfied by any case", id))
	}
	for _, id := range onlySat {
		ev = append(ev, fmt.Sprintf("criterion %s: never not_satisfied by any case", id))
	}
	o := outcome{evidence: ev}
	switch {
	case len(neither) > 0:
		o.status = StatusFail
		o.advice = fmt.Sprintf("Add cases that decide criterion %s: one where it is satisfied and one where it is not (%d %s never decided).",
			neither[0], len(neither), plural(len(neither), "criterion is", "criteria are"))
	case len(onlyNot) > 0:
		o.status = StatusWarn
		o.advice = fmt.Sprintf("Add a case where criterion %s is satisfied, and likewise for each criterion listed.", onlyNot[0])
	case len(onlySat) > 0:
		o.status = StatusWarn
		o.advice = fmt.Sprintf("Add a case where criterion %s is not satisfied (on its own, the others holding), and likewise for each criterion listed.", onlySat[0])
	default:
		o.status = StatusPass
		o.evidence = []string{fmt.Sprintf("all %d %s seen both satisfied and not_satisfied", checked, plural(checked, "criterion", "criteria"))}
		o.strength = fmt.Sprintf("Every one of the %d decidable criteria is seen both satisfied and not satisfied.", checked)
	}
	if note != "" {
		o.evidence = append(o.evidence, note)
	}
	return o, nil
}

// writtenField is a field as the rules write it: id is member.age for a
// field of each member, and slot the first member's copy, which is read
// wherever any member's is.
type writtenField struct {
	id   string
	slot *engine.Field
}

// writtenFields lists r's fields as the rules write them: a field of each
// member once, however many members the list holds, so that review counts
// and names what the team wrote rather than the compiler's copies.
func writtenFields(r *engine.Ruleset) []writtenField {
	out := make([]writtenField, 0, len(r.Fields))
	for i := range r.Fields {
		f := &r.Fields[i]
		switch {
		case f.Member == nil:
			out = append(out, writtenField{id: f.ID, slot: f})
		case f.Member.Index == 0:
			out = append(out, writtenField{id: f.Member.List + "." + f.Member.Name, slot: f})
		}
	}
	return out
}

// unusedFields lists declared fields no criterion reads and test field
// names the draft does not declare.
func unusedFields(_ context.Context, in *Input) (outcome, error) {
	r := in.Rules
	read := map[string]bool{}
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		for _, f := range c.Fields {
			read[f] = true
		}
	}
	// A review point's completion field (group.<criterion id> of a
	// discretionary criterion) is read by the official, not a criterion.
	for gi := range r.Groups {
		for _, c := range r.Groups[gi].Criteria {
			if c.Discretionary {
				for _, f := range r.Fields {
					if _, name, _ := strings.Cut(f.ID, "."); name == c.ID {
						read[f.ID] = true
					}
				}
			}
		}
	}
	var ev, unread []string
	written := writtenFields(r)
	for _, f := range written {
		if !read[f.slot.ID] {
			unread = append(unread, f.id)
			ev = append(ev, fmt.Sprintf("field %s is declared but no criterion reads it", f.id))
		}
	}
	declared := len(written)
	firstCase, firstField := "", ""
	seen := map[string]bool{}
	ignored := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		fields := slices.Clone(in.IgnoredFields[name])
		sort.Strings(fields)
		for _, f := range fields {
			ev = append(ev, fmt.Sprintf("case %q sends %s, which the draft does not declare (treated as absent)", name, f))
			if firstField == "" {
				firstCase, firstField = name, f
			}
		}
	}
	for _, c := range in.Cases {
		ignored(c.Name)
	}
	rest := make([]string, 0, len(in.IgnoredFields))
	for name := range in.IgnoredFields {
		rest = append(rest, name)
	}
	sort.Strings(rest)
	for _, name := range rest {
		ignored(name)
	}
	switch {
	case len(ev) == 0:
		return outcome{status: StatusPass, evidence: []string{fmt.Sprintf("all %d declared fields are read, and every test field is declared", declared)},
			strength: "Every declared field is read by some criterion, and the tests use the draft's field names."}, nil
	case firstField != "":
		return outcome{status: StatusWarn, evidence: ev, via: viaTests,
			advice: fmt.Sprintf("Rename %s in case %q (and every other test field listed) to a field id the draft declares; until then it is treated as absent.",
				firstField, firstCase)}, nil
	}
	return outcome{status: StatusWarn, evidence: ev,
		advice: fmt.Sprintf("Remove the %s no criterion reads (%s), or refine the draft so that the criterion that needs %s reads %s.",
			plural(len(unread), "field"), strings.Join(unread, ", "), plural(len(unread), "it", "them"), plural(len(unread), "it", "them"))}, nil
}

// effectivePeriod warns when the draft's effective period ended before
// in.Today or before the period of the version live under its slug began
// (engine.StalePeriod, the same words publish answers with); na when the
// draft declares no period, which holds for every date.
func effectivePeriod(_ context.Context, in *Input) (outcome, error) {
	p := in.Rules.Effective
	if p == nil {
		return na("the draft declares no effective period: it holds for every decision date"), nil
	}
	notices := engine.StalePeriod(p, in.Today, in.LivePeriod, in.LiveLabel)
	if len(notices) == 0 {
		return outcome{status: StatusPass, evidence: []string{"effective " + p.String() + ", current as of " + value.FormatDate(in.Today)},
			strength: "The rules' effective period is current."}, nil
	}
	ev := make([]string, len(notices))
	for i, n := range notices {
		ev[i] = n.Code + ": " + n.Message
	}
	return outcome{status: StatusWarn, evidence: ev,
		advice: fmt.Sprintf("Check the draft's `effective %s` header: rules for a period that has passed decide nothing after it; publish them only to correct past law.", p)}, nil
}
