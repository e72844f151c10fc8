package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Project is an authoring project: one tenant's workspace for one section.
type Project struct {
	// ID is "prj_" and 16 URL-safe characters.
	ID string
	// TenantID owns the project; other tenants never see it.
	TenantID string
	// Name is the team's name for it.
	Name string
	// SectionID is the section the project authors.
	SectionID string
	// TestCases is the JSON array of acceptance tests.
	TestCases json.RawMessage
	// Contract is the acceptance contract's JSON object (contract_version
	// and, when declared, expected_review_bindings), or nil when the tests
	// carry no contract.
	Contract json.RawMessage
	// DraftText is the draft ruleset's text; nil before the first draft.
	DraftText *string
	// DraftOrigin is "hand" or "generation"; empty before the first draft.
	DraftOrigin string
	// DraftInputs records what a generated draft was made from; nil for a
	// hand-written draft.
	DraftInputs json.RawMessage
	// SourceQuestions is the JSON array of the draft's questions about its
	// sources.
	SourceQuestions json.RawMessage
	// DraftUpdatedAt is when the draft last changed; nil before the first.
	DraftUpdatedAt *time.Time
	// CreatedAt and UpdatedAt are the row's times.
	CreatedAt, UpdatedAt time.Time
}

// ProjectSource is an uploaded source of a project. Content and Text are
// only filled in by the reads that say so.
type ProjectSource struct {
	// ID is "src_" and 16 URL-safe characters.
	ID string
	// ProjectID is the project it belongs to.
	ProjectID string
	// Position is the upload order within the project, from 0.
	Position int
	// Filename and MediaType are as uploaded (media type normalised).
	Filename, MediaType string
	// Title, URL and Licence describe the source for its references; URL
	// is where the text is published, empty for a private file.
	Title, URL, Licence string
	// Size is the length of the original bytes.
	Size int
	// ContentDigest is "sha256:" + hex SHA-256 of the original bytes.
	ContentDigest string
	// Content is the original bytes (SourceRaw only).
	Content []byte
	// Text is the extracted text (ProjectSources with text only).
	Text string
	// Pages are the byte offsets where each PDF page starts in Text; nil
	// for other media types.
	Pages []int
	// Signature is the text's MinHash signature (near-duplicate checks).
	Signature []byte
	// EstimatedTokens is the token count of Text.
	EstimatedTokens int
	// Status is "active", "superseded" or "reference_only".
	Status string
	// SupersededBy names the source that replaces a superseded one.
	SupersededBy string
	// CreatedAt and UpdatedAt are the row's times.
	CreatedAt, UpdatedAt time.Time
}

// Guidance is one guidance note of a project.
type Guidance struct {
	// Position is the order it was added in, from 0.
	Position int
	// Text is the guidance itself.
	Text string
	// ProcessType is "field_extraction" or "rule_generation".
	ProcessType string
	// Adherence is "exact" or empty.
	Adherence string
	// DomainScope narrows the guidance to a domain; empty for all.
	DomainScope string
	// Settles, when not empty, is the id of a source question of the
	// draft this note settles: adding the note marks it resolved, in the
	// same transaction. It is an instruction, not stored with the note.
	Settles string
	// CreatedAt is when it was added.
	CreatedAt time.Time
}

// Errors of the project writes, for callers to branch on.
var (
	// ErrSourceLimit is returned by AddSources when the upload would take
	// the project past SourceLimits.
	ErrSourceLimit = errors.New("project source limit reached")
	// ErrSourceCited is returned by DeleteSource for a source a published
	// ruleset's provenance records.
	ErrSourceCited = errors.New("source is cited by a published ruleset")
	// ErrQuestionNotFound is returned by AddGuidanceWithin when the note
	// settles a source question the draft does not have; nothing is added.
	ErrQuestionNotFound = errors.New("the draft has no such source question")
	// ErrProjectLimit is returned by CreateProject when the tenant already
	// holds its most projects.
	ErrProjectLimit = errors.New("tenant project limit reached")
	// ErrGuidanceLimit is returned by AddGuidance when the note would take
	// the project past GuidanceLimits.
	ErrGuidanceLimit = errors.New("project guidance limit reached")
)

