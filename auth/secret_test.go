package auth

import (
	"strings"
	"testing"
)

// KeyLength is the length GenerateKey gives a key's text.
func TestKeyLengthIsGenerated(t *testing.T) {
	t.Parallel()
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Text) != KeyLength {
		t.Fatalf("a key is %d characters, KeyLength says %d", len(k.Text), KeyLength)
	}
}

// RedactSecrets replaces credentials by their look, whatever surrounds
// them, and leaves ids, digests, words and identifiers alone.
func TestRedactSecrets(t *testing.T) {
	t.Parallel()
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"sk-proj-SENTINEL0123456789abcdefghijklmnopqrstuv": Redacted,
		"sk-ant-api03-abcdefghijklmnop":                    Redacted,
		"key: gsk_abcdefghijklmnopqrstu!":                  "key: " + Redacted + "!",
		"acme/sk-proj-SENTINEL0123456789abcdefghijkl":      Redacted,
		"key=sk-proj-SENTINEL0123456789abcdefghijkl":       Redacted,
		"AIzaSyD-abcdefghijklmnopqrstuvwxyz12345":          Redacted,
		"Zx8qL2pW9vT4mN7bR1cY6kD3hJ5gF0sA8eU2iO4":          Redacted, // random, no known prefix
		"Bearer Zx8qL2pW9vT4mN7bR1cY6kD3hJ5g/F0sA8eU2iO4=": "Bearer " + Redacted,
		"my key is " + k.Text + "!":                        "my key is elg_" + k.Prefix + "_" + Redacted + "!",
		"x" + k.Text:                                       Redacted,
		// Not secrets: ids, digests, words, identifiers, short tokens.
		"prj_AbCdEfGh12345678":                                "prj_AbCdEfGh12345678",
		"gen_Q2x9-ZpL0aBc7_Yq":                                "gen_Q2x9-ZpL0aBc7_Yq",
		"sha256:" + strings.Repeat("0123456789abcdef", 4):     "sha256:" + strings.Repeat("0123456789abcdef", 4),
		"123e4567-e89b-12d3-a456-426614174000":                "123e4567-e89b-12d3-a456-426614174000",
		"ApplicantHouseholdIncome2024Threshold":               "ApplicantHouseholdIncome2024Threshold",
		"housing-benefit-2024-eligibility-rules-v12":          "housing-benefit-2024-eligibility-rules-v12",
		"https://example.gov/acts/2024/Housing-Act_Section12": "https://example.gov/acts/2024/Housing-Act_Section12",
		"sk-1":        "sk-1",
		"elg_short_x": "elg_short_x",
		"":            "",
	} {
		if got := RedactSecrets(in); got != want {
			t.Errorf("RedactSecrets(%q) = %q, want %q", in, got, want)
		}
	}
}
