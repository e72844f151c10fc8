// Package enginetest draws random answer sets for a compiled ruleset,
// biased toward the values where its decisions flip. It is a helper for
// tests only: no production package imports it.
//
// It exists because two sets of tests need the same answers in two forms.
// The solver's differential test (its encoding against the evaluator) and
// its property tests (paths, polarity, explanations) want engine Values;
// the rulebook composition's differential test (a composed ruleset against
// its members, each converting the request itself) wants those answers as
// a request would send them. One Sampler serves both, so the boundary walk
// is written once and a change to how answers are drawn reaches every
// test that depends on it.
//
// The package imports only the engine and the standard library, so the
// tests of any package above the engine may import it.
package enginetest

import (
	"encoding/json"
	"math/rand/v2"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// Sampler draws random answers for one ruleset, biased toward the values
// where decisions flip: each constant the rules compare a numeric field
// with (or default it to), one unit either side of it; for dates, the date
// constants and the decision date less each whole number of years or months
// the rules count, a day either side, and 29 February. Random answers
// alone would almost never land on a boundary, which is where an encoding
// or a composition goes wrong.
//
// A Sampler is seeded, so a failing sample reproduces; it is not safe for
// concurrent use (each test goroutine makes its own).
type Sampler struct {
	r   *engine.Ruleset
	rnd *rand.Rand
	// near[slot] are the constants compared with numeric field slot.
	near [][]value.Value
	// counts are the int constants compared with no field: candidate
	// numbers of years or months (ages, periods of residence).
	counts []int64
	// dates are the ruleset's date constants.
	dates []int64
}

// NewSampler walks r's criteria once for the constants that mark its
// boundaries and returns a Sampler drawing from the PCG stream of seed.
// The same ruleset and seed give the same draws, call for call, so a test
// names the seed that reproduces a failure.
func NewSampler(r *engine.Ruleset, seed uint64) *Sampler {
	s := &Sampler{r: r, rnd: rand.New(rand.NewPCG(seed, 0x5eed)), near: make([][]value.Value, len(r.Fields))}
	var walk func(x *engine.Expr)
	walk = func(x *engine.Expr) {
		if x == nil {
			return
		}
		if x.Kind == engine.ExprConst {
			switch {
			case x.Sort == engine.SortDate:
				s.dates = append(s.dates, x.Const.Num)
			case x.FieldContext != "":
				// Only numeric fields draw from near; an enum or
				// bool constant has nothing between its values.
				if i := r.FieldIndex(x.FieldContext); i >= 0 && x.Sort.Numeric() {
					s.near[i] = append(s.near[i], x.Const)
				}
			case x.Sort == engine.SortInt:
				s.counts = append(s.counts, x.Const.Num)
			}
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	for i := range r.Values {
		for _, x := range r.Values[i].Exprs() {
			walk(x)
		}
	}
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		walk(c.Expr)
	}
	return s
}

// DecisionDate draws a decision date from 1990 to 2060 (days 1 to 28), to
// pass to Inputs, Answers or Value and to the evaluation: the date
// boundaries move with it, so a test varies it with the answers.
func (s *Sampler) DecisionDate() int64 {
	return value.DateOrdinal(1990+s.rnd.IntN(70), 1+s.rnd.IntN(12), 1+s.rnd.IntN(28))
}

// Inputs draws one answer set as engine Values, each field answered with
// probability answered (0: none, 1: all) and Provided counting those, as
// the solver's tests evaluate and encode it directly.
func (s *Sampler) Inputs(answered float64, decision int64) *engine.Inputs {
	in := &engine.Inputs{Values: make([]value.Value, len(s.r.Fields))}
	for i := range s.r.Fields {
		if s.rnd.Float64() >= answered {
			continue
		}
		in.Values[i] = s.Value(i, decision)
		in.Provided++
	}
	// A member's answer is drawn only for the members the list holds, as
	// a request can only send those.
	for i := range s.r.Fields {
		if in.Values[i].Known && !s.r.InList(i, in) {
			in.Values[i] = value.Value{}
			in.Provided--
		}
	}
	return in
}

// Answers draws one answer set as a request's field_values would carry
// it, for tests that hand the answers to code that converts them itself
// (engine.Ruleset.ConvertMap): a json.Number for a number, a bool, the
// enum's listed string, "YYYY-MM-DD" for a date, written with the engine's
// own formatting. Each field is answered with probability answered; an
// unanswered field is left out. It draws exactly as Inputs does, so from
// the same seed ConvertMap of the answers gives Inputs' values.
func (s *Sampler) Answers(answered float64, decision int64) map[string]any {
	m := map[string]any{}
	for i := range s.r.Fields {
		if s.rnd.Float64() >= answered {
			continue
		}
		m[s.r.Fields[i].ID] = s.wire(i, s.Value(i, decision))
	}
	// A list is sent as the list of its members' answers.
	return s.r.NestMembers(m)
}

// wire writes v, a known value of field slot, as the request would.
func (s *Sampler) wire(slot int, v value.Value) any {
	f := &s.r.Fields[slot]
	switch f.Type {
	case engine.SortBool:
		return v.True()
	case engine.SortEnum:
		return f.EnumValues[v.Num]
	case engine.SortDate:
		return value.FormatDate(v.Num)
	}
	return json.Number(v.NumberString())
}

// Value draws one known answer for field slot, for a test that sets one
// field at a time. A bool or enum is uniform over its values; a date comes
// from the date boundaries (see Sampler); a number is, three draws in
// four, a constant the field is compared with, one unit either side (at
// the constant's scale or a finer one), otherwise anything up to about
// 200,000 either way, most of it positive. An int field only ever gets a
// whole number; a decimal draws its scale, 0 to 2 places.
//
// A number stays inside the field's declared range, as an answer the
// evaluator takes must: a draw outside it is drawn again, a few times,
// then gives way to the range's nearer end.
func (s *Sampler) Value(slot int, decision int64) value.Value {
	f := &s.r.Fields[slot]
	v := s.draw(f, slot, decision)
	for tries := 0; f.Range != nil && !f.Range.Contains(v); tries++ {
		if tries == maxRedraws {
			if below := !(engine.Range{Min: f.Range.Min}).Contains(v); below {
				return f.Range.Min
			}
			return f.Range.Max
		}
		v = s.draw(f, slot, decision)
	}
	return v
}

// maxRedraws is how often Value draws again for a number outside its
// field's range before it takes the range's end.
const maxRedraws = 8

// draw is one draw of Value, whatever the field's range.
func (s *Sampler) draw(f *engine.Field, slot int, decision int64) value.Value {
	switch f.Type {
	case engine.SortBool:
		return value.BoolValue(s.rnd.IntN(2) == 1)
	case engine.SortEnum:
		return value.Value{Num: int64(s.rnd.IntN(len(f.EnumValues))), Known: true}
	case engine.SortDate:
		return value.Value{Num: s.date(decision), Known: true}
	}
	scale := uint8(0)
	if f.Type == engine.SortDecimal {
		scale = uint8(s.rnd.IntN(3))
	}
	if near := s.near[slot]; len(near) > 0 && s.rnd.IntN(4) != 0 {
		k := near[s.rnd.IntN(len(near))]
		num := k.Num
		if f.Type == engine.SortInt {
			// An int field compared with a fractional constant: its
			// boundary lies between the whole numbers either side.
			for sc := uint8(0); sc < k.Scale; sc++ {
				num /= 10
			}
			return value.Value{Num: num + int64(s.rnd.IntN(3)-1), Known: true}
		}
		// Bring the constant to the drawn scale (or the drawn scale up to
		// the constant's), then step -1, 0 or +1 unit of that scale.
		scale = max(scale, k.Scale)
		for sc := k.Scale; sc < scale; sc++ {
			num *= 10
		}
		return value.Value{Num: num + int64(s.rnd.IntN(3)-1), Scale: scale, Known: true}
	}
	mag := []int64{10, 1000, 100000}[s.rnd.IntN(3)]
	num := s.rnd.Int64N(2*mag+1) - mag/10
	for sc := uint8(0); sc < scale; sc++ {
		num *= 10
	}
	return value.Value{Num: num, Scale: scale, Known: true}
}

// Dates a field accepts: 0001-01-01 to 9999-12-31.
var (
	firstDate = value.DateOrdinal(1, 1, 1)
	lastDate  = value.DateOrdinal(9999, 12, 31)
)

// date draws a date ordinal: near a date constant, near the decision date
// less a counted number of years or months, around 29 February, or
// anywhere from 1900 to 2060. A boundary that falls outside the dates a
// field accepts gives way to the last.
func (s *Sampler) date(decision int64) int64 {
	jitter := int64(s.rnd.IntN(3) - 1)
	switch s.rnd.IntN(5) {
	case 0:
		if len(s.dates) > 0 {
			if d := s.dates[s.rnd.IntN(len(s.dates))] + jitter; d >= firstDate && d <= lastDate {
				return d
			}
		}
	case 1, 2:
		if len(s.counts) > 0 {
			n := int(s.counts[s.rnd.IntN(len(s.counts))])
			y, m, d := value.Civil(decision)
			if s.rnd.IntN(2) == 0 {
				y -= n
			} else {
				// Whole years, then the months left (negative for a
				// negative count: months forward).
				y, m = y-n/12, m-n%12
				if m < 1 {
					y, m = y-1, m+12
				} else if m > 12 {
					y, m = y+1, m-12
				}
			}
			if y >= 1 && y <= 9999 {
				if o := value.DateOrdinal(y, m, min(d, 28)) + jitter; o >= firstDate && o <= lastDate {
					return o
				}
			}
		}
	case 3:
		y := 1940 + 4*s.rnd.IntN(25)
		return value.DateOrdinal(y, 2, 29) + jitter
	}
	return value.DateOrdinal(1900+s.rnd.IntN(160), 1+s.rnd.IntN(12), 1+s.rnd.IntN(28))
}
