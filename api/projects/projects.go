// Package projects is the authoring resource of the HTTP interface: a
// tenant's projects, their sources, tests and contracts, guidance, the
// draft, the editor's tools over it (format, symbols, the diff against a
// published cut, suggested cases), the review report and publishing the
// draft. Every operation needs
// a key (projects:read or projects:write) and grants CORS to first-party
// origins only; another tenant's project is 404. The work is package
// authoring's; this package maps it to the wire.
package projects

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// Deps are the services the resource calls.
type Deps struct {
	// Authoring is the workspace's jobs: the resource calls Projects,
	// Drafts and Reviews (Generation runs behind Generator).
	Authoring authoring.Workspace
	// Generator starts, waits for and cancels generations.
	Generator *worker.Generator
	// Wait bounds generate-and-test's wait; DefaultWait when zero.
	Wait time.Duration
	// Catalog resolves the published cut a draft is compared with.
	Catalog *catalog.Catalog
	// Gate bounds the solver runs of draft diffs and suggested cases with
	// every other heavy solver run of the process; nil admits all.
	Gate *bound.Gate
	// Clock is "today" for a draft diff that names no decision date; nil
	// means the system clock.
	Clock clock.Clock
	// Store keeps the projects' caseloads and impact runs.
	Store *store.Store
	// Impact starts impact runs of caseloads; without it (or without its
	// River client) a start is 409 impact_worker_unavailable.
	Impact *worker.ImpactRunner
}

type handler struct {
	server    *api.Server
	projects  *authoring.Projects
	drafts    *authoring.Drafts
	reviews   *authoring.Reviews
	generator *worker.Generator
	wait      time.Duration
	catalog   *catalog.Catalog
	gate      *bound.Gate
	clock     clock.Clock
	store     *store.Store
	impact    *worker.ImpactRunner
	// checks bounds each tenant's editor checks and completions, which
	// no budget counts (EditorChecksBurst).
	checks *auth.AttemptLimiter
}

const notFound = "project"

// Register adds the project operations to s.
func Register(s *api.Server, deps Deps) {
	h := &handler{server: s, projects: deps.Authoring.Projects, drafts: deps.Authoring.Drafts, reviews: deps.Authoring.Reviews,
		generator: deps.Generator, wait: deps.Wait, catalog: deps.Catalog, gate: deps.Gate, clock: clock.Or(deps.Clock),
		store: deps.Store, impact: deps.Impact, checks: auth.NewAttemptLimiter(EditorChecksBurst, EditorChecksWindow)}
	if h.wait <= 0 {
		h.wait = DefaultWait
	}
	read := []auth.Scope{auth.ScopeProjectsRead}
	write := []auth.Scope{auth.ScopeProjectsWrite}
	op := func(id, method, path, summary, description string, scopes []auth.Scope) api.Route {
		return api.Route{OperationID: id, Method: method, Path: path, Summary: summary, Description: description,
			Tags: []string{"Projects"}, Access: api.Keyed, Scopes: scopes, Class: api.ClassProjects, NotFound: notFound}
	}
	lim := h.projects.Limits()

	create := op("create-project", http.MethodPost, "/projects/", "Create a project",
		"Creates an authoring project for one section. `source_text`, when not blank, becomes the first source (`source.txt`, text/plain). "+
			"`test_cases` are the first tests (at most 100). "+testsDoc, write)
	create.NotFound, create.DefaultStatus, create.Idempotent = "", http.StatusCreated, true
	create.Refusals = append(uploadRefusals(lim), projectLimitRefusal(lim))
	api.Register(s, create, h.create)

	list := op("list-projects", http.MethodGet, "/projects", "List projects",
		"The tenant's projects in creation order, a page at a time: a bare JSON array; `X-Next-Cursor` carries the cursor of the next page while more may follow.", read)
	list.NotFound = ""
	api.Register(s, list, h.list)

	api.Register(s, op("get-project", http.MethodGet, "/projects/{project_id}", "Get a project",
		"The project with its tests, contract and draft summary.", read), h.get)

	api.Register(s, op("get-project-status", http.MethodGet, "/projects/{project_id}/status", "Get the generation status",
		"The generation job status and recovery envelope (`generation_contract_version` 1). Before any generation the state is `idle` with `retry_readiness` `ready`, in the same shape. `draft` says whether the project holds a draft and who wrote it.", read), h.status)

	registerSources(s, h, op, lim)
	registerWork(s, h, op)
	registerGeneration(s, h, op)
	registerStudio(s, h, op)
	registerCaseloads(s, h, op)
	registerImpact(s, h, op)
}

