package publish

import (
	"errors"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/store"
)

// Refusals. A refused publish returns a *RefusedError wrapping one of
// these; callers branch with errors.Is to pick their status or message.
var (
	// ErrInvalidSlug: the slug breaks the pattern of docs/api.md#rulesets (422
	// invalid_slug_format), or none was given.
	ErrInvalidSlug = errors.New("invalid slug")
	// ErrReservedNamespace: the slug is under the service's prefix, or
	// under a reserved namespace an operator has not assigned to the
	// tenant (403 reserved_namespace).
	ErrReservedNamespace = errors.New("slug is in the reserved namespace")
	// ErrSlugConflict: another tenant holds the slug (409 slug_conflict).
	ErrSlugConflict = store.ErrSlugConflict
	// ErrNamespaceOwned: the slug's namespace (the part before its first
	// "/") belongs to another tenant, the first to publish under it (403
	// namespace_owned). It is the answer whether or not the slug exists,
	// so a refusal never reveals another tenant's private slugs.
	ErrNamespaceOwned = store.ErrNamespaceOwned
	// ErrNamespaceLimit: the publish would claim a new namespace and the
	// tenant owns as many as its tier allows (422 tenant_namespace_limit).
	ErrNamespaceLimit = store.ErrNamespaceLimit
	// ErrCompile: the rules text does not compile (see RefusedError.Compile).
	ErrCompile = errors.New("rules do not compile")
	// ErrArtefactPublic: public content citing project artefacts, which are
	// never shown to anonymous callers (422
	// artefact_reference_public_visibility_forbidden).
	ErrArtefactPublic = errors.New("artefact references cannot be public")
	// ErrSourceUnverified: a quote could not be verified against the
	// supplied source texts (see RefusedError.Problems).
	ErrSourceUnverified = errors.New("source references do not verify")
	// ErrTestsFailed: a test case failed and ForceUnsafe was not set (see
	// RefusedError.Failures).
	ErrTestsFailed = errors.New("test cases fail")
)

// RefusedError is a publish that stored nothing: a stage refused it. Its
// only trace is the publish_refused audit event.
type RefusedError struct {
	// Stage names the stage that refused: of a ruleset publish, compile,
	// slug, artefact_visibility, quotes, tests, or store for the slug
	// rules the store enforces; of a promotion, candidate_loads,
	// candidate_tests or composition. A rulebook write names the rule it
	// broke the same way (slug, artefact_visibility); a rulebook slug
	// refused by its format or the reserved namespace leaves it empty.
	Stage string
	// Reason is one of the Err* refusals above.
	Reason error
	// Message says what to fix, in one or more sentences.
	Message string
	// Compile holds the compile errors for ErrCompile.
	Compile syntax.ErrorList
	// Failures holds the failing cases for ErrTestsFailed.
	Failures []engine.CaseResult
	// Problems lists the unverified quotes for ErrSourceUnverified.
	Problems []string
}

// Error says which stage refused and why.
func (e *RefusedError) Error() string { return "publish refused at " + e.Stage + ": " + e.Message }

// Unwrap lets errors.Is match the reason.
func (e *RefusedError) Unwrap() error { return e.Reason }
