package verify

import (
	"encoding/json"
	"slices"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// This file turns a goal's model into a test case: the answers made
// readable (simplify), written as a case, and checked for the goals it
// meets.

// simplify replaces each number in in by the first of 0, ±1, ±10, ±100,
// ... nearer zero, or else of its roundings to fewer decimals (fewest
// first), that keeps probe criterion k (the goal) satisfied and every
// criterion of r, and so the outcome, as it was: the solver picks values at
// the edges of what the constraints allow (a household of 100000), which
// read badly in a case.
func simplify(r, probe *engine.Ruleset, in *engine.Inputs, k int, date int64) {
	opts := engine.Options{DecisionDate: date}
	want := r.Evaluate(in, opts)
	var res engine.Result
	keeps := func() bool {
		if probe.EvaluateInto(in, opts, &res); res.Criteria[k] != engine.Satisfied || len(res.FieldErrors) > 0 {
			return false
		}
		r.EvaluateInto(in, opts, &res)
		return len(res.FieldErrors) == 0 && slices.Equal(res.Criteria, want.Criteria)
	}
	for i, f := range r.Fields {
		v := in.Values[i]
		if !f.Type.Numeric() || v.Num == 0 {
			continue
		}
		sign, abs := int64(1), v.Num
		if abs < 0 {
			sign, abs = -1, -abs
		}
		tries := []value.Value{{Known: true}}
		for p := int64(1); p < abs/pow10(v.Scale) && len(tries) < 19; p *= 10 {
			tries = append(tries, value.Value{Num: sign * p, Known: true})
		}
		for s := range v.Scale {
			unit := pow10(v.Scale - s)
			tries = append(tries, value.Value{Num: sign * (abs / unit), Scale: s, Known: true},
				value.Value{Num: sign * (abs/unit + 1), Scale: s, Known: true})
		}
		for _, t := range tries {
			if f.Range != nil && !f.Range.Contains(t) {
				continue // an answer the field's range refuses is no simpler case
			}
			if in.Values[i] = t; keeps() {
				break
			}
			in.Values[i] = v
		}
	}
}

func pow10(n uint8) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// writeCase is the case answering every field of r as in, named name.
func writeCase(r *engine.Ruleset, name string, in *engine.Inputs, date int64) engine.Case {
	c := engine.Case{Name: name, FieldValues: r.WireAnswers(in.Values, false)}
	if r.ReadsDecisionDate {
		c.DecisionDate = value.FormatDate(date)
	}
	return c
}

// goalsMet evaluates case c in the probe, as of the date a test run
// decides c as of (engine.Ruleset.CaseDate: an undated case of a ruleset
// with an effective period is decided as of its first day, which a probe
// reading a table with periods needs), and reports which of the first n
// probe criteria (the goals) it meets; ok is false when c cannot be
// evaluated cleanly (unreadable answers, field errors, no decision date for
// a ruleset that reads it), and it then meets nothing.
func goalsMet(r, probe *engine.Ruleset, c engine.Case, n int) (met []bool, ok bool) {
	date, err := r.CaseDate(c)
	if err != nil {
		return nil, false
	}
	raw := c.FieldValues
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	in, err := probe.Convert(raw)
	if err != nil || len(in.FieldErrors) > 0 {
		return nil, false
	}
	res := probe.Evaluate(in, engine.Options{DecisionDate: date})
	if len(res.FieldErrors) > 0 {
		return nil, false
	}
	met = make([]bool, n)
	for k := range met {
		met[k] = res.Criteria[k] == engine.Satisfied
	}
	return met, true
}
