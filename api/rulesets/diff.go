package rulesets

import (
	"context"
	"net/http"
	"slices"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/solver/verify"
)

// registerDiff adds GET /rulesets/{ruleset_id}/diff.
func registerDiff(s *api.Server, h *handler, loads []api.Refusal) {
	api.Register(s, api.Route{
		OperationID: "diff-ruleset", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/diff",
		Summary: "Whom a version affects",
		Description: "Compares `{ruleset_id}` (the new version) with `against` (the old) over every possible applicant, with the solver: " +
			"for each kind of outcome change (eligible to not_eligible, not_eligible to eligible, either to undetermined, and back) an applicant it happens to " +
			"(`witness`: the answers, unanswered fields left out), the criteria whose status differs for them and their quotes on both sides; " +
			"or `equivalent: true`, a proof that every applicant gets the same outcome. Fields added, removed or redeclared are listed in `field_changes`; " +
			"a field both versions declare alike is one answer, an enum whose values changed is compared over the values both take, and an int that became a decimal is the same number. " +
			"`decision_date` (YYYY-MM-DD) fixes decision_date() for rules that read it (default today). Both rulesets must be visible to the caller. " + rulesetIDParamDoc,
		Tags: []string{"Rulesets"}, Access: api.Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: api.ClassRulesets,
		NotFound: notFound, Refusals: slices.Concat(loads, []api.Refusal{api.RefusalDiffUndecided}),
	}, h.diff)
}

type rulesetDiffInput struct {
	RulesetID    string `path:"ruleset_id" maxLength:"300" doc:"The new version: a slug (send each / as %2F) or a concrete ruleset_id."`
	Against      string `query:"against" required:"true" minLength:"1" maxLength:"300" doc:"The old version: a slug or a concrete ruleset_id."`
	DecisionDate string `query:"decision_date" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}$" doc:"What decision_date() reads, YYYY-MM-DD; default today."`
}

type rulesetDiffOutput struct {
	Body rulesetDiff
}

// rulesetDiff is rulesetDiffOutput's body, published as RulesetDiff.
type rulesetDiff struct {
	RulesetID string `json:"ruleset_id" doc:"The new version's concrete id."`
	Against   string `json:"against" doc:"The old version's concrete id."`
	verify.SemanticDiff
}

func (h *handler) diff(ctx context.Context, in *rulesetDiffInput) (*rulesetDiffOutput, error) {
	viewer := api.ViewerOf(ctx)
	newer, err := h.catalog.Ruleset(ctx, viewer, in.RulesetID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", in.RulesetID)
	}
	older, err := h.catalog.Ruleset(ctx, viewer, in.Against)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", in.Against)
	}
	date, err := resource.DateParam("query", "decision_date", in.DecisionDate, h.clock.Now())
	if err != nil {
		return nil, err
	}
	d, err := verify.Diff(ctx, older.Rules, newer.Rules, verify.DiffOptions{DecisionDate: date, Gate: h.gate.For(api.Caller(ctx))})
	if err != nil {
		return nil, api.DiffUndecided(ctx, err, "ruleset", newer.ID, "against", older.ID)
	}
	out := &rulesetDiffOutput{}
	out.Body.RulesetID, out.Body.Against, out.Body.SemanticDiff = newer.ID, older.ID, d
	return out, nil
}
