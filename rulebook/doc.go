// Package rulebook composes several published section rulesets into one
// rulebook under one outcome logic, and gives a rulebook release its
// content identity and its permanent label. It is pure: it does no I/O
// and imports only the engine, the RFC 8785 canonicaliser and the
// standard library, so publication, the catalog and the CLI use it alike.
//
// # Composition is compilation
//
// Compose turns the sections' compiled IR (lettered A, B, C... in
// ruleset_refs order) and an outcome tree into ONE engine.Ruleset, built
// and checked by engine.Build like any loaded ruleset. The evaluator, the
// planner, explanations, explain-failure, the polarity gate and the graph
// therefore serve rulebooks with no second implementation, and a rulebook
// decision is exactly as deterministic and auditable as a ruleset's.
//
// Ids: every group, criterion and source id of a section is prefixed with
// the section's id and a dot, "<section_id>.<id>" (group "service" of
// section fmla_employee becomes "fmla_employee.service"); citations, notes
// and the section's outcome expression are rewritten to match. Section ids
// are unique within a rulebook (Compose refuses a repeat), so no two
// members' ids can clash, and an id says which section it comes from.
//
// Shared fields: field ids are not prefixed. A field id declared by two
// sections is one shared field, asked once: it must have the same type
// and, for an enum, the same values in the same order in every section,
// or Compose refuses the composition with a *FieldConflictError naming the
// field and the sections. Its wording comes from the first section
// declaring it, then from the rulebook's field vocabulary overlay.
//
// The outcome: the outcome tree (Node, read from JSON by ParseOutcomeTree; an
// expression tree is required, never a string) is composed with each leaf
// replaced by that section's own outcome expression, so the composed
// outcome is, by Kleene's logic, the tree applied to the sections' own
// decisions. Composed.SectionResults reports each section's own decision
// from the same evaluation; the package's differential test checks both
// against evaluating each member alone.
//
// # Releases
//
// ContentIdentity hashes a release's frozen content (outcome tree,
// member ruleset ids and digests, overlay, robot hints) as canonical JSON:
// the same content always has the same identity, so publishing it again
// reuses its release, and any change gives a new one. Label,
// AllocateLabel and ValidLabel give releases their permanent two-word
// labels ("amber-falcon") from the embedded words.txt. CheckHints refuses
// robot hint beats docs/api.md#rulebooks does not list.
package rulebook
