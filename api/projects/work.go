package projects

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/tidwall/gjson"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

const testsDoc = "A test case is `name` (unique in the project), `field_values` (the answers, as /decide takes them), `expected_outcome` and optional `decision_date` (YYYY-MM-DD, for rules that read it) and `expectations`: `criteria` (criterion id to satisfied, not_satisfied or pending), `groups` (likewise), `missing_fields` (fields that must be among the missing) and `field_errors` (when present, exactly the fields reported in field_errors). " +
	"Field names must match the draft's exactly: an answer to a field the draft does not declare is treated as absent, and the test's result lists it under `ignored_fields`."

func registerWork(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route) {
	read := []auth.Scope{auth.ScopeProjectsRead}
	write := []auth.Scope{auth.ScopeProjectsWrite}

	tests := op("set-project-tests", http.MethodPost, "/projects/{project_id}/tests", "Write the tests or the acceptance contract",
		"Two forms. A legacy write: `test_cases` (1 to 100) with `replace: true` replaces the tests, without `replace` appends them (at most 100 in all). "+
			"A contract: `contract_version: 1` with `test_cases` (1 to 100) and optional `expected_review_bindings` replaces the tests and the contract together. "+
			"A legacy write never silently erases a contract: while one is in force it is 409 `contract_in_force`, and the contract stays. "+
			"`expected_review_bindings`: the review points are the draft's discretionary criteria; a completion field identifies the one named by its name part (`review.officer_satisfied` identifies criterion `officer_satisfied`), must be an enum or bool field, and maps each of its answer tokens (enum values, or true and false) to `true` (completes the review point), `false` (rejects it) or `null` (leaves it pending). "+
			"Each declared field must identify exactly one review point and map every token; no review point of the draft may be left out. Omitting the member adds no assertion; `{}` asserts the draft has no mapped review point; `null` is invalid (422). "+
			"A draft is accepted only when every test and every such check passes. "+testsDoc, write)
	tests.Refusals = []api.Refusal{{Status: http.StatusConflict, ReasonCode: authoring.ReasonContractInForce, Meaning: "a legacy write while an acceptance contract governs the tests."}}
	api.Register(s, tests, h.setTests)

	addGuidance := op("add-project-guidance", http.MethodPost, "/projects/{project_id}/guidance", "Add guidance",
		"Adds guidance for generation without generating: `guidance_text`, `process_type` (`field_extraction` or `rule_generation`), optional `adherence` (`exact`: follow it to the letter), `domain_scope` (the domain it applies to; empty for all) and `settles` (the id of a draft source question the note settles, which marks it resolved).", write)
	addGuidance.DefaultStatus, addGuidance.Idempotent = http.StatusCreated, true
	addGuidance.Refusals = []api.Refusal{guidanceLimitRefusal(h.projects.Limits())}
	api.Register(s, addGuidance, h.addGuidance)

	api.Register(s, op("list-project-guidance", http.MethodGet, "/projects/{project_id}/guidance", "List guidance",
		"Every guidance note of the project in the order it was added.", read), h.listGuidance)

	api.Register(s, op("put-project-draft", http.MethodPut, "/projects/{project_id}/draft", "Write the draft by hand",
		"Stores `rules` (.rules text) as the project's draft, whether or not it compiles (a draft is work in progress), with optional `source_questions`, and answers what GET .../draft answers. "+draftDoc, write), h.putDraft)

	draft := op("get-project-draft", http.MethodGet, "/projects/{project_id}/draft", "Check the draft",
		"The draft worked out: its compile errors, every test's result and the contract's checks (`acceptance`), the provenance report, the source check and the source questions. 409 `no_draft` before the first draft. "+draftDoc, read)
	draft.Refusals = []api.Refusal{{Status: http.StatusConflict, ReasonCode: authoring.ReasonNoDraft, Meaning: "the project has no draft yet."}}
	api.Register(s, draft, h.getDraft)

	pub := op("publish-project", http.MethodPost, "/projects/{project_id}/publish", "Publish the draft",
		publishDoc, write)
	pub.DefaultStatus, pub.Idempotent = http.StatusCreated, true
	pub.Refusals = []api.Refusal{
		{Status: http.StatusConflict, ReasonCode: authoring.ReasonNoDraft, Meaning: "the project has no draft yet."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonDraftInvalid, Meaning: "the draft does not compile, or authors another section (`compile_errors`)."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonReferenceUnresolved, Meaning: "a declared source does not bind to a project source, or is unlicensed, private or mismatched (`problems`)."},
		{Status: http.StatusConflict, ReasonCode: authoring.ReasonReferenceUnresolved, Meaning: "a cited source was deleted while the draft was published; nothing was published."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonQuoteUnverified, Meaning: "a quote is not in its source's text (`problems`)."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonTestsFailed, Meaning: "a test or contract check fails and force_unsafe was not sent (`failures`, `contract_checks`)."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonInvalidSlugFormat, Meaning: "no slug (send one, or declare `ruleset \"...\"` in the draft), or it breaks the pattern."},
		{Status: http.StatusForbidden, ReasonCode: api.ReasonReservedNamespace, Meaning: "the slug is under the service's prefix, or under a reserved namespace (a government, agency or programme name) an operator has not assigned to the caller's tenant."},
		{Status: http.StatusForbidden, ReasonCode: api.ReasonNamespaceOwned, Meaning: "the slug's namespace belongs to another tenant; answered whether or not the slug exists."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonNamespaceLimit, Meaning: "publishing would claim a new namespace and the tenant owns as many as its tier allows."},
		{Status: http.StatusConflict, ReasonCode: api.ReasonSlugConflict, Meaning: "another tenant holds the slug, under a namespace of the caller's own (from before namespaces were owned)."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonArtefactPublicVisibility, Meaning: "the new version would be public (asked for, or kept from the slug's public version) and the draft cites project artefacts; send `visibility: private`."},
	}
	api.Register(s, pub, h.publish)

	rev := op("review-project", http.MethodPost, "/projects/{project_id}/review", "Review the project",
		"The review report: `score` (0-100, the weighted share of the scored checks passed, a warning counting half; null when none applies), `data_completeness` (`thin` below five tests per section), `checks[]`, `strengths[]`, `next_skill` and, only with `coach: true`, `coaching` (a paragraph assembled from the failing checks; no model runs). "+
			"The checks, each with evidence: draft_compiles, tests_per_section, tests_pass, criteria_both_ways (each criterion seen satisfied and not satisfied), threshold_boundaries (each comparison with a constant tested at the constant and on the other side of it), criteria_cited (a verified quote per criterion), clause_coverage (share of active sources' clauses cited), presence_polarity (the go-live gate), unused_fields, superseded_sources, source_questions, static_analysis (the solver's findings) and mutation_score (the share of mutants of the rules the tests kill, with the cases the solver suggests). Advisory only: it never blocks.",
		[]auth.Scope{auth.ScopeProjectsRead, auth.ScopeRulesetsRead})
	api.Register(s, rev, h.review)
}

