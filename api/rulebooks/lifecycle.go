package rulebooks

import (
	"context"
	"errors"
	"net/http"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/verify"
)

func (h *handler) activate(ctx context.Context, in *rulebookRefInput) (*rulebookOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	res, err := h.publisher.Activate(ctx, p.TenantID, in.RulebookID, p.KeyPrefix)
	if err != nil {
		return nil, refusal(ctx, err, in.RulebookID)
	}
	o, err := h.out(ctx, res.Rulebook, res.Release)
	return &rulebookOutput{Body: o}, err
}

func (h *handler) archive(ctx context.Context, in *rulebookRefInput) (*rulebookOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	rb, err := h.publisher.ArchiveRulebook(ctx, p.TenantID, in.RulebookID, p.KeyPrefix)
	if err != nil {
		return nil, refusal(ctx, err, in.RulebookID)
	}
	o, err := h.out(ctx, rb, nil)
	return &rulebookOutput{Body: o}, err
}

type visibilityInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300"`
	Body       rulebookVisibilityRequest
}

// rulebookVisibilityRequest is visibilityInput's body, published as RulebookVisibilityRequest.
type rulebookVisibilityRequest struct {
	Visibility string `json:"visibility" enum:"public,private"`
}

func (h *handler) visibility(ctx context.Context, in *visibilityInput) (*rulebookOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	rb, err := h.publisher.SetRulebookVisibility(ctx, p.TenantID, in.RulebookID, in.Body.Visibility, p.KeyPrefix)
	if err != nil {
		return nil, refusal(ctx, err, in.RulebookID)
	}
	o, err := h.out(ctx, rb, nil)
	return &rulebookOutput{Body: o}, err
}

type promoteInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300"`
	Name       string `path:"name" maxLength:"200" doc:"The section id whose live cut changes."`
	Body       promoteRequest
}

// promoteRequest is promoteInput's body, published as PromoteRequest.
type promoteRequest struct {
	RulesetID   string `json:"ruleset_id" minLength:"1" maxLength:"300" doc:"The exact candidate cut, of section {name}."`
	ForceUnsafe bool   `json:"force_unsafe,omitempty" doc:"Promote despite presence-polarity findings: internal keys only, audited."`
}

type promoteOutput struct {
	Body promotion
}

// promotion is promoteOutput's body, published as Promotion.
type promotion struct {
	PresencePolarityAdvisories []publish.PolarityAdvisory `json:"presence_polarity_advisories" nullable:"true" doc:"null normally; the findings let through by force_unsafe or, under the reserved namespace, by advice."`
	Release                    *resource.Release          `json:"release" doc:"The release the promotion cut."`
	Rulebook                   *rulebookResponse          `json:"rulebook" doc:"The rulebook after the promotion: the candidate live, every reference pinned."`
	DiffAgainstLive            *verify.SemanticDiff       `json:"diff_against_live" doc:"Advisory: whom the new live cut affects against the one it replaced (see GET /rulesets/{id}/diff); null when the candidate was already live or the solver could not decide in time."`
}

func (h *handler) promote(ctx context.Context, in *promoteInput) (*promoteOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	res, err := h.publisher.Promote(ctx, publish.PromoteRequest{TenantID: p.TenantID, Rulebook: in.RulebookID, Section: in.Name,
		Candidate: in.Body.RulesetID, ForceUnsafe: in.Body.ForceUnsafe, Internal: p.Tier == auth.TierInternal, Actor: p.KeyPrefix})
	if err != nil {
		return nil, refusal(ctx, err, in.RulebookID)
	}
	out := &promoteOutput{}
	out.Body.PresencePolarityAdvisories, out.Body.Release, out.Body.DiffAgainstLive = res.Advisories, resource.ReleaseOf(res.Release), res.DiffAgainstLive
	out.Body.Rulebook, err = h.out(ctx, res.Rulebook, res.Release)
	return out, err
}

