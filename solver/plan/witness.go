package plan

import (
	"math/rand/v2"
	"slices"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// A witness is a concrete set of answers, checked by the engine itself. When
// one exists among a few likely values, a candidate is reachable without a
// solver query: the evaluator is the definition of reachability, and the
// solver only stands in for it where no value can be guessed. On rulesets
// that count years and months between dates a Z3 check takes milliseconds
// and an evaluation a microsecond, so the guesses pay for themselves; a
// candidate that no guess reaches still goes to the solver, so the result
// never depends on the guessing.

// witnessTries bounds the evaluations spent on one candidate.
const witnessTries = 24

// witnessValues are the likely values of each field: each constant the rules
// compare the field with or default it to, one unit either side of it, every
// enum value, both bools, and for dates each date constant a day either
// side. Dates a whole number of years or months before the decision date
// depend on the request and are added by the query.
type witnessValues struct {
	// perField[slot] are the likely values of that field, computed once
	// per ruleset; empty for a date field no date constant is near (the
	// query may still add dates relative to the decision date).
	perField [][]value.Value
	// counts are the int constants not tied to a field (ages, months).
	counts []int64
}

func newWitnessValues(rs *engine.Ruleset) witnessValues {
	w := witnessValues{perField: make([][]value.Value, len(rs.Fields))}
	var dates []int64
	var walk func(x *engine.Expr)
	walk = func(x *engine.Expr) {
		if x.Kind == engine.ExprConst {
			switch {
			case x.Sort == engine.SortDate:
				dates = append(dates, x.Const.Num)
			case x.FieldContext != "" && x.Sort.Numeric():
				if i := rs.FieldIndex(x.FieldContext); i >= 0 {
					for d := int64(-1); d <= 1; d++ {
						v := x.Const
						v.Num += d
						w.perField[i] = append(w.perField[i], v)
					}
				}
			case x.Sort == engine.SortInt:
				w.counts = append(w.counts, x.Const.Num)
			}
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	for i := range rs.NumCriteria() {
		if c, _ := rs.CriterionAt(i); c.Expr != nil {
			walk(c.Expr)
		}
	}
	for i, f := range rs.Fields {
		switch f.Type {
		case engine.SortBool:
			w.perField[i] = []value.Value{value.BoolValue(false), value.BoolValue(true)}
		case engine.SortEnum:
			w.perField[i] = nil
			for k := range f.EnumValues {
				w.perField[i] = append(w.perField[i], value.Value{Num: int64(k), Known: true})
			}
		case engine.SortDate:
			for _, d := range dates {
				w.perField[i] = appendDates(w.perField[i], d)
			}
		case engine.SortInt, engine.SortDecimal:
			w.perField[i] = append(w.perField[i], value.IntValue(0))
			if g := f.Range; g != nil {
				// Only answers the field's range allows witness anything:
				// the evaluator refuses the others as field errors.
				w.perField[i] = slices.DeleteFunc(w.perField[i], func(v value.Value) bool { return !g.Contains(v) })
				if g.Min.Known {
					w.perField[i] = append(w.perField[i], g.Min)
				}
			}
		}
	}
	return w
}

// Ordinals of the dates an answer may hold: 0001-01-01 to 9999-12-31.
const minDateOrdinal, maxDateOrdinal = 1, 3652059

// appendDates appends the day before ord, ord and the day after, those
// that are dates an answer may hold.
func appendDates(vs []value.Value, ord int64) []value.Value {
	for j := int64(-1); j <= 1; j++ {
		if o := ord + j; o >= minDateOrdinal && o <= maxDateOrdinal {
			vs = append(vs, value.Value{Num: o, Known: true})
		}
	}
	return vs
}

// witness searches a request's likely answers for the fields of a candidate.
type witness struct {
	// q is the request whose answers the guesses extend.
	q *planQuery
	// values[slot] are the likely values to try: the way model's, plus
	// for dates the ones relative to the request's decision date.
	values [][]value.Value
	// in is scratch: the request's answers with one guess applied.
	in engine.Inputs
	// res is scratch for evaluating in, reused so a guess does not
	// allocate.
	res engine.Result
	// opts carries the request's decision date into each evaluation.
	opts engine.Options
}

func newWitness(q *planQuery) *witness {
	m := q.m
	w := &witness{q: q, values: m.witness.perField, opts: engine.Options{DecisionDate: q.res.DecisionDate}}
	w.in.Values = make([]value.Value, len(q.in.Values))
	if date := q.res.DecisionDate; date != 0 && len(m.witness.counts) > 0 {
		// Birthdays and anniversaries: the decision date less each count
		// of years or months, a day either side.
		y, mo, d := value.Civil(date)
		var rel []value.Value
		for _, k := range m.witness.counts {
			if k < 0 || k > 150*12 {
				continue
			}
			rel = appendDates(rel, value.DateOrdinal(y-int(k), mo, d))
			months := int(k)
			yy, mm := y-(months/12), mo-(months%12)
			if mm < 1 {
				yy, mm = yy-1, mm+12
			}
			rel = appendDates(rel, value.DateOrdinal(yy, mm, min(d, 28)))
		}
		w.values = make([][]value.Value, len(m.witness.perField))
		for i, f := range m.rs.Fields {
			w.values[i] = m.witness.perField[i]
			if f.Type == engine.SortDate {
				w.values[i] = append(append([]value.Value(nil), w.values[i]...), rel...)
			}
		}
	}
	return w
}

// reaches reports whether some likely answers for the fields of ask make the
// engine's outcome reach g. false means only that no guess did.
func (w *witness) reaches(ask fieldSet, g pathGoal) bool {
	slots := ask.slots()
	for _, s := range slots {
		if len(w.values[s]) == 0 {
			return false
		}
	}
	// The guesses depend on the candidate only, so a plan is reproducible.
	rnd := rand.New(rand.NewPCG(ask.seed()))
	for try := range witnessTries {
		copy(w.in.Values, w.q.in.Values)
		for _, s := range slots {
			vs := w.values[s]
			k := rnd.IntN(len(vs))
			if try == 0 {
				k = len(vs) / 2
			}
			w.in.Values[s] = vs[k]
		}
		w.q.m.rs.EvaluateInto(&w.in, w.opts, &w.res)
		if o := w.res.Outcome; o == engine.Eligible || (g == goalSettled && o == engine.NotEligible) {
			return true
		}
	}
	return false
}
