package api

import (
	"context"
	"net/http"

	"github.com/eligo/eligo/api/auth"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/store"
)

// This file is POST /rulesets/{ruleset_id}/explain-failure: why the given
// answers do not reach the expected outcome, as the solver's minimal
// failure core.

func (s *Server) registerExplainFailure() {
	Register(s, Route{
		OperationID: "explain-ruleset-failure", Method: http.MethodPost, Path: "/rulesets/{ruleset_id}/explain-failure",
		Summary: "Explain why answers miss an outcome",
		Description: "Given `field_values` and the `expected_outcome`, names a minimal set of criteria that together rule the expected " +
			"outcome out: with their statuses as the answers give them, no status of the other criteria reaches it, and freeing any one " +
			"of them makes it reachable. `reasons` is keyed by criterion id; each reason gives the criterion's status and the status it " +
			"would need, a `mechanism` hint (`threshold`, `enum_mismatch`, `date_window`, `missing_answer`, `presence_default`, " +
			"`discretionary`, `any_group_exhausted`), the answers it read, the fields it lacks and its `source_references[]`. " +
			"`reasons` is empty when the answers already give the expected outcome. Answers that cannot be applied are listed in " +
			"`field_errors` (HTTP 200, as on /decide); they alone make the actual outcome `undetermined`, and the reasons are worked " +
			"out with those fields unanswered, so the caller learns what else stands in the way. Answers whose arithmetic overflows " +
			"are field errors with no reasons. The path needs the concrete ruleset_id; a slug is refused with 422 " +
			"so that the explanation is tied to one immutable content.",
		Tags: []string{"Rulesets"}, Access: Open, Scopes: []auth.Scope{auth.ScopeRulesetsExplain}, Class: ClassRulesets,
	}, s.explainFailure)
}

type explainFailureInput struct {
	RulesetID string `path:"ruleset_id" maxLength:"300" doc:"A concrete ruleset_id such as snap_income:20260115-3f2a9c0d1e4b; not a slug."`
	Body      struct {
		FieldValues     jsonObject `json:"field_values" required:"true" doc:"Map of field_id to answer, as on /decide."`
		ExpectedOutcome string     `json:"expected_outcome" required:"true" enum:"eligible,not_eligible,undetermined"`
		DecisionDate    string     `json:"decision_date,omitempty" format:"date" doc:"YYYY-MM-DD read by rules that use decision_date(); today (UTC) when absent."`
	}
}

type failureReason struct {
	CriterionID        string            `json:"criterion_id"`
	Title              string            `json:"title"`
	Group              string            `json:"group"`
	Status             string            `json:"status" enum:"satisfied,not_satisfied,pending" doc:"The criterion's status under the answers."`
	NeededStatus       string            `json:"needed_status" enum:"satisfied,not_satisfied,pending" doc:"A status that, with the rest of the core unchanged, lets the expected outcome be reached."`
	Mechanism          string            `json:"mechanism" enum:"threshold,enum_mismatch,date_window,missing_answer,presence_default,discretionary,any_group_exhausted"`
	ConditionMechanism string            `json:"condition_mechanism,omitempty" doc:"With any_group_exhausted: why this alternative failed itself."`
	Condition          string            `json:"condition,omitempty" doc:"The criterion in the rules language; absent for a discretionary one."`
	Facts              []engine.Fact     `json:"facts" doc:"The answers the criterion read."`
	MissingFields      []string          `json:"missing_fields" doc:"Fields it reads that were not answered."`
	SourceReferences   []sourceReference `json:"source_references"`
}

type explainFailureOutput struct {
	Body struct {
		RulesetID       string                   `json:"ruleset_id"`
		Slug            string                   `json:"slug"`
		RulesetVersion  string                   `json:"ruleset_version"`
		ContentDigest   string                   `json:"content_digest"`
		EngineVersion   string                   `json:"engine_version"`
		ExpectedOutcome string                   `json:"expected_outcome" enum:"eligible,not_eligible,undetermined"`
		ActualOutcome   string                   `json:"actual_outcome" enum:"eligible,not_eligible,undetermined"`
		Reasons         map[string]failureReason `json:"reasons" doc:"The minimal failure core, keyed by criterion id."`
		FieldErrors     []engine.FieldError      `json:"field_errors"`
	}
}

func (s *Server) explainFailure(ctx context.Context, in *explainFailureInput) (*explainFailureOutput, error) {
	if !store.IsConcreteRulesetID(in.RulesetID) {
		return nil, ValidationFailed(ValidationItem{Type: "value_error", Loc: []any{"path", "ruleset_id"},
			Msg: "Value error, explain-failure needs a concrete ruleset_id, not a slug", Input: in.RulesetID})
	}
	var date int64
	if in.Body.DecisionDate != "" {
		var ok bool
		if date, ok = engine.ParseDate(in.Body.DecisionDate); !ok {
			return nil, ValidationFailed(ValidationItem{Type: "date_from_datetime_parsing", Loc: []any{"body", "decision_date"},
				Msg: "Input should be a valid date in the format YYYY-MM-DD", Input: in.Body.DecisionDate})
		}
	}
	rr, err := s.resolveRuleset(ctx, in.RulesetID)
	if err != nil {
		return nil, err
	}
	answers, err := rr.Ruleset.Convert(in.Body.FieldValues)
	if err != nil {
		return nil, fieldValuesRefusal(in.Body.FieldValues, err)
	}

	out := &explainFailureOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.RulesetVersion, b.ContentDigest = rr.ID, rr.Slug, rr.Version, rr.ContentDigest
	b.EngineVersion, b.ExpectedOutcome = engine.Version, in.Body.ExpectedOutcome
	b.Reasons, b.FieldErrors = map[string]failureReason{}, []engine.FieldError{}

	// The schema's enum has already refused any other spelling.
	expected, _ := engine.ParseOutcome(in.Body.ExpectedOutcome)
	explanation, err := s.catalog.explainer(rr).Explain(ctx, answers, expected, solver.ExplainOptions{DecisionDate: date})
	if err != nil {
		return nil, err
	}
	b.ActualOutcome = explanation.Actual.String()
	b.FieldErrors = append(b.FieldErrors, explanation.FieldErrors...)
	for _, r := range explanation.Reasons {
		facts := r.Facts
		if facts == nil {
			facts = []engine.Fact{}
		}
		missing := r.MissingFields
		if missing == nil {
			missing = []string{}
		}
		b.Reasons[r.CriterionID] = failureReason{
			CriterionID: r.CriterionID, Title: r.Title, Group: r.Group, Status: r.Status.String(),
			NeededStatus: r.NeededStatus.String(), Mechanism: r.Mechanism, ConditionMechanism: r.ConditionMechanism,
			Condition: r.Condition, Facts: facts, MissingFields: missing,
			SourceReferences: rr.sourceReferences(ctx, r.SourceReferences),
		}
	}
	return out, nil
}
