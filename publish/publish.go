package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/verify"
	"github.com/eligo/eligo/store"
)

// DefaultReservedNamespace is the slug prefix kept for the service's own
// rulesets when Config.ReservedNamespace is empty.
const DefaultReservedNamespace = "eligo/"

// DefaultReservedNamespaces are the namespaces no tenant may claim by
// publishing when Config.ReservedNamespaces is nil: words a reader takes
// for a government, a public body or a benefit programme, so that nobody
// but the body an operator assigns one to (`eligo namespaces transfer`)
// publishes as "usa" or "hmrc" (docs/limits.md#slug-namespaces
// says why each is there).
func DefaultReservedNamespaces() []string {
	return []string{
		// Governments and their generic names.
		"gov", "government", "federal", "state", "official", "public",
		"usa", "us", "uk", "gb", "eu",
		// Agencies administering benefits and taxes.
		"irs", "ssa", "hmrc", "dwp", "cms", "hhs", "hud", "usda", "va", "nhs",
		// Programmes.
		"medicaid", "medicare", "snap", "wic", "tanf", "ssi", "chip", "eitc",
		"benefits", "universal-credit",
	}
}

// DefaultNamespaceLimits is the most namespaces a tenant of each tier may
// own when Config.NamespaceLimits is nil; a tenant's tier is the dearest
// of its live keys' (free without one), and internal tenants are not
// capped (docs/limits.md#slug-namespaces).
func DefaultNamespaceLimits() map[string]int {
	return map[string]int{
		string(auth.TierFree): 3, string(auth.TierStarter): 10, string(auth.TierPro): 50,
	}
}

// Config is what a Publisher needs beside its store and catalog.
type Config struct {
	// ReservedNamespace is the slug prefix kept for the service's own
	// rulesets: no tenant may publish under it, and promotions under it
	// take the presence-polarity findings as advice; empty means
	// DefaultReservedNamespace.
	ReservedNamespace string
	// ReservedNamespaces are namespaces no tenant may claim by
	// publishing; only a tenant an operator made their owner
	// (`eligo namespaces transfer`) publishes under one. nil means
	// DefaultReservedNamespaces; an empty list reserves none.
	ReservedNamespaces []string
	// NamespaceLimits is the most namespaces a tenant of each tier may
	// own (a tier missing or 0: no cap). nil means
	// DefaultNamespaceLimits; an empty map caps nothing.
	NamespaceLimits map[string]int
	// Clock dates new cuts and source checks and is "today" for the diff
	// a promotion reports; nil means the system clock.
	Clock clock.Clock
	// Gate bounds the solver runs of publish stages and promotions with
	// every other heavy solver run of the process; nil admits all.
	Gate *bound.Gate
}

// Publisher writes published content and changes who can reach it. Build
// one with New; it is safe for concurrent use.
type Publisher struct {
	store    *store.Store
	catalog  *catalog.Catalog
	reserved string
	// reservedNS are the reserved namespaces (Config.ReservedNamespaces).
	reservedNS map[string]bool
	// caps bound the namespaces a publish may claim.
	caps  store.NamespaceCaps
	clock clock.Clock
	gate  *bound.Gate
	// releaseFault, when set (by this package's tests), fails the last
	// step of a rulebook publication, just before the release is stored.
	releaseFault func() error
	// allocateLabel picks a new release's label; rulebook.AllocateLabel
	// unless this package's tests replace it.
	allocateLabel func(seed uint64, taken func(string) bool) (string, error)
}

// New builds a Publisher. cat is the catalog whose cached references a
// write must drop (Forget) and through which visibility checks load
// content.
func New(st *store.Store, cat *catalog.Catalog, cfg Config) *Publisher {
	reserved := cfg.ReservedNamespace
	if reserved == "" {
		reserved = DefaultReservedNamespace
	}
	names := cfg.ReservedNamespaces
	if names == nil {
		names = DefaultReservedNamespaces()
	}
	reservedNS := make(map[string]bool, len(names))
	for _, ns := range names {
		reservedNS[strings.TrimSuffix(ns, "/")] = true
	}
	limits := cfg.NamespaceLimits
	if limits == nil {
		limits = DefaultNamespaceLimits()
	}
	tiers := make([]string, len(auth.AllTiers))
	for i, t := range auth.AllTiers {
		tiers[i] = string(t)
	}
	return &Publisher{store: st, catalog: cat, reserved: reserved, reservedNS: reservedNS,
		caps: store.NamespaceCaps{Tiers: tiers, Max: limits}, clock: clock.Or(cfg.Clock), gate: cfg.Gate, allocateLabel: rulebook.AllocateLabel}
}

// RulesetRequest is one ruleset publish.
type RulesetRequest struct {
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
	// Visibility is store.VisibilityPublic (everyone, anonymous callers
	// included, sees the cut), store.VisibilityPrivate (only the tenant
	// does) or VisibilityKeep: the visibility of the cut the slug points at
	// now, so that a public programme stays public through new versions;
	// private for a new slug.
	Visibility string
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
	// Actor says who published (a key prefix, "cli"), for the audit trail.
	Actor string
	// SourceDetails are merged into the check of each verified source:
	// the artefact a v2 reference names, the PDF pages of its quotes.
	SourceDetails map[string]store.SourceCheck
	// Provenance records the project sources the quotes were verified
	// against, stored with the cut (see store.RulesetCut.Provenance).
	Provenance []store.Provenance
}

