package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/catalog"
)

// A not-found detail names the reference it looked for, but never a
// credential pasted into it.
func TestNotFoundNeverQuotesAKey(t *testing.T) {
	t.Parallel()
	const secret = "sk-proj-SENTINEL0123456789abcdefghijklmnopqrstuv"
	for _, ref := range []string{secret, "acme/" + secret, "acme/grant"} {
		err := LookupFailed(context.Background(), fmt.Errorf("ruleset %s: %w", ref, catalog.ErrNotFound), "Ruleset", ref)
		e, ok := err.(*Error)
		if !ok || e.GetStatus() != 404 || strings.Contains(e.Error(), "SENTINEL") {
			t.Errorf("%q: %v", ref, err)
		}
	}
}
