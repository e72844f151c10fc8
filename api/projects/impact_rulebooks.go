package projects

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/store"
)

// impactCandidate is what a run compares with its baseline: a published
// version of one of the tenant's rulesets, or a proposal of one of its
// rulebooks (docs/impact.md#rulebook-candidates).
type impactCandidate struct {
	Slug      string `json:"slug,omitempty" maxLength:"300" doc:"The ruleset's slug, with version."`
	Version   string `json:"version,omitempty" maxLength:"20" pattern:"^v?[0-9]+$" doc:"The version under the slug, v<N> (or N)."`
	Rulebook  string `json:"rulebook,omitempty" maxLength:"300" doc:"One of the tenant's rulebooks, by id (rb_...) or slug, instead of slug and version. The baseline is then its release in force (leave baseline out)."`
	ReleaseID string `json:"release_id,omitempty" maxLength:"100" doc:"With rulebook: a release of it, by UUID or exact two-word label; default the release in force."`
	SectionID string `json:"section_id,omitempty" maxLength:"200" doc:"With rulebook and ruleset_id: the section whose member the proposal replaces, as promoting ruleset_id would."`
	RulesetID string `json:"ruleset_id,omitempty" maxLength:"300" doc:"With rulebook and section_id: the tenant's cut of that section proposed in its place (a ruleset_id, or a reference such as its slug, which the run records as the exact ruleset_id it named at the start)."`
}

// version is the ruleset version c names.
func (c impactCandidate) version() rulesetPick { return rulesetPick{Slug: c.Slug, Version: c.Version} }

// impactRulebook is what a run of a rulebook compares, on the wire.
type impactRulebook struct {
	RulebookID         string `json:"rulebook_id" doc:"The rulebook, rb_..."`
	BaselineReleaseID  string `json:"baseline_release_id" doc:"The release in force when the run was started: the baseline."`
	CandidateReleaseID string `json:"candidate_release_id" doc:"The candidate's release."`
	SectionID          string `json:"section_id" doc:"The section whose member the candidate replaces; empty for a release as it is."`
	SectionRulesetID   string `json:"section_ruleset_id" doc:"The cut proposed for that section; empty for a release as it is."`
}

// candidateInvalid is a 422 on the candidate member name.
func candidateInvalid(typ, name, msg string, input any) error {
	loc := []any{"body", "candidate"}
	if name != "" {
		loc = append(loc, name)
	}
	return api.ValidationFailed(api.ValidationItem{Type: typ, Loc: loc, Msg: msg, Input: input})
}

// rulebookRun fills in run as a run of the rulebook req.Candidate names:
// its proposal against the release in force, checked to compose now.
func (h *handler) rulebookRun(ctx context.Context, tenant string, req impactRequest, run *store.ImpactRun) error {
	c := *req.Candidate
	switch {
	case c.Slug != "" || c.Version != "":
		return candidateInvalid("value_error", "", "Value error, a candidate is a ruleset version (slug and version) or a rulebook (rulebook), not both", c)
	case req.Baseline != nil:
		return api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "baseline"},
			Msg: "Value error, the baseline of a rulebook candidate is the rulebook's release in force; leave baseline out", Input: *req.Baseline})
	case (c.SectionID == "") != (c.RulesetID == ""):
		missing := "section_id"
		if c.RulesetID == "" {
			missing = "ruleset_id"
		}
		return candidateInvalid("missing", missing, "Field required: a section is proposed by section_id and ruleset_id together", c)
	case c.SectionID == "" && c.ReleaseID == "":
		return candidateInvalid("missing", "release_id", "Field required: a rulebook candidate names release_id, or section_id and ruleset_id", c)
	}
	rb, err := h.catalog.OwnedRulebook(ctx, tenant, c.Rulebook)
	if err != nil {
		return api.LookupFailed(ctx, err, "Rulebook", c.Rulebook)
	}
	if rb.CurrentReleaseID == "" {
		return api.NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonNothingPublished,
			fmt.Sprintf("Rulebook %s has no release in force to compare with: activate it first (POST /rulebooks/{rulebook_id}/activate).", rb.Slug))
	}
	release := c.ReleaseID
	if release == "" {
		release = rb.CurrentReleaseID
	}
	named, err := h.catalog.Propose(ctx, rb, catalog.Proposal{Release: release})
	if err != nil {
		return api.LookupFailed(ctx, err, "Release", release)
	}
	cut := ""
	if c.SectionID != "" {
		var proposed *catalog.PreparedRulebook
		proposed, err = h.catalog.Propose(ctx, rb, catalog.Proposal{Release: release, SectionID: c.SectionID, RulesetID: c.RulesetID})
		if err == nil {
			cut = proposedCut(proposed, c.SectionID)
		}
	}
	switch {
	case errors.Is(err, catalog.ErrSectionMissing):
		return api.NotFound(fmt.Sprintf("Section %q not found in release %s of rulebook %s.", c.SectionID, named.Release.Label, rb.Slug))
	case errors.Is(err, catalog.ErrCutOfOtherSection):
		return candidateInvalid("value_error", "ruleset_id", "Value error, "+err.Error(), c.RulesetID)
	case errors.Is(err, catalog.ErrNotFound), errors.Is(err, catalog.ErrCorrupt):
		return api.LookupFailed(ctx, err, "Ruleset", c.RulesetID)
	case err != nil:
		// The members do not compose with the cut in place: the
		// composition says which field of which sections.
		return candidateInvalid("value_error", "ruleset_id", "Value error, the rulebook does not compose with it: "+err.Error(), c.RulesetID)
	}
	run.Rulebook = &store.ImpactRulebook{RulebookID: rb.ID, BaselineReleaseID: rb.CurrentReleaseID, CandidateReleaseID: named.Release.ID,
		SectionID: c.SectionID, SectionRulesetID: cut}
	return nil
}

// proposedCut is the exact cut a proposal put in section's place: the run
// records it rather than the reference asked for (which may be a slug,
// whose cut may change while the run's parts decide).
func proposedCut(proposed *catalog.PreparedRulebook, section string) string {
	for _, s := range proposed.Content.Sections {
		if s.SectionID == section {
			return s.RulesetID
		}
	}
	return ""
}

// withRulebooks fills in the Rulebook of each of runs that is a run of a
// rulebook.
func (h *handler) withRulebooks(ctx context.Context, runs []store.ImpactRun) error {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	books, err := h.store.ImpactRulebooks(ctx, ids)
	if err != nil {
		return err
	}
	for i, r := range runs {
		if rb, ok := books[r.ID]; ok {
			runs[i].Rulebook = &rb
		}
	}
	return nil
}

// rulebookOut is rb on the wire; nil for a run of rulesets.
func rulebookOut(rb *store.ImpactRulebook) *impactRulebook {
	if rb == nil {
		return nil
	}
	return &impactRulebook{RulebookID: rb.RulebookID, BaselineReleaseID: rb.BaselineReleaseID, CandidateReleaseID: rb.CandidateReleaseID,
		SectionID: rb.SectionID, SectionRulesetID: rb.SectionRulesetID}
}
