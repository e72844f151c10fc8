package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

const (
	sourceColumns = `s.id, s.project_id, s.position, s.filename, s.media_type, s.title, s.url, s.licence,
length(s.content), s.content_digest, s.estimated_tokens, s.status, coalesce(s.superseded_by, ''), s.created_at, s.updated_at`

	sqlInsertSource = `
INSERT INTO project_sources AS s (id, project_id, position, filename, media_type, title, url, licence, content,
    content_digest, extracted_text, pages, signature, estimated_tokens)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING ` + sourceColumns

	sqlSourceTotals = `
SELECT count(*), coalesce(sum(length(content)), 0), coalesce(sum(octet_length(extracted_text)), 0),
    coalesce(max(position) + 1, 0)
FROM project_sources WHERE project_id = $1`

	sqlProjectSources = `
SELECT ` + sourceColumns + `, CASE WHEN $3 THEN s.extracted_text ELSE '' END, CASE WHEN $3 THEN s.pages END,
    s.signature
FROM project_sources s JOIN projects p ON p.id = s.project_id
WHERE s.project_id = $1 AND p.tenant_id = $2 ORDER BY s.position`

	sqlSourceRaw = `
SELECT ` + sourceColumns + `, s.content FROM project_sources s JOIN projects p ON p.id = s.project_id
WHERE s.id = $1 AND s.project_id = $2 AND p.tenant_id = $3`

	sqlUpdateSource = `
UPDATE project_sources s SET status = $4, superseded_by = nullif($5, ''), updated_at = now()
FROM projects p
WHERE s.id = $1 AND s.project_id = $2 AND p.id = s.project_id AND p.tenant_id = $3
RETURNING ` + sourceColumns

	sqlSourceInProject = `SELECT true FROM project_sources WHERE id = $1 AND project_id = $2`

	sqlSourceCitations = `SELECT DISTINCT ruleset_id FROM ruleset_provenance WHERE source_id = $1 ORDER BY ruleset_id`

	sqlDeleteSource = `
DELETE FROM project_sources s USING projects p
WHERE s.id = $1 AND s.project_id = $2 AND p.id = s.project_id AND p.tenant_id = $3`
)

func scanSource(row pgx.Row, extra ...any) (ProjectSource, error) {
	var s ProjectSource
	dest := append([]any{&s.ID, &s.ProjectID, &s.Position, &s.Filename, &s.MediaType, &s.Title, &s.URL, &s.Licence,
		&s.Size, &s.ContentDigest, &s.EstimatedTokens, &s.Status, &s.SupersededBy, &s.CreatedAt, &s.UpdatedAt}, extra...)
	err := row.Scan(dest...)
	return s, err
}

// insertSources adds sources to a project from position next on.
func insertSources(ctx context.Context, tx pgx.Tx, projectID string, next int, sources []ProjectSource) ([]ProjectSource, error) {
	out := make([]ProjectSource, 0, len(sources))
	for i, src := range sources {
		if src.ID == "" {
			src.ID = NewSourceID()
		}
		var pages any
		if src.Pages != nil {
			b, err := json.Marshal(src.Pages)
			if err != nil {
				return nil, fmt.Errorf("encode pages: %w", err)
			}
			pages = string(b)
		}
		added, err := scanSource(tx.QueryRow(ctx, sqlInsertSource, src.ID, projectID, next+i, src.Filename, src.MediaType,
			src.Title, src.URL, src.Licence, src.Content, src.ContentDigest, src.Text, pages, src.Signature,
			src.EstimatedTokens))
		if err != nil {
			return nil, fmt.Errorf("insert source %q: %w", src.Filename, err)
		}
		out = append(out, added)
	}
	return out, nil
}

