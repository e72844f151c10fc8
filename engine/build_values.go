package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file links the named values of a ruleset given as IR (see Build):
// each after the values it reads, so that a value reference is typed and
// counts the fields behind it, and a cycle is refused.

// linkValues links every named value, in an order where each comes after
// the values its expression reads.
func (b *builder) linkValues() error {
	r := b.r
	b.values = make(map[string]int, len(r.Values))
	for i := range r.Values {
		path := fmt.Sprintf("values[%d]", i)
		v := &r.Values[i]
		if err := unique(path+".id", "value", v.ID, b.values); err != nil {
			return err
		}
		b.values[v.ID] = i
	}
	b.valueSlots = make([][]int, len(r.Values))
	state := make([]uint8, len(r.Values)) // 0 unseen, 1 on the path, 2 linked
	var path []string
	var link func(i int) error
	link = func(i int) error {
		switch state[i] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("values[%d]: value %s depends on itself (%s → %s)", i, r.Values[i].ID, strings.Join(path, " → "), r.Values[i].ID)
		}
		state[i] = 1
		path = append(path, r.Values[i].ID)
		for _, key := range valueKeys(r.Values[i], nil) {
			if j, ok := b.values[key]; ok {
				if err := link(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = 2
		return b.value(fmt.Sprintf("values[%d]", i), i)
	}
	for i := range r.Values {
		if err := link(i); err != nil {
			return err
		}
	}
	return nil
}

// valueKeys appends the keys of the value_refs in v's expressions.
func valueKeys(v NamedValue, keys []string) []string {
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil {
			return
		}
		if e.Kind == ExprValue {
			keys = append(keys, e.Key)
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for _, e := range v.Exprs() {
		walk(e)
	}
	return keys
}

// value links value i, whose values are linked, by the checker's rules.
func (b *builder) value(path string, i int) error {
	v := &b.r.Values[i]
	switch v.Type {
	case SortInt, SortDecimal, SortBool, SortDate:
	default:
		return fmt.Errorf("%s.type: a value's type is int, decimal, bool or date", path)
	}
	if v.Unit != "" && !v.Type.Numeric() {
		return fmt.Errorf("%s.unit: only a number has a unit", path)
	}
	if err := b.citations(path, "value", v.ID, v.Citations); err != nil {
		return err
	}
	v.Slots, v.Text = nil, ""
	b.reads = make([]bool, len(b.r.Fields))
	if v.Table {
		if err := b.table(path, v); err != nil {
			return err
		}
	} else {
		if v.Expr == nil {
			return fmt.Errorf("%s.expr: missing: value %s needs an expression", path, v.ID)
		}
		if err := b.figure(path+".expr", v, v.Expr); err != nil {
			return err
		}
	}
	slots, err := b.readSlots(path, v.Fields)
	if err != nil {
		return err
	}
	v.Slots, b.valueSlots[i] = slots, slots
	return nil
}

// figure links a value's expression or a table row's figure and checks its
// sort against the value's type.
func (b *builder) figure(path string, v *NamedValue, e *Expr) error {
	if err := b.expr(path, e); err != nil {
		return err
	}
	switch s := e.Sort; {
	case s == v.Type, v.Type == SortDecimal && s == SortInt:
		return nil
	default:
		return fmt.Errorf("%s: %s is %s, but this is %s", path, v.ID, v.Type, an(s))
	}
}

// table links a table's keys and rows and checks, as the compiler does,
// that each period's rows cover every combination of keys exactly once and
// that the periods cover the ruleset's.
func (b *builder) table(path string, v *NamedValue) error {
	if v.Expr != nil {
		return fmt.Errorf("%s.expr: a table has rows, not an expression", path)
	}
	if !v.Type.Numeric() {
		return fmt.Errorf("%s.type: a table holds int or decimal figures", path)
	}
	if len(v.Keys) > syntax.MaxTableKeys {
		return fmt.Errorf("%s.keys: %d keys, over the limit of %d", path, len(v.Keys), syntax.MaxTableKeys)
	}
	domains := make([]keyDomain, len(v.Keys))
	for k, key := range v.Keys {
		kp := fmt.Sprintf("%s.keys[%d]", path, k)
		if err := b.expr(kp, key); err != nil {
			return err
		}
		switch {
		case key.Sort == SortEnum && fieldOf(key) < 0:
			return fmt.Errorf("%s: an enum key must be an enum field", kp)
		case key.Sort != SortEnum && key.Sort != SortInt && key.Sort != SortBool:
			return fmt.Errorf("%s: a key is an enum field, a whole number or true/false, not %s", kp, an(key.Sort))
		}
		domains[k] = b.r.domainOf(key)
	}
	rows := func(rp string, rs []TableRow) error {
		if len(rs) == 0 {
			return fmt.Errorf("%s: a table's rows are not empty", rp)
		}
		for i := range rs {
			r := &rs[i]
			ip := fmt.Sprintf("%s[%d]", rp, i)
			if len(r.Match) != len(v.Keys) {
				return fmt.Errorf("%s.match: %d matches for %d keys", ip, len(r.Match), len(v.Keys))
			}
			for k := range r.Match {
				if err := b.keyMatch(fmt.Sprintf("%s.match[%d]", ip, k), v.Keys[k], &r.Match[k]); err != nil {
					return err
				}
			}
			if r.Value == nil {
				return fmt.Errorf("%s.value: missing", ip)
			}
			if err := b.figure(ip+".value", v, r.Value); err != nil {
				return err
			}
		}
		if problems := checkCover(domains, rs, func(i int) string { return fmt.Sprintf("%d", i) }); len(problems) > 0 {
			return fmt.Errorf("%s: %s", rp, problems[0])
		}
		return nil
	}
	switch {
	case len(v.Periods) > 0 && len(v.Rows) > 0:
		return fmt.Errorf("%s: a table has rows or periods, not both", path)
	case len(v.Periods) == 0:
		return rows(path+".rows", v.Rows)
	}
	for i := range v.Periods {
		p := v.Periods[i].Period
		if p.From < 1 || p.From > value.MaxOrdinal || p.Until != 0 && (p.Until < p.From || p.Until > value.MaxOrdinal) {
			return fmt.Errorf("%s.periods[%d].period: not a period of dates", path, i)
		}
		if err := rows(fmt.Sprintf("%s.periods[%d].rows", path, i), v.Periods[i].Rows); err != nil {
			return err
		}
	}
	if problems := checkPeriods(b.r, v.Periods); len(problems) > 0 {
		return fmt.Errorf("%s.periods: %s", path, problems[0])
	}
	return nil
}

// keyMatch checks one match against its key's sort and resolves an enum
// value to its index.
func (b *builder) keyMatch(path string, key *Expr, m *KeyMatch) error {
	switch {
	case m.Kind == MatchAny:
		return nil
	case m.Kind == MatchEnum && key.Sort == SortEnum:
		f := &b.r.Fields[fieldOf(key)]
		i := slices.Index(f.EnumValues, m.Enum)
		if i < 0 {
			return fmt.Errorf("%s: %s is not a value of %s", path, syntax.Quote(m.Enum), f.ID)
		}
		m.Const = value.IntValue(int64(i))
		return nil
	case m.Kind == MatchBool && key.Sort == SortBool:
		return nil
	case m.Kind == MatchRange && key.Sort == SortInt:
		for _, end := range []value.Value{m.Min, m.Max} {
			if end.Known && end.Scale != 0 {
				return fmt.Errorf("%s: a range of whole numbers has whole-number ends", path)
			}
		}
		if m.Min.Known && m.Max.Known && m.Min.Num > m.Max.Num {
			return fmt.Errorf("%s: the range is empty", path)
		}
		return nil
	}
	return fmt.Errorf("%s: does not match a key of %s", path, an(key.Sort))
}
