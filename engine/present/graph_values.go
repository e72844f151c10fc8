package present

import (
	"encoding/json"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file draws a ruleset's named values and tables in its graph
// (docs/api.md#the-graph): which fields and values each value and
// criterion reads directly, how a value is defined in the rules language,
// and a value's figure in one evaluation.

// directReads finds the fields and named values an expression reads
// itself, not through a value: the graph's edges, so that a criterion
// reading net income is drawn from the net income node rather than from
// every answer behind it.
type directReads struct {
	// r is the ruleset the expressions belong to.
	r *engine.Ruleset
	// field and value mark the slots and value indexes read by the
	// expressions of the current node; cleared after each.
	field, value []bool
}

func newDirectReads(r *engine.Ruleset) *directReads {
	return &directReads{r: r, field: make([]bool, len(r.Fields)), value: make([]bool, len(r.Values))}
}

// edges appends to out an edge of type fromField into target from each
// field exprs read directly and one of type fromValue from each named
// value they read, fields then values, each in declaration order, and
// returns out. candidates are the slots the node reads at all (its Slots,
// in declaration order): the direct reads are among them.
func (d *directReads) edges(out []GraphEdge, target string, candidates []int, fromField, fromValue GraphEdgeType, exprs ...*engine.Expr) []GraphEdge {
	values := 0
	for _, e := range exprs {
		values += d.mark(e)
	}
	for _, s := range candidates {
		if d.field[s] {
			d.field[s] = false
			out = append(out, GraphEdge{Source: fieldNodePrefix + d.r.Fields[s].ID, Target: target, Type: fromField})
		}
	}
	for vi := 0; values > 0 && vi < len(d.value); vi++ {
		if d.value[vi] {
			d.value[vi] = false
			values--
			out = append(out, GraphEdge{Source: valueNodePrefix + d.r.Values[vi].ID, Target: target, Type: fromValue})
		}
	}
	return out
}

// mark marks the fields and values e reads directly and returns how many
// values it newly marked.
func (d *directReads) mark(e *engine.Expr) int {
	if e == nil {
		return 0
	}
	switch e.Kind {
	case engine.ExprField:
		if e.Slot >= 0 && e.Slot < len(d.field) {
			d.field[e.Slot] = true
		}
		return 0
	case engine.ExprValue:
		if e.Slot >= 0 && e.Slot < len(d.value) && !d.value[e.Slot] {
			d.value[e.Slot] = true
			return 1
		}
		return 0
	}
	n := 0
	for _, a := range e.Args {
		n += d.mark(a)
	}
	return n
}

// valueDefinition is a value's definition in the rules language: its
// expression as the engine prints it (NamedValue.Text), or for a table
// tableDefinition.
func valueDefinition(v *engine.NamedValue) string {
	if v.Table {
		return tableDefinition(v)
	}
	return v.Text
}

// tableDefinition writes a table's body as the rules language declares
// it (engine/syntax/GRAMMAR.md, "Tables"), one line each: the keys line,
// then its rows, or each period's `period <from> [until <until>] {`, its
// rows and `}`. A row is its matches and `=>` and its figure; a table
// without keys has the bare figure. Columns are not aligned: the text is
// read in a node's detail, not kept as a file.
func tableDefinition(v *engine.NamedValue) string {
	var lines []string
	if len(v.Keys) > 0 {
		keys := make([]string, len(v.Keys))
		for i, k := range v.Keys {
			keys[i] = engine.ExprText(k)
		}
		lines = append(lines, "keys "+strings.Join(keys, ", "))
	}
	rows := func(indent string, rs []engine.TableRow) {
		for _, row := range rs {
			matches := make([]string, len(row.Match))
			for i, m := range row.Match {
				matches[i] = matchText(m)
			}
			line := engine.ExprText(row.Value)
			if len(matches) > 0 {
				line = strings.Join(matches, ", ") + " => " + line
			}
			lines = append(lines, indent+line)
		}
	}
	rows("", v.Rows)
	for _, p := range v.Periods {
		head := "period " + value.FormatDate(p.Period.From)
		if p.Period.Until != 0 {
			head += " until " + value.FormatDate(p.Period.Until)
		}
		lines = append(lines, head+" {")
		rows("  ", p.Rows)
		lines = append(lines, "}")
	}
	return strings.Join(lines, "\n")
}

// matchText writes what one key of a table row matches, as a rules file
// writes it: any, "alaska", true, 3, 2..4, 9.. or ..0.
func matchText(m engine.KeyMatch) string {
	switch m.Kind {
	case engine.MatchEnum:
		return syntax.Quote(m.Enum)
	case engine.MatchBool:
		if m.Const.Num != 0 {
			return "true"
		}
		return "false"
	case engine.MatchRange:
		if m.Min.Known && m.Max.Known && value.Compare(m.Min, m.Max) == 0 {
			return m.Min.NumberString()
		}
		var lo, hi string
		if m.Min.Known {
			lo = m.Min.NumberString()
		}
		if m.Max.Known {
			hi = m.Max.NumberString()
		}
		return lo + ".." + hi
	}
	return "any"
}

// value is named value vi's overlay: satisfied with its figure when the
// decision computed it, pending with a null figure when it did not; its
// facts are the answered fields it rests on.
func (ov *overlayer) value(vi int) *Overlay {
	if ov == nil {
		return nil
	}
	v := &ov.r.Values[vi]
	o := overlay(engine.Pending, ov.answered(v.Slots))
	o.Figure = json.RawMessage("null")
	if vi < len(ov.res.Values) && ov.res.Values[vi].Known {
		o.Status, o.Figure = engine.Satisfied, figureJSON(v.Type, ov.res.Values[vi])
	}
	return o
}

// figureJSON writes a known figure of a value of sort s as the decision's
// values and the explanation write it: a number with its exact digits,
// true/false, or a "YYYY-MM-DD" date.
func figureJSON(s engine.Sort, fig value.Value) json.RawMessage {
	switch s {
	case engine.SortBool:
		if fig.Num != 0 {
			return json.RawMessage("true")
		}
		return json.RawMessage("false")
	case engine.SortDate:
		return json.RawMessage(`"` + value.FormatDate(fig.Num) + `"`)
	}
	return json.RawMessage(fig.NumberString())
}
