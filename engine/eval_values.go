package engine

import (
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file is the evaluator's half for named values and tables: a
// table's lookup in the program, the machine's lookup of a row and its
// one computation of each value, and the work after a decision that reads
// them (the values a decision skipped, the row a figure came from).

// tableProg is a table's lookup in the program: its keys' instructions and
// its rows, period by period.
type tableProg struct {
	// keys are the instructions of the table's keys.
	keys []int32
	// periods are the table's periods; one with a zero Period for a table
	// without periods.
	periods []periodProg
}

// periodProg is the rows of one period of a table.
type periodProg struct {
	// period is the days the rows hold for; zero for a table without
	// periods.
	period Period
	// rows are the rows, in order.
	rows []rowProg
}

// rowProg is a table row: its matches and its figure's instruction.
type rowProg struct {
	// match holds one KeyMatch per key.
	match []KeyMatch
	// value is the instruction of the row's figure.
	value int32
}

// emitTable compiles a table's keys and rows.
func (p *program) emitTable(v *NamedValue) *tableProg {
	t := &tableProg{}
	for _, k := range v.Keys {
		t.keys = append(t.keys, p.emit(k))
	}
	rows := func(rs []TableRow) []rowProg {
		out := make([]rowProg, len(rs))
		for i, r := range rs {
			out[i] = rowProg{match: r.Match, value: p.emit(r.Value)}
		}
		return out
	}
	if len(v.Periods) == 0 {
		t.periods = []periodProg{{rows: rows(v.Rows)}}
	}
	for _, tp := range v.Periods {
		t.periods = append(t.periods, periodProg{period: tp.Period, rows: rows(tp.Rows)})
	}
	return t
}

// computeValues computes every named value res has not: the evaluation
// computes only those its decision needs (and the outputs), while a test
// case may assert any. A fault here is not a field error of the decision,
// which is already made; the value stays unknown.
func (r *Ruleset) computeValues(in *Inputs, res *Result) {
	m := r.resultMachine(in, res)
	for i := range r.Values {
		m.value(int32(i))
	}
}

// resultMachine is a machine that reads in and shares res's figures, for
// work after a decision: computing the values it skipped, finding the row
// a table's figure came from.
func (r *Ruleset) resultMachine(in *Inputs, res *Result) machine {
	m := machine{p: &r.prog, main: &r.prog, r: r, inputs: in.Values, values: res.Values, valueState: res.valueState}
	if res.DecisionDate != 0 {
		m.date = value.Value{Num: res.DecisionDate, Known: true}
	}
	return m
}

// tableRow returns the row table value v's figure came from in res, the
// evaluation of in, with the period that row belongs to (nil for a table
// without periods); ok is false when the lookup found none.
func (r *Ruleset) tableRow(v int, in *Inputs, res *Result) (row *TableRow, period *Period, ok bool) {
	if r.prog.tables == nil || r.prog.tables[v] == nil {
		return nil, nil, false
	}
	m := r.resultMachine(in, res)
	p, i := m.findRow(r.prog.tables[v])
	if i < 0 {
		return nil, nil, false
	}
	nv := &r.Values[v]
	if len(nv.Periods) == 0 {
		return &nv.Rows[i], nil, true
	}
	return &nv.Periods[p].Rows[i], &nv.Periods[p].Period, true
}

// maxKeys is the most keys a table has (syntax.MaxTableKeys), so that a lookup
// holds its key values on the stack.
const maxKeys = syntax.MaxTableKeys

// lookup finds a table's figure: the row of the period the decision date
// falls in whose matches take the keys' values. It is unknown while a key
// or the decision date is unknown (and, though the compiler proves it
// cannot happen, when no row matches).
func (m *machine) lookup(t *tableProg) value.Value {
	p, i := m.findRow(t)
	if i < 0 {
		return value.Value{}
	}
	return m.eval(t.periods[p].rows[i].value)
}

// findRow returns the period and row of table t its keys select on the
// decision date, or a row of -1 when a key is unknown or no period holds
// on that date (the compiler proves the rows of a period total).
func (m *machine) findRow(t *tableProg) (period, row int) {
	var keys [maxKeys]value.Value
	for k, ins := range t.keys {
		if keys[k] = m.eval(ins); !keys[k].Known {
			return 0, -1
		}
	}
	period = -1
	if t.periods[0].period.From == 0 {
		period = 0
	} else {
		for p, pp := range t.periods {
			if m.date.Known && pp.period.Covers(m.date.Num) {
				period = p
				break
			}
		}
	}
	if period < 0 {
		return 0, -1
	}
	for i, r := range t.periods[period].rows {
		all := true
		for k := range r.match {
			if !r.match[k].Matches(keys[k]) {
				all = false
				break
			}
		}
		if all {
			return period, i
		}
	}
	return 0, -1
}

// The states of a named value in one evaluation.
const (
	valueNotYet uint8 = iota
	valueComputing
	valueDone
)

// value returns named value i, computing it on first use with the
// ruleset's own program: every criterion, value and output that reads it
// shares the one figure. A value whose arithmetic has no result is a field
// error naming the value, reported once, and reads as unknown.
func (m *machine) value(i int32) value.Value {
	switch m.valueState[i] {
	case valueDone:
		return m.values[i]
	case valueComputing:
		return value.Value{} // a cycle, which the checker and Build refuse
	}
	var table *tableProg
	if m.main.tables != nil {
		table = m.main.tables[i]
	}
	if m.main.values[i] < 0 && table == nil {
		return value.Value{}
	}
	m.valueState[i] = valueComputing
	p, fault := m.p, m.fault
	m.p, m.fault = m.main, value.NoFault
	var v value.Value
	if table != nil {
		v = m.lookup(table)
	} else {
		v = m.eval(m.main.values[i])
	}
	if m.fault != value.NoFault {
		if m.res != nil {
			nv := &m.r.Values[i]
			m.res.FieldErrors = append(m.res.FieldErrors, faultError("value", nv.ID, nv.Fields, m.fault))
		}
		v = value.Value{}
	}
	m.p, m.fault = p, fault
	m.values[i], m.valueState[i] = v, valueDone
	return v
}
