package rulesets

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/tidwall/gjson"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/store"
)

// This file is POST /rulesets/{ruleset_id}/explain-failure: why the given
// answers do not reach the expected outcome, as the solver's minimal
// failure core.

func (h *handler) registerExplainFailure() {
	api.Register(h.server, api.Route{
		OperationID: "explain-ruleset-failure", Method: http.MethodPost, Path: "/rulesets/{ruleset_id}/explain-failure",
		Summary: "Explain why answers miss an outcome",
		Description: "Given `field_values` and the `expected_outcome`, names a minimal set of criteria that together rule the expected " +
			"outcome out: with their statuses as the answers give them, no status of the other criteria reaches it, and freeing any one " +
			"of them makes it reachable. When the actual outcome is decided, the set is drawn from the settled criteria alone: a criterion " +
			"still pending (an open question, an official's determination) is no reason why. `changes_needed` is how many settled criteria must change for it to be reached (one for a failed " +
			"`any` group, whose alternatives are all reasons; pending ones are open, not counted), and `changes` names one such smallest change. `reasons` is keyed by criterion id; each reason gives the criterion's status and the status it " +
			"would need, a `mechanism` hint (`threshold`, `enum_mismatch`, `date_window`, `missing_answer`, `presence_default`, " +
			"`discretionary`, `any_group_exhausted`), the answers it read, the fields it lacks and its `source_references[]`. " +
			"`reasons` is empty when the answers already give the expected outcome. Answers that cannot be applied are listed in " +
			"`field_errors` (HTTP 200, as on /decide); they alone make the actual outcome `undetermined`, and the reasons are worked " +
			"out with those fields unanswered, so the caller learns what else stands in the way. Answers whose arithmetic overflows " +
			"are field errors with no reasons. `field_values` is read exactly as on /decide: a number beyond the IEEE double range " +
			"(such as 1e400) is a field error, and `field_values` that is not I-JSON (RFC 7493: a key repeated within one object, or " +
			"text that is not valid Unicode) is 422 `json_invalid` at body.field_values. The path needs the concrete ruleset_id; a " +
			"slug is refused with 422 so that the explanation is tied to one immutable content. " +
			"The solver's part waits for the caller's share of the solver slots and runs within a budget of " + solver.QueryTimeout.String() + ", the wait included: " +
			"when it runs out, or the solver cannot decide, the answer is still 200 with `actual_outcome` and `field_errors` as the answers give them, " +
			"`reasons` empty, `complete: false` and `incomplete` saying why. When no status of the criteria reaches the expected outcome (the outcome logic " +
			"itself rules it out), `reasons` is empty and `warnings` has `expected_outcome_unreachable`.",
		Tags: []string{"Rulesets"}, Access: api.Open, Scopes: []auth.Scope{auth.ScopeRulesetsExplain}, Class: api.ClassRulesets,
		NotFound: notFound, Refusals: []api.Refusal{api.RefusalRecordCorrupt},
	}, h.explainFailure)
	// The handler reads the body as bytes, which huma would otherwise
	// document as opaque.
	h.server.DocumentRequestBody(http.MethodPost, "/rulesets/{ruleset_id}/explain-failure",
		reflect.TypeFor[explainFailureRequest](), explainFailureRequestSchema)
}

// decodeExplainFailureRequest reads an explain-failure body the way
// decodeDecideRequest reads a /decide body: a strict pass that keeps
// field_values as sent, and for anything it does not accept, the schema
// validator's 422 items.
func (h *handler) decodeExplainFailureRequest(raw []byte) (*explainFailureRequest, error) {
	if req, ok := readExplainFailureRequest(raw); ok {
		return req, nil
	}
	return nil, h.server.BodyErrors(raw, reflect.TypeFor[explainFailureRequest](), explainFailureRequestSchema)
}

// readExplainFailureRequest is the strict reading of a body: a JSON object
// with only explainFailureRequest's members, field_values an object,
// expected_outcome one of the outcomes, decision_date absent, null or a
// date of the schema's format, which huma checks with time.Parse
// (value.ParseDate's further refusal of year 0 stays the handler's). As
// with encoding/json, the last occurrence of a repeated member counts and a
// null decision_date leaves the earlier one in place. It reports false for
// anything else.
func readExplainFailureRequest(raw []byte) (*explainFailureRequest, bool) {
	body, ok := resource.ReadJSONObject(raw)
	if !ok {
		return nil, false
	}
	var fieldValues, outcome, date gjson.Result
	known := true
	body.ForEach(func(key, v gjson.Result) bool {
		switch resource.DecodedString(key) {
		case "field_values":
			fieldValues = v
		case "expected_outcome":
			outcome = v
		case "decision_date":
			if v.Type != gjson.Null {
				date = v
			}
		default:
			known = false
		}
		return known
	})
	if !known || !fieldValues.IsObject() || outcome.Type != gjson.String {
		return nil, false
	}
	expected := resource.DecodedString(outcome)
	if _, ok := engine.ParseOutcome(expected); !ok {
		return nil, false
	}
	decisionDate, ok := resource.DecisionDateOf(date)
	if date.Exists() && !ok {
		return nil, false
	}
	return &explainFailureRequest{FieldValues: resource.JSONObject(fieldValues.Raw), ExpectedOutcome: expected, DecisionDate: decisionDate}, true
}

