package projects

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// answerMargin is the time generate-and-test keeps, of its request's work
// deadline, to read the generation's status and answer 202 with it.
const answerMargin = 5 * time.Second

// DefaultWait bounds how long generate-and-test holds the request before
// answering 202 with the status envelope (the generation goes on).
const DefaultWait = 5 * time.Minute

const keyDoc = "The caller's provider key goes in the `X-Provider-Key` header or the `provider_key` member; it is used for this request only and never stored, logged or echoed (no status or cancel call needs it). `model` picks a model of the server's table (GET /generation/models lists them); omitted, the server's default. An unknown model is 422 `model_unknown`; a missing key is 422 `provider_key_missing`: there is no fallback to another model or a platform key."

func registerGeneration(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route) {
	write := []auth.Scope{auth.ScopeProjectsWrite}
	gen := func(id, path, summary, description string) api.Route {
		r := op(id, http.MethodPost, path, summary, description, write)
		r.Class = api.ClassGenerate
		r.Refusals = generationRefusals
		return r
	}
	start := gen("generate-project", "/projects/{project_id}/generate", "Generate the draft",
		"Starts a generation and answers 202 with the status envelope; poll GET .../status. "+generateDoc)
	start.DefaultStatus = http.StatusAccepted
	start.Refusals = append(slices.Clone(generationRefusals), generationLimitRefusal(h.projects.Limits()))
	api.Register(s, start, h.generate)

	andTest := gen("generate-and-test-project", "/projects/{project_id}/generate-and-test", "Generate the draft and wait",
		"Starts a generation and waits for it: 200 with `ruleset_id` (the kept draft's id), `tests_passing`, `tests_total`, `failures[]` (`name`, `expected`, `got`, `hint`), `provenance_report`, `review_hint`, `source_questions`, `source_check`, `rounds` and `changed_criteria` (refine). Judge by `accepted` (or `outcome`), not by the job's completion: a kept draft may still fail tests. A generation that failed is 502 for a provider failure or 422 otherwise, with `reason_code`, `retryable` and `job_id`. A generation still running after the wait answers 202 with the status envelope; the wait ends 5 s before the request's work deadline (45 s with the default 60 s write timeout), so the answer always arrives. "+generateDoc)
	andTest.Refusals = start.Refusals
	api.Register(s, andTest, h.generateAndTest)

	cancel := op("cancel-generation", http.MethodPost, "/projects/{project_id}/generation/cancel", "Cancel a generation",
		"Cancels the project's active generation `job_id` (only on explicit intent: after a client timeout read the status first): it ends `failed` with outcome `cancelled`, the project is free at once, and its worker stops. The same cancel again answers `cancel_result: already_cancelled`. Another generation that ended otherwise, or a `job_id` that is not the active one, is 409 `generation_not_active`. Needs no provider key.", write)
	cancel.Refusals = []api.Refusal{{Status: http.StatusConflict, ReasonCode: worker.ReasonNotActive, Meaning: "the generation is not the active one, or ended otherwise than by a cancel."}}
	api.Register(s, cancel, h.cancel)

	models := op("list-generation-models", http.MethodGet, "/generation/models", "List the generation models",
		"The models a generation or discovery call may name in `model`, in the server's order: each with its `name`, `context_window`, `token_budget` (the most tokens a prompt may count with it: the window less the headroom kept for the answer; a prompt over it is refused with `token_budget_exceeded` before any call) and `default` (the one used when `model` is omitted). A server without a generation worker lists none.", []auth.Scope{auth.ScopeProjectsRead})
	models.NotFound = ""
	api.Register(s, models, h.models)

	fields := gen("discover-project-fields", "/projects/{project_id}/discover/fields", "Propose a field vocabulary",
		"Asks the model for the facts an applicant must be asked, from the active sources: each field with `id`, `type`, `question`, `enum_values` and the `quote` it comes from, `verified` when the quote is in a source (`source_id`). Nothing is stored. "+keyDoc)
	api.Register(s, fields, h.discoverFields)
	sections := gen("discover-project-sections", "/projects/{project_id}/discover/sections", "Propose sections",
		"Asks the model for the separate eligibility tests the active sources hold, each a possible section: `section_id`, `name` and the `quote`, `verified` when found in a source. Nothing is stored. "+keyDoc)
	api.Register(s, sections, h.discoverSections)
}

