package solver

import (
	"fmt"
	"math/big"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/z3"
)

// Statuses are the criterion, group and outcome statuses a model gives,
// indexed like engine.Result.
type Statuses struct {
	// Outcome is the model's outcome; undetermined when the outcome's
	// status is pending.
	Outcome engine.Outcome
	// Criteria is each criterion's status, in engine.Ruleset.CriterionAt
	// order.
	Criteria []engine.Status
	// Groups is each group's status, indexed like engine.Ruleset.Groups.
	Groups []engine.Status
}

// Decode reads the answers of a model back into engine inputs: a field whose
// presence is false is unanswered, any other gets the model's value in the
// engine's representation. It also returns the decision date the model
// chose (0 when the ruleset does not read it). A decimal value that no
// answer can spell (such as 1/3) is an error; assert DecimalGrid to rule
// those out.
func (e *Encoding) Decode(m *z3.Model) (*engine.Inputs, int64, error) {
	in := &engine.Inputs{Values: make([]value.Value, len(e.fields))}
	for i, fv := range e.fields {
		present, err := m.Bool(fv.present)
		if err != nil {
			return nil, 0, fmt.Errorf("solver: decode %s: %w", e.r.Fields[i].ID, err)
		}
		if !present {
			continue
		}
		v, err := e.decodeValue(m, e.r.Fields[i].Type, fv.val)
		if err != nil {
			return nil, 0, fmt.Errorf("solver: decode %s: %w", e.r.Fields[i].ID, err)
		}
		in.Values[i] = v
		in.Provided++
	}
	var date int64
	if e.decision != nil {
		d, err := m.Int64(e.decision.val)
		if err != nil {
			return nil, 0, fmt.Errorf("solver: decode decision date: %w", err)
		}
		date = d
	}
	return in, date, nil
}

func (e *Encoding) decodeValue(m *z3.Model, s engine.Sort, t *z3.Expr) (value.Value, error) {
	switch s {
	case engine.SortBool:
		b, err := m.Bool(t)
		if err != nil {
			return value.Value{}, err
		}
		return value.BoolValue(b), nil
	case engine.SortDecimal:
		r, err := m.Rat(t)
		if err != nil {
			return value.Value{}, err
		}
		v, ok := RatValue(r)
		if !ok {
			return value.Value{}, fmt.Errorf("%s is not a decimal of at most 18 digits", r.RatString())
		}
		return v, nil
	}
	n, err := m.Int64(t)
	if err != nil {
		return value.Value{}, err
	}
	return value.Value{Num: n, Known: true}, nil
}

// RatValue is the engine decimal equal to r, with the fewest digits after
// the point, if r is a decimal the engine can hold. Decoding a model reads
// values with it; the suggested cases of solver/verify write thresholds
// and their neighbours with it, so both round the same way.
func RatValue(r *big.Rat) (value.Value, bool) {
	x := new(big.Rat).Set(r)
	ten := big.NewRat(10, 1)
	for scale := 0; scale <= 18; scale++ {
		if x.IsInt() {
			n := x.Num()
			if !n.IsInt64() || n.CmpAbs(big.NewInt(maxMagnitude)) >= 0 {
				return value.Value{}, false
			}
			return value.Value{Num: n.Int64(), Scale: uint8(scale), Known: true}, true
		}
		x.Mul(x, ten)
	}
	return value.Value{}, false
}

// Statuses reads the status of every criterion, group and the outcome in a
// model.
func (e *Encoding) Statuses(m *z3.Model) (Statuses, error) {
	st := Statuses{
		Criteria: make([]engine.Status, len(e.criteria)),
		Groups:   make([]engine.Status, len(e.groups)),
	}
	for i, t := range e.criteria {
		s, err := triStatus(m, t)
		if err != nil {
			return Statuses{}, fmt.Errorf("solver: status of criterion %d: %w", i, err)
		}
		st.Criteria[i] = s
	}
	for g, t := range e.groups {
		s, err := triStatus(m, t)
		if err != nil {
			return Statuses{}, fmt.Errorf("solver: status of group %s: %w", e.r.Groups[g].ID, err)
		}
		st.Groups[g] = s
	}
	s, err := triStatus(m, e.outcome)
	if err != nil {
		return Statuses{}, fmt.Errorf("solver: status of the outcome: %w", err)
	}
	switch s {
	case engine.Satisfied:
		st.Outcome = engine.Eligible
	case engine.NotSatisfied:
		st.Outcome = engine.NotEligible
	}
	return st, nil
}

// triStatus reads a Tri in a model.
func triStatus(m *z3.Model, t Tri) (engine.Status, error) {
	k, err := m.Bool(t.Known)
	if err != nil || !k {
		return engine.Pending, err
	}
	v, err := m.Bool(t.Value)
	if err != nil {
		return engine.Pending, err
	}
	if v {
		return engine.Satisfied, nil
	}
	return engine.NotSatisfied, nil
}
