package rulebook

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParseOutcomeTree checks that any outcome_logic bytes either give a tree
// that validates and round-trips through its JSON, or problems, never
// both, never neither for a non-null document, and never a panic.
func FuzzParseOutcomeTree(f *testing.F) {
	for _, seed := range append([]string{`"A AND B"`, `{"expr":"A"}`, `{"section":"D"}`, `{"op":"xor","args":[]}`, `[]`, `null`}, trees3...) {
		f.Add([]byte(seed), 3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, letters int) {
		letters = ((letters % (MaxSections + 1)) + MaxSections + 1) % (MaxSections + 1)
		n, problems := ParseOutcomeTree(raw, letters)
		if n != nil && problems != nil {
			t.Fatalf("a tree and problems: %v", problems)
		}
		for _, p := range problems {
			if len(p.Loc) == 0 || p.Loc[0] != "outcome_logic" || p.Type == "" || p.Msg == "" {
				t.Fatalf("malformed problem %+v", p)
			}
		}
		if n == nil {
			if problems == nil {
				if trimmed := string(bytes.TrimSpace(raw)); trimmed != "" && trimmed != "null" {
					t.Fatalf("neither a tree nor problems for %q", raw)
				}
			}
			return
		}
		if err := n.Validate(letters); err != nil {
			t.Fatalf("parsed tree %s does not validate: %v", n, err)
		}
		js, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		again, problems := ParseOutcomeTree(js, letters)
		if problems != nil || !reflect.DeepEqual(again, n) {
			t.Fatalf("%s reads back as %v, %v", js, again, problems)
		}
	})
}
