// Package publish is the only writer of published content: ruleset cuts,
// rulebook drafts and their releases, promotions to live, and the
// visibility and archive of both. Everything that makes content reachable,
// or changes who can reach it, goes through a Publisher, so the gates
// cannot differ between the CLI (`eligo publish`, `eligo rulebook`),
// `make run`'s seeding, a project's publish and the HTTP API.
//
// Ruleset cuts (publish.go, stages.go). Publisher.Ruleset runs a table of
// named stages, in order: compile, analysis (the solver's static analysis,
// whose findings are warnings and never refuse), slug, period (never
// refuses: warns when the effective period ended before today or before
// the period of the cut live under the slug began), artefact_visibility,
// quotes (every quote found, whitespace-normalised, in the supplied source
// texts: VerifySources), tests (a failure refuses unless ForceUnsafe,
// audited as publish_force_bypass). The first that refuses stops it. A
// stage's name is what a refusal names (RefusedError.Stage), what the
// publish_refused audit event records under "stage", and the place a new
// gate goes: one row. Only when every stage passes is the cut stored, in
// one transaction with its audit events (store.PublishRuleset): identical
// compiled content under the slug reuses its cut, changed content is the
// slug's next v<N>. A refused publish leaves nothing but its
// publish_refused event. The stored cut keeps the compiled IR as its
// content (with the IR version and engine version that wrote it) beside
// the source text and its digest; the catalog loads the IR, never the
// source.
//
// Rulebook releases (rulebook.go). CreateRulebook and UpdateRulebook keep
// a draft whose references resolve and whose members compose (refusals:
// ErrCompositionRefused, ErrCompositionPinned, ErrUnknownField, a
// *catalog.MemberError). Activate, and every edit of a published rulebook,
// freezes the composed draft into an immutable release with a permanent
// two-word label and a content identity; identical content reuses its
// release. Every write checks that the rulebook has not changed since it
// was read (ErrConcurrentEdit), so two edits never release a draft that is
// no longer the stored one.
//
// Promotions (promote.go). Promote makes a candidate cut the live cut of a
// section in a rulebook after the go-live gates, again a table of named
// stages: candidate_tests (its stored cases pass), composition (the
// members compose with it in place), presence_polarity (the solver's gate
// on the composed rulebook: a *PolarityError, unless forced by an internal
// key, audited, or the rulebook is under the reserved namespace, where
// the findings are advisories). Then, in one transaction, the candidate
// becomes live, every reference is pinned, the prior live cut is archived
// and a release is cut; the result carries an advisory semantic diff
// against the prior cut.
//
// Namespaces (namespace.go, the slug stage). A slug matches the slug
// pattern and is not under the service's prefix (Config.ReservedNamespace,
// DefaultReservedNamespace) nor under a reserved namespace
// (Config.ReservedNamespaces, DefaultReservedNamespaces) unless an
// operator made the tenant its owner. A slug's namespace (before its first
// "/") belongs to the first tenant to publish content under it, a ruleset
// or a rulebook's first release, never an empty draft (ErrNamespaceOwned,
// which never reveals whether the slug exists), within the tenant's
// per-tier cap (Config.NamespaceLimits, ErrNamespaceLimit); a slug another
// tenant holds is ErrSlugConflict. See
// docs/limits.md#slug-namespaces.
//
// Artefact rules (artefacts.go, visibility.go, publicurl.go). Content
// citing project artefacts (confidential sources) is never public: a
// public publish, a visibility change and every rulebook write that would
// leave a public rulebook composing such a cut are refused
// (ErrArtefactPublic). PrivateURL is the rule for the other kind of
// reference: a source cited by url must be an address anybody can open;
// a project's publish applies it when it binds the draft's sources
// (authoring).
package publish
