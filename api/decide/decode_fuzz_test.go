package decide

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/eligo/eligo/api/apitest"
)

// FuzzReadDecideRequest checks the fast /decide body reader against
// encoding/json: it never panics, and whatever it accepts, a strict
// encoding/json decode of the same bytes (unknown members refused) accepts
// too, with the same ids, flags (its flagSet mirroring them), inquiry
// context and caller_ref, and field_values as the same JSON object. A body
// the fast reader refuses goes to the schema validator, so refusing is
// always safe; accepting wrongly is the bug this looks for.
func FuzzReadDecideRequest(f *testing.F) {
	for _, seed := range []string{
		`{"ruleset_id":"demo/snap-income","field_values":{"household.size":3}}`,
		`{"ruleset_id":"a:20260101-abc","field_values":{"x":null},"include_trace":true,"include_explanation":false,"no_cache":true}`,
		`{"rulebook_id":"b","release_id":"calm-otter","field_values":{"a.b":"2024-02-29"},"include_timing":true}`,
		`{"ruleset_id":"r","field_values":{"a":1},"inquiry_context":{"declined_fields":["a"],"preferred_section":"s","preferred_groups":["g"]}}`,
		`{"ruleset_id":"r","field_values":{"a":1},"caller_ref":{"case":"42"}}`,
		`{"ruleset_id":"r","field_values":{"a":1},"caller_ref":"not a map"}`,
		`{"ruleset_id":"r","ruleset_id":"s","field_values":{"a":1}}`,
		`{"ruleset_id":"r","field_values":[1]}`,
		`{"ruleset_id":"r","field_values":{"a":1},"extra":1}`,
		`{"RULESET_ID":"r","field_values":{"a":1}}`,
		`{"ruleset_id":1,"field_values":{}}`,
		`{"ruleset_id":"r","field_values":{"a":1},"include_trace":"yes"}`,
		`{"ruleset_id":"r","field_values":{"a":1},"inquiry_context":{"unknown":1}}`,
		`{"ruleset_id":"\u00e9\ud83d\ude00","field_values":{"a":1e400}}`,
		// field_values the engine refuses or reports (not I-JSON, or
		// beyond float64): the reader passes them on as they are.
		`{"ruleset_id":"r","field_values":{"a":1,"a":2,"\u0061":3}}`,
		`{"ruleset_id":"r","field_values":{"a":"\ud800","\udc00":1}}`,
		"{\"ruleset_id\":\"r\",\"field_values\":{\"a\":\"x\xff\"}}",
		`{"ruleset_id":"r","field_values":{"a":[-1e400,{"b":1E+999}],"c":1e-400}}`,
		`{"ruleset_id":"r","field_values":{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, ok := readDecideRequest(raw)
		if !ok {
			return
		}
		if !utf8.Valid(raw) {
			// encoding/json rewrites invalid UTF-8 in strings; the
			// rulesets such a request names cannot exist anyway.
			return
		}
		var std decideRequest
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&std); err != nil {
			t.Fatalf("fast reader accepted %q, encoding/json refuses it: %v", raw, err)
		}
		if !json.Valid(fast.FieldValues) || !bytes.HasPrefix(bytes.TrimSpace(fast.FieldValues), []byte("{")) {
			t.Fatalf("fast reader accepted %q with field_values %q, not an object", raw, fast.FieldValues)
		}
		if !apitest.SameJSON(t, fast.FieldValues, std.FieldValues) || !apitest.SameJSON(t, fast.CallerRef, std.CallerRef) {
			t.Fatalf("%q: field_values or caller_ref differ: fast %s / %s, encoding/json %s / %s",
				raw, fast.FieldValues, fast.CallerRef, std.FieldValues, std.CallerRef)
		}
		fast.FieldValues, std.FieldValues, fast.CallerRef, std.CallerRef = nil, nil, nil, nil
		// The fast reader's flagSet must mirror the members it read.
		for i := range decideFlags {
			std.flags = std.flags.with(i, *decideFlags[i].member(&std))
		}
		if !reflect.DeepEqual(fast, &std) {
			t.Fatalf("%q: fast reader gives %+v, encoding/json %+v", raw, fast, std)
		}
	})
}
