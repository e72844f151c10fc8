package engine

import (
	"fmt"
	"strconv"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file is the checker's half for tables: keys of a kind a row can
// match, rows that match their keys' values, figures of the table's type,
// periods that cover the ruleset's, and rows that cover every combination
// of keys exactly once (tables.go).

// table checks table declaration vd into v.
func (c *checker) table(v *NamedValue, vd *syntax.ValueDecl) {
	for _, k := range vd.Keys {
		x := c.expr(k)
		switch {
		case x.Sort == SortInvalid || c.stray(k, x):
		case x.Sort == SortEnum && fieldOf(x) < 0:
			c.errorf(k.Pos, "an enum key of a table must be an enum field, so its rows can name its values")
		case x.Sort == SortDecimal || x.Sort == SortDate:
			c.errorf(k.Pos, "a table is looked up by an enum field, a whole number or true/false, not %s: compare the figure in a criterion, or write an if", an(x.Sort))
		}
		v.Keys = append(v.Keys, x)
	}
	if len(vd.Rows) == 0 && len(vd.Periods) == 0 && !vd.Body.Failed {
		c.errorf(vd.Body.Pos, "table %s has no rows", v.ID)
		return
	}
	if len(vd.Periods) == 0 {
		v.Rows = c.tableRows(v, vd.Rows)
		c.cover(v, v.Rows, vd, "")
		return
	}
	for _, pd := range vd.Periods {
		p, ok := c.period(pd)
		if !ok {
			continue
		}
		tp := TablePeriod{Period: p, Rows: c.tableRows(v, pd.Rows)}
		c.cover(v, tp.Rows, vd, " in the period "+p.String())
		v.Periods = append(v.Periods, tp)
	}
	if !vd.Body.Failed {
		for _, msg := range checkPeriods(c.r, v.Periods) {
			c.errorf(vd.Periods[0].Pos, "table %s: %s", v.ID, msg)
		}
	}
}

// period reads a period's dates, as the effective header's are read.
func (c *checker) period(pd *syntax.PeriodDecl) (Period, bool) {
	from, ok := value.ParseDate(pd.From)
	if !ok {
		c.errorf(pd.FromPos, "period %s is not a calendar date: write YYYY-MM-DD", pd.From)
		return Period{}, false
	}
	p := Period{From: from}
	if pd.Until != "" {
		until, ok := value.ParseDate(pd.Until)
		switch {
		case !ok:
			c.errorf(pd.UntilPos, "until %s is not a calendar date: write YYYY-MM-DD", pd.Until)
			return Period{}, false
		case until < from:
			c.errorf(pd.UntilPos, "the period ends (%s) before it begins (%s)", pd.Until, pd.From)
			return Period{}, false
		}
		p.Until = until
	}
	return p, true
}

// tableRows checks the rows of a table (or of one of its periods).
func (c *checker) tableRows(v *NamedValue, rows []*syntax.RowDecl) []TableRow {
	out := make([]TableRow, 0, len(rows))
	for _, rd := range rows {
		if len(rd.Match) != len(v.Keys) {
			c.errorf(rd.Pos, "this row of table %s matches %d key(s), but the table has %d", v.ID, len(rd.Match), len(v.Keys))
			continue
		}
		row := TableRow{Match: make([]KeyMatch, len(rd.Match))}
		ok := true
		for k, md := range rd.Match {
			m, good := c.keyMatch(v.Keys[k], md)
			row.Match[k], ok = m, ok && good
		}
		if rd.Value != nil {
			row.Value = c.figure(v, rd.Value)
		}
		if ok && row.Value != nil {
			out = append(out, row)
		}
	}
	return out
}

// keyMatch checks what a row matches against its key's kind.
func (c *checker) keyMatch(key *Expr, md *syntax.MatchDecl) (KeyMatch, bool) {
	if md.Any {
		return KeyMatch{Kind: MatchAny}, true
	}
	switch key.Sort {
	case SortInvalid:
		return KeyMatch{}, false
	case SortEnum:
		fi := fieldOf(key)
		if md.Str == "" || fi < 0 {
			c.errorf(md.Pos, "the key %s is an enum: match one of its values in quotes, or any", exprText(key))
			return KeyMatch{}, false
		}
		f := &c.r.Fields[fi]
		for i, ev := range f.EnumValues {
			if ev == md.Str {
				return KeyMatch{Kind: MatchEnum, Enum: ev, Const: value.IntValue(int64(i))}, true
			}
		}
		c.errorf(md.Pos, "%s is not a value of %s; its values are %s", syntax.Quote(md.Str), f.ID, quoteList(f.EnumValues))
		return KeyMatch{}, false
	case SortBool:
		if md.Bool == "" {
			c.errorf(md.Pos, "the key %s is true or false: match true, false or any", exprText(key))
			return KeyMatch{}, false
		}
		return KeyMatch{Kind: MatchBool, Const: value.BoolValue(md.Bool == "true")}, true
	}
	if md.Str != "" || md.Bool != "" {
		c.errorf(md.Pos, "the key %s is a whole number: match a number, a range such as 2..4 or 9.., or any", exprText(key))
		return KeyMatch{}, false
	}
	m := KeyMatch{Kind: MatchRange}
	ok := true
	end := func(text string, v *value.Value) {
		if text == "" {
			return
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			c.errorf(md.Pos, "%s is not a whole number", text)
			ok = false
			return
		}
		*v = value.IntValue(n)
	}
	end(md.Min, &m.Min)
	end(md.Max, &m.Max)
	if ok && m.Min.Known && m.Max.Known && m.Min.Num > m.Max.Num {
		c.errorf(md.Pos, "the range %s..%s is empty: its lower end is above its upper end", md.Min, md.Max)
		ok = false
	}
	return m, ok
}

// cover proves the rows cover every combination of the keys' values
// exactly once, reporting at the table what does not.
func (c *checker) cover(v *NamedValue, rows []TableRow, vd *syntax.ValueDecl, where string) {
	for _, k := range v.Keys {
		if k.Sort == SortInvalid {
			return // the key's own error says enough
		}
	}
	if vd.Body.Failed || len(rows) == 0 {
		return
	}
	domains := make([]keyDomain, len(v.Keys))
	for k, key := range v.Keys {
		domains[k] = c.r.domainOf(key)
	}
	for _, msg := range checkCover(domains, rows, func(i int) string { return fmt.Sprintf("%d", i+1) }) {
		c.errorf(vd.Body.Pos, "table %s%s: %s", v.ID, where, msg)
	}
}
