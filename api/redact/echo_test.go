package redact

import (
	"strings"
	"testing"
)

// A member holds a secret when the JSON decoder would take its name for a
// secret member's, or when its name is a near miss of one; ordinary
// members whose names merely resemble a secret word are not.
func TestSecretMembers(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"provider_key": true, "Provider_Key": true, "PROVIDER-KEY": true, "providerKey": true,
		"provider_\u212aey":   true, // the Kelvin sign, which encoding/json takes for k
		"\u017fecret":         true, // the long s, which encoding/json takes for s
		"provider_keyy":       true,
		"providerkye":         true,
		"my_api_key":          true,
		"client_secret":       true,
		"x-api-key":           true,
		"mode":                false,
		"model":               false,
		"keywords":            false,
		"sections":            false,
		"max_tokens":          false,
		"text":                false,
		"seed_ruleset_id":     false,
		"include_explanation": false,
	} {
		if got := isSecretMember(name); got != want {
			t.Errorf("isSecretMember(%q) = %v, want %v", name, got, want)
		}
	}
}

// A log line never carries a credential, whatever text it came in; the
// rest of the text is kept.
func TestForLogRedactsSecrets(t *testing.T) {
	t.Parallel()
	const secret = "sk-proj-SENTINEL0123456789abcdefghijklmnopqrstuv"
	for in, want := range map[string]string{
		"model " + secret + " unknown": "model [redacted] unknown",
		"acme/grant":                   "acme/grant",
	} {
		if got := ForLog(in); got != want {
			t.Errorf("ForLog(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ForLog(strings.Repeat("a", 190) + secret); strings.Contains(got, "SENTINEL") {
		t.Errorf("a key across the cut: %q", got)
	}
}
