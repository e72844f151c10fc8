package rulebooks

import (
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// TestHugeOutcomeTreeIsRefusedBeforeDecoding: a 15 MB create-rulebook
// body whose outcome_logic is an or of a million leaves, with a free-tier
// key. The tree's own count (rulebook.MaxOutcomeNodes) refused it, but only
// after the validator had decoded the body into generic values, some 400
// MB; now the body's value count refuses it from one pass over its bytes.
func TestHugeOutcomeTreeIsRefusedBeforeDecoding(t *testing.T) {
	f := newFixture(t)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeRulebooksWrite}, time.Time{})
	f.PostRefused(t, "/rulebooks/", key, apitest.OutcomeTreeBody(15_000_000), "too_long", 6)
}
