package rulebooks

import (
	"bytes"
	"net/http"
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
	var body bytes.Buffer
	body.WriteString(`{"name":"Tree","slug":"acme/tree","ruleset_refs":[],"outcome_logic":{"op":"or","args":[{"section":"A"}`)
	for body.Len() < 15_000_000 {
		body.WriteString(`,{"section":"A"}`)
	}
	body.WriteString(`]}}`)
	var r apitest.Response
	allocated := apitest.Allocated(func() {
		r = f.Do(t, http.MethodPost, "/rulebooks/", apitest.WithKey(key), bytes.NewReader(body.Bytes()))
	})
	apitest.CheckBoundedRefusal(t, r, "too_long", allocated, body.Len(), 6)
}