var draftDoc = "A declared source binds to a project source by `source_targets` (on publish), else by its declaration: `artefact \"src_...\"` (or the full artefact locator) names a project source, `url \"...\"` matches a source uploaded with that url. Every quote is then looked for in that source's extracted text, white space normalised and nothing else forgiven. " +
	"A quote not found there carries `nearest_passage` when some passage of the source is close to it (a typo, a change of case or punctuation, a light paraphrase): its `text` (a quote the source verifies), its byte `offset` and `end` in the extracted text, its `page` for a PDF and its `similarity` (0.6 to 1). " +
	fmt.Sprintf("The search is bounded: the first %d MiB of each source's text, quotes of at most %d words, the first %d unverified quotes of a draft.",
		source.MaxNearestScan>>20, source.MaxNearestQuoteWords, authoring.MaxNearestQuotes)

var publishDoc = "Publishes the draft through the same gates as every publish: the draft compiles; every test and contract check passes unless `force_unsafe` (recorded as the `publish_force_bypass` audit event); every declared source binds to a project source and is licensed; every quote is in its source's text. " +
	"`source_targets` maps a declared source id to `{source_id, target_kind}`: `url` makes a v1 reference to the source's public url (a source without a url, or with a local or private one, fails; so does a draft url or licence that differs from the upload's) with a `#:~:text=` deep link, or `#page=N` for a PDF; `artefact` makes a v2 reference to the uploaded file (`artefact_project_id`, `artefact_source_id`), which is never shown to anonymous callers and keeps the ruleset from being made public (422 `artefact_reference_public_visibility_forbidden`). " +
	"The published rules text declares what each source was bound to. The slug is the body's `slug`, else the draft's `ruleset` header; `name` overrides the display name. " + api.NamespaceDoc + " " +
	"`visibility` (`public` or `private`) chooses who may use the new version; without it the new version keeps the visibility of the version the slug points at now (a public programme stays public through new versions), and the first version of a slug is private. " +
	"201 with `ruleset_id`, `version`, `visibility` and `visibility_from` (`requested`, `kept` from the slug's previous version, or `new_slug`), `tests_passing`, `tests_total`, `review_hint` (the review's next skill, or null), `source_check` (warn-only: `ok`, `warnings`, `error` or `not_run`, findings `mismatch`, `unverifiable`, `no_authoring_inputs_recorded`), `source_questions`, `provenance_report` and `warnings` (`period_ended` when the rules' effective period ended before today, `period_before_live` when it ended before the period of the version live under the slug began; neither blocks). The provenance is recorded with the cut, so a cited source can no longer be deleted. " + draftDoc