// AddSources stores sources in the tenant's project, after its existing
// ones, in one transaction that holds the project's row lock, so two
// uploads cannot together pass the limits: an upload that would take the
// project past limits stores nothing and is ErrSourceLimit. ErrNotFound
// for a project the tenant does not own.
func (s *Store) AddSources(ctx context.Context, tenantID, projectID string, sources []ProjectSource, limits SourceLimits) ([]ProjectSource, error) {
	var out []ProjectSource
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := scanProject(tx.QueryRow(ctx, sqlProjectForUpdate, projectID, tenantID)); errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("lock project: %w", err)
		}
		var count, next int
		var size, text int64
		if err := tx.QueryRow(ctx, sqlSourceTotals, projectID).Scan(&count, &size, &text, &next); err != nil {
			return fmt.Errorf("count sources: %w", err)
		}
		for _, src := range sources {
			size += int64(len(src.Content))
			text += int64(len(src.Text))
		}
		if count+len(sources) > limits.MaxCount {
			return fmt.Errorf("%w: the project holds %d sources and at most %d are allowed", ErrSourceLimit, count, limits.MaxCount)
		}
		if size > limits.MaxBytes {
			return fmt.Errorf("%w: the project's sources would total %d bytes and at most %d are allowed", ErrSourceLimit, size, limits.MaxBytes)
		}
		if limits.MaxText > 0 && text > limits.MaxText {
			return fmt.Errorf("%w: the project's sources would hold %d bytes of extracted text and at most %d are allowed", ErrSourceLimit, text, limits.MaxText)
		}
		var err error
		out, err = insertSources(ctx, tx, projectID, next, sources)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("add sources to project %q: %w", projectID, err)
	}
	return out, nil
}

// ProjectSources lists the sources of the tenant's project in upload
// order, with their signatures and without their bytes; withText adds the
// extracted text and pages. A project the tenant does not own lists nothing: check the
// project first (ProjectOf) to tell that from an empty one.
func (s *Store) ProjectSources(ctx context.Context, tenantID, projectID string, withText bool) ([]ProjectSource, error) {
	rows, err := s.pool.Query(ctx, sqlProjectSources, projectID, tenantID, withText)
	if err != nil {
		return nil, fmt.Errorf("list sources of project %q: %w", projectID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ProjectSource, error) {
		var pages []byte
		var text string
		var sig []byte
		src, err := scanSource(r, &text, &pages, &sig)
		src.Text, src.Signature = text, sig
		if err == nil && len(pages) > 0 {
			err = json.Unmarshal(pages, &src.Pages)
		}
		return src, err
	})
	if err != nil {
		return nil, fmt.Errorf("list sources of project %q: %w", projectID, err)
	}
	return out, nil
}

// SourceRaw reads one source of the tenant's project with its original
// bytes; ErrNotFound when there is no such source for that tenant.
func (s *Store) SourceRaw(ctx context.Context, tenantID, projectID, sourceID string) (ProjectSource, error) {
	var content []byte
	src, err := scanSource(s.pool.QueryRow(ctx, sqlSourceRaw, sourceID, projectID, tenantID), &content)
	if errors.Is(err, pgx.ErrNoRows) {
		return ProjectSource{}, ErrNotFound
	}
	if err != nil {
		return ProjectSource{}, fmt.Errorf("read source %q: %w", sourceID, err)
	}
	src.Content = content
	return src, nil
}

// UpdateSource sets a source's status and the source superseding it
// (which must belong to the same project; ErrNotFound otherwise, as for a
// source the tenant does not own).
func (s *Store) UpdateSource(ctx context.Context, tenantID, projectID, sourceID, status, supersededBy string) (ProjectSource, error) {
	var out ProjectSource
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if supersededBy != "" {
			var ok bool
			if err := tx.QueryRow(ctx, sqlSourceInProject, supersededBy, projectID).Scan(&ok); errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("superseded_by %q: %w", supersededBy, ErrNotFound)
			} else if err != nil {
				return fmt.Errorf("read superseding source: %w", err)
			}
		}
		var err error
		out, err = scanSource(tx.QueryRow(ctx, sqlUpdateSource, sourceID, projectID, tenantID, status, supersededBy))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return ProjectSource{}, fmt.Errorf("update source %q: %w", sourceID, err)
	}
	return out, nil
}

