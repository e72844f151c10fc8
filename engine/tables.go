package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file holds what the compiler and Build share about tables: whether
// a row's match takes a key's value, and the proof that a table's rows
// cover every combination of keys its fields allow exactly once, so that
// a lookup always finds one row.

// Matches reports whether the known key value v meets the match.
func (k KeyMatch) Matches(v value.Value) bool {
	switch k.Kind {
	case MatchAny:
		return true
	case MatchEnum, MatchBool:
		return v.Num == k.Const.Num
	}
	return (!k.Min.Known || value.Compare(v, k.Min) >= 0) && (!k.Max.Known || value.Compare(v, k.Max) <= 0)
}

// keyDomain is the set of values a table key can take: an enum's or a
// bool's values (count), or the whole numbers of a range (lo, hi, an end
// unknown when open).
type keyDomain struct {
	// count is the number of values of an enum (its listed values) or a
	// bool (2); 0 for a number.
	count int
	// lo and hi bound a number key; unknown ends are open.
	lo, hi value.Value
	// names says value i of an enum or bool key in messages.
	names []string
	// what names the key in messages ("household.size").
	what string
}

// maxTableCells bounds the combinations of key values a table's check
// visits, so that a table cannot make the compiler work without end: far
// above any programme's table (SNAP: 4 regions × 10 size bands).
const maxTableCells = 100_000

// cellRange is one elementary piece of a number key's domain: the whole
// numbers from lo to hi (unknown ends open), within which every row either
// matches all or none.
type cellRange struct{ lo, hi value.Value }

// checkCover reports the first few combinations of key values that no row
// of rows matches or that more than one does, as messages; rowLine names
// a row for them. It returns nil when the rows cover the domains exactly
// once.
func checkCover(domains []keyDomain, rows []TableRow, rowLine func(int) string) []string {
	pieces := make([][]cellRange, len(domains))
	cells := 1
	for k, d := range domains {
		if d.count > 0 {
			for i := 0; i < d.count; i++ {
				pieces[k] = append(pieces[k], cellRange{lo: value.IntValue(int64(i)), hi: value.IntValue(int64(i))})
			}
		} else {
			pieces[k] = numberPieces(d, rows, k)
		}
		if cells *= len(pieces[k]); cells > maxTableCells {
			return []string{fmt.Sprintf("the keys of this table take more than %d combinations of values to check: split it into several tables", maxTableCells)}
		}
	}
	var problems []string
	idx := make([]int, len(domains))
	for n := 0; n < cells && len(problems) < 5; n++ {
		rem := n
		for k := len(domains) - 1; k >= 0; k-- {
			idx[k] = rem % len(pieces[k])
			rem /= len(pieces[k])
		}
		var hits []int
		for r, row := range rows {
			all := true
			for k := range domains {
				if !covers(row.Match[k], domains[k], pieces[k][idx[k]]) {
					all = false
					break
				}
			}
			if all {
				hits = append(hits, r)
			}
		}
		switch {
		case len(hits) == 0:
			problems = append(problems, "no row covers "+describeCell(domains, pieces, idx))
		case len(hits) > 1:
			lines := make([]string, len(hits))
			for i, h := range hits {
				lines[i] = rowLine(h)
			}
			problems = append(problems, "rows "+strings.Join(lines, " and ")+" both cover "+describeCell(domains, pieces, idx))
		}
	}
	return problems
}

// covers reports whether match m takes every value of piece p of a key
// (a match takes all of a piece or none of it, by how the pieces are cut).
func covers(m KeyMatch, d keyDomain, p cellRange) bool {
	switch m.Kind {
	case MatchAny:
		return true
	case MatchEnum, MatchBool:
		return m.Const.Num == p.lo.Num
	}
	// The piece lies inside [Min, Max] when its ends do.
	loOK := !m.Min.Known || p.lo.Known && value.Compare(p.lo, m.Min) >= 0
	hiOK := !m.Max.Known || p.hi.Known && value.Compare(p.hi, m.Max) <= 0
	return loOK && hiOK
}

