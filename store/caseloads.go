package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Caseload is a file of applicants' answers a tenant uploaded to a project
// for impact runs (docs/impact.md#over-http), without its bytes.
type Caseload struct {
	// ID is "cld_" and 16 URL-safe characters.
	ID string
	// ProjectID and TenantID own it.
	ProjectID, TenantID string
	// Filename is the name it was sent under; Format is jsonl or csv.
	Filename, Format string
	// Size is its length in bytes; ContentDigest the "sha256:<hex>" of
	// its bytes.
	Size          int64
	ContentDigest string
	// Rows, Cases and BadRows are what the upload's check found: rows
	// read, the ones that read as cases, and the bad ones by reason (a
	// JSON array of impact.Reason).
	Rows, Cases int64
	BadRows     json.RawMessage
	// CreatedAt dates the upload; ExpiresAt is when it is deleted.
	CreatedAt, ExpiresAt time.Time
	// Retention is how long it is kept, for AddCaseload to set
	// ExpiresAt from the database's clock.
	Retention time.Duration
}

// ErrCaseloadLimit is AddCaseload's refusal: the project holds its most
// caseloads.
var ErrCaseloadLimit = errors.New("project caseload limit reached")

// NewCaseloadID draws a caseload id.
func NewCaseloadID() string { return "cld_" + randomToken() }

const caseloadColumns = `c.id, c.project_id, c.tenant_id, c.filename, c.format, c.size, c.content_digest,
c.row_count, c.case_count, c.bad_rows, c.created_at, c.expires_at`

func scanCaseload(row pgx.Row) (Caseload, error) {
	var c Caseload
	err := row.Scan(&c.ID, &c.ProjectID, &c.TenantID, &c.Filename, &c.Format, &c.Size, &c.ContentDigest,
		&c.Rows, &c.Cases, &c.BadRows, &c.CreatedAt, &c.ExpiresAt)
	return c, err
}

const (
	sqlCountCaseloads = `SELECT count(*) FROM caseloads WHERE project_id = $1`

	sqlInsertCaseload = `
INSERT INTO caseloads AS c (id, project_id, tenant_id, filename, format, content, size, content_digest, row_count, case_count, bad_rows, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() + make_interval(secs => $12))
RETURNING ` + caseloadColumns

	sqlListCaseloads = `SELECT ` + caseloadColumns + ` FROM caseloads c
WHERE c.project_id = $1 AND c.tenant_id = $2 AND c.expires_at > now() ORDER BY c.created_at, c.id`

	sqlCaseload = `SELECT ` + caseloadColumns + ` FROM caseloads c
WHERE c.id = $1 AND c.project_id = $2 AND c.tenant_id = $3 AND c.expires_at > now()`

	sqlCaseloadContent = `SELECT content FROM caseloads WHERE id = $1`

	sqlDeleteCaseload = `DELETE FROM caseloads WHERE id = $1 AND project_id = $2 AND tenant_id = $3`

	sqlDeleteExpiredCaseloads = `DELETE FROM caseloads WHERE expires_at <= now()`
)

// AddCaseload stores a caseload of the tenant's project with its bytes,
// kept for c.Retention from now by the database's clock (the clock that
// lists and deletes it).
// ErrNotFound when the tenant does not own the project; when maxPerProject
// is positive and the project already holds that many, nothing is stored
// and the error wraps ErrCaseloadLimit (counted under the project's row
// lock, so concurrent uploads cannot pass it together).
func (s *Store) AddCaseload(ctx context.Context, c Caseload, content []byte, maxPerProject int) (Caseload, error) {
	if c.ID == "" {
		c.ID = NewCaseloadID()
	}
	if len(c.BadRows) == 0 {
		c.BadRows = json.RawMessage("[]")
	}
	var out Caseload
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := scanProject(tx.QueryRow(ctx, sqlProjectForUpdate, c.ProjectID, c.TenantID)); errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("lock project: %w", err)
		}
		if err := belowLimit(ctx, tx, sqlCountCaseloads, c.ProjectID, maxPerProject, ErrCaseloadLimit, "the project holds %d caseloads"); err != nil {
			return err
		}
		var err error
		out, err = scanCaseload(tx.QueryRow(ctx, sqlInsertCaseload, c.ID, c.ProjectID, c.TenantID, c.Filename, c.Format, content,
			c.Size, c.ContentDigest, c.Rows, c.Cases, string(c.BadRows), c.Retention.Seconds()))
		return err
	})
	if err != nil {
		return Caseload{}, fmt.Errorf("add caseload to project %q: %w", c.ProjectID, err)
	}
	return out, nil
}

// Caseloads lists the unexpired caseloads of the tenant's project in
// upload order; empty for a project the tenant does not own (check the
// project first to tell the two apart).
func (s *Store) Caseloads(ctx context.Context, tenantID, projectID string) ([]Caseload, error) {
	return queryAll(ctx, s, scanCaseload, fmt.Sprintf("caseloads of project %q", projectID), sqlListCaseloads, projectID, tenantID)
}

// CaseloadOf reads an unexpired caseload of the tenant's project, without
// its bytes; ErrNotFound otherwise.
func (s *Store) CaseloadOf(ctx context.Context, tenantID, projectID, id string) (Caseload, error) {
	c, err := scanCaseload(s.pool.QueryRow(ctx, sqlCaseload, id, projectID, tenantID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Caseload{}, ErrNotFound
	}
	if err != nil {
		return Caseload{}, fmt.Errorf("read caseload %q: %w", id, err)
	}
	return c, nil
}

// CaseloadContent reads a caseload's bytes, for the run that decides it;
// ErrNotFound when it is gone.
func (s *Store) CaseloadContent(ctx context.Context, id string) ([]byte, error) {
	var content []byte
	err := s.pool.QueryRow(ctx, sqlCaseloadContent, id).Scan(&content)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read caseload %q: %w", id, err)
	}
	return content, nil
}

// DeleteCaseload removes a caseload of the tenant's project with its
// runs; ErrNotFound when there is none.
func (s *Store) DeleteCaseload(ctx context.Context, tenantID, projectID, id string) error {
	tag, err := s.pool.Exec(ctx, sqlDeleteCaseload, id, projectID, tenantID)
	if err != nil {
		return fmt.Errorf("delete caseload %q: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteExpiredCaseloads removes every caseload whose retention has ended
// by the database's clock, with its runs, and returns how many. (An
// expired caseload no prune has reached yet is already hidden from every
// read.)
func (s *Store) DeleteExpiredCaseloads(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, sqlDeleteExpiredCaseloads)
	if err != nil {
		return 0, fmt.Errorf("delete expired caseloads: %w", err)
	}
	return tag.RowsAffected(), nil
}

// belowLimit counts, in tx, what query counts for arg, and refuses with an
// error wrapping limitErr when the count has reached max (none when max
// is not positive); holds words the count ("the project holds %d
// caseloads") for the message. Run it under the lock that serialises the
// inserts it guards.
func belowLimit(ctx context.Context, tx pgx.Tx, query, arg string, max int, limitErr error, holds string) error {
	if max <= 0 {
		return nil
	}
	var n int
	if err := tx.QueryRow(ctx, query, arg).Scan(&n); err != nil {
		return fmt.Errorf("count for %s: %w", limitErr, err)
	}
	if n >= max {
		return fmt.Errorf("%w: "+holds+" and at most %d are allowed", limitErr, n, max)
	}
	return nil
}