// SourceCitations lists the published rulesets whose provenance records
// the source.
func (s *Store) SourceCitations(ctx context.Context, sourceID string) ([]string, error) {
	rows, err := s.pool.Query(ctx, sqlSourceCitations, sourceID)
	if err != nil {
		return nil, fmt.Errorf("read citations of source %q: %w", sourceID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read citations of source %q: %w", sourceID, err)
	}
	return ids, nil
}

// DeleteSource removes a source of the tenant's project: ErrNotFound when
// there is none, ErrSourceCited when a published ruleset's provenance
// records it (the foreign key refuses the delete, whatever races it).
func (s *Store) DeleteSource(ctx context.Context, tenantID, projectID, sourceID string) error {
	tag, err := s.pool.Exec(ctx, sqlDeleteSource, sourceID, projectID, tenantID)
	switch {
	case isForeignKeyViolation(err):
		return fmt.Errorf("delete source %q: %w", sourceID, ErrSourceCited)
	case err != nil:
		return fmt.Errorf("delete source %q: %w", sourceID, err)
	case tag.RowsAffected() == 0:
		return ErrNotFound
	}
	return nil
}

const (
	sqlInsertGuidance = `
INSERT INTO project_guidance (project_id, position, guidance_text, process_type, adherence, domain_scope)
SELECT $1, coalesce(max(g.position) + 1, 0), $3, $4, nullif($5, ''), $6
FROM projects p LEFT JOIN project_guidance g ON g.project_id = p.id
WHERE p.id = $1 AND p.tenant_id = $2
GROUP BY p.id
RETURNING position, guidance_text, process_type, coalesce(adherence, ''), domain_scope, created_at`

	sqlGuidanceTotals = `
SELECT count(*), coalesce(sum(octet_length(guidance_text)), 0) FROM project_guidance WHERE project_id = $1`

	sqlListGuidance = `
SELECT g.position, g.guidance_text, g.process_type, coalesce(g.adherence, ''), g.domain_scope, g.created_at
FROM project_guidance g JOIN projects p ON p.id = g.project_id
WHERE g.project_id = $1 AND p.tenant_id = $2 ORDER BY g.position`
)

func scanGuidance(row pgx.Row) (Guidance, error) {
	var g Guidance
	err := row.Scan(&g.Position, &g.Text, &g.ProcessType, &g.Adherence, &g.DomainScope, &g.CreatedAt)
	return g, err
}

// GuidanceLimits bound a project's guidance; a zero member is no limit.
type GuidanceLimits struct {
	// MaxCount is the most notes a project may hold.
	MaxCount int
	// MaxBytes is the most guidance text, in bytes summed, a project may
	// hold.
	MaxBytes int64
}

// AddGuidance appends a guidance note to the tenant's project; ErrNotFound
// for a project the tenant does not own. Concurrent adds to one project
// serialise on the project's row lock. It counts no limit:
// AddGuidanceWithin does.
func (s *Store) AddGuidance(ctx context.Context, tenantID, projectID string, g Guidance) (Guidance, error) {
	return s.AddGuidanceWithin(ctx, tenantID, projectID, g, GuidanceLimits{})
}

// AddGuidanceWithin is AddGuidance within limits, counted under the
// project's row lock in the transaction that inserts: a note that would
// take the project past them is not stored, and the error wraps
// ErrGuidanceLimit.
func (s *Store) AddGuidanceWithin(ctx context.Context, tenantID, projectID string, g Guidance, limits GuidanceLimits) (Guidance, error) {
	var out Guidance
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		p, err := scanProject(tx.QueryRow(ctx, sqlProjectForUpdate, projectID, tenantID))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("lock project: %w", err)
		}
		if g.Settles != "" {
			settled, err := settleQuestion(p.SourceQuestions, g.Settles)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, sqlSetSourceQuestions, projectID, arrayJSON(settled)); err != nil {
				return fmt.Errorf("settle source question %q: %w", g.Settles, err)
			}
		}
		var count int
		var size int64
		if err := tx.QueryRow(ctx, sqlGuidanceTotals, projectID).Scan(&count, &size); err != nil {
			return fmt.Errorf("count guidance: %w", err)
		}
		if limits.MaxCount > 0 && count >= limits.MaxCount {
			return fmt.Errorf("%w: the project holds %d guidance notes and at most %d are allowed", ErrGuidanceLimit, count, limits.MaxCount)
		}
		if size += int64(len(g.Text)); limits.MaxBytes > 0 && size > limits.MaxBytes {
			return fmt.Errorf("%w: the project's guidance would total %d bytes and at most %d are allowed", ErrGuidanceLimit, size, limits.MaxBytes)
		}
		out, err = scanGuidance(tx.QueryRow(ctx, sqlInsertGuidance, projectID, tenantID, g.Text, g.ProcessType, g.Adherence, g.DomainScope))
		return err
	})
	if err != nil {
		return Guidance{}, fmt.Errorf("add guidance to project %q: %w", projectID, err)
	}
	return out, nil
}

