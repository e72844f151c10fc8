package llm

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDefaultModels(t *testing.T) {
	t.Parallel()
	m := DefaultModels()
	if got := m.Default(); got.Name != "gpt-4.1" || got.Budget() != 1_047_576-DefaultReserved || got.Encoding != EncodingO200k {
		t.Errorf("Default() = %+v, budget %d", got, got.Budget())
	}
	want := []string{"gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini", "o4-mini"}
	if got := m.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	m.Names()[0] = "changed"
	if m.Names()[0] != "gpt-4.1" {
		t.Error("Names() shares the table's slice")
	}
	for name, window := range map[string]int{"gpt-4o": 128_000, "gpt-4o-mini": 128_000, "o4-mini": 200_000, "gpt-4.1-mini": 1_047_576} {
		info, ok := m.Lookup(name)
		if !ok || info.ContextWindow != window || info.Reserved != DefaultReserved {
			t.Errorf("Lookup(%q) = %+v, %v", name, info, ok)
		}
	}
	if _, ok := m.Lookup("gpt-5-imaginary"); ok {
		t.Error("Lookup found a model not in the table")
	}
	again, err := ParseModels(m.String())
	if err != nil || !slices.Equal(again.Names(), want) || again.Default() != m.Default() {
		t.Errorf("ParseModels(%q) = %v, %v", m.String(), again.Names(), err)
	}
	var zero Models
	if _, ok := zero.Lookup("gpt-4o"); ok || zero.Default() != (ModelInfo{}) || len(zero.Names()) != 0 {
		t.Error("the zero Models is not empty")
	}
}

func TestParseModels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec string
		want []ModelInfo // nil: an error is expected
		err  string      // part of the error
	}{
		{spec: "gpt-4o:128000", want: []ModelInfo{{"gpt-4o", 128_000, 16_000, EncodingO200k}}},
		{spec: " gpt-4.1:1047576 , gpt-4:8192:cl100k_base ", want: []ModelInfo{
			{"gpt-4.1", 1_047_576, 16_000, EncodingO200k},
			{"gpt-4", 8192, 2048, EncodingCl100k},
		}},
		{spec: "llama3.1:8b:131072:cl100k_base,qwen2.5:7b-instruct:32768", want: []ModelInfo{
			{"llama3.1:8b", 131_072, 16_000, EncodingCl100k},
			{"qwen2.5:7b-instruct", 32_768, 8192, EncodingO200k},
		}},
		{spec: "local:64000:o200k_base", want: []ModelInfo{{"local", 64_000, 16_000, EncodingO200k}}},
		{spec: "", err: "empty"},
		{spec: "  ", err: "empty"},
		{spec: "gpt-4o", err: "entry 1 \"gpt-4o\": want name:context_window"},
		{spec: "gpt-4o:", err: "want name:context_window"},
		{spec: ":128000", err: "model name is empty"},
		{spec: "gpt-4o:lots", err: "want name:context_window"},
		{spec: "gpt-4o:128k", err: "want name:context_window"},
		{spec: "gpt-4o:-5", err: "want name:context_window"},
		{spec: "gpt-4o:0", err: "at least 1024"},
		{spec: "phi3:14", err: "at least 1024"},
		{spec: "gpt-4o:99999999999999999999999", err: "not a number of tokens"},
		{spec: "gpt-4o:128000:p50k_base", err: `unknown encoding "p50k_base"`},
		{spec: "qwen2.5:7b", err: "want name:context_window"},
		{spec: "gpt-4o:128000,", err: "entry 2 \"\": empty entry"},
		{spec: "a:2048,,b:2048", err: "entry 2"},
		{spec: "a:2048,b:4096,a:8192", err: `entry 3: model "a" listed twice`},
	} {
		m, err := ParseModels(tc.spec)
		if tc.want == nil {
			if err == nil || !errors.Is(err, ErrModelsSpec) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseModels(%q) error = %v, want one containing %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseModels(%q): %v", tc.spec, err)
			continue
		}
		var got []ModelInfo
		for _, name := range m.Names() {
			info, _ := m.Lookup(name)
			got = append(got, info)
		}
		if !slices.Equal(got, tc.want) || m.Default() != tc.want[0] {
			t.Errorf("ParseModels(%q) = %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

// Each encoding counts with its own tokenizer; an unknown one is refused.
func TestCounterFor(t *testing.T) {
	t.Parallel()
	text := "The employee has been employed for at least 12 months"
	counts := map[string]int{}
	for _, enc := range Encodings() {
		c, err := NewCounterFor(enc)
		if err != nil || c.Encoding() != enc {
			t.Fatalf("NewCounterFor(%q) = %v, %v", enc, c, err)
		}
		if counts[enc], err = c.Count(text); err != nil || counts[enc] == 0 {
			t.Fatalf("%s: Count = %d, %v", enc, counts[enc], err)
		}
	}
	if counts[EncodingO200k] != 11 {
		t.Errorf("o200k_base count = %d, want 11", counts[EncodingO200k])
	}
	c, err := NewCounterFor(EncodingCl100k)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Count("hello world"); n != 2 {
		t.Errorf("cl100k_base count of hello world = %d, want 2", n)
	}
	for _, enc := range []string{"", "p50k_base", "O200K_BASE", "gpt2"} {
		if _, err := NewCounterFor(enc); err == nil || !strings.Contains(err.Error(), "unknown encoding") {
			t.Errorf("NewCounterFor(%q) error = %v", enc, err)
		}
	}
}

// Encoding is the name of the encoding the Counter counts in (the tests
// check which encoding a model got).
func (c *Counter) Encoding() string { return c.encoding }
