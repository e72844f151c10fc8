package engine

import (
	"fmt"
	"strings"
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
		for _, key := range valueKeys(r.Values[i].Expr, nil) {
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

// valueKeys appends the keys of the value_refs in e.
func valueKeys(e *Expr, keys []string) []string {
	if e == nil {
		return keys
	}
	if e.Kind == ExprValue {
		keys = append(keys, e.Key)
	}
	for _, a := range e.Args {
		keys = valueKeys(a, keys)
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
	if v.Expr == nil {
		return fmt.Errorf("%s.expr: missing: value %s needs an expression", path, v.ID)
	}
	b.reads = make([]bool, len(b.r.Fields))
	if err := b.expr(path+".expr", v.Expr); err != nil {
		return err
	}
	switch s := v.Expr.Sort; {
	case s == v.Type, v.Type == SortDecimal && s == SortInt:
	default:
		return fmt.Errorf("%s.expr: value %s is %s, but its expression is %s", path, v.ID, v.Type, an(s))
	}
	slots, err := b.readSlots(path, v.Fields)
	if err != nil {
		return err
	}
	v.Slots, b.valueSlots[i] = slots, slots
	return nil
}