const generateDoc = "Body optional: `mode` (`fresh`, the default, or `refine`: start from the section's active ruleset, or `seed_ruleset_id`, and make the smallest edit that passes the tests), `seed_ruleset_id`, `model`, `provider_key`. " +
	"The prompt (grammar, citation rules, active sources, guidance, tests; to refine, the seed) is counted exactly with the model's tokenizer first: over the model's budget (context window minus reserved headroom) is 422 `token_budget_exceeded` with `token_count`, `token_budget` and `largest_sources`, and no model call is made. The active sources' stored `estimated_tokens` are checked before anything is assembled: when they alone are over the budget, the 422 gives their sum as `token_count`; and counting stops once it passes the budget, when `token_count` is what was counted by then (the prompt counts at least that). " +
	"The pipeline's stages, named in the status: assemble, count, call, extract, compile, verify_quotes, test, repair. Compile errors and unverifiable quotes go back to the model; each failing test is described with the solver's minimal reasons, the criteria's quotes and the trace; at most 3 repair rounds; a round is kept only when every test that passed still passes. The best draft is stored as the project's draft, failing or not. " +
	"One generation per project at a time: a second is 409 `generation_active`. A tenant's generations queued or running across its projects are limited too (the limit is in the 429's description): another start is 429 `tenant_generation_limit` with `Retry-After`. " + keyDoc

var generationRefusals = []api.Refusal{
	{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonTokenBudget, Meaning: "the prompt counts more tokens than the model's budget; no model call was made."},
	{Status: http.StatusUnprocessableEntity, ReasonCode: worker.ReasonModelUnknown, Meaning: "the model is not in the server's table."},
	{Status: http.StatusUnprocessableEntity, ReasonCode: worker.ReasonProviderKeyMissing, Meaning: "no provider key was sent."},
	{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonNoSources, Meaning: "the project has no active source."},
	{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonNoSeed, Meaning: "refine found no ruleset to start from."},
	{Status: http.StatusConflict, ReasonCode: worker.ReasonGenerationActive, Meaning: "the project already has a generation queued or running."},
	{Status: http.StatusBadGateway, ReasonCode: llm.ReasonAuthFailed, Meaning: "the provider refused the key (also provider_rate_limited, provider_unavailable, provider_timeout, provider_model_unknown, provider_bad_request, provider_response_invalid; `retryable` says whether to try again)."},
}

// generationModel is one model of the server's table, as list-generation-models
// shows it, so a client can offer the choice and say what fits.
type generationModel struct {
	Name          string `json:"name" doc:"The model's name, to send as model."`
	ContextWindow int    `json:"context_window" doc:"The model's window in tokens, prompt and answer together."`
	TokenBudget   int    `json:"token_budget" doc:"The most tokens a generation prompt may count with this model."`
	Default       bool   `json:"default" doc:"Whether this is the model used when model is omitted."`
}

// modelList is list-generation-models' answer.
type modelList struct {
	Models []generationModel `json:"models" nullable:"false" doc:"The server's models, the default first."`
}

type modelsOutput struct {
	Body modelList
}

// models lists the generator's model table; it needs no project, only the
// projects:read scope, as every studio screen does.
func (h *handler) models(_ context.Context, _ *struct{}) (*modelsOutput, error) {
	out := &modelsOutput{}
	out.Body.Models = []generationModel{}
	if h.generator == nil {
		return out, nil
	}
	table := h.generator.Models()
	def := table.Default().Name
	for _, name := range table.Names() {
		info, _ := table.Lookup(name)
		out.Body.Models = append(out.Body.Models, generationModel{Name: name, ContextWindow: info.ContextWindow, TokenBudget: info.Budget(), Default: name == def})
	}
	return out, nil
}

// generateBody is the optional body of generate, generate-and-test and the
// discovery calls.
type generateBody struct {
	Mode          string `json:"mode,omitempty" enum:"fresh,refine"`
	SeedRulesetID string `json:"seed_ruleset_id,omitempty" maxLength:"300"`
	Model         string `json:"model,omitempty" maxLength:"200"`
	ProviderKey   string `json:"provider_key,omitempty" maxLength:"4096" doc:"The provider key, if not in X-Provider-Key; never stored."`
}

// SchemaName is the name of generateBody's schema in the published API document,
// where the Go name would not say what it is.
func (generateBody) SchemaName() string { return "GenerateRequest" }

