package resource

import (
	"encoding/json"
	"strings"
	"testing"
)

// depthOf is the nesting depth of valid JSON, computed from the decoded
// value: the reference nestsWithin must agree with.
func depthOf(v any) int {
	deepest := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			deepest = max(deepest, depthOf(e))
		}
		return deepest + 1
	case []any:
		for _, e := range v {
			deepest = max(deepest, depthOf(e))
		}
		return deepest + 1
	}
	return 0
}

func TestNestsWithin(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`1`, `"[[[["`, `{}`, `[]`, `{"a":[1,{"b":[]}]}`,
		`{"a":"}]\"[{","b":[["\\"],[{"c":"\\\\"}]]}`,
		`[[[[[]]]]]`, `{"a":{"b":{"c":{"d":{"e":{}}}}}}`,
		`["\u005b\u005b", [["]"]], {"k\"[":[[[1]]]}]`,
		strings.Repeat("[", 6) + strings.Repeat("]", 6),
	} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		want := depthOf(v)
		for limit := range 8 {
			if got := nestsWithin([]byte(doc), limit); got != (want <= limit) {
				t.Errorf("nestsWithin(%s, %d) = %v; depth is %d", doc, limit, got, want)
			}
		}
	}
}

// The strict readers refuse exactly what encoding/json refuses for depth.
func TestReadJSONObjectDepthLimit(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		// The object itself is one level.
		raw := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		_, ok := ReadJSONObject([]byte(raw))
		if ok != json.Valid([]byte(raw)) {
			t.Errorf("depth %d: readJSONObject %v, encoding/json %v", depth, ok, json.Valid([]byte(raw)))
		}
	}
}
