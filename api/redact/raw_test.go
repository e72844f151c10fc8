package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestRawEchoesAsDecoded: JSON text not decoded (json.RawMessage) is
// echoed as its decoded value would be, reading only what the echo shows:
// long strings cut with their decoded length, escapes included; large
// objects and arrays summarised; secrets redacted.
func TestRawEchoesAsDecoded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300) // 600 bytes
	wide := map[string]int{}
	for i := range 25 {
		wide[fmt.Sprintf("k%02d", i)] = i
	}
	wideJSON, _ := json.Marshal(wide)
	tests := []struct {
		name string
		raw  string
	}{
		{"a short string", `"hello"`},
		{"a long string", `"` + long + `"`},
		{"a long string of escapes", `"` + strings.Repeat(`\u00e9`, 300) + `"`},
		{"a surrogate pair past the cut", `"` + strings.Repeat("x", 300) + `\ud83d\ude00"`},
		{"an object", `{"a":1,"b":[true,null],"provider_key":"sk-secret"}`},
		{"a wide object", string(wideJSON)},
		{"a long list", `[` + strings.TrimSuffix(strings.Repeat("1,", 30), ",") + `]`},
		{"a deep value", `{"a":{"b":{"c":{"d":1}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var decoded any
			if err := json.Unmarshal([]byte(tt.raw), &decoded); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(Echo([]any{"body"}, decoded))
			got, _ := json.Marshal(Echo([]any{"body"}, json.RawMessage(tt.raw)))
			if string(got) != string(want) {
				t.Errorf("raw echo %s, decoded echo %s", got, want)
			}
		})
	}
}
