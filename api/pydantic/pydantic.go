// Package pydantic says how huma's validation messages read in the
// interface's 422 items, which follow pydantic's: each message becomes an
// error type (int_type, string_too_long, enum, ...) and pydantic's own
// wording, and huma's location ("body.items[3].tags") becomes pydantic's
// list (["body", "items", 3, "tags"]). It is a table of strings and
// knows nothing of HTTP; the api core builds the items with it.
package pydantic

import (
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2/validation"
)

// Message is the pydantic error type and message for huma's message m;
// ok is false when m has no pydantic counterpart (the caller keeps
// value_error and huma's wording).
func Message(m string) (typ, msg string, ok bool) {
	switch m {
	case validation.MsgExpectedInteger:
		return "int_type", "Input should be a valid integer", true
	case validation.MsgExpectedNumber:
		return "float_type", "Input should be a valid number", true
	case validation.MsgExpectedString:
		return "string_type", "Input should be a valid string", true
	case validation.MsgExpectedBoolean:
		return "bool_type", "Input should be a valid boolean", true
	case validation.MsgExpectedArray:
		return "list_type", "Input should be a valid list", true
	case validation.MsgExpectedObject:
		return "dict_type", "Input should be a valid dictionary", true
	}
	if rest, found := strings.CutPrefix(m, `expected value to be one of "`); found {
		return "enum", "Input should be " + Alternatives(strings.Split(strings.TrimSuffix(rest, `"`), ", ")), true
	}
	for _, b := range bounds {
		if rest, found := strings.CutPrefix(m, b.prefix); found {
			return b.typ, b.before + rest + b.after, true
		}
	}
	return "", "", false
}

// bounds are huma's messages of a broken bound, in the order they must
// be tried (">= " before "> "), with pydantic's type and wording around
// the bound.
var bounds = []struct{ prefix, typ, before, after string }{
	{"expected length >= ", "string_too_short", "String should have at least ", " characters"},
	{"expected length <= ", "string_too_long", "String should have at most ", " characters"},
	{"expected array length >= ", "too_short", "List should have at least ", " items"},
	{"expected array length <= ", "too_long", "List should have at most ", " items"},
	{"expected number >= ", "greater_than_equal", "Input should be greater than or equal to ", ""},
	{"expected number > ", "greater_than", "Input should be greater than ", ""},
	{"expected number <= ", "less_than_equal", "Input should be less than or equal to ", ""},
	{"expected number < ", "less_than", "Input should be less than ", ""},
	{"expected string to match pattern ", "string_pattern_mismatch", "String should match pattern '", "'"},
}

// Missing reports whether m is huma's report of a required member absent,
// and names it (huma locates it at the parent and names it only in the
// message).
func Missing(m string) (name string, ok bool) {
	rest, found := strings.CutPrefix(m, "expected required property ")
	if !found {
		return "", false
	}
	return strings.CutSuffix(rest, " to be present")
}

// Alternatives renders ["a","b","c"] as 'a', 'b' or 'c'.
func Alternatives(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "'" + v + "'"
	}
	if len(quoted) == 1 {
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}

// Location turns huma's "body.items[3].tags" into
// ["body", "items", 3, "tags"].
func Location(location string) []any {
	loc := []any{}
	for _, part := range strings.Split(location, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			loc = append(loc, name)
		}
		for rest != "" {
			var index string
			index, rest, _ = strings.Cut(rest, "]")
			if n, err := strconv.Atoi(index); err == nil {
				loc = append(loc, n)
			} else {
				loc = append(loc, index)
			}
			rest = strings.TrimPrefix(rest, "[")
		}
	}
	return loc
}
