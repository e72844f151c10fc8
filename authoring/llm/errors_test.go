package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Sanitise removes the key wherever it appears, anything shaped like a key
// or a bearer token, control and bidi characters, and bounds the length
// without splitting a character or leaving part of the key behind.
func TestSanitise(t *testing.T) {
	t.Parallel()
	key := NewKey("custom-token-Q9x8")
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "The model `gpt-9` does not exist", "The model `gpt-9` does not exist"},
		{"key echoed", "Incorrect API key provided: custom-token-Q9x8.", "Incorrect API key provided: [redacted]."},
		{"key twice", "custom-token-Q9x8/custom-token-Q9x8", "[redacted]/[redacted]"},
		{"masked sk", "Incorrect API key provided: sk-proj-********abcd. See docs.", "Incorrect API key provided: [redacted]. See docs."},
		{"other sk", "key sk-ant-api03-AbC_dEf-123 rejected", "key [redacted] rejected"},
		{"bearer", `header "Authorization: Bearer abc.def-ghi" refused`, `header "Authorization: Bearer [redacted]" refused`},
		{"bearer lower", "got bearer xyz123", "got Bearer [redacted]"},
		{"task- is not sk-", "task-force ask-me-anything", "task-force ask-me-anything"},
		{"newlines", "line one\nline two\r\n\tindented", "line one line two indented"},
		{"forged log line", "oops\n2026-01-01 INFO admin logged in", "oops 2026-01-01 INFO admin logged in"},
		{"controls", "a\x00b\x1bc\x7fd", "abcd"},
		{"bidi", "safe\u202etxt.exe", "safetxt.exe"},
		{"key split by control", "custom-token\x00-Q9x8", "[redacted]"},
		{"invalid utf8", "ok\xff\xfe done", "ok done"},
		{"spaces", "  padded   out  ", "padded out"},
	} {
		if got := Sanitise(tc.in, key); got != tc.want {
			t.Errorf("%s: Sanitise(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestSanitiseBounds(t *testing.T) {
	t.Parallel()
	key := NewKey(sentinel)
	long := strings.Repeat("é", 400) // 800 bytes, two per character
	got := Sanitise(long, key)
	if len(got) > MaxMessageBytes || !utf8.ValidString(got) || !strings.HasSuffix(got, "...") {
		t.Errorf("cut to %d bytes, valid %v: %q", len(got), utf8.ValidString(got), got)
	}
	// The key straddling every cut point: past the scan limit and past
	// the message limit, after text that shrinks when sanitised.
	for _, prefix := range []string{
		strings.Repeat("x", MaxMessageBytes-5),
		strings.Repeat("\x00", maxScanBytes-5),
		strings.Repeat("\x00", maxScanBytes+100),
		strings.Repeat("\x00", maxScanBytes-len(sentinel)/2) + "a",
	} {
		got := Sanitise(prefix+sentinel+" tail", key)
		for n := 6; n <= len(sentinel); n++ {
			if strings.Contains(got, sentinel[:n]) || strings.Contains(got, sentinel[len(sentinel)-n:]) {
				t.Errorf("part of the key (%d bytes) left behind after a %d-byte prefix: %q", n, len(prefix), got)
				break
			}
		}
	}
	if got := Sanitise("no key here", Key{}); got != "no key here" {
		t.Errorf("empty key: %q", got)
	}
}

// ProviderError's text is its reason and message.
func TestProviderErrorText(t *testing.T) {
	t.Parallel()
	e := &ProviderError{Reason: ReasonRateLimited, Retryable: true, Status: 429, Message: "slow down"}
	if got := e.Error(); got != "provider_rate_limited: slow down" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&ProviderError{Reason: ReasonCancelled}).Error(); got != ReasonCancelled {
		t.Errorf("Error() without message = %q", got)
	}
}