// refusal maps a publish or catalog error for the rulebook ref to the
// answer docs/api.md#errors gives it.
func refusal(ctx context.Context, err error, ref string) error {
	var refused *publish.RefusedError
	var polarity *publish.PolarityError
	problem := func(status int, code, reason, msg string) error { return api.NewProblem(status, code, reason, msg) }
	switch {
	case errors.As(err, &polarity):
		first := polarity.Findings[0]
		return api.NewError(http.StatusUnprocessableEntity, struct {
			api.Problem
			Field     string                     `json:"field"`
			Criterion string                     `json:"criterion"`
			Witness   any                        `json:"witness"`
			Findings  []publish.PolarityAdvisory `json:"findings"`
		}{api.Problem{Error: "unprocessable_entity", ReasonCode: api.ReasonNonConservativePresenceOp,
			Message: "The presence-polarity gate refused the promotion: " + first.Message},
			first.Field, first.Criterion, first.Witness, polarity.Findings})
	case errors.Is(err, publish.ErrInvalidSlug):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonInvalidSlugFormat, err.Error())
	case errors.Is(err, publish.ErrReservedNamespace):
		return problem(http.StatusForbidden, "forbidden", api.ReasonReservedNamespace, err.Error())
	case errors.Is(err, publish.ErrNamespaceOwned):
		return problem(http.StatusForbidden, "forbidden", api.ReasonNamespaceOwned, refusalMessage(err))
	case errors.Is(err, publish.ErrNamespaceLimit):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonNamespaceLimit, refusalMessage(err))
	case errors.Is(err, publish.ErrSlugConflict):
		return problem(http.StatusConflict, "conflict", api.ReasonSlugConflict, refusalMessage(err))
	case errors.Is(err, publish.ErrArtefactPublic):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonArtefactPublicVisibility, refusalMessage(err))
	case errors.Is(err, publish.ErrCompositionPinned):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonCompositionPinned, err.Error())
	case errors.Is(err, publish.ErrLabelAllocation):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonReleaseLabelAllocationFailed, "No release label could be allocated for this rulebook.")
	case errors.Is(err, publish.ErrPublicationFailed):
		api.LogFailure(ctx, "publish rulebook release", ref, err)
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonReleasePublicationFailed,
			"The release could not be published. The draft is kept; the next activate or edit publishes it.")
	case errors.Is(err, publish.ErrConcurrentEdit):
		return problem(http.StatusConflict, "conflict", reasonChanged, "The rulebook changed while this request was worked out; nothing was written. Read it again and retry.")
	case errors.Is(err, publish.ErrArchived):
		return problem(http.StatusConflict, "conflict", reasonArchived, "The rulebook is archived; activate it before editing or promoting.")
	case errors.Is(err, publish.ErrForceNotAllowed):
		return problem(http.StatusForbidden, "forbidden", reasonForceForbidden, "force_unsafe on promote-to-live is for internal keys only.")
	case errors.Is(err, publish.ErrNotSectionOfRulebook):
		return api.NotFound("Section not found in rulebook " + ref + ".")
	case errors.Is(err, publish.ErrCandidateSection):
		return api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "ruleset_id"}, Msg: "Value error, " + err.Error()})
	case errors.Is(err, publish.ErrCompositionRefused):
		return api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "ruleset_refs"}, Msg: "Value error, " + err.Error()})
	case errors.Is(err, publish.ErrFactsRefused):
		return api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "section_facts"}, Msg: "Value error, " + err.Error()})
	case errors.Is(err, publish.ErrUnknownField):
		return api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "fields"}, Msg: "Value error, " + err.Error()})
	case errors.As(err, &refused):
		var failures []engine.CaseResult
		if errors.Is(err, publish.ErrCandidateTests) {
			failures = refused.Failures
		}
		return api.NewError(http.StatusUnprocessableEntity, struct {
			api.Problem
			Failures []engine.CaseResult `json:"failures,omitempty"`
		}{api.Problem{Error: "unprocessable_entity", ReasonCode: refused.Stage, Message: refused.Message}, failures})
	case errors.Is(err, catalog.ErrNotFound):
		return api.LookupFailed(ctx, err, "Rulebook or ruleset", ref)
	}
	return api.LookupFailed(ctx, err, "Rulebook", ref)
}

// refusalMessage is what to tell the caller of a refused write: the
// refusal's own message, without the stage it names for the audit trail.
func refusalMessage(err error) string {
	var refused *publish.RefusedError
	if errors.As(err, &refused) {
		return refused.Message
	}
	return err.Error()
}