// explainFailureInput is the explain-failure request. Like /decide, the
// handler reads the body itself (readExplainFailureRequest) instead of
// letting huma decode it: huma validates a body by decoding it with
// encoding/json, which refuses a number beyond the float64 range (1e400)
// as malformed JSON and reads a repeated key as its last value, while
// field_values must reach the engine as sent so that both endpoints read
// it alike. The OpenAPI document still describes explainFailureRequest
// (see documentExplainFailureBody). RawBody is huma's pooled buffer:
// nothing may keep it past the handler.
type explainFailureInput struct {
	RulesetID string `path:"ruleset_id" maxLength:"300" doc:"A concrete ruleset_id such as snap_income:20260115-3f2a9c0d1e4b; not a slug."`
	RawBody   []byte
}

// explainFailureRequest is the body of POST
// /rulesets/{ruleset_id}/explain-failure. Unknown members are refused
// (422 extra_forbidden).
type explainFailureRequest struct {
	FieldValues     resource.JSONObject   `json:"field_values" required:"true" doc:"Map of field_id to answer, read exactly as on /decide: a key or value that cannot be applied is reported in field_errors (HTTP 200), never rejected; null means unanswered. Must be I-JSON (RFC 7493): a repeated key or text that is not valid Unicode is 422 json_invalid."`
	ExpectedOutcome string                `json:"expected_outcome" required:"true" enum:"eligible,not_eligible,undetermined"`
	DecisionDate    resource.DecisionDate `json:"decision_date,omitempty"`
}

// explainFailureRequestSchema names explainFailureRequest's schema in the
// OpenAPI document.
const explainFailureRequestSchema = "ExplainFailureRequest"

type failureReason struct {
	CriterionID        string                    `json:"criterion_id"`
	Title              string                    `json:"title"`
	Group              string                    `json:"group"`
	Status             string                    `json:"status" enum:"satisfied,not_satisfied,pending" enumName:"CriterionStatus" enumDoc:"The three-valued status of a criterion or group." doc:"The criterion's status under the answers."`
	NeededStatus       string                    `json:"needed_status" enum:"satisfied,not_satisfied,pending" doc:"A status that, with the rest of the core unchanged, lets the expected outcome be reached."`
	Mechanism          string                    `json:"mechanism" enum:"threshold,enum_mismatch,date_window,missing_answer,presence_default,discretionary,any_group_exhausted"`
	ConditionMechanism string                    `json:"condition_mechanism,omitempty" doc:"With any_group_exhausted: why this alternative failed itself."`
	Condition          string                    `json:"condition,omitempty" doc:"The criterion in the rules language; absent for a discretionary one."`
	Facts              []engine.Fact             `json:"facts" nullable:"false" doc:"The answers the criterion read."`
	MissingFields      []string                  `json:"missing_fields" nullable:"false" doc:"Fields it reads that were not answered."`
	SourceReferences   []catalog.SourceReference `json:"source_references" nullable:"false"`
	Values             []resource.ValueFact      `json:"values,omitempty" doc:"The named values and tables the criterion rests on, with the figures the answers gave them and, for a table, the row the figure came from: the figure that stands in the way. Absent when the criterion reads none."`
}

type explainFailureOutput struct {
	Body failureExplanation
}

