package rulebooks

import (
	"context"
	"net/http"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/verify"
)

// registerDiff adds GET /rulebooks/{rulebook_id}/diff: whom one release
// affects against another, over the composed rules.
func registerDiff(s *api.Server, h *handler, releaseRefusals []api.Refusal) {
	route := api.Route{OperationID: "diff-rulebook", Method: http.MethodGet, Path: "/rulebooks/{rulebook_id}/diff",
		Summary: "Whom a release affects",
		Description: "Compares two releases of the rulebook (`release_id`, the new one, default the current release; `against`, the old one, a release UUID or label) over every possible applicant of the composed rules, as GET /rulesets/{id}/diff does for rulesets: " +
			"per kind of outcome change a `witness` applicant, the criteria (section-prefixed) whose status differs and their quotes, or `equivalent: true`. " +
			"A draft with no sections has nothing to compare: 422 `rulebook_empty`. " + rulebookIDDoc,
		Tags: []string{"Rulebooks"}, Access: api.Keyed, Scopes: []auth.Scope{auth.ScopeRulebooksRead}, Class: api.ClassRulebooks, NotFound: notFound,
		Refusals: append(append([]api.Refusal{}, releaseRefusals...), api.RefusalRulebookEmpty, api.RefusalDiffUndecided)}
	api.Register(s, route, h.diff)
}

type rulebookDiffInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300" doc:"A rulebook id (rb_...) or its slug, with each / sent as %2F."`
	ReleaseID  string `query:"release_id" maxLength:"100" doc:"The new release (UUID or label); default the current release."`
	Against    string `query:"against" required:"true" minLength:"1" maxLength:"100" doc:"The old release (UUID or label)."`
}

type rulebookDiffOutput struct {
	Body rulebookDiff
}

// rulebookDiff is rulebookDiffOutput's body, published as RulebookDiff.
type rulebookDiff struct {
	RulebookID string            `json:"rulebook_id"`
	Release    *resource.Release `json:"release" doc:"The new release."`
	Against    *resource.Release `json:"against" doc:"The old release."`
	verify.SemanticDiff
}

func (h *handler) diff(ctx context.Context, in *rulebookDiffInput) (*rulebookDiffOutput, error) {
	newer, err := h.prepared(ctx, in.RulebookID, in.ReleaseID)
	if err != nil {
		return nil, err
	}
	older, err := h.prepared(ctx, in.RulebookID, in.Against)
	if err != nil {
		return nil, err
	}
	d, err := verify.Diff(ctx, older.Composed.Rules, newer.Composed.Rules, verify.DiffOptions{DecisionDate: value.DateOf(h.clock.Now()), Gate: h.gate.For(api.Caller(ctx))})
	if err != nil {
		return nil, api.DiffUndecided(ctx, err, "rulebook", newer.Rulebook.ID)
	}
	out := &rulebookDiffOutput{}
	out.Body.RulebookID, out.Body.Release, out.Body.Against, out.Body.SemanticDiff = newer.Rulebook.ID, resource.ReleaseOf(newer.Release), resource.ReleaseOf(older.Release), d
	return out, nil
}