var projectIDPattern = regexp.MustCompile(`^prj_[A-Za-z0-9_-]{16}$`)

// projectInput names a project.
type projectInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
}

// failed maps an authoring error for the project ref to its answer (docs/api.md#errors).
func failed(ctx context.Context, err error, what, ref string) error {
	var refused *authoring.RefusedError
	var bad *authoring.InvalidError
	var pub *publish.RefusedError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return api.NotFound(what + " " + fmt.Sprintf("%q", ref) + " not found.")
	case errors.As(err, &bad):
		items := make([]api.ValidationItem, len(bad.Items))
		for i, it := range bad.Items {
			items[i] = api.ValidationItem{Type: it.Type, Loc: it.Loc, Msg: it.Msg, Input: it.Input}
		}
		return api.ValidationFailed(items...)
	case errors.As(err, &refused):
		status, code := map[authoring.Kind]int{authoring.Unprocessable: http.StatusUnprocessableEntity,
			authoring.Conflict: http.StatusConflict, authoring.TooLarge: http.StatusRequestEntityTooLarge,
			authoring.TooMany: http.StatusTooManyRequests}[refused.Kind],
			map[authoring.Kind]string{authoring.Unprocessable: "unprocessable_entity", authoring.Conflict: "conflict",
				authoring.TooLarge: "payload_too_large", authoring.TooMany: "too_many_requests"}[refused.Kind]
		e := api.NewError(status, refusalDetail{Problem: api.Problem{Error: code, ReasonCode: refused.Reason, Message: refused.Message}, Detail: refused.Detail})
		if refused.Kind == authoring.TooMany {
			return e.WithRetryAfter(refused.RetryAfter)
		}
		return e
	case errors.As(err, &pub):
		return publishRefused(pub)
	}
	api.LogFailure(ctx, "authoring", ref, err)
	return api.Internal()
}

// refusalDetail is a Problem with the refusal's own members inline.
type refusalDetail struct {
	api.Problem
	Detail any `json:"-"`
}

// MarshalJSON writes the problem's members and the detail's together.
func (r refusalDetail) MarshalJSON() ([]byte, error) { return mergeJSON(r.Problem, r.Detail) }

// publishRefused maps the publisher's refusals of a project's draft.
func publishRefused(pub *publish.RefusedError) error {
	problem := func(status int, code, reason string) error {
		return api.NewProblem(status, code, reason, pub.Message)
	}
	switch {
	case errors.Is(pub, publish.ErrInvalidSlug):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonInvalidSlugFormat)
	case errors.Is(pub, publish.ErrReservedNamespace):
		return problem(http.StatusForbidden, "forbidden", api.ReasonReservedNamespace)
	case errors.Is(pub, publish.ErrNamespaceOwned):
		return problem(http.StatusForbidden, "forbidden", api.ReasonNamespaceOwned)
	case errors.Is(pub, publish.ErrNamespaceLimit):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonNamespaceLimit)
	case errors.Is(pub, publish.ErrSlugConflict):
		return problem(http.StatusConflict, "conflict", api.ReasonSlugConflict)
	case errors.Is(pub, publish.ErrArtefactPublic):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonArtefactPublicVisibility)
	case errors.Is(pub, publish.ErrTestsFailed):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", authoring.ReasonTestsFailed)
	case errors.Is(pub, publish.ErrSourceUnverified):
		return problem(http.StatusUnprocessableEntity, "unprocessable_entity", authoring.ReasonQuoteUnverified)
	}
	return problem(http.StatusUnprocessableEntity, "unprocessable_entity", authoring.ReasonDraftInvalid)
}