// wireCase is a test case as requests carry it.
type wireCase struct {
	Name            string              `json:"name" minLength:"1" maxLength:"200"`
	FieldValues     resource.JSONObject `json:"field_values,omitempty" doc:"The answers, as /decide takes them."`
	ExpectedOutcome string              `json:"expected_outcome" enum:"eligible,not_eligible,undetermined"`
	DecisionDate    string              `json:"decision_date,omitempty" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}$" doc:"What decision_date() reads, YYYY-MM-DD."`
	Expectations    *wireExpectancy     `json:"expectations,omitempty"`
}

type wireExpectancy struct {
	Criteria      map[string]string `json:"criteria,omitempty" doc:"Criterion id to satisfied, not_satisfied or pending."`
	Groups        map[string]string `json:"groups,omitempty" doc:"Group id to satisfied, not_satisfied or pending."`
	MissingFields []string          `json:"missing_fields,omitempty" maxItems:"1000" doc:"Fields that must be among the missing."`
	FieldErrors   *[]string         `json:"field_errors,omitempty" maxItems:"1000" doc:"When present (even empty): exactly the fields reported in field_errors."`
}

func engineCases(in []wireCase) []engine.Case {
	out := make([]engine.Case, len(in))
	for i, c := range in {
		out[i] = engine.Case{Name: c.Name, FieldValues: json.RawMessage(c.FieldValues), ExpectedOutcome: c.ExpectedOutcome, DecisionDate: c.DecisionDate}
		if len(out[i].FieldValues) == 0 {
			out[i].FieldValues = json.RawMessage("{}")
		}
		if x := c.Expectations; x != nil {
			out[i].Expectations = &engine.Expectations{Criteria: x.Criteria, Groups: x.Groups, MissingFields: x.MissingFields, FieldErrors: x.FieldErrors}
		}
	}
	return out
}

