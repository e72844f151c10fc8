package authoring

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// PublishRequest publishes a project's draft.
type PublishRequest struct {
	// Name overrides the ruleset's display name.
	Name string
	// Slug publishes under this slug; empty takes the draft's `ruleset`
	// header.
	Slug string
	// ForceUnsafe publishes despite failing tests or contract checks and
	// records publish_force_bypass.
	ForceUnsafe bool
	// Visibility is "public", "private" or empty (publish.VisibilityKeep):
	// the visibility of the cut the slug points at now, private for a new
	// slug, so that a new version of a public programme stays public.
	Visibility string
	// SourceTargets binds declared sources to project sources; a declared
	// source without one binds by its declaration.
	SourceTargets map[string]SourceTarget
	// Actor says who published, for the audit trail.
	Actor string
}

// Published is what a project publish made.
type Published struct {
	publish.RulesetResult
	// Workup is the draft as published.
	Workup Workup
	// Review is the review of what was published (its hint goes out as
	// review_hint).
	Review review.Report
}

// Publish publishes the project's draft through the publisher, with the
// visibility asked for (by default the slug's current cut's, else private):
// every test and contract check must pass unless ForceUnsafe; every
// declared source must bind to a project source (licensed, and public when
// cited by url); every quote must be in its source's text. Each reference
// becomes v1 (url, with a #:~:text= or, for a PDF, #page=N deep link) or v2
// (artefact); the provenance is stored with the cut, so a cited source
// can no longer be deleted.
func (s *Reviews) Publish(ctx context.Context, tenantID, projectID string, req PublishRequest) (Published, error) {
	for id, t := range req.SourceTargets {
		if t.TargetKind != TargetURL && t.TargetKind != TargetArtefact {
			return Published{}, invalid("target_kind must be url or artefact", t.TargetKind, "source_targets", id, "target_kind")
		}
	}
	w, err := s.drafts.Draft(ctx, tenantID, projectID, req.SourceTargets)
	if err != nil {
		return Published{}, err
	}
	if err := w.Compiled(); err != nil {
		return Published{}, err
	}
	if len(w.ReferenceProblems) > 0 {
		return Published{}, &RefusedError{Kind: Unprocessable, Reason: ReasonReferenceUnresolved, Detail: map[string]any{"problems": w.ReferenceProblems},
			Message: "A source reference cannot be published: " + strings.Join(w.ReferenceProblems, "; ")}
	}
	if flagged := flaggedQuotes(w.Provenance.Quotes); len(flagged) > 0 {
		return Published{}, &RefusedError{Kind: Unprocessable, Reason: ReasonQuoteUnverified, Detail: map[string]any{"problems": flagged},
			Message: "A quote is not in its source's text (white space aside, it must match exactly): " + strings.Join(flagged, "; ")}
	}
	if !w.Acceptance.Accepted && !req.ForceUnsafe {
		return Published{}, &RefusedError{Kind: Unprocessable, Reason: ReasonTestsFailed,
			Detail:  map[string]any{"failures": w.Acceptance.Failures(), "contract_checks": w.Acceptance.Contract},
			Message: fmt.Sprintf("%d of %d tests pass and every contract check must too; fix the draft or publish with force_unsafe", w.Acceptance.TestsPassing, w.Acceptance.TestsTotal)}
	}
	text, err := boundText(*w.Project.DraftText, w.bindings)
	if err != nil {
		return Published{}, err
	}
	pr := publish.RulesetRequest{TenantID: tenantID, Filename: "draft.rules", Source: text, Slug: req.Slug, Name: req.Name,
		Sources: map[string][]byte{}, SourceDetails: map[string]store.SourceCheck{}, Cases: w.Acceptance.Cases,
		ForceUnsafe: req.ForceUnsafe, Visibility: req.Visibility, Actor: req.Actor}
	for _, b := range w.bindings {
		pr.Sources[b.decl.ID] = []byte(b.src.Text)
		sum := sha256.Sum256([]byte(b.src.Text))
		detail := store.SourceCheck{QuotePages: quotePages(w.Provenance.Quotes, b.decl.ID)}
		if b.kind == TargetArtefact {
			detail.ArtefactProjectID, detail.ArtefactSourceID = projectID, b.src.ID
		}
		pr.SourceDetails[b.decl.ID] = detail
		pr.Provenance = append(pr.Provenance, store.Provenance{ProjectID: projectID, SourceID: b.src.ID, RulesSourceID: b.decl.ID,
			TargetKind: b.kind, ContentDigest: "sha256:" + hex.EncodeToString(sum[:])})
	}
	res, err := s.publisher.Ruleset(ctx, pr)
	if errors.Is(err, store.ErrNotFound) {
		return Published{}, &RefusedError{Kind: Conflict, Reason: ReasonReferenceUnresolved,
			Message: "A cited source was deleted while the draft was published; nothing was published. Check the sources and publish again."}
	}
	if err != nil {
		return Published{}, err
	}
	rep, err := s.review(ctx, w, review.Options{})
	if err != nil {
		return Published{}, err
	}
	return Published{RulesetResult: res, Workup: w, Review: rep}, nil
}

func compileMessages(list syntax.ErrorList) []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.Error()
	}
	return out
}

func flaggedQuotes(quotes []QuoteCheck) []string {
	var out []string
	for _, q := range quotes {
		if !q.Verified {
			out = append(out, fmt.Sprintf("%s: %q is not in %s", q.Citer(), q.Quote, q.ProjectSourceID))
		}
	}
	return out
}

// quotePages maps the quotes of declared source id found in a PDF to their
// pages.
func quotePages(quotes []QuoteCheck, id string) map[string]int {
	var pages map[string]int
	for _, q := range quotes {
		if q.SourceID == id && q.Page > 0 {
			if pages == nil {
				pages = map[string]int{}
			}
			pages[q.Quote] = q.Page
		}
	}
	return pages
}

// boundText rewrites the draft's source declarations to what they were
// bound to (the public url, or the artefact locator, and the licence), so
// the published rules say exactly what their references point at.
func boundText(draft string, bindings []binding) ([]byte, error) {
	f, errs := syntax.Parse("draft.rules", []byte(draft))
	if len(errs) > 0 {
		return nil, fmt.Errorf("parse compiled draft: %w", errs)
	}
	bound := map[string]binding{}
	for _, b := range bindings {
		bound[b.decl.ID] = b
	}
	for _, d := range f.Sources {
		if b, ok := bound[d.ID]; ok {
			d.LocKind, d.Loc, d.Licence = b.kind, b.locator, b.licence
		}
	}
	return syntax.Print(f), nil
}