// failureExplanation is explainFailureOutput's body, published as FailureExplanation.
type failureExplanation struct {
	RulesetID       string                     `json:"ruleset_id"`
	Slug            string                     `json:"slug"`
	RulesetVersion  string                     `json:"ruleset_version"`
	ContentDigest   string                     `json:"content_digest"`
	EngineVersion   string                     `json:"engine_version"`
	ExpectedOutcome string                     `json:"expected_outcome" enum:"eligible,not_eligible,undetermined"`
	ActualOutcome   string                     `json:"actual_outcome" enum:"eligible,not_eligible,undetermined"`
	Reasons         map[string]failureReason   `json:"reasons" doc:"The minimal failure core, keyed by criterion id."`
	ChangesNeeded   int                        `json:"changes_needed" minimum:"0" doc:"The fewest settled criteria (satisfied or not_satisfied under the answers) whose status must change, every other settled one as the answers make it, for the expected outcome to be reached: one for a failed any group (its cheapest alternative), however many of its alternatives are reasons; every failed member of a failed all group. Pending criteria (open questions, an official's decision) are not counted. 0 when reasons is empty, or when only pending criteria stand in the way."`
	Changes         []string                   `json:"changes" nullable:"false" doc:"Criterion ids of one smallest change (changes_needed of them), in declaration order."`
	FieldErrors     []engine.FieldError        `json:"field_errors" nullable:"false"`
	DecisionDate    string                     `json:"decision_date" format:"date" doc:"The date the answers were explained as of, YYYY-MM-DD: the request's decision_date, else today (UTC)."`
	Warnings        []resource.ResponseWarning `json:"warnings,omitempty" doc:"Present when the decision date falls outside the effective period of the ruleset (code outside_effective_period, naming the date and the period: the period alone then makes the actual outcome undetermined, and reasons is empty), or when the outcome logic rules the expected outcome out whatever the criteria's statuses (code expected_outcome_unreachable: no criterion is to blame, and reasons is empty)."`
	Complete        bool                       `json:"complete" doc:"False when the solver could not finish within its budget (waiting for a solver slot included) or could not decide: reasons is then empty, though actual_outcome and field_errors stand, and incomplete says why."`
	Incomplete      *bound.Incomplete          `json:"incomplete,omitempty" doc:"Why the explanation did not finish; absent when complete."`
}

func (h *handler) explainFailure(ctx context.Context, in *explainFailureInput) (*explainFailureOutput, error) {
	req, err := h.decodeExplainFailureRequest(in.RawBody)
	if err != nil {
		return nil, err
	}
	if !store.IsConcreteRulesetID(in.RulesetID) {
		return nil, api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"path", "ruleset_id"},
			Msg: "Value error, explain-failure needs a concrete ruleset_id, not a slug", Input: in.RulesetID})
	}
	date, err := req.DecisionDate.Ordinal(h.clock.Now())
	if err != nil {
		return nil, err
	}
	viewer := api.ViewerOf(ctx)
	rr, err := h.catalog.Ruleset(ctx, viewer, in.RulesetID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", in.RulesetID)
	}
	// /decide's conversion, so that field_values /decide refuses (not
	// I-JSON) is refused here too, and everything else gets the same
	// field_errors. Not through /decide's conversion cache: those inputs
	// are shared with its cached decisions, and the explainer need not be
	// bound to treat them as read-only.
	_, inputs, err := resource.ConvertFieldValues(rr.Rules, req.FieldValues)
	if err != nil {
		return nil, err
	}

	out := &explainFailureOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.RulesetVersion, b.ContentDigest = rr.ID, rr.Slug, rr.Label, rr.ContentDigest
	b.EngineVersion, b.ExpectedOutcome = engine.Version, req.ExpectedOutcome
	b.Reasons, b.FieldErrors = map[string]failureReason{}, []engine.FieldError{}

	// readExplainFailureRequest has already refused any other spelling.
	expected, _ := engine.ParseOutcome(req.ExpectedOutcome)
	explanation, err := rr.Explainer().Explain(ctx, inputs, expected, solver.ExplainOptions{DecisionDate: date, Gate: h.gate.For(api.Caller(ctx))})
	b.Complete = true
	var stopped *bound.Incomplete
	switch {
	case errors.As(err, &stopped):
		api.Log(ctx).WarnContext(ctx, "explain-failure incomplete", "ruleset", rr.ID, "reason", stopped.Reason, "detail", stopped.Detail)
		b.Complete, b.Incomplete = false, stopped
	case errors.Is(err, solver.ErrUnreachable):
		b.Warnings = append(b.Warnings, resource.ResponseWarning{Code: "expected_outcome_unreachable",
			Message: "No status of the criteria reaches the expected outcome: the outcome logic rules it out, so no criterion is to blame."})
	case err != nil:
		return nil, fmt.Errorf("explain-failure of %s: %w", rr.ID, err)
	}
	b.ActualOutcome = explanation.Actual.String()
	b.DecisionDate = value.FormatDate(date)
	if explanation.PeriodWarning != "" {
		b.Warnings = append(b.Warnings, resource.ResponseWarning{Code: engine.WarningOutsidePeriod, Message: explanation.PeriodWarning, Period: resource.WirePeriod(rr.Rules.Effective)})
	}
	b.FieldErrors = append(b.FieldErrors, explanation.FieldErrors...)
	b.ChangesNeeded, b.Changes = explanation.ChangesNeeded, append([]string{}, explanation.Changes...)
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
			SourceReferences: rr.SourceReferences(r.SourceReferences, viewer.Anonymous()),
			Values:           resource.ValueFacts(rr, r.Values, viewer.Anonymous()),
		}
	}
	return out, nil
}
