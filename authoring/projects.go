package authoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// Projects is the workspace's projects-and-sources job: it creates
// projects, reads them and their generation status, and holds their
// sources (extracting the text of each upload within Config's limits)
// and guidance.
type Projects struct {
	store  projectStore
	tokens *llm.Counter
	cfg    Config
}

// projectStore is what Projects reads and writes of the store.
type projectStore interface {
	CreateProjectWithin(ctx context.Context, p store.Project, sources []store.ProjectSource, maxProjects int) (store.Project, []store.ProjectSource, error)
	ProjectOf(ctx context.Context, tenantID, id string) (store.Project, error)
	ListProjects(ctx context.Context, tenantID string, page store.ProjectPage) ([]store.Project, error)
	LatestGeneration(ctx context.Context, tenantID, projectID string) (store.Generation, error)
	AddGuidanceWithin(ctx context.Context, tenantID, projectID string, g store.Guidance, limits store.GuidanceLimits) (store.Guidance, error)
	ListGuidance(ctx context.Context, tenantID, projectID string) ([]store.Guidance, error)
	ProjectSources(ctx context.Context, tenantID, projectID string, withText bool) ([]store.ProjectSource, error)
	AddSources(ctx context.Context, tenantID, projectID string, sources []store.ProjectSource, limits store.SourceLimits) ([]store.ProjectSource, error)
	SourceRaw(ctx context.Context, tenantID, projectID, sourceID string) (store.ProjectSource, error)
	UpdateSource(ctx context.Context, tenantID, projectID, sourceID, status, supersededBy string) (store.ProjectSource, error)
	DeleteSource(ctx context.Context, tenantID, projectID, sourceID string) error
	SourceCitations(ctx context.Context, sourceID string) ([]string, error)
}

// Limits reports the limits in force, for documentation and responses.
func (s *Projects) Limits() Config { return s.cfg }

// CreateRequest is a new project.
type CreateRequest struct {
	// Name is the team's name for the project.
	Name string
	// SectionID is the section the project authors, e.g. fmla_employee.
	SectionID string
	// SourceText becomes the project's first source (source.txt,
	// text/plain); empty for none.
	SourceText string
	// TestCases are the first tests (at most MaxTests).
	TestCases []engine.Case
}

var sectionPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Create makes a project for the tenant, with source_text as its first
// source, in one transaction.
func (s *Projects) Create(ctx context.Context, tenantID string, req CreateRequest) (store.Project, UploadResult, error) {
	if strings.TrimSpace(req.Name) == "" {
		return store.Project{}, UploadResult{}, invalid("name must not be blank", req.Name, "name")
	}
	if !sectionPattern.MatchString(req.SectionID) || len(req.SectionID) > 100 {
		return store.Project{}, UploadResult{}, invalid("section_id must match ^[a-z][a-z0-9_]*$ (at most 100 characters), e.g. fmla_employee", req.SectionID, "section_id")
	}
	if len(req.TestCases) > MaxTests {
		return store.Project{}, UploadResult{}, invalid(fmt.Sprintf("a project starts with at most %d test cases", MaxTests), len(req.TestCases), "test_cases")
	}
	if bad := checkCases(req.TestCases, "test_cases"); bad != nil {
		return store.Project{}, UploadResult{}, bad
	}
	cases, err := json.Marshal(req.TestCases)
	if err != nil {
		return store.Project{}, UploadResult{}, fmt.Errorf("encode tests: %w", err)
	}
	var ready []prepared
	if strings.TrimSpace(req.SourceText) != "" {
		if ready, err = s.prepareAll(ctx, tenantID, []Upload{{Filename: "source.txt", MediaType: "text/plain", Content: []byte(req.SourceText)}}, "source_text"); err != nil {
			return store.Project{}, UploadResult{}, err
		}
	}
	rows := make([]store.ProjectSource, len(ready))
	for i, p := range ready {
		rows[i] = p.row
	}
	p, added, err := s.store.CreateProjectWithin(ctx, store.Project{TenantID: tenantID, Name: req.Name, SectionID: req.SectionID, TestCases: cases}, rows, s.cfg.MaxProjects)
	if errors.Is(err, store.ErrProjectLimit) {
		return store.Project{}, UploadResult{}, &RefusedError{Kind: Unprocessable, Reason: ReasonProjectLimit, Message: fmt.Sprintf(
			"%s A tenant holds at most %d projects (limit max_projects): reuse a project (its sources, tests and draft can all be replaced), or ask for the limit to be raised.",
			storeLimitMessage(err, store.ErrProjectLimit), s.cfg.MaxProjects)}
	}
	if err != nil {
		return store.Project{}, UploadResult{}, err
	}
	return p, s.uploadResult(nil, ready, added), nil
}

