package pydantic

import (
	"reflect"
	"testing"

	"github.com/danielgtaylor/huma/v2/validation"
)

// TestMessage: each of huma's messages reads as pydantic's, and one it does
// not know is left alone.
func TestMessage(t *testing.T) {
	t.Parallel()
	cases := []struct{ huma, typ, msg string }{
		{validation.MsgExpectedInteger, "int_type", "Input should be a valid integer"},
		{validation.MsgExpectedObject, "dict_type", "Input should be a valid dictionary"},
		{`expected value to be one of "a, b, c"`, "enum", "Input should be 'a', 'b' or 'c'"},
		{`expected value to be one of "only"`, "enum", "Input should be 'only'"},
		{"expected length >= 1", "string_too_short", "String should have at least 1 characters"},
		{"expected array length <= 26", "too_long", "List should have at most 26 items"},
		{"expected number >= 0", "greater_than_equal", "Input should be greater than or equal to 0"},
		{"expected number > 0", "greater_than", "Input should be greater than 0"},
		{"expected number < 10", "less_than", "Input should be less than 10"},
		{"expected string to match pattern ^a$", "string_pattern_mismatch", "String should match pattern '^a$'"},
	}
	for _, c := range cases {
		typ, msg, ok := Message(c.huma)
		if !ok || typ != c.typ || msg != c.msg {
			t.Errorf("Message(%q) = %q, %q, %v; want %q, %q", c.huma, typ, msg, ok, c.typ, c.msg)
		}
	}
	if _, _, ok := Message("something else entirely"); ok {
		t.Error("an unknown message was translated")
	}
}

// TestMissing names the absent member, and only for huma's missing report.
func TestMissing(t *testing.T) {
	t.Parallel()
	if name, ok := Missing("expected required property slug to be present"); !ok || name != "slug" {
		t.Errorf("Missing = %q, %v", name, ok)
	}
	for _, m := range []string{"expected required property slug", "expected number > 0"} {
		if _, ok := Missing(m); ok {
			t.Errorf("Missing(%q) found a name", m)
		}
	}
}

// TestLocation reads huma's dotted, indexed locations.
func TestLocation(t *testing.T) {
	t.Parallel()
	cases := map[string][]any{
		"body":                 {"body"},
		"body.items[3].tags":   {"body", "items", 3, "tags"},
		"body.matrix[1][2]":    {"body", "matrix", 1, 2},
		"body.field_values[x]": {"body", "field_values", "x"},
		"query.limit":          {"query", "limit"},
	}
	for in, want := range cases {
		if got := Location(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Location(%q) = %v, want %v", in, got, want)
		}
	}
}
