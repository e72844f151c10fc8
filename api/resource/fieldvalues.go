package resource

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/engine"
	"github.com/tidwall/gjson"
)

// Two operations, POST /decide and POST /rulesets/{id}/explain-failure,
// read their JSON body themselves (a strict single pass that keeps
// field_values as sent) instead of letting huma decode it. These helpers
// keep them reading field_values alike, and answering and documenting a
// bad body exactly as huma does for every other operation.

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// ReadJSONObject parses a body for a strict reader: it reports false unless
// raw is one JSON object that encoding/json (and so the schema path) would
// read too. gjson reads any depth while encoding/json refuses nesting
// deeper than maxJSONDepth; only a body longer than that many bytes can
// nest so deep, so only such a body pays for the depth scan.
func ReadJSONObject(raw []byte) (gjson.Result, bool) {
	if !gjson.ValidBytes(raw) || (len(raw) > maxJSONDepth && !nestsWithin(raw, maxJSONDepth)) {
		return gjson.Result{}, false
	}
	body := gjson.ParseBytes(raw)
	return body, body.IsObject()
}

// DecodedString is the string v holds as encoding/json (and so the schema
// path) decodes it. gjson decodes escapes the same way except in malformed
// cases (a lone surrogate followed by another escape: "\ud800\u0000"), so
// a string with a \u escape is decoded by encoding/json itself; others,
// nearly all, are taken from gjson as they are.
func DecodedString(v gjson.Result) string {
	if !strings.Contains(v.Raw, `\u`) {
		return v.Str
	}
	var s string
	if err := json.Unmarshal([]byte(v.Raw), &s); err != nil {
		return v.Str
	}
	return s
}

// nestsWithin reports whether the valid JSON raw nests objects and arrays
// at most max deep: one pass over the bytes, skipping strings, without the
// cost of a second full parse.
func nestsWithin(raw []byte, max int) bool {
	within := true
	scanStructure(raw, func(c byte, depth int) bool {
		within = depth <= max
		return within
	})
	return within
}

// scanStructure walks the valid JSON raw once, calling visit with every
// structural byte outside strings ({ [ } ] : ,) and the nesting depth after
// it, until visit returns false. It copies and decodes nothing.
func scanStructure(raw []byte, visit func(c byte, depth int) bool) {
	depth, inString := 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++ // the escaped byte cannot end the string
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[' || c == '}' || c == ']' || c == ':' || c == ',':
			if c == '{' || c == '[' {
				depth++
			} else if c == '}' || c == ']' {
				depth--
			}
			if !visit(c, depth) {
				return
			}
		}
	}
}

// JSONObject is a JSON object kept as its raw bytes: field_values reaches
// the engine as sent, without a decode into Go values.
type JSONObject []byte

// UnmarshalJSON keeps a copy of the bytes.
func (o *JSONObject) UnmarshalJSON(b []byte) error {
	*o = append((*o)[:0], b...)
	return nil
}

// MarshalJSON writes the bytes back, or null when empty.
func (o JSONObject) MarshalJSON() ([]byte, error) {
	if len(o) == 0 {
		return []byte("null"), nil
	}
	return o, nil
}

// Schema declares an object with any members.
func (JSONObject) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: true}
}

// ConvertFieldValues reads a request's field_values for rules, the one way
// every operation reads them: the inputs_hash of the object as sent and
// its conversion to inputs, with bad keys and values as field errors in
// the inputs (never a refusal). A field_values the engine cannot read at
// all is refused as FieldValuesRefusal says.
func ConvertFieldValues(rules *engine.Ruleset, fieldValues []byte) (inputsHash string, inputs *engine.Inputs, err error) {
	if n, most := countMembers(fieldValues), MaxFieldValues(rules); n > most {
		return "", nil, api.ValidationFailed(api.ValidationItem{Type: "too_long", Loc: []any{"body", "field_values"},
			Msg:   fmt.Sprintf("field_values has %d members; this ruleset reads %d fields and takes at most %d members", n, len(rules.Fields), most),
			Input: map[string]any{}})
	}
	inputsHash, err = engine.InputsHash(fieldValues)
	if err != nil {
		return "", nil, FieldValuesRefusal(fieldValues, err)
	}
	inputs, err = rules.Convert(fieldValues)
	if err != nil {
		return "", nil, FieldValuesRefusal(fieldValues, err)
	}
	return inputsHash, inputs, nil
}

// MaxFieldValues is the most members a request's field_values may have for
// rules: four times its fields, and at least 256, so that a caller can send
// every answer with room for typos and for fields of other versions, while
// the work and memory a request costs stay proportional to the ruleset
// rather than to what the caller sends (each member becomes a value or a
// field error). More is 422 too_long, before anything is converted.
func MaxFieldValues(rules *engine.Ruleset) int {
	return max(256, 4*len(rules.Fields))
}

// MaxListedFieldErrors is the most field_errors an answer lists; the rest
// are counted in a warning (field_errors_truncated).
const MaxListedFieldErrors = 100

// countMembers counts the members of the JSON object raw (its colons at
// depth one) and of the objects in its lists (a household's members'
// answers, at depth three) in one pass over the bytes, without copying or
// decoding anything; raw has been checked to be valid JSON.
func countMembers(raw []byte) int {
	n := 0
	scanStructure(raw, func(c byte, depth int) bool {
		if c == ':' && (depth == 1 || depth == 3) {
			n++
		}
		return true
	})
	return n
}

// FieldValuesRefusal is the 422 for a field_values the engine cannot read
// at all: dict_type when it is not a JSON object (the body readers refuse
// that first, so this is a backstop), else json_invalid, chiefly for an
// object that is not I-JSON (a repeated key, text that is not valid
// Unicode, nesting beyond 10000 levels), which has no inputs_hash. Bad
// values inside a readable object never get here: they are field_errors.
func FieldValuesRefusal(raw []byte, err error) *api.Error {
	if errors.Is(err, engine.ErrNotObject) {
		var input any
		_ = json.Unmarshal(raw, &input)
		return api.ValidationFailed(api.ValidationItem{Type: "dict_type", Loc: []any{"body", "field_values"},
			Msg: "Input should be a valid dictionary", Input: input})
	}
	return api.ValidationFailed(api.ValidationItem{Type: "json_invalid", Loc: []any{"body", "field_values"},
		Msg: "JSON decode error: " + err.Error(), Input: map[string]any{}})
}
