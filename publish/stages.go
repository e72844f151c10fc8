package publish

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/verify"
	"github.com/eligo/eligo/store"
)

// rulesetCut is a ruleset publish in progress: the request, what the
// stages have worked out so far, and the result they fill in.
type rulesetCut struct {
	req RulesetRequest
	// rules is the compiled ruleset, set by the compile stage.
	rules *engine.Ruleset
	// checks are the verified sources, set by the quotes stage.
	checks map[string]store.SourceCheck
	// audit are events to write with the cut (publish_force_bypass).
	audit []store.Audit
	// visibility is the cut's, settled by the visibility stage.
	visibility string
	res        RulesetResult
}

// stage is one named gate of a publish. run returns a *RefusedError to
// refuse (the runner fills in Stage from name), or another error when the
// gate could not be run at all.
type stage struct {
	name string
	run  func(*Publisher, context.Context, *rulesetCut) error
}

// rulesetStages are the gates of a ruleset publish, in order. A new gate
// is one row; its name is what refusals and the audit trail call it.
var rulesetStages = [...]stage{
	{"compile", (*Publisher).compileStage},
	{"analysis", (*Publisher).analysisStage},
	{"slug", (*Publisher).slugStage},
	{"visibility", (*Publisher).visibilityStage},
	{"period", (*Publisher).periodStage},
	{"artefact_visibility", (*Publisher).artefactStage},
	{"quotes", (*Publisher).quotesStage},
	{"tests", (*Publisher).testsStage},
}

// compileStage compiles the rules text; compile errors refuse.
func (p *Publisher) compileStage(ctx context.Context, c *rulesetCut) error {
	r, warnings, err := engine.Compile(c.req.Filename, c.req.Source)
	if err != nil {
		var list syntax.ErrorList
		errors.As(err, &list)
		return &RefusedError{Reason: ErrCompile, Message: err.Error(), Compile: list}
	}
	c.rules, c.res.Warnings, c.res.ContentDigest = r, warnings, r.ContentDigest()
	return nil
}

// analysisStage runs the solver's static analysis on the compiled rules.
// Its findings are warnings in the result and never refuse; an analysis
// that cannot finish in time leaves what it found.
func (p *Publisher) analysisStage(ctx context.Context, c *rulesetCut) error {
	findings, _ := verify.Analyze(ctx, c.rules, verify.AnalyzeOptions{Gate: p.gate.For(c.req.TenantID)})
	c.res.Findings = findings
	return nil
}

// slugStage settles the slug (the request's, else the file's header) and
// applies the slug rules.
func (p *Publisher) slugStage(ctx context.Context, c *rulesetCut) error {
	slug := c.req.Slug
	if slug == "" {
		slug = c.rules.Slug
	}
	if err := p.checkSlug(ctx, c.req.TenantID, slug); err != nil {
		return err
	}
	c.res.Slug = slug
	return nil
}

// The visibility a publish asks for (RulesetRequest.Visibility), beside
// store.VisibilityPublic and store.VisibilityPrivate, and where the
// visibility of the cut came from (RulesetResult.VisibilityFrom).
const (
	// VisibilityKeep asks for the visibility of the cut the slug points
	// at now (private for a new slug): a new version of a public
	// programme stays public unless the team says otherwise.
	VisibilityKeep = ""
	// VisibilityRequested: the request named the visibility.
	VisibilityRequested = "requested"
	// VisibilityKept: the visibility of the cut the slug pointed at.
	VisibilityKept = "kept"
	// VisibilityNewSlug: the slug had no cut of the tenant's, so the cut
	// is private until made public.
	VisibilityNewSlug = "new_slug"
)

// visibilityStage settles the cut's visibility: the request's, else the
// one of the cut the slug points at now, else private. The slug's cut is
// read from the database, not the reference cache, so a visibility
// changed a moment ago is the one kept.
func (p *Publisher) visibilityStage(ctx context.Context, c *rulesetCut) error {
	switch v := c.req.Visibility; v {
	case store.VisibilityPublic, store.VisibilityPrivate:
		c.visibility, c.res.VisibilityFrom = v, VisibilityRequested
	case VisibilityKeep:
		row, err := p.catalog.Owned(ctx, c.req.TenantID, c.res.Slug)
		switch {
		case errors.Is(err, catalog.ErrNotFound):
			c.visibility, c.res.VisibilityFrom = store.VisibilityPrivate, VisibilityNewSlug
		case err != nil:
			return fmt.Errorf("visibility of the cut %q points at: %w", c.res.Slug, err)
		default:
			c.visibility, c.res.VisibilityFrom = row.Visibility, VisibilityKept
		}
	default:
		return fmt.Errorf("publish visibility %q: want %q, %q or empty", v, store.VisibilityPublic, store.VisibilityPrivate)
	}
	return nil
}

// periodStage warns, and never refuses, when the rules' effective period
// ended before today or before the period of the cut the slug points at
// began (engine.StalePeriod).
func (p *Publisher) periodStage(ctx context.Context, c *rulesetCut) error {
	if c.rules.Effective == nil {
		return nil
	}
	live, err := p.Live(ctx, c.req.TenantID, c.res.Slug)
	if err != nil {
		return err
	}
	c.res.PeriodNotices = live.Stale(c.rules.Effective, value.DateOf(p.clock.Now()))
	return nil
}

