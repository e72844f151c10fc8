package routes

import (
	"context"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/store"
)

// Listen keeps the caches of s and sv in step with writes made by every
// process on the database, until ctx ends: it listens for the
// notifications the store sends with each key revocation, visibility
// change, archive, republish and rulebook write
// (store.InvalidationChannel) and drops what they name, so another
// replica's change takes effect here within milliseconds rather than
// after the caches' TTLs. Every serving process runs it; cfg tunes the
// listener (its zero value is the production setting).
func Listen(ctx context.Context, s *api.Server, sv wiring.Services, cfg store.ListenConfig) {
	sv.Store.ListenInvalidations(ctx, invalidator{keys: s.Authenticator(), catalog: sv.Catalog}, cfg)
}

// invalidator applies invalidations to one process's caches: the API
// key cache and the catalog's reference and answer logging caches.
type invalidator struct {
	keys    *auth.Authenticator
	catalog *catalog.Catalog
}

// Invalidate drops what inv names; a kind this process does not know (a
// newer writer's) drops everything, which is always safe.
func (i invalidator) Invalidate(inv store.Invalidation) {
	switch inv.Kind {
	case store.InvalidateKey:
		i.keys.InvalidateKey(inv.ID)
	case store.InvalidateRuleset:
		i.catalog.InvalidateRuleset(inv.ID, inv.Slug)
	case store.InvalidateRulebook:
		i.catalog.InvalidateRulebook(inv.ID, inv.Slug)
	case store.InvalidateAnswerLogging:
		i.catalog.InvalidateAnswerLogging(inv.ID, inv.Slug)
	default:
		i.InvalidateAll()
	}
}

// InvalidateAll drops every cached row that can change.
func (i invalidator) InvalidateAll() {
	i.keys.InvalidateKeys()
	i.catalog.InvalidateAll()
}
