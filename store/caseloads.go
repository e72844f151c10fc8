package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
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
	// CreatedAt dates the upload; ExpiresAt is when it is deleted. Set on
	// a caseload to add, ExpiresAt is the latest it may be kept, however
	// long Retention is (a caseload made from the decision log goes no
	// later than the first of its answers would).
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

	// The row is inserted before its chunks (which refer to it) with
	// placeholder counts, and completed once the body has been read.
	sqlInsertCaseload = `
INSERT INTO caseloads (id, project_id, tenant_id, filename, format, size, content_digest, row_count, case_count, expires_at)
VALUES ($1, $2, $3, $4, $5, 0, 'sha256:' || repeat('0', 64), 0, 0, LEAST(now() + make_interval(secs => $6), $7::timestamptz))`

	sqlCompleteCaseload = `
UPDATE caseloads c SET size = $2, content_digest = $3, row_count = $4, case_count = $5, bad_rows = $6
WHERE c.id = $1
RETURNING ` + caseloadColumns

	sqlInsertCaseloadChunk = `INSERT INTO caseload_chunks (caseload_id, seq, content) VALUES ($1, $2, $3)`

	sqlCaseloadChunk = `SELECT content FROM caseload_chunks WHERE caseload_id = $1 AND seq = $2`

	sqlListCaseloads = `SELECT ` + caseloadColumns + ` FROM caseloads c
WHERE c.project_id = $1 AND c.tenant_id = $2 AND c.expires_at > now() ORDER BY c.created_at, c.id`

	sqlCaseload = `SELECT ` + caseloadColumns + ` FROM caseloads c
WHERE c.id = $1 AND c.project_id = $2 AND c.tenant_id = $3 AND c.expires_at > now()`

	sqlDeleteCaseload = `DELETE FROM caseloads WHERE id = $1 AND project_id = $2 AND tenant_id = $3`

	sqlDeleteExpiredCaseloads = `DELETE FROM caseloads WHERE expires_at <= now()`
)

// CaseloadChunkBytes is the size of the chunks a caseload's bytes are
// kept in (the last may be shorter): the most an upload holds of the file
// besides its reader's buffer, and the unit a part of a run reads.
const CaseloadChunkBytes = 1 << 20

// AddCaseload stores a caseload of the tenant's project, kept for
// c.Retention from now by the database's clock (the clock that lists and
// deletes it), and no later than c.ExpiresAt when that is set. Its bytes are not held whole: fill writes them to the
// writer it is given (reading them as it goes, to check them), which
// stores them chunk by chunk (CaseloadChunkBytes) and counts and digests
// them, so Size and ContentDigest need not be set; fill returns c's
// counts (Rows, Cases, BadRows). A fill that fails stores nothing, and
// its error is returned as it is. ErrNotFound when the tenant does not
// own the project; when maxPerProject is positive and the project already
// holds that many, nothing is stored and the error wraps ErrCaseloadLimit
// (counted under the project's row lock, so concurrent uploads cannot pass
// it together).
func (s *Store) AddCaseload(ctx context.Context, c Caseload, maxPerProject int, fill func(w io.Writer) (Caseload, error)) (Caseload, error) {
	if c.ID == "" {
		c.ID = NewCaseloadID()
	}
	var out Caseload
	var fillErr error
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := scanProject(tx.QueryRow(ctx, sqlProjectForUpdate, c.ProjectID, c.TenantID)); errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("lock project: %w", err)
		}
		if err := belowLimit(ctx, tx, sqlCountCaseloads, c.ProjectID, maxPerProject, ErrCaseloadLimit, "the project holds %d caseloads"); err != nil {
			return err
		}
		var latest any // no bound but the retention
		if !c.ExpiresAt.IsZero() {
			latest = c.ExpiresAt
		}
		if _, err := tx.Exec(ctx, sqlInsertCaseload, c.ID, c.ProjectID, c.TenantID, c.Filename, c.Format, c.Retention.Seconds(), latest); err != nil {
			return fmt.Errorf("insert caseload: %w", err)
		}
		w := &chunkWriter{ctx: ctx, tx: tx, id: c.ID, sum: sha256.New()}
		counts, err := fill(w)
		if err == nil {
			err = w.flush()
		}
		if err != nil {
			fillErr = err
			return err
		}
		if len(counts.BadRows) == 0 {
			counts.BadRows = json.RawMessage("[]")
		}
		out, err = scanCaseload(tx.QueryRow(ctx, sqlCompleteCaseload, c.ID, w.size, "sha256:"+hex.EncodeToString(w.sum.Sum(nil)),
			counts.Rows, counts.Cases, string(counts.BadRows)))
		return err
	})
	if fillErr != nil {
		return Caseload{}, fillErr
	}
	if err != nil {
		return Caseload{}, fmt.Errorf("add caseload to project %q: %w", c.ProjectID, err)
	}
	return out, nil
}

// chunkWriter stores a caseload's bytes in tx as they come, a chunk at a
// time, counting and digesting them.
type chunkWriter struct {
	ctx  context.Context
	tx   pgx.Tx
	id   string
	buf  []byte
	seq  int
	size int64
	sum  hash.Hash
	err  error
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n := len(p)
	w.size += int64(n)
	w.sum.Write(p)
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, CaseloadChunkBytes)
		}
		take := min(len(p), CaseloadChunkBytes-len(w.buf))
		w.buf, p = append(w.buf, p[:take]...), p[take:]
		if len(w.buf) == CaseloadChunkBytes {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// flush stores the chunk filled so far, if any.
func (w *chunkWriter) flush() error {
	if w.err != nil || len(w.buf) == 0 {
		return w.err
	}
	if _, err := w.tx.Exec(w.ctx, sqlInsertCaseloadChunk, w.id, w.seq, w.buf); err != nil {
		w.err = fmt.Errorf("store chunk %d of caseload %q: %w", w.seq, w.id, err)
		return w.err
	}
	w.seq++
	w.buf = w.buf[:0]
	return nil
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

// CaseloadReader reads the bytes of a caseload from offset to end (end
// past the file reads to its end), fetching a chunk at a time as it is
// read, for the part of a run that decides them: a run never holds more
// than a chunk of the file. A read fails when the database does (ctx's
// end included) or the chunk is gone (the caseload was deleted, with its
// runs).
func (s *Store) CaseloadReader(ctx context.Context, id string, offset, end int64) io.Reader {
	return &chunkReader{ctx: ctx, s: s, id: id, pos: offset, end: end}
}

// chunkReader is CaseloadReader's reader.
type chunkReader struct {
	ctx      context.Context
	s        *Store
	id       string
	pos, end int64
	chunk    bytes.Reader
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.pos >= r.end {
		return 0, io.EOF
	}
	if r.chunk.Len() == 0 {
		seq := r.pos / CaseloadChunkBytes
		var content []byte
		err := r.s.pool.QueryRow(r.ctx, sqlCaseloadChunk, r.id, seq).Scan(&content)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return 0, fmt.Errorf("chunk %d of caseload %q is missing", seq, r.id)
		case err != nil:
			return 0, fmt.Errorf("read chunk %d of caseload %q: %w", seq, r.id, err)
		}
		skip := r.pos - seq*CaseloadChunkBytes
		if skip >= int64(len(content)) {
			return 0, io.EOF
		}
		content = content[skip:min(int64(len(content)), skip+r.end-r.pos)]
		r.chunk.Reset(content)
	}
	n, err := r.chunk.Read(p)
	r.pos += int64(n)
	return n, err
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