// projectResponse is a project on the wire.
type projectResponse struct {
	ProjectID   string        `json:"project_id"`
	Name        string        `json:"name"`
	SectionID   string        `json:"section_id"`
	TestCases   []engine.Case `json:"test_cases" nullable:"false"`
	Contract    any           `json:"contract" doc:"The acceptance contract (contract_version, expected_review_bindings), or null when the tests carry none."`
	Draft       *draftSummary `json:"draft" doc:"The draft's origin and time, or null before the first."`
	CreatedAt   time.Time     `json:"created_at"`
	UpdatedAt   time.Time     `json:"updated_at"`
	TestsTotal  int           `json:"tests_total"`
	HasContract bool          `json:"has_contract"`
}

// SchemaName is the name of projectResponse's schema in the published API document,
// where the Go name would not say what it is.
func (projectResponse) SchemaName() string { return "Project" }

type draftSummary struct {
	Origin    string    `json:"origin" enum:"hand,generation"`
	UpdatedAt time.Time `json:"updated_at"`
}

func projectOut(p store.Project) (*projectResponse, error) {
	o := &projectResponse{ProjectID: p.ID, Name: p.Name, SectionID: p.SectionID, TestCases: []engine.Case{},
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, HasContract: len(p.Contract) > 0}
	if err := unmarshalInto(p.TestCases, &o.TestCases); err != nil {
		return nil, err
	}
	if len(p.Contract) > 0 {
		var c map[string]any
		if err := unmarshalInto(p.Contract, &c); err != nil {
			return nil, err
		}
		o.Contract = c
	}
	o.TestsTotal = len(o.TestCases)
	if p.DraftText != nil && p.DraftUpdatedAt != nil {
		o.Draft = &draftSummary{Origin: p.DraftOrigin, UpdatedAt: *p.DraftUpdatedAt}
	}
	return o, nil
}

type projectOutput struct {
	Body *projectResponse
}

func (h *handler) get(ctx context.Context, in *projectInput) (*projectOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	p, err := h.projects.Project(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	o, err := projectOut(p)
	return &projectOutput{Body: o}, err
}

// tenantFor is the caller's tenant, once the project id is one this
// service could have issued: any other is not found without a query.
func tenantFor(projectID string, ctx context.Context) (string, error) {
	if !projectIDPattern.MatchString(projectID) {
		return "", api.NotFound("Project " + fmt.Sprintf("%q", projectID) + " not found.")
	}
	p, _ := auth.PrincipalFrom(ctx)
	return p.TenantID, nil
}

type listInput struct {
	resource.PageQuery
}

type listOutput struct {
	resource.NextPage
	Body resource.List[*projectResponse]
}

func (h *handler) list(ctx context.Context, in *listInput) (*listOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	rows, next, err := resource.ListPage(in.PageQuery, projectCursor, keyOfProject,
		func(page store.ProjectPage, limit int) ([]store.Project, error) {
			page.Limit = limit
			rows, err := h.projects.Projects(ctx, p.TenantID, page)
			if err != nil {
				return nil, failed(ctx, err, "Projects", "")
			}
			return rows, nil
		})
	if err != nil {
		return nil, err
	}
	out := &listOutput{NextPage: resource.NextPage{NextCursor: next}, Body: make(resource.List[*projectResponse], 0, len(rows))}
	for _, row := range rows {
		o, err := projectOut(row)
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, o)
	}
	return out, nil
}

type statusOutput struct {
	Body authoring.Status
}

func (h *handler) status(ctx context.Context, in *projectInput) (*statusOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	st, err := h.projects.Status(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &statusOutput{Body: st}, nil
}
