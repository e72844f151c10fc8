// Package publish is the only writer of published content: ruleset cuts
// now, rulebook releases and promotions next. Everything that makes content
// reachable, or changes who can reach it, goes through here, so the gates
// cannot differ between the CLI, `make run`'s seeding and the HTTP API.
//
// A publish runs a table of named stages (compile, slug,
// artefact_visibility, quotes, tests), in order; the first that refuses
// stops it. A stage's name is what a refusal names (RefusedError.Stage),
// what the publish_refused audit event records under "stage", and the
// place a new gate goes: one row. Only when every stage passes is the cut
// stored, in one transaction with its audit events (store.PublishRuleset).
// A refused publish leaves nothing but its publish_refused event.
//
// The stored cut keeps the compiled IR as its content (with the IR version
// and engine version that wrote it) beside the source text and its digest;
// the catalog loads the IR, never the source.
package publish
