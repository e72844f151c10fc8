package redact

import (
	"testing"

	"github.com/eligo/eligo/auth"
)

// apiKeyLength is the length auth gives a key's text.
func TestAPIKeyLengthIsAuths(t *testing.T) {
	t.Parallel()
	k, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Text) != apiKeyLength {
		t.Fatalf("a key is %d characters, apiKeyLength says %d", len(k.Text), apiKeyLength)
	}
}