// wireCaseOf is c as requests carry it (engineCases' reverse), its name
// cut to the 200 characters a request's name may have.
func wireCaseOf(c engine.Case) wireCase {
	o := wireCase{Name: c.Name, FieldValues: resource.JSONObject(c.FieldValues), ExpectedOutcome: c.ExpectedOutcome, DecisionDate: c.DecisionDate}
	if r := []rune(o.Name); len(r) > maxCaseName {
		o.Name = string(r[:maxCaseName-1]) + "…"
	}
	if x := c.Expectations; x != nil {
		o.Expectations = &wireExpectancy{Criteria: x.Criteria, Groups: x.Groups, MissingFields: x.MissingFields, FieldErrors: x.FieldErrors}
	}
	return o
}

// maxCaseName is the longest test case name, in characters.
const maxCaseName = 200

type createInput struct {
	Body projectCreateRequest
}

// projectCreateRequest is createInput's body, published as ProjectCreateRequest.
type projectCreateRequest struct {
	Name       string     `json:"name" minLength:"1" maxLength:"200"`
	SectionID  string     `json:"section_id" minLength:"1" maxLength:"100" pattern:"^[a-z][a-z0-9_]*$" doc:"The section the project authors, e.g. fmla_employee."`
	SourceText string     `json:"source_text" maxLength:"10485760" doc:"Statute or policy text; when not blank, the first source."`
	TestCases  []wireCase `json:"test_cases" nullable:"true" maxItems:"100"`
}

type createResponse struct {
	*projectResponse
	uploadResponse
}

type createOutput struct {
	Body createResponse
}

func (h *handler) create(ctx context.Context, in *createInput) (*createOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	proj, up, err := h.projects.Create(ctx, p.TenantID, authoring.CreateRequest{Name: in.Body.Name, SectionID: in.Body.SectionID,
		SourceText: in.Body.SourceText, TestCases: engineCases(in.Body.TestCases)})
	if err != nil {
		return nil, failed(ctx, err, "Project", "")
	}
	o, err := projectOut(proj)
	return &createOutput{Body: createResponse{projectResponse: o, uploadResponse: uploadOut(up)}}, err
}

type testsInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      testsRequest
	// RawBody tells an explicit null from an absent member.
	RawBody []byte
}

// testsRequest is testsInput's body, published as TestsRequest.
type testsRequest struct {
	Replace                bool                        `json:"replace,omitempty" doc:"Legacy write: replace rather than append."`
	ContractVersion        int                         `json:"contract_version,omitempty" enum:"1" enumName:"ContractVersion" doc:"1 makes this a contract write."`
	TestCases              []wireCase                  `json:"test_cases" nullable:"true" minItems:"1" maxItems:"100"`
	ExpectedReviewBindings map[string]map[string]*bool `json:"expected_review_bindings,omitempty" doc:"Contract only: completion field to answer token to true, false or null; null is invalid."`
}

type projectOnlyOutput struct {
	Body *projectResponse
}

func (h *handler) setTests(ctx context.Context, in *testsInput) (*projectOnlyOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	if gjson.GetBytes(in.RawBody, "expected_review_bindings").Type == gjson.Null && gjson.GetBytes(in.RawBody, "expected_review_bindings").Exists() {
		return nil, api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "expected_review_bindings"},
			Msg: "Value error, expected_review_bindings may be omitted (no assertion) or {} (no review points), never null"})
	}
	req := authoring.TestsRequest{Replace: in.Body.Replace, TestCases: engineCases(in.Body.TestCases)}
	if in.Body.ContractVersion != 0 {
		req.Contract = &authoring.Contract{ContractVersion: in.Body.ContractVersion}
		if gjson.GetBytes(in.RawBody, "expected_review_bindings").Exists() {
			bindings := in.Body.ExpectedReviewBindings
			if bindings == nil {
				bindings = map[string]map[string]*bool{}
			}
			req.Contract.ExpectedReviewBindings = &bindings
		}
	} else if in.Body.ExpectedReviewBindings != nil {
		return nil, api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "expected_review_bindings"},
			Msg: "Value error, expected_review_bindings belongs to a contract: send contract_version 1"})
	}
	proj, err := h.drafts.SetTests(ctx, tenant, in.ProjectID, req)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	o, err := projectOut(proj)
	return &projectOnlyOutput{Body: o}, err
}