// SourceLimits bound a project's sources.
type SourceLimits struct {
	// MaxCount is the most sources a project may hold.
	MaxCount int
	// MaxBytes is the most original bytes, summed, a project may hold.
	MaxBytes int64
	// MaxText is the most extracted text, in bytes summed, a project may
	// hold; 0 for no limit.
	MaxText int64
}

// NewProjectID draws a project id: "prj_" and 16 URL-safe characters.
func NewProjectID() string { return "prj_" + randomToken() }

// NewSourceID draws a source id: "src_" and 16 URL-safe characters.
func NewSourceID() string { return "src_" + randomToken() }

// randomToken is 16 URL-safe characters of 96 random bits.
func randomToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b[:])
}

const projectColumns = `p.id, p.tenant_id, p.name, p.section_id, p.test_cases, p.contract, p.draft_text,
coalesce(p.draft_origin, ''), p.draft_inputs, p.source_questions, p.draft_updated_at, p.created_at, p.updated_at`

func scanProject(row pgx.Row) (Project, error) {
	var p Project
	err := row.Scan(&p.ID, &p.TenantID, &p.Name, &p.SectionID, &p.TestCases, &p.Contract, &p.DraftText,
		&p.DraftOrigin, &p.DraftInputs, &p.SourceQuestions, &p.DraftUpdatedAt, &p.CreatedAt, &p.UpdatedAt)
	return p, err
}

const (
	// A tenant's row lock serialises the writes a per-tenant limit counts
	// (projects, active generations), so concurrent requests cannot pass
	// it together.
	sqlLockTenant = `SELECT id FROM tenants WHERE id = $1 FOR UPDATE`

	sqlCountProjects = `SELECT count(*) FROM projects WHERE tenant_id = $1`

	sqlInsertProject = `
INSERT INTO projects AS p (id, tenant_id, name, section_id, test_cases, contract)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING ` + projectColumns

	// A project is found by id and tenant in one indexed lookup, so a
	// missing project and another tenant's take the same path.
	sqlProject          = `SELECT ` + projectColumns + ` FROM projects p WHERE p.id = $1 AND p.tenant_id = $2`
	sqlProjectForUpdate = sqlProject + ` FOR UPDATE`

	sqlListProjects = `
SELECT ` + projectColumns + ` FROM projects p
WHERE p.tenant_id = $1 AND (p.created_at, p.id) > ($2, $3)
ORDER BY p.created_at, p.id LIMIT $4`

	sqlUpdateProject = `
UPDATE projects p SET name = $3, test_cases = $4, contract = $5, draft_text = $6, draft_origin = nullif($7, ''),
    draft_inputs = $8, source_questions = $9, draft_updated_at = $10, updated_at = now()
WHERE p.id = $1 AND p.tenant_id = $2
RETURNING ` + projectColumns
)

// CreateProject stores a new project and its first sources in one
// transaction (the tenant is created when new). p.ID is drawn when empty.
// It counts no limit: CreateProjectWithin does.
func (s *Store) CreateProject(ctx context.Context, p Project, sources []ProjectSource) (Project, []ProjectSource, error) {
	return s.CreateProjectWithin(ctx, p, sources, 0)
}

