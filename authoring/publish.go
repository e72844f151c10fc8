// Package authoring turns rules text and test cases into published
// rulesets. Publish is the one publish path: the CLI's `eligo publish` and
// the project publish endpoint both call it, so the gates (compile, tests,
// slug rules) cannot differ between them.
package authoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// DefaultReservedNamespace is the slug prefix kept for the service's own
// rulesets when PublishRequest.ReservedNamespace is empty.
const DefaultReservedNamespace = "eligo/"

// MaxSlugLength bounds a slug; the spec gives only its pattern.
const MaxSlugLength = 200

// slugPattern is the spec's slug pattern.
var slugPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$`)

// ValidSlug reports whether slug has the spec's form and fits MaxSlugLength.
func ValidSlug(slug string) bool {
	return len(slug) <= MaxSlugLength && slugPattern.MatchString(slug)
}

// Refusals. Publish wraps each in a *RefusedError; callers branch with
// errors.Is to pick the HTTP status or exit message.
var (
	// ErrInvalidSlug: the slug breaks the spec's pattern (422
	// invalid_slug_format), or none was given.
	ErrInvalidSlug = errors.New("invalid slug")
	// ErrReservedNamespace: the slug is under the reserved prefix (403
	// reserved_namespace).
	ErrReservedNamespace = errors.New("slug is in the reserved namespace")
	// ErrSlugConflict: another tenant holds the slug (409 slug_conflict).
	ErrSlugConflict = store.ErrSlugConflict
	// ErrCompile: the rules text does not compile (see RefusedError.Compile).
	ErrCompile = errors.New("rules do not compile")
	// ErrArtefactPublic: a public publish of rules citing project
	// artefacts, which are never shown to anonymous callers (422
	// artefact_reference_public_visibility_forbidden).
	ErrArtefactPublic = errors.New("artefact references cannot be public")
	// ErrSourceUnverified: a quote could not be verified against the
	// supplied source texts (see RefusedError.Problems).
	ErrSourceUnverified = errors.New("source references do not verify")
	// ErrTestsFailed: a test case failed and ForceUnsafe was not set (see
	// RefusedError.Failures).
	ErrTestsFailed = errors.New("test cases fail")
)

// RefusedError is a publish that stored nothing. Its only trace is the
// publish_refused audit event.
type RefusedError struct {
	// Reason is one of the Err* refusals above.
	Reason error
	// Message says what to fix, in one or more sentences.
	Message string
	// Compile holds the compile errors for ErrCompile.
	Compile engine.ErrorList
	// Failures holds the failing cases for ErrTestsFailed.
	Failures []engine.CaseResult
	// Problems lists the unverified quotes for ErrSourceUnverified.
	Problems []string
}

func (e *RefusedError) Error() string { return "publish refused: " + e.Message }

// Unwrap lets errors.Is match the reason.
func (e *RefusedError) Unwrap() error { return e.Reason }

// PublishRequest is one publish.
type PublishRequest struct {
	// TenantID owns the ruleset; created when new.
	TenantID string
	// Filename names the source in compile errors.
	Filename string
	// Source is the .rules text.
	Source []byte
	// Slug publishes under this slug; empty takes the file's `ruleset`
	// header.
	Slug string
	// Name overrides the ruleset's name (default: the file's name header,
	// else the section id title-cased).
	Name string
	// Public makes the ruleset visible to everyone, anonymous callers
	// included; otherwise only the tenant sees it.
	Public bool
	// Sources maps cited source ids to their text. When given, every
	// quote must appear in its source's text (white space collapsed) or
	// the publish is refused, and each reference then shows the text's
	// digest and the time of the check. When empty the references are
	// published unverified.
	Sources map[string][]byte
	// Cases are the ruleset's test cases; all must pass unless
	// ForceUnsafe.
	Cases []engine.Case
	// ForceUnsafe publishes despite failing cases and records a
	// publish_force_bypass audit event naming them.
	ForceUnsafe bool
	// ReservedNamespace is the slug prefix no tenant may publish under;
	// empty means DefaultReservedNamespace.
	ReservedNamespace string
	// Actor says who published (a key prefix, "cli"), for the audit trail.
	Actor string
}

// PublishResult says what was published.
type PublishResult struct {
	// RulesetID is the concrete id of the cut,
	// "<section_id>:<yyyymmdd>-<hash>"; empty when the publish was
	// refused.
	RulesetID string
	// Slug is the slug published under: the request's, else the rules
	// file's `ruleset` header.
	Slug string
	// Version is the cut's version label, "v<N>"; empty when refused.
	Version string
	// ContentDigest is the compiled ruleset's "sha256:<hex>" digest, set
	// as soon as the rules compile.
	ContentDigest string
	// Visibility is "public" or "private" as stored; empty when refused.
	Visibility string
	// Reused is true when the slug already held this exact content: the
	// existing cut (same id and version) was reused.
	Reused bool
	// PreviousID is where the slug pointed before; empty for a new slug.
	PreviousID string
	// TestsPassing counts the request's cases that passed.
	TestsPassing int
	// TestsTotal counts the request's cases.
	TestsTotal int
	// Failures are the failing cases published anyway under ForceUnsafe.
	Failures []engine.CaseResult
	// Warnings are compile warnings; they never block.
	Warnings engine.ErrorList
	// VerifiedSources counts the cited sources whose quotes were verified.
	VerifiedSources int
}

// Publish compiles req.Source, runs its cases, applies the slug rules and
// stores the cut in one transaction (see store.PublishRuleset): identical
// compiled content under the same slug reuses the existing cut, changed
// content becomes the slug's next version. Any refusal is a *RefusedError
// and leaves only a publish_refused audit event behind.
func Publish(ctx context.Context, st *store.Store, req PublishRequest) (PublishResult, error) {
	res, err := publish(ctx, st, req)
	var refused *RefusedError
	if errors.As(err, &refused) {
		detail := map[string]any{"slug": req.Slug, "reason": refused.Reason.Error(), "message": refused.Message, "actor": req.Actor}
		if res.ContentDigest != "" {
			detail["content_digest"] = res.ContentDigest
		}
		if auditErr := st.RecordPublishRefusal(ctx, req.TenantID, detail); auditErr != nil {
			return PublishResult{}, errors.Join(err, auditErr)
		}
	}
	return res, err
}

func publish(ctx context.Context, st *store.Store, req PublishRequest) (PublishResult, error) {
	r, warnings, err := engine.Compile(req.Filename, req.Source)
	if err != nil {
		var list engine.ErrorList
		errors.As(err, &list)
		return PublishResult{}, &RefusedError{Reason: ErrCompile, Message: err.Error(), Compile: list}
	}
	res := PublishResult{Warnings: warnings, ContentDigest: r.ContentDigest(), TestsTotal: len(req.Cases)}

	if req.Slug == "" {
		req.Slug = r.Slug
	}
	if err := checkSlug(req.Slug, req.ReservedNamespace); err != nil {
		return res, err
	}
	res.Slug = req.Slug
	if req.Public && CitesArtefacts(r) {
		return res, &RefusedError{Reason: ErrArtefactPublic,
			Message: "the rules cite project artefacts, which are never public; publish privately"}
	}

	var checks map[string]store.SourceCheck
	if len(req.Sources) > 0 {
		var problems []string
		checks, problems = VerifySources(r, req.Sources, time.Now())
		if len(problems) > 0 {
			return res, &RefusedError{Reason: ErrSourceUnverified, Problems: problems,
				Message: strings.Join(problems, "; ")}
		}
	}
	res.VerifiedSources = len(checks)

	for _, c := range req.Cases {
		cr := r.RunCase(c)
		if cr.Pass {
			res.TestsPassing++
		} else {
			res.Failures = append(res.Failures, cr)
		}
	}
	var audit []store.Audit
	if len(res.Failures) > 0 {
		if !req.ForceUnsafe {
			return res, &RefusedError{Reason: ErrTestsFailed, Failures: res.Failures,
				Message: fmt.Sprintf("%d of %d test cases fail (%s); fix them or publish with force_unsafe",
					len(res.Failures), len(req.Cases), strings.Join(caseNames(res.Failures), ", "))}
		}
		audit = append(audit, store.Audit{Kind: "publish_force_bypass", Detail: map[string]any{
			"actor": req.Actor, "tests_total": res.TestsTotal, "tests_passing": res.TestsPassing,
			"failing_cases": caseNames(res.Failures),
		}})
	}

	ir, err := json.Marshal(r)
	if err != nil {
		return res, fmt.Errorf("encode compiled ruleset: %w", err)
	}
	name := r.Name
	if req.Name != "" {
		name = req.Name
	}
	visibility := store.VisibilityPrivate
	if req.Public {
		visibility = store.VisibilityPublic
	}
	out, err := st.PublishRuleset(ctx, store.RulesetCut{
		TenantID: req.TenantID, Slug: req.Slug, SectionID: r.SectionID, Name: name,
		Description: r.Description, RuleCount: r.NumCriteria(), ContentDigest: res.ContentDigest,
		SourceText: string(req.Source), CompiledIR: ir, Visibility: visibility, SourceChecks: checks, Audit: audit,
	})
	if errors.Is(err, store.ErrSlugConflict) {
		return res, &RefusedError{Reason: ErrSlugConflict,
			Message: fmt.Sprintf("the slug %q is held by another tenant; choose another slug", req.Slug)}
	}
	if err != nil {
		return res, err
	}
	res.RulesetID, res.Version, res.Visibility = out.Ruleset.ID, out.Ruleset.VersionLabel(), out.Ruleset.Visibility
	res.Reused, res.PreviousID = out.Reused, out.PreviousID
	return res, nil
}

// checkSlug applies the slug format and the reserved namespace.
func checkSlug(slug, reserved string) error {
	if slug == "" {
		return &RefusedError{Reason: ErrInvalidSlug,
			Message: "no slug: pass one, or declare `ruleset \"<namespace>/<name>\"` in the rules"}
	}
	if !ValidSlug(slug) {
		return &RefusedError{Reason: ErrInvalidSlug, Message: fmt.Sprintf(
			"slug %q must match ^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$ (at most %d characters), e.g. acme/housing-benefit",
			slug, MaxSlugLength)}
	}
	if reserved == "" {
		reserved = DefaultReservedNamespace
	}
	if !strings.HasSuffix(reserved, "/") {
		reserved += "/"
	}
	if strings.HasPrefix(slug+"/", reserved) {
		return &RefusedError{Reason: ErrReservedNamespace,
			Message: fmt.Sprintf("slugs under %q are reserved for the service; choose another namespace", reserved)}
	}
	return nil
}

// CitesArtefacts reports whether the ruleset declares an artefact source
// (a v2 reference to a project file).
func CitesArtefacts(r *engine.Ruleset) bool {
	for _, src := range r.Sources {
		if src.Artefact != "" {
			return true
		}
	}
	return false
}

func caseNames(results []engine.CaseResult) []string {
	names := make([]string, len(results))
	for i, cr := range results {
		names[i] = cr.Name
	}
	return names
}
