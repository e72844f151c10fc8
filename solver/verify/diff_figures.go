package verify

import (
	"fmt"
	"strings"

	"github.com/eligo/eligo/engine"
)

// FigureChange is a named value's definition, or one table row's figure,
// that a new version changed: what the law computes moved, whether or not
// some applicant's outcome follows.
type FigureChange struct {
	// Value is the value's or table's name, declared in both versions.
	Value string `json:"value" doc:"The named value or table, declared in both versions."`
	// Row says which row of a table changed (its matches, and its period
	// when the table has periods); empty for a value.
	Row string `json:"row,omitempty" doc:"Which row of a table: its matches, and its period when the table has periods; absent for a value."`
	// Old and New are the figures in the rules language.
	Old string `json:"old" doc:"The figure (an expression) in the old version."`
	New string `json:"new" doc:"The figure in the new version."`
	// Message says it in a sentence.
	Message string `json:"message" doc:"The change in a sentence, e.g. \"table gross_limit, row \\\"48_states\\\", 1..8 (2025-10-01 until 2026-09-30): 1632 + 571 * (household.size - 1) became 1696 + 596 * (household.size - 1)\"."`
}

// figureChanges pairs the named values of older and newer by name and
// reports each changed definition, and for tables each row whose figure
// changed, rows paired by their matches within periods of the same dates.
// A row or period one version lacks is reported as such.
func figureChanges(older, newer *engine.Ruleset) []FigureChange {
	var out []FigureChange
	for i := range newer.Values {
		nv := &newer.Values[i]
		j := older.ValueIndex(nv.ID)
		if j < 0 {
			continue
		}
		ov := &older.Values[j]
		switch {
		case ov.Table != nv.Table:
			out = append(out, figureChange(nv.ID, "", kindWord(ov), kindWord(nv)))
		case !nv.Table:
			if o, n := engine.ExprText(ov.Expr), engine.ExprText(nv.Expr); o != n {
				out = append(out, figureChange(nv.ID, "", o, n))
			}
		default:
			out = append(out, rowChanges(ov, nv)...)
		}
	}
	return out
}

// rowChanges compares two versions of a table row by row.
func rowChanges(ov, nv *engine.NamedValue) []FigureChange {
	var out []FigureChange
	periods := func(v *engine.NamedValue) map[string][]engine.TableRow { // rows by period, "" without periods
		m := map[string][]engine.TableRow{}
		if len(v.Periods) == 0 {
			m[""] = v.Rows
		}
		for _, p := range v.Periods {
			m[p.Period.String()] = p.Rows
		}
		return m
	}
	op := periods(ov)
	type block struct {
		period string
		rows   []engine.TableRow
	}
	blocks := []block{{"", nv.Rows}}
	if len(nv.Periods) > 0 {
		blocks = nil
		for _, p := range nv.Periods {
			blocks = append(blocks, block{p.Period.String(), p.Rows})
		}
	}
	for _, b := range blocks {
		period, rows := b.period, b.rows
		old, ok := op[period]
		if !ok {
			out = append(out, figureChange(nv.ID, "the period "+period, "none", fmt.Sprintf("%d rows", len(rows))))
			continue
		}
		for _, r := range rows {
			where := matchText(r.Match)
			if period != "" {
				where += " (" + period + ")"
			}
			o := "none"
			for _, orow := range old {
				if matchText(orow.Match) == matchText(r.Match) {
					o = engine.ExprText(orow.Value)
				}
			}
			if n := engine.ExprText(r.Value); o != n {
				out = append(out, figureChange(nv.ID, where, o, n))
			}
		}
	}
	return out
}

// figureChange words one change.
func figureChange(id, row, old, new string) FigureChange {
	kind := "value " + id
	if row != "" {
		kind = "table " + id + ", row " + row
	}
	return FigureChange{Value: id, Row: row, Old: old, New: new,
		Message: fmt.Sprintf("%s: %s became %s", kind, old, new)}
}

// kindWord says whether a value is a table or an expression.
func kindWord(v *engine.NamedValue) string {
	if v.Table {
		return "a table"
	}
	return "an expression"
}

// matchText writes a row's matches as the rules do: "48_states", 1..8.
func matchText(ms []engine.KeyMatch) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		switch m.Kind {
		case engine.MatchAny:
			parts[i] = "any"
		case engine.MatchEnum:
			parts[i] = fmt.Sprintf("%q", m.Enum)
		case engine.MatchBool:
			parts[i] = fmt.Sprint(m.Const.Num != 0)
		default:
			lo, hi := "", ""
			if m.Min.Known {
				lo = m.Min.NumberString()
			}
			if m.Max.Known {
				hi = m.Max.NumberString()
			}
			if lo == hi && lo != "" {
				parts[i] = lo
			} else {
				parts[i] = lo + ".." + hi
			}
		}
	}
	return strings.Join(parts, ", ")
}
