package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/api/redact"
	"github.com/eligo/eligo/auth"
)

// A 422's echo never carries a credential, and stays small whatever the
// input's size or shape.
func TestValidationEchoIsCut(t *testing.T) {
	t.Parallel()
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	const providerKey = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyz"
	many := make([]any, 1000)
	for i := range many {
		many[i] = "item"
	}
	deep := any("bottom")
	for range 10 {
		deep = map[string]any{"down": deep}
	}
	huge := strings.Repeat("guidance ", 600_000) // 5.4 MB
	wide := map[string]any{}
	for i := range 500 {
		wide[strings.Repeat("k", 1+i%50)+string(rune('a'+i%26))+strings.Repeat("x", i/26)] = strings.Repeat("v", 199)
	}
	items := []ValidationItem{
		{Type: "string_too_long", Loc: []any{"body", "provider_key"}, Input: providerKey},
		{Type: "extra_forbidden", Loc: []any{"body", "extra"}, Input: map[string]any{"provider_key": providerKey, "X-Provider-Key": providerKey}},
		{Type: "missing", Loc: []any{"body", "process_type"}, Input: map[string]any{"guidance_text": huge, "provider_key": providerKey}},
		{Type: "string_type", Loc: []any{"body", "name"}, Input: "my key is " + key.Text + "!"},
		{Type: "list_type", Loc: []any{"body", "cases"}, Input: many},
		{Type: "dict_type", Loc: []any{"body", "deep"}, Input: deep},
		{Type: "dict_type", Loc: []any{"body", "wide"}, Input: map[string]any{"inner": wide, "list": []any{wide, wide}}},
		{Type: "value_error", Loc: []any{"body", "x"}, Input: []any{huge, huge, huge, huge, huge, huge, huge, huge, huge, huge}},
	}
	body, err := json.Marshal(ValidationFailed(items...))
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	for _, secret := range []string{providerKey, key.Text, key.Text[len(key.Text)-43:]} {
		if strings.Contains(text, secret) {
			t.Fatalf("the echo carries a secret: %s", text[:min(len(text), 2000)])
		}
	}
	if len(body) > len(items)*(redact.MaxEchoedBytes+1024) {
		t.Fatalf("the echo of %d items is %d bytes", len(items), len(body))
	}
	var got struct {
		Detail []ValidationItem `json:"detail"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	in := func(i int) any { return got.Detail[i].Input }
	if in(0) != redact.Redacted || in(1).(map[string]any)["provider_key"] != redact.Redacted || in(1).(map[string]any)["X-Provider-Key"] != redact.Redacted {
		t.Errorf("provider keys not redacted: %v, %v", in(0), in(1))
	}
	parent := in(2).(map[string]any)
	if g := parent["guidance_text"].(string); len(g) > redact.MaxEchoedString+50 || !strings.HasSuffix(g, "(5400000 bytes)") {
		t.Errorf("long text echoed as %d bytes: %.80q", len(g), g)
	}
	if want := "my key is elg_" + key.Prefix + "_" + redact.Redacted + "!"; in(3) != want {
		t.Errorf("API key in a string: %q, want %q", in(3), want)
	}
	if in(4) != "(an array of 1000 items)" {
		t.Errorf("large array: %v", in(4))
	}
	level := in(5)
	for range redact.MaxEchoedDepth {
		level = level.(map[string]any)["down"]
	}
	if level != "(an object of 1 members)" {
		t.Errorf("deep object ends in %v", level)
	}
	// Small inputs come back as they were sent.
	small := ValidationFailed(ValidationItem{Type: "enum", Loc: []any{"body", "mode"}, Input: "sideways"},
		ValidationItem{Type: "missing", Loc: []any{"body", "name"}, Input: map[string]any{"slug": "acme/x", "tags": []any{"a", 1.0}}})
	if d := small.Detail.([]ValidationItem); d[0].Input != "sideways" || len(d[1].Input.(map[string]any)["tags"].([]any)) != 2 {
		t.Errorf("small inputs changed: %+v", d)
	}
}

// BenchmarkValidationEcho is the 422 of a body whose 5 MB guidance text is
// refused (too long, and its parent echoed for a missing member): building
// and encoding the answer, as a refused request costs the server.
func BenchmarkValidationEcho(b *testing.B) {
	huge := strings.Repeat("guidance ", 600_000)
	b.ReportAllocs()
	for b.Loop() {
		e := ValidationFailed(
			ValidationItem{Type: "string_too_long", Loc: []any{"body", "guidance_text"}, Input: huge},
			ValidationItem{Type: "missing", Loc: []any{"body", "process_type"}, Input: map[string]any{"guidance_text": huge, "provider_key": "sk-x"}})
		body, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(body)), "bytes/answer")
	}
}
