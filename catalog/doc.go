// Package catalog resolves references to published content for a viewer:
// a slug or a concrete ruleset_id becomes a PreparedRuleset (its stored
// cut, its "v<N>" label, the executable *engine.Ruleset loaded from its
// stored IR, and the solver state prepared for that content: its
// explain-failure Explainer and its Plan of next questions), a rulebook
// reference a PreparedRulebook, a listing a page of the catalogue as the
// viewer may see it, or a sentinel error the caller maps to its own answer (the
// HTTP layer's 404 and 422, a worker's failure reason, the CLI's message).
//
// It owns the read-side rules of published content, in one place:
//
//   - listing: a cut is listed when it is Listable (a damaged row is
//     skipped and counted, never shown half).
//   - visibility: an anonymous viewer sees public cuts; a tenant also sees
//     its own private ones. Anything else is ErrNotFound, exactly as if it
//     did not exist.
//   - archive: a slug pointing at an archived cut is not found; the
//     concrete id of an archived cut still resolves, so that recorded
//     decisions can be replayed.
//   - corruption: the stored IR is the content. A cut is loaded from its
//     stored IR (never by re-parsing its source text) and the IR's RFC 8785
//     digest must equal the row's content_digest; anything else is
//     ErrCorrupt, never a wrong answer. A change to the compiler therefore
//     never makes stored content corrupt; a tampered row still is.
//
// And its caches, all bounded:
//
//   - reference → stored row: an expirable LRU. Every write that changes
//     a cut's or rulebook's visibility, status or slug notifies every
//     process (store.InvalidationChannel), whose listener drops the
//     entries (InvalidateRuleset, InvalidateRulebook); writes through this
//     process drop them at once (Forget). The short TTL (RefTTL) is the
//     backstop should a notification be lost.
//   - content digest → loaded ruleset: an LRU without TTL (a digest names
//     immutable content); concurrent misses on one digest share one load.
//   - content digest → prepared explain-failure solver state, and the
//     planner's way models and finished plans (plan.Planner's own LRUs;
//     the composition root builds the planner and hands it in,
//     Config.Planner).
//
// Visibility is judged after the caches, per viewer, so a cached entry
// never reaches a viewer who may not see it. The catalog does no HTTP and
// can be used from a worker or the CLI.
package catalog