// CreateProjectWithin is CreateProject within a limit: when maxProjects is
// positive and the tenant already holds that many projects, nothing is
// stored and the error wraps ErrProjectLimit. The count is taken under the
// tenant's row lock, in the transaction that inserts, so concurrent
// creations cannot pass it together.
func (s *Store) CreateProjectWithin(ctx context.Context, p Project, sources []ProjectSource, maxProjects int) (Project, []ProjectSource, error) {
	if p.ID == "" {
		p.ID = NewProjectID()
	}
	var out Project
	var added []ProjectSource
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlEnsureTenant, p.TenantID); err != nil {
			return fmt.Errorf("ensure tenant: %w", err)
		}
		if maxProjects > 0 {
			if err := lockTenant(ctx, tx, p.TenantID); err != nil {
				return err
			}
			var count int
			if err := tx.QueryRow(ctx, sqlCountProjects, p.TenantID).Scan(&count); err != nil {
				return fmt.Errorf("count projects: %w", err)
			}
			if count >= maxProjects {
				return fmt.Errorf("%w: the tenant holds %d projects and at most %d are allowed", ErrProjectLimit, count, maxProjects)
			}
		}
		var err error
		out, err = scanProject(tx.QueryRow(ctx, sqlInsertProject, p.ID, p.TenantID, p.Name, p.SectionID,
			arrayJSON(p.TestCases), nullJSON(p.Contract)))
		if err != nil {
			return fmt.Errorf("insert project: %w", err)
		}
		added, err = insertSources(ctx, tx, out.ID, 0, sources)
		return err
	})
	if err != nil {
		return Project{}, nil, fmt.Errorf("create project for tenant %q: %w", p.TenantID, err)
	}
	return out, added, nil
}

// lockTenant takes the tenant's row lock for the rest of tx.
func lockTenant(ctx context.Context, tx pgx.Tx, tenantID string) error {
	var id string
	if err := tx.QueryRow(ctx, sqlLockTenant, tenantID).Scan(&id); errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	} else if err != nil {
		return fmt.Errorf("lock tenant: %w", err)
	}
	return nil
}

// ProjectOf reads the tenant's project id; ErrNotFound when it does not
// exist or belongs to another tenant.
func (s *Store) ProjectOf(ctx context.Context, tenantID, id string) (Project, error) {
	p, err := scanProject(s.pool.QueryRow(ctx, sqlProject, id, tenantID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Project{}, ErrNotFound
	}
	if err != nil {
		return Project{}, fmt.Errorf("read project %q: %w", id, err)
	}
	return p, nil
}

// ProjectPage is where a project listing starts: after the project
// created at AfterCreated with id AfterID (zero values: from the start).
type ProjectPage struct {
	AfterCreated time.Time
	AfterID      string
	Limit        int
}

// ListProjects lists the tenant's projects in creation order.
func (s *Store) ListProjects(ctx context.Context, tenantID string, page ProjectPage) ([]Project, error) {
	rows, err := s.pool.Query(ctx, sqlListProjects, tenantID, page.AfterCreated, page.AfterID, page.Limit)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Project, error) { return scanProject(r) })
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return out, nil
}

// UpdateProject changes the tenant's project id under a row lock: fn gets
// the current row and edits it in place (name, tests, contract, draft,
// questions), returning an error to change nothing. The edited row is
// written and returned. ErrNotFound for a project the tenant does not own.
func (s *Store) UpdateProject(ctx context.Context, tenantID, id string, fn func(*Project) error) (Project, error) {
	var out Project
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := scanProject(tx.QueryRow(ctx, sqlProjectForUpdate, id, tenantID))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("lock project: %w", err)
		}
		if err := fn(&p); err != nil {
			return err
		}
		out, err = scanProject(tx.QueryRow(ctx, sqlUpdateProject, id, tenantID, p.Name, arrayJSON(p.TestCases),
			nullJSON(p.Contract), p.DraftText, p.DraftOrigin, nullJSON(p.DraftInputs), arrayJSON(p.SourceQuestions),
			p.DraftUpdatedAt))
		if err != nil {
			return fmt.Errorf("write project: %w", err)
		}
		return nil
	})
	if err != nil {
		return Project{}, fmt.Errorf("update project %q: %w", id, err)
	}
	return out, nil
}