type guidanceResponse struct {
	Position     int       `json:"position" doc:"Order added, from 0."`
	GuidanceText string    `json:"guidance_text"`
	ProcessType  string    `json:"process_type" enum:"field_extraction,rule_generation"`
	Adherence    *string   `json:"adherence" enum:"exact"`
	DomainScope  string    `json:"domain_scope"`
	CreatedAt    time.Time `json:"created_at"`
}

// SchemaName is the name of guidanceResponse's schema in the published API document,
// where the Go name would not say what it is.
func (guidanceResponse) SchemaName() string { return "Guidance" }

func guidanceOut(g store.Guidance) guidanceResponse {
	o := guidanceResponse{Position: g.Position, GuidanceText: g.Text, ProcessType: g.ProcessType, DomainScope: g.DomainScope, CreatedAt: g.CreatedAt}
	if g.Adherence != "" {
		o.Adherence = &g.Adherence
	}
	return o
}

type addGuidanceInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      guidanceRequest
}

// guidanceRequest is addGuidanceInput's body, published as GuidanceRequest.
type guidanceRequest struct {
	GuidanceText string `json:"guidance_text" minLength:"1" maxLength:"20000"`
	ProcessType  string `json:"process_type" enum:"field_extraction,rule_generation"`
	Adherence    string `json:"adherence,omitempty" enum:"exact"`
	DomainScope  string `json:"domain_scope,omitempty" maxLength:"200"`
	Settles      string `json:"settles,omitempty" maxLength:"100" doc:"The id of one of the draft's source questions that this note settles: the question is marked resolved (source_questions[].resolved on the draft, and the review's source-questions check) when the note is added, in one transaction; an id the draft does not have is refused (422) and nothing is added."`
}

type guidanceOutput struct {
	Body guidanceResponse
}

func (h *handler) addGuidance(ctx context.Context, in *addGuidanceInput) (*guidanceOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	g, err := h.projects.AddGuidance(ctx, tenant, in.ProjectID, store.Guidance{Text: in.Body.GuidanceText,
		ProcessType: in.Body.ProcessType, Adherence: in.Body.Adherence, DomainScope: in.Body.DomainScope, Settles: in.Body.Settles})
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &guidanceOutput{Body: guidanceOut(g)}, nil
}

type guidanceListOutput struct {
	Body guidanceList
}

// guidanceList is guidanceListOutput's body, published as GuidanceList.
type guidanceList struct {
	Guidance []guidanceResponse `json:"guidance" nullable:"false"`
}

func (h *handler) listGuidance(ctx context.Context, in *projectInput) (*guidanceListOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	rows, err := h.projects.Guidance(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	out := &guidanceListOutput{}
	out.Body.Guidance = make([]guidanceResponse, len(rows))
	for i, g := range rows {
		out.Body.Guidance[i] = guidanceOut(g)
	}
	return out, nil
}

type reviewInput struct {
	ProjectID string         `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      *reviewRequest `required:"false"`
}

// reviewRequest is reviewInput's body, published as ReviewRequest.
type reviewRequest struct {
	Coach bool `json:"coach,omitempty" doc:"Add the coaching paragraph."`
}

type reviewOutput struct {
	Body review.Report
}

func (h *handler) review(ctx context.Context, in *reviewInput) (*reviewOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	opts := review.Options{Coach: in.Body != nil && in.Body.Coach}
	rep, err := h.reviews.Review(ctx, tenant, in.ProjectID, opts)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &reviewOutput{Body: rep}, nil
}