// numberPieces cuts a number key's domain at every end of every row's
// range, so that within a piece each row matches all of it or none.
func numberPieces(d keyDomain, rows []TableRow, k int) []cellRange {
	var cuts []int64 // a piece starts at each cut
	add := func(v value.Value) {
		if v.Known && (!d.lo.Known || value.Compare(v, d.lo) > 0) && (!d.hi.Known || value.Compare(v, d.hi) <= 0) {
			cuts = append(cuts, v.Num)
		}
	}
	for _, r := range rows {
		if m := r.Match[k]; m.Kind == MatchRange {
			add(m.Min)
			if m.Max.Known {
				add(value.IntValue(m.Max.Num + 1))
			}
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	var out []cellRange
	lo := d.lo
	for _, c := range cuts {
		if lo.Known && c <= lo.Num {
			continue
		}
		out = append(out, cellRange{lo: lo, hi: value.IntValue(c - 1)})
		lo = value.IntValue(c)
	}
	return append(out, cellRange{lo: lo, hi: d.hi})
}

// describeCell says a combination of key values: `household.region
// "alaska", household.size 9 and more`.
func describeCell(domains []keyDomain, pieces [][]cellRange, idx []int) string {
	parts := make([]string, len(domains))
	for k, d := range domains {
		p := pieces[k][idx[k]]
		switch {
		case d.count > 0:
			parts[k] = d.what + " " + d.names[p.lo.Num]
		case p.lo.Known && p.hi.Known && p.lo.Num == p.hi.Num:
			parts[k] = fmt.Sprintf("%s %d", d.what, p.lo.Num)
		case p.lo.Known && p.hi.Known:
			parts[k] = fmt.Sprintf("%s %d to %d", d.what, p.lo.Num, p.hi.Num)
		case p.lo.Known:
			parts[k] = fmt.Sprintf("%s %d and more", d.what, p.lo.Num)
		case p.hi.Known:
			parts[k] = fmt.Sprintf("%s %d and less", d.what, p.hi.Num)
		default:
			parts[k] = d.what + " any number"
		}
	}
	return strings.Join(parts, ", ")
}

// domainOf is the domain of a table key of r: an enum field's values,
// true and false, or the whole numbers its field's range allows (every
// whole number for a key that is not a field with a range).
func (r *Ruleset) domainOf(key *Expr) keyDomain {
	d := keyDomain{what: exprText(key)}
	fi := fieldOf(key)
	switch key.Sort {
	case SortEnum:
		if fi >= 0 {
			for _, v := range r.Fields[fi].EnumValues {
				d.names = append(d.names, syntax.Quote(v))
			}
			d.count = len(d.names)
		}
	case SortBool:
		d.count, d.names = 2, []string{"false", "true"}
	default:
		if fi >= 0 && r.Fields[fi].Range != nil {
			d.lo, d.hi = r.Fields[fi].Range.Min, r.Fields[fi].Range.Max
		}
	}
	return d
}

// checkPeriods reports, as messages, periods of a table that overlap or
// leave a gap inside the ruleset's effective period (all of it must be
// covered), or a table with periods in a ruleset without one.
func checkPeriods(r *Ruleset, periods []TablePeriod) []string {
	if len(periods) == 0 {
		return nil
	}
	if r.Effective == nil {
		return []string{"a table with periods needs the ruleset's effective line, the days its periods must cover"}
	}
	ps := make([]Period, len(periods))
	for i, p := range periods {
		ps[i] = p.Period
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].From < ps[j].From })
	var out []string
	covered := r.Effective.From - 1 // the last day covered so far
	for i, p := range ps {
		if i > 0 && (ps[i-1].Until == 0 || ps[i-1].Until >= p.From) {
			out = append(out, fmt.Sprintf("the periods %s and %s overlap", ps[i-1], p))
		}
		if p.From > covered+1 && covered+1 >= r.Effective.From && (r.Effective.Until == 0 || covered+1 <= r.Effective.Until) {
			out = append(out, fmt.Sprintf("no period covers %s to %s, which the ruleset's effective period includes", value.FormatDate(covered+1), value.FormatDate(p.From-1)))
		}
		if p.Until == 0 {
			covered = value.MaxOrdinal
		} else if p.Until > covered {
			covered = p.Until
		}
	}
	if e := r.Effective; covered != value.MaxOrdinal && (e.Until == 0 || covered < e.Until) {
		end := "onwards"
		if e.Until != 0 {
			end = "to " + value.FormatDate(e.Until)
		}
		out = append(out, fmt.Sprintf("no period covers %s %s, which the ruleset's effective period includes", value.FormatDate(covered+1), end))
	}
	return out
}

// decl is the match as the parser reads it, for printing.
func (k KeyMatch) decl() *syntax.MatchDecl {
	switch k.Kind {
	case MatchAny:
		return &syntax.MatchDecl{Any: true}
	case MatchEnum:
		return &syntax.MatchDecl{Str: k.Enum}
	case MatchBool:
		if k.Const.Num != 0 {
			return &syntax.MatchDecl{Bool: "true"}
		}
		return &syntax.MatchDecl{Bool: "false"}
	}
	m := &syntax.MatchDecl{Range: true}
	if k.Min.Known {
		m.Min = k.Min.NumberString()
	}
	if k.Max.Known {
		m.Max = k.Max.NumberString()
	}
	if m.Min != "" && m.Min == m.Max {
		m.Range = false
	}
	return m
}

// RowText prints a table row as the rules write it, its matches, `=>`
// and its figure (`"48_states", 1..8 => 1696 + 596 * (household.size -
// 1)`): the explanation of a figure looked up in a table names the row.
func RowText(row TableRow) string {
	var b strings.Builder
	for k, m := range row.Match {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(syntax.MatchText(m.decl()))
	}
	if len(row.Match) > 0 {
		b.WriteString(" => ")
	}
	b.WriteString(exprText(row.Value))
	return b.String()
}