// sqlSetSourceQuestions rewrites the draft's source questions alone: the
// draft's text, origin and time stay as they are.
const sqlSetSourceQuestions = `UPDATE projects SET source_questions = $2, updated_at = now() WHERE id = $1`

// settleQuestion marks question id of the draft's questions (a JSON array)
// resolved, keeping every other member of every question as stored. The
// error wraps ErrQuestionNotFound, naming the questions there are, when
// the draft has no question id.
func settleQuestion(questions json.RawMessage, id string) (json.RawMessage, error) {
	var qs []map[string]any
	if len(questions) > 0 {
		if err := json.Unmarshal(questions, &qs); err != nil {
			return nil, fmt.Errorf("read the draft's source questions: %w", err)
		}
	}
	ids := make([]string, 0, len(qs))
	found := false
	for _, q := range qs {
		qid, _ := q["id"].(string)
		ids = append(ids, qid)
		if qid == id {
			q["resolved"] = true
			found = true
		}
	}
	if !found {
		return nil, &QuestionNotFoundError{ID: id, Questions: ids}
	}
	out, err := json.Marshal(qs)
	if err != nil {
		return nil, fmt.Errorf("write the draft's source questions: %w", err)
	}
	return out, nil
}

// QuestionNotFoundError is ErrQuestionNotFound with the question asked for
// and the ids of the questions the draft has, for a message that says
// which to use.
type QuestionNotFoundError struct {
	// ID is the question asked for.
	ID string
	// Questions are the draft's question ids, in order.
	Questions []string
}

func (e *QuestionNotFoundError) Error() string {
	return fmt.Sprintf("%v: %q", ErrQuestionNotFound, e.ID)
}

// Unwrap makes errors.Is(err, ErrQuestionNotFound) hold.
func (e *QuestionNotFoundError) Unwrap() error { return ErrQuestionNotFound }

// ListGuidance lists the project's guidance in the order it was added.
func (s *Store) ListGuidance(ctx context.Context, tenantID, projectID string) ([]Guidance, error) {
	rows, err := s.pool.Query(ctx, sqlListGuidance, projectID, tenantID)
	if err != nil {
		return nil, fmt.Errorf("list guidance of project %q: %w", projectID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Guidance, error) { return scanGuidance(r) })
	if err != nil {
		return nil, fmt.Errorf("list guidance of project %q: %w", projectID, err)
	}
	return out, nil
}

// sqlInsertProvenance records one source of a cut. A reused cut published
// again keeps its earlier records too: every source its quotes were ever
// verified against stays protected.
const sqlInsertProvenance = `
INSERT INTO ruleset_provenance (ruleset_id, project_id, rules_source_id, source_id, target_kind, content_digest)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT DO NOTHING`