// Project reads the tenant's project.
func (s *Projects) Project(ctx context.Context, tenantID, projectID string) (store.Project, error) {
	return s.store.ProjectOf(ctx, tenantID, projectID)
}

// Projects lists the tenant's projects in creation order, a page at a
// time.
func (s *Projects) Projects(ctx context.Context, tenantID string, page store.ProjectPage) ([]store.Project, error) {
	return s.store.ListProjects(ctx, tenantID, page)
}

// GenerationContractVersion is the job recovery envelope's version
// (docs/authoring.md#6a-generate-the-draft-with-your-model): clients use the cancellation workflow only when they see
// it.
const GenerationContractVersion = 1

// Status is the project's generation job status and recovery envelope
// (docs/authoring.md#6a-generate-the-draft-with-your-model).
type Status struct {
	// ProjectID names the project.
	ProjectID string `json:"project_id"`
	// GenerationContractVersion is 1: the cancellation workflow below may
	// be used.
	GenerationContractVersion int `json:"generation_contract_version"`
	// JobID names the latest generation; null when none ever ran.
	JobID *string `json:"job_id"`
	// State is idle (none ever ran), queued, running, success or failed.
	State string `json:"state" enum:"idle,queued,running,success,failed" enumName:"GenerationState"`
	// Outcome is, once ended, accepted (every test passes), failing_tests
	// (a draft was kept but tests fail: judge by this, not by success),
	// failed or cancelled; null before.
	Outcome *string `json:"outcome" enum:"accepted,failing_tests,failed,cancelled" enumName:"GenerationOutcome"`
	// Mode and Model are the latest generation's.
	Mode  *string `json:"mode"`
	Model *string `json:"model"`
	// Progress is the latest reported stage, round, tests passing so far
	// and tokens used; null when idle.
	Progress *Progress `json:"progress"`
	// PromptTokens is the exact count of the first prompt; 0 when idle.
	PromptTokens int `json:"prompt_tokens"`
	// TelemetryAvailability: none (idle), full (progress reported by the
	// worker as it ran) or partial (it ended before reporting any, e.g.
	// swept because its process was gone).
	TelemetryAvailability string `json:"telemetry_availability" enum:"none,partial,full" enumName:"TelemetryAvailability"`
	// WorkerLifecycle: none (no job), queued (waiting for its worker),
	// working, stopped (the worker returned) or stopping (ended by a
	// cancel while the worker still runs).
	WorkerLifecycle string `json:"worker_lifecycle" enum:"none,queued,working,stopping,stopped" enumName:"WorkerLifecycle"`
	// RetryReadiness: ready (a generation may start), blocked (one is
	// active) or cleanup_pending (a cancelled one's worker has not
	// stopped yet; the project is free, but the old worker may still
	// write progress briefly).
	RetryReadiness string `json:"retry_readiness" enum:"ready,blocked,cleanup_pending" enumName:"RetryReadiness"`
	// ErrorDetail is set when the generation failed.
	ErrorDetail *ErrorDetail `json:"error_detail"`
	// Result is the finished generation's result; null before.
	Result json.RawMessage `json:"result"`
	// Draft describes the project's draft, or is null before the first.
	Draft *DraftState `json:"draft"`
	// CreatedAt, StartedAt and FinishedAt date the latest generation.
	CreatedAt  *time.Time `json:"created_at"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// SchemaName is the name of Status's schema in the published API document,
// where the Go name would not say what it is.
func (Status) SchemaName() string { return "GenerationStatus" }

// ErrorDetail is why a generation failed, sanitised: no provider key and
// no unbounded provider text.
type ErrorDetail struct {
	// ReasonCode names the failure.
	ReasonCode string `json:"reason_code"`
	// Retryable is true when the same request may succeed later.
	Retryable bool `json:"retryable"`
	// Message says what happened.
	Message string `json:"message"`
}

// DraftState is what the status says of the draft.
type DraftState struct {
	// Origin is hand or generation.
	Origin string `json:"origin" enum:"hand,generation"`
	// UpdatedAt is when it last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// Status reports the project's latest generation as the recovery
// envelope; with none, the idle state in the same shape.
func (s *Projects) Status(ctx context.Context, tenantID, projectID string) (Status, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return Status{}, err
	}
	st := Status{ProjectID: p.ID, GenerationContractVersion: GenerationContractVersion, State: "idle",
		TelemetryAvailability: "none", WorkerLifecycle: "none", RetryReadiness: "ready"}
	if p.DraftText != nil && p.DraftUpdatedAt != nil {
		st.Draft = &DraftState{Origin: p.DraftOrigin, UpdatedAt: *p.DraftUpdatedAt}
	}
	g, err := s.store.LatestGeneration(ctx, tenantID, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return st, nil
	}
	if err != nil {
		return Status{}, err
	}
	return GenerationStatus(st, g), nil
}

// GenerationStatus fills the envelope st from generation g.
func GenerationStatus(st Status, g store.Generation) Status {
	st.JobID, st.State, st.Mode, st.Model = &g.ID, g.State, &g.Mode, &g.Model
	st.PromptTokens, st.CreatedAt, st.StartedAt, st.FinishedAt = g.PromptTokens, &g.CreatedAt, g.StartedAt, g.FinishedAt
	if g.Outcome != "" {
		st.Outcome = &g.Outcome
	}
	st.Progress = &Progress{Stage: g.Stage, Round: g.Round, TestsPassing: g.TestsPassing, TestsTotal: g.TestsTotal, TokensUsed: g.TokensUsed}
	st.TelemetryAvailability = "full"
	if !g.Active() && g.Round == 0 {
		st.TelemetryAvailability = "partial"
	}
	switch {
	case g.State == store.GenerationQueued:
		st.WorkerLifecycle, st.RetryReadiness = "queued", "blocked"
	case g.State == store.GenerationRunning:
		st.WorkerLifecycle, st.RetryReadiness = "working", "blocked"
	case g.StartedAt != nil && g.ReleasedAt == nil:
		st.WorkerLifecycle, st.RetryReadiness = "stopping", "cleanup_pending"
	default:
		st.WorkerLifecycle = "stopped"
	}
	if g.State == store.GenerationFailed {
		st.ErrorDetail = &ErrorDetail{ReasonCode: g.ErrorReason, Retryable: g.ErrorRetryable, Message: g.ErrorMessage}
	}
	if len(g.Result) > 0 {
		st.Result = g.Result
	}
	return st
}

// Guidance process types and adherence.
const (
	ProcessFieldExtraction = "field_extraction"
	ProcessRuleGeneration  = "rule_generation"
	AdherenceExact         = "exact"
)

// AddGuidance appends guidance to a project without generating anything,
// within Config's MaxGuidance notes and MaxGuidanceBytes of text per
// project (413 project_guidance_limit), counted by the store under the
// project's lock.
func (s *Projects) AddGuidance(ctx context.Context, tenantID, projectID string, g store.Guidance) (store.Guidance, error) {
	if strings.TrimSpace(g.Text) == "" {
		return store.Guidance{}, invalid("guidance_text must not be blank", g.Text, "guidance_text")
	}
	limits := store.GuidanceLimits{MaxCount: s.cfg.MaxGuidance, MaxBytes: int64(s.cfg.MaxGuidanceBytes)}
	refuse := func(first string) error {
		return &RefusedError{Kind: TooLarge, Reason: ReasonGuidanceLimit, Message: fmt.Sprintf(
			"%s A project holds at most %d guidance notes and %d bytes of guidance text (limits max_guidance and max_guidance_bytes): guidance goes whole into every generation prompt, so keep it short and to the point.",
			first, s.cfg.MaxGuidance, s.cfg.MaxGuidanceBytes)}
	}
	if len(g.Text) > s.cfg.MaxGuidanceBytes {
		// Refused before the store is asked: it could never fit.
		return store.Guidance{}, refuse(fmt.Sprintf("The note is %d bytes.", len(g.Text)))
	}
	out, err := s.store.AddGuidanceWithin(ctx, tenantID, projectID, g, limits)
	if errors.Is(err, store.ErrGuidanceLimit) {
		return store.Guidance{}, refuse(storeLimitMessage(err, store.ErrGuidanceLimit))
	}
	if nf := (*store.QuestionNotFoundError)(nil); errors.As(err, &nf) {
		msg := fmt.Sprintf("the draft has no source question %q", nf.ID)
		switch {
		case len(nf.Questions) == 0:
			msg += "; it has none (GET /projects/{project_id}/draft lists them)"
		default:
			if near := engine.Nearest(nf.ID, nf.Questions); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			msg += "; its questions are " + strings.Join(nf.Questions, ", ")
		}
		return store.Guidance{}, invalid(msg, nf.ID, "settles")
	}
	return out, err
}

// Guidance lists a project's guidance in the order it was added.
func (s *Projects) Guidance(ctx context.Context, tenantID, projectID string) ([]store.Guidance, error) {
	if _, err := s.store.ProjectOf(ctx, tenantID, projectID); err != nil {
		return nil, err
	}
	return s.store.ListGuidance(ctx, tenantID, projectID)
}