type generateInput struct {
	ProjectID   string        `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	ProviderKey string        `header:"X-Provider-Key" maxLength:"4096" doc:"The provider key; never stored."`
	Body        *generateBody `required:"false"`
}

// key is the request's provider key: the header's, else the body's.
func (in *generateInput) key() llm.Key {
	if in.ProviderKey != "" {
		return llm.NewKey(in.ProviderKey)
	}
	if in.Body != nil {
		return llm.NewKey(in.Body.ProviderKey)
	}
	return llm.NewKey("")
}

func (in *generateInput) body() generateBody {
	if in.Body == nil {
		return generateBody{}
	}
	return *in.Body
}

type statusEnvelopeOutput struct {
	Body authoring.Status
}

// errNoGenerator answers on a server built without a generator.
var errNoGenerator = api.NewProblem(http.StatusConflict, "conflict", worker.ReasonWorkerUnavailable, "This server runs no generation worker.")

func (h *handler) start(ctx context.Context, in *generateInput) (store.Generation, string, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return store.Generation{}, "", err
	}
	if h.generator == nil {
		return store.Generation{}, "", errNoGenerator
	}
	b := in.body()
	g, err := h.generator.Start(ctx, worker.StartRequest{TenantID: tenant, ProjectID: in.ProjectID, Mode: b.Mode,
		SeedRulesetID: b.SeedRulesetID, Model: b.Model, Key: in.key()})
	if err != nil {
		return g, tenant, failed(ctx, err, "Project", in.ProjectID)
	}
	return g, tenant, nil
}

func (h *handler) generate(ctx context.Context, in *generateInput) (*statusEnvelopeOutput, error) {
	_, tenant, err := h.start(ctx, in)
	if err != nil {
		return nil, err
	}
	st, err := h.projects.Status(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &statusEnvelopeOutput{Body: st}, nil
}

type generateAndTestOutput struct {
	Status int
	Body   any
}

// generationAnswer is generate-and-test's 200 body.
type generationAnswer struct {
	JobID   string `json:"job_id"`
	Outcome string `json:"outcome" enum:"accepted,failing_tests"`
	authoring.GenerationResult
}

func (h *handler) generateAndTest(ctx context.Context, in *generateInput) (*generateAndTestOutput, error) {
	g, tenant, err := h.start(ctx, in)
	if err != nil {
		return nil, err
	}
	// Wait at most h.wait, and stop in time to answer 202 with the status
	// before the request's work deadline.
	limit := h.wait
	if deadline, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(deadline)-answerMargin)
	}
	wait, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if g, err = h.generator.Wait(wait, tenant, in.ProjectID, g.ID); err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	if g.Active() {
		st, err := h.projects.Status(ctx, tenant, in.ProjectID)
		if err != nil {
			return nil, failed(ctx, err, "Project", in.ProjectID)
		}
		return &generateAndTestOutput{Status: http.StatusAccepted, Body: st}, nil
	}
	if g.State == store.GenerationFailed {
		return nil, generationFailed(g)
	}
	answer := generationAnswer{JobID: g.ID, Outcome: g.Outcome}
	if err := json.Unmarshal(g.Result, &answer.GenerationResult); err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &generateAndTestOutput{Status: http.StatusOK, Body: answer}, nil
}

// generationFailed is a failed generation's answer: 502 when the provider
// failed, else 422, with the reason, whether to retry and the job.
func generationFailed(g store.Generation) error {
	status := http.StatusUnprocessableEntity
	if strings.HasPrefix(g.ErrorReason, "provider_") {
		status = http.StatusBadGateway
	}
	return api.NewError(status, refusalDetail{Problem: api.Problem{Error: "generation_failed", ReasonCode: g.ErrorReason, Message: g.ErrorMessage},
		Detail: map[string]any{"retryable": g.ErrorRetryable, "job_id": g.ID}})
}

type cancelInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      cancelRequest
}

// cancelRequest is cancelInput's body, published as CancelRequest.
type cancelRequest struct {
	JobID string `json:"job_id" minLength:"1" maxLength:"100" doc:"The generation to cancel, as the status names it."`
}

type cancelOutput struct {
	Body cancelResult
}

// cancelResult is cancelOutput's body, published as CancelResult.
type cancelResult struct {
	CancelResult string `json:"cancel_result" enum:"cancelled,already_cancelled" enumName:"CancelOutcome"`
	authoring.Status
}

// SchemaName is the name of cancelResult's schema in the published API document,
// where the Go name would not say what it is.
func (cancelResult) SchemaName() string { return "CancelResult" }

func (h *handler) cancel(ctx context.Context, in *cancelInput) (*cancelOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	if h.generator == nil {
		return nil, errNoGenerator
	}
	g, already, err := h.generator.Cancel(ctx, tenant, in.ProjectID, in.Body.JobID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.NotFound("Generation \"" + in.Body.JobID + "\" not found.")
	}
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	st, err := h.projects.Status(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	out := &cancelOutput{}
	out.Body.Status = authoring.GenerationStatus(st, g)
	out.Body.CancelResult = "cancelled"
	if already {
		out.Body.CancelResult = "already_cancelled"
	}
	return out, nil
}

type discoverOutput struct {
	Body authoring.Discovery
}

func (h *handler) discover(ctx context.Context, in *generateInput, what string) (*discoverOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	if h.generator == nil {
		return nil, errNoGenerator
	}
	d, err := h.generator.Discover(ctx, tenant, in.ProjectID, what, in.body().Model, in.key())
	var failedGen *authoring.GenerationError
	if errors.As(err, &failedGen) {
		return nil, generationFailed(store.Generation{ErrorReason: failedGen.Reason, ErrorRetryable: failedGen.Retryable, ErrorMessage: failedGen.Message})
	}
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &discoverOutput{Body: d}, nil
}

func (h *handler) discoverFields(ctx context.Context, in *generateInput) (*discoverOutput, error) {
	return h.discover(ctx, in, authoring.DiscoverFields)
}

func (h *handler) discoverSections(ctx context.Context, in *generateInput) (*discoverOutput, error) {
	return h.discover(ctx, in, authoring.DiscoverSections)
}