// RulesetResult says what was published.
type RulesetResult struct {
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
	// VisibilityFrom says where Visibility came from: VisibilityRequested,
	// VisibilityKept (the previous cut's) or VisibilityNewSlug (the
	// default for a slug with no cut yet); empty when refused before the
	// visibility stage.
	VisibilityFrom string
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
	Warnings syntax.ErrorList
	// Findings are the static analysis's (verify.Analyze): criteria that
	// can never or always hold, redundant ones, fields that never matter.
	// They never block.
	Findings []verify.Finding
	// PeriodNotices say when the rules' effective period ended before
	// today or before the period of the cut live under the slug began
	// (engine.StalePeriod). They never block.
	PeriodNotices []engine.PeriodNotice
	// VerifiedSources counts the cited sources whose quotes were verified.
	VerifiedSources int
	// DiffAgainstPrevious is whom the new cut affects against the cut the
	// slug pointed at before (advisory); nil for a new slug, a reused cut,
	// or a diff the solver could not decide in time.
	DiffAgainstPrevious *verify.SemanticDiff
}

// Ruleset runs the publish stages on req and stores the cut in one
// transaction (see store.PublishRuleset): identical compiled content under
// the same slug reuses the existing cut, changed content becomes the
// slug's next version. Any refusal is a *RefusedError and leaves only a
// publish_refused audit event behind.
func (p *Publisher) Ruleset(ctx context.Context, req RulesetRequest) (RulesetResult, error) {
	res, err := p.ruleset(ctx, req)
	var refused *RefusedError
	if errors.As(err, &refused) {
		detail := map[string]any{"slug": res.Slug, "stage": refused.Stage, "reason": refused.Reason.Error(),
			"message": refused.Message, "actor": req.Actor}
		if res.Slug == "" {
			detail["slug"] = req.Slug
		}
		if res.ContentDigest != "" {
			detail["content_digest"] = res.ContentDigest
		}
		if auditErr := p.store.RecordPublishRefusal(ctx, req.TenantID, detail); auditErr != nil {
			return RulesetResult{}, errors.Join(err, auditErr)
		}
	}
	return res, err
}

func (p *Publisher) ruleset(ctx context.Context, req RulesetRequest) (RulesetResult, error) {
	c := &rulesetCut{req: req, res: RulesetResult{TestsTotal: len(req.Cases)}}
	for _, st := range rulesetStages {
		if err := st.run(p, ctx, c); err != nil {
			var refused *RefusedError
			if errors.As(err, &refused) {
				refused.Stage = st.name
			}
			return c.res, err
		}
	}
	return p.storeCut(ctx, c)
}

// storeCut writes the cut every stage passed.
func (p *Publisher) storeCut(ctx context.Context, c *rulesetCut) (RulesetResult, error) {
	r, req, res := c.rules, c.req, c.res
	ir, err := json.Marshal(r)
	if err != nil {
		return res, fmt.Errorf("encode compiled ruleset: %w", err)
	}
	name := r.Name
	if req.Name != "" {
		name = req.Name
	}
	cases, err := json.Marshal(req.Cases)
	if err != nil {
		return res, fmt.Errorf("encode test cases: %w", err)
	}
	out, err := p.store.PublishRuleset(ctx, store.RulesetCut{
		TenantID: req.TenantID, Slug: res.Slug, SectionID: r.SectionID, Name: name,
		Description: r.Description, RuleCount: r.NumCriteria(), ContentDigest: res.ContentDigest,
		SourceText: string(req.Source), SourceDigest: catalog.SourceDigest(req.Source),
		CompiledIR: ir, IRVersion: r.FormatVersion(), EngineVersion: engine.Version,
		Visibility: c.visibility, SourceChecks: c.checks, Audit: c.audit, TestCases: cases, Provenance: req.Provenance,
		PublishedAt: p.clock.Now(), NamespaceCaps: p.caps,
	})
	if refused := slugRefusal("store", res.Slug, err); refused != nil {
		return res, refused
	}
	if err != nil {
		return res, err
	}
	// The slug now points here: this process reads it at once, even if it
	// had remembered the slug as missing or at its previous cut.
	p.catalog.Forget(out.Ruleset)
	res.RulesetID, res.Version, res.Visibility = out.Ruleset.ID, out.Ruleset.VersionLabel(), out.Ruleset.Visibility
	res.Reused, res.PreviousID = out.Reused, out.PreviousID
	if !res.Reused && res.PreviousID != "" && res.PreviousID != res.RulesetID {
		res.DiffAgainstPrevious = p.diffAgainst(ctx, req.TenantID, res.PreviousID, r)
	}
	return res, nil
}