// artefactStage refuses public content citing project artefacts; when the
// public visibility was kept from the slug's cut, the refusal says so and
// how to publish privately instead.
func (p *Publisher) artefactStage(ctx context.Context, c *rulesetCut) error {
	if c.visibility != store.VisibilityPublic {
		return nil
	}
	err := checkPublic(c.rules)
	var refused *RefusedError
	if c.res.VisibilityFrom == VisibilityKept && errors.As(err, &refused) {
		refused.Message = fmt.Sprintf("%q is public and a new version keeps its visibility, but the rules cite project artefacts, which are never public; publish with visibility private", c.res.Slug)
	}
	return err
}

// quotesStage verifies every quote against the supplied source texts,
// when any were supplied.
func (p *Publisher) quotesStage(ctx context.Context, c *rulesetCut) error {
	if len(c.req.Sources) == 0 {
		return nil
	}
	checks, problems := VerifySources(c.rules, c.req.Sources, p.clock.Now())
	if len(problems) > 0 {
		return &RefusedError{Reason: ErrSourceUnverified, Problems: problems, Message: strings.Join(problems, "; ")}
	}
	for id, extra := range c.req.SourceDetails {
		if check, ok := checks[id]; ok {
			check.ArtefactProjectID, check.ArtefactSourceID, check.QuotePages = extra.ArtefactProjectID, extra.ArtefactSourceID, extra.QuotePages
			checks[id] = check
		}
	}
	c.checks, c.res.VerifiedSources = checks, len(checks)
	return nil
}

// testsStage runs the cases: a failure refuses, unless ForceUnsafe, which
// records publish_force_bypass with the cut.
func (p *Publisher) testsStage(ctx context.Context, c *rulesetCut) error {
	for _, tc := range c.req.Cases {
		if cr := c.rules.RunCase(tc); cr.Pass {
			c.res.TestsPassing++
		} else {
			c.res.Failures = append(c.res.Failures, cr)
		}
	}
	if len(c.res.Failures) == 0 {
		return nil
	}
	names := caseNames(c.res.Failures)
	if !c.req.ForceUnsafe {
		return &RefusedError{Reason: ErrTestsFailed, Failures: c.res.Failures,
			Message: fmt.Sprintf("%d of %d test cases fail (%s); fix them or publish with force_unsafe",
				len(c.res.Failures), len(c.req.Cases), strings.Join(names, ", "))}
	}
	c.audit = append(c.audit, store.Audit{Kind: "publish_force_bypass", Detail: map[string]any{
		"actor": c.req.Actor, "tests_total": c.res.TestsTotal, "tests_passing": c.res.TestsPassing,
		"failing_cases": names,
	}})
	return nil
}

// checkSlug applies the slug format and the reserved namespaces to a slug
// tenantID publishes under.
func (p *Publisher) checkSlug(ctx context.Context, tenantID, slug string) error {
	if slug == "" {
		return &RefusedError{Reason: ErrInvalidSlug,
			Message: "no slug: pass one, or declare `ruleset \"<namespace>/<name>\"` in the rules"}
	}
	if !catalog.ValidSlug(slug) {
		return &RefusedError{Reason: ErrInvalidSlug, Message: fmt.Sprintf(
			"slug %q must match ^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$ (at most %d characters), e.g. acme/housing-benefit",
			slug, catalog.MaxSlugLength)}
	}
	return p.checkReserved(ctx, tenantID, slug)
}

// checkReserved refuses a slug under the service's prefix, or under a
// reserved namespace an operator has not made tenantID's own.
func (p *Publisher) checkReserved(ctx context.Context, tenantID, slug string) error {
	reserved := p.reserved
	if !strings.HasSuffix(reserved, "/") {
		reserved += "/"
	}
	if strings.HasPrefix(slug+"/", reserved) {
		return &RefusedError{Reason: ErrReservedNamespace,
			Message: fmt.Sprintf("slugs under %q are reserved for the service; choose another namespace", reserved)}
	}
	ns := store.Namespace(slug)
	if !p.reservedNS[ns] {
		return nil
	}
	owner, err := p.store.NamespaceOwner(ctx, ns)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if owner != tenantID {
		return &RefusedError{Reason: ErrReservedNamespace, Message: fmt.Sprintf(
			"the namespace %q is reserved for the public body it names; an operator assigns it to that body's tenant (`eligo namespaces transfer`); choose another namespace", ns)}
	}
	return nil
}

// checkPublic is the artefact-visibility rule, for a publish and for a
// visibility change alike: content citing project artefacts is never
// public.
func checkPublic(rules *engine.Ruleset) error {
	if catalog.CitesArtefacts(rules) {
		return &RefusedError{Stage: "artefact_visibility", Reason: ErrArtefactPublic,
			Message: "the rules cite project artefacts, which are never public; publish privately"}
	}
	return nil
}

func caseNames(results []engine.CaseResult) []string {
	names := make([]string, len(results))
	for i, cr := range results {
		names[i] = cr.Name
	}
	return names
}

// VisibilityOf is the visibility a yes-or-no "public" asks for: public or
// private, never VisibilityKeep (for callers that always choose).
func VisibilityOf(public bool) string {
	if public {
		return store.VisibilityPublic
	}
	return store.VisibilityPrivate
}
