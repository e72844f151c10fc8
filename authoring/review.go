package authoring

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// Reviews is the workspace's review job: the review report of a
// project's draft, tests and sources, and publishing the draft through
// the publisher, so that it meets the same gates as any publish. It reads
// drafts through Drafts.
type Reviews struct {
	store     reviewStore
	publisher publisher
	drafts    *Drafts
	cfg       Config
}

// reviewStore is what Reviews reads of the store.
type reviewStore interface {
	ProjectOf(ctx context.Context, tenantID, id string) (store.Project, error)
	ProjectSources(ctx context.Context, tenantID, projectID string, withText bool) ([]store.ProjectSource, error)
}

// publisher is what Reviews asks of the publisher: the live cut a review
// compares the draft's period with, and the publish itself.
type publisher interface {
	Live(ctx context.Context, tenantID, slug string) (publish.LiveCut, error)
	Ruleset(ctx context.Context, req publish.RulesetRequest) (publish.RulesetResult, error)
}

// Review reports what the project's tests, draft and sources lack. It
// works with or without a draft (without one, the checks that need rules
// are not applicable), and never blocks anything.
func (s *Reviews) Review(ctx context.Context, tenantID, projectID string, opts review.Options) (review.Report, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return review.Report{}, err
	}
	sources, err := s.store.ProjectSources(ctx, tenantID, projectID, true)
	if err != nil {
		return review.Report{}, err
	}
	w := Workup{Project: p, sources: sources}
	if p.DraftText != nil {
		if w, err = s.drafts.workUp(p, sources, nil); err != nil {
			return review.Report{}, err
		}
	}
	return s.review(ctx, w, opts)
}

// DocsURL is where a review check is documented: the authoring guide,
// one section per check id.
func DocsURL(checkID string) string {
	return "https://github.com/eligo/eligo/blob/main/docs/authoring.md#" + checkID
}

// review builds the report of a worked-out draft.
func (s *Reviews) review(ctx context.Context, w Workup, opts review.Options) (review.Report, error) {
	if opts.DocsURL == nil {
		opts.DocsURL = DocsURL
	}
	if opts.Gate == nil {
		opts.Gate = s.cfg.Gate.For(w.Project.TenantID)
	}
	in := review.Input{ProjectID: w.Project.ID, Rules: w.Rules, IgnoredFields: map[string][]string{},
		Today: value.DateOf(s.cfg.Clock.Now())}
	if w.Rules != nil && w.Rules.Effective != nil {
		live, err := s.publisher.Live(ctx, w.Project.TenantID, w.Rules.Slug)
		if err != nil {
			return review.Report{}, err
		}
		in.LivePeriod, in.LiveLabel = live.Period, live.Label
	}
	if err := json.Unmarshal(w.Project.TestCases, &in.Cases); err != nil {
		return review.Report{}, fmt.Errorf("read tests of project %s: %w", w.Project.ID, err)
	}
	switch {
	case w.Project.DraftText == nil:
		in.DraftProblem = "no draft yet"
	case w.Rules == nil:
		in.DraftProblem = compileMessages(w.CompileErrors)[0]
	default:
		in.Cases, in.Results = w.Acceptance.Cases, w.Acceptance.Outcomes
		for _, r := range w.Acceptance.Results {
			if len(r.IgnoredFields) > 0 {
				in.IgnoredFields[r.Name] = r.IgnoredFields
			}
		}
	}
	if in.Cases == nil {
		in.Cases = []engine.Case{}
	}
	for _, q := range w.Provenance.Quotes {
		c := review.Citation{Citer: q.Citer(), SourceID: q.SourceID,
			ProjectSourceID: q.ProjectSourceID, Quote: q.Quote, Verified: q.Verified}
		if q.Nearest != nil {
			c.Nearest = q.Nearest.Text
		}
		in.Citations = append(in.Citations, c)
	}
	covered := map[string]SourceCoverage{}
	for _, c := range w.Provenance.Coverage {
		covered[c.SourceID] = c
	}
	for _, src := range w.sources {
		cov, ok := covered[src.ID]
		if !ok {
			cov = provenanceReport(&engine.Ruleset{}, []store.ProjectSource{src}, nil).Coverage[0]
		}
		in.Sources = append(in.Sources, review.Source{ID: src.ID, Filename: src.Filename, Status: src.Status,
			SupersededBy: src.SupersededBy, Clauses: cov.Clauses, CoveredClauses: cov.CitedClauses, Uncited: cov.Uncited})
	}
	for _, q := range w.Questions {
		in.Questions = append(in.Questions, review.Question{ID: q.ID, Quote: q.Quote, Question: q.Question, Resolved: q.Resolved})
	}
	return review.Build(ctx, in, opts)
}
