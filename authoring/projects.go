package authoring

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

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
func (s *Service) Create(ctx context.Context, tenantID string, req CreateRequest) (store.Project, UploadResult, error) {
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
		if ready, err = s.prepareAll(ctx, []Upload{{Filename: "source.txt", MediaType: "text/plain", Content: []byte(req.SourceText)}}, "source_text"); err != nil {
			return store.Project{}, UploadResult{}, err
		}
	}
	rows := make([]store.ProjectSource, len(ready))
	for i, p := range ready {
		rows[i] = p.row
	}
	p, added, err := s.store.CreateProject(ctx, store.Project{TenantID: tenantID, Name: req.Name, SectionID: req.SectionID, TestCases: cases}, rows)
	if err != nil {
		return store.Project{}, UploadResult{}, err
	}
	return p, s.uploadResult(nil, ready, added), nil
}

// Project reads the tenant's project.
func (s *Service) Project(ctx context.Context, tenantID, projectID string) (store.Project, error) {
	return s.store.ProjectOf(ctx, tenantID, projectID)
}

// Projects lists the tenant's projects in creation order, a page at a
// time.
func (s *Service) Projects(ctx context.Context, tenantID string, page store.ProjectPage) ([]store.Project, error) {
	return s.store.ListProjects(ctx, tenantID, page)
}

// GenerationContractVersion is the job recovery envelope's version (spec,
// Versioning 8): clients use the cancellation workflow only when they see
// it.
const GenerationContractVersion = 1

// Status is the project's generation job status and recovery envelope.
type Status struct {
	// ProjectID names the project.
	ProjectID string `json:"project_id"`
	// GenerationContractVersion is 1.
	GenerationContractVersion int `json:"generation_contract_version"`
	// State is idle (no generation has run), queued, running, success or
	// failed.
	State string `json:"state" enum:"idle,queued,running,success,failed"`
	// JobID names the latest generation job; null when idle.
	JobID *string `json:"job_id"`
	// Stage is the pipeline stage the job is in or failed at; null when
	// idle.
	Stage *string `json:"stage"`
	// TelemetryAvailability says how much progress the job reports: none
	// when idle.
	TelemetryAvailability string `json:"telemetry_availability" enum:"none,partial,full"`
	// WorkerLifecycle is where the worker holding the job is: none when no
	// job exists.
	WorkerLifecycle string `json:"worker_lifecycle" enum:"none,starting,working,stopped"`
	// RetryReadiness says whether a generation may start now: ready,
	// blocked (one is in flight) or cleanup_pending.
	RetryReadiness string `json:"retry_readiness" enum:"ready,blocked,cleanup_pending"`
	// ErrorDetail is set when the job failed.
	ErrorDetail *ErrorDetail `json:"error_detail"`
	// Draft describes the project's draft, or is null before the first.
	Draft *DraftState `json:"draft"`
}

// ErrorDetail is why a job failed, sanitised.
type ErrorDetail struct {
	// ReasonCode names the failure.
	ReasonCode string `json:"reason_code"`
	// Retryable is true when the same request may succeed later.
	Retryable bool `json:"retryable"`
}

// DraftState is what the status says of the draft.
type DraftState struct {
	// Origin is hand or generation.
	Origin string `json:"origin" enum:"hand,generation"`
	// UpdatedAt is when it last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// Status reports the project's generation status. With no generation
// yet (generation is a later capability), the job is idle: the same
// envelope, ready to start one.
func (s *Service) Status(ctx context.Context, tenantID, projectID string) (Status, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return Status{}, err
	}
	st := Status{ProjectID: p.ID, GenerationContractVersion: GenerationContractVersion, State: "idle",
		TelemetryAvailability: "none", WorkerLifecycle: "none", RetryReadiness: "ready"}
	if p.DraftText != nil && p.DraftUpdatedAt != nil {
		st.Draft = &DraftState{Origin: p.DraftOrigin, UpdatedAt: *p.DraftUpdatedAt}
	}
	return st, nil
}

// Guidance process types and adherence.
const (
	ProcessFieldExtraction = "field_extraction"
	ProcessRuleGeneration  = "rule_generation"
	AdherenceExact         = "exact"
)

// AddGuidance appends guidance to a project without generating anything.
func (s *Service) AddGuidance(ctx context.Context, tenantID, projectID string, g store.Guidance) (store.Guidance, error) {
	if strings.TrimSpace(g.Text) == "" {
		return store.Guidance{}, invalid("guidance_text must not be blank", g.Text, "guidance_text")
	}
	return s.store.AddGuidance(ctx, tenantID, projectID, g)
}

// Guidance lists a project's guidance in the order it was added.
func (s *Service) Guidance(ctx context.Context, tenantID, projectID string) ([]store.Guidance, error) {
	if _, err := s.store.ProjectOf(ctx, tenantID, projectID); err != nil {
		return nil, err
	}
	return s.store.ListGuidance(ctx, tenantID, projectID)
}
