package engine

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/eligo/eligo/engine/value"
)

// MarshalText writes the sort's wire spelling, so Field.Type encodes as
// "int", "decimal", "bool", "enum" or "date".
func (s Sort) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a wire spelling back.
func (s *Sort) UnmarshalText(b []byte) error {
	for i, n := range sortNames {
		if i > 0 && n == string(b) {
			*s = Sort(i)
			return nil
		}
	}
	return fmt.Errorf("unknown field type %q", b)
}

// MarshalJSON writes a display.expr node (docs/api.md#expressions-displayexpr):
//
//	{"type":"op","operator":">=","args":[...]}
//	{"type":"field_ref","key":"employment.months_employed"}
//	{"type":"const","sort":"int","value":12,"field_context":"employment.months_employed"}
//	{"type":"group_ref","key":"service"}            (outcome expressions only)
//	{"type":"value_ref","key":"net_income"}          (a named value)
//
// A const's value is a JSON number for int and decimal (exact decimal
// digits), true/false for bool, the listed string for enum and
// "YYYY-MM-DD" for date; field_context is null when the constant stands
// alone.
func (e *Expr) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64)
	return e.appendJSON(b), nil
}

func (e *Expr) appendJSON(b []byte) []byte {
	switch e.Kind {
	case ExprOp:
		b = append(b, `{"type":"op","operator":`...)
		b = strconv.AppendQuote(b, string(e.Op))
		b = append(b, `,"args":[`...)
		for i, a := range e.Args {
			if i > 0 {
				b = append(b, ',')
			}
			b = a.appendJSON(b)
		}
		return append(b, "]}"...)
	case ExprField, ExprGroup, ExprValue:
		kind := "field_ref"
		switch e.Kind {
		case ExprGroup:
			kind = "group_ref"
		case ExprValue:
			kind = "value_ref"
		}
		b = append(b, `{"type":"`...)
		b = append(b, kind...)
		b = append(b, `","key":`...)
		b = appendJSONString(b, e.Key)
		return append(b, '}')
	default:
		b = append(b, `{"type":"const","sort":"`...)
		b = append(b, e.Sort.String()...)
		b = append(b, `","value":`...)
		b = append(b, constJSON(e.Sort, e.Const, e.Enum)...)
		b = append(b, `,"field_context":`...)
		if e.FieldContext == "" {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, e.FieldContext)
		}
		return append(b, '}')
	}
}

// constJSON renders a known value of sort s as JSON; enum is the listed
// value of an enum.
func constJSON(s Sort, v value.Value, enum string) []byte {
	switch s {
	case SortInt, SortDecimal:
		return []byte(v.NumberString())
	case SortBool:
		if v.Num != 0 {
			return []byte("true")
		}
		return []byte("false")
	case SortDate:
		return appendJSONString(nil, value.FormatDate(v.Num))
	default:
		return appendJSONString(nil, enum)
	}
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// MarshalJSON writes {"any":true}, {"enum":"alaska"}, {"bool":true} or
// {"min":2,"max":4}, an open end of a range left out.
func (k KeyMatch) MarshalJSON() ([]byte, error) {
	switch k.Kind {
	case MatchAny:
		return []byte(`{"any":true}`), nil
	case MatchEnum:
		return append(appendJSONString([]byte(`{"enum":`), k.Enum), '}'), nil
	case MatchBool:
		if k.Const.Num != 0 {
			return []byte(`{"bool":true}`), nil
		}
		return []byte(`{"bool":false}`), nil
	}
	return Range{Min: k.Min, Max: k.Max}.MarshalJSON()
}
