package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ImpactPart is one part of an impact run: a byte range of its caseload,
// whole rows, decided by a River job of its own (docs/impact.md#over-http).
type ImpactPart struct {
	// RunID is the run; Seq the part's place in it, from 0, in file order.
	RunID string
	Seq   int
	// Offset and End are the part's bytes of the caseload, End excluded;
	// FirstLine the number of its first line in the file.
	Offset, End, FirstLine int64
	// State is queued, running, succeeded, failed or stopped (it ended
	// because its run had: a cancel, or another part's failure).
	State string
	// RowsDone and CasesDone are its progress.
	RowsDone, CasesDone int64
	// Report is its impact.Report JSON, once it has ended with one.
	Report json.RawMessage
}

// Impact part states besides the run's.
const (
	// ImpactPartStopped is a part that ended because its run had.
	ImpactPartStopped = "stopped"
)

const (
	sqlLockImpactRun = `SELECT ` + impactColumns + ` FROM impact_runs i WHERE i.id = $1 FOR UPDATE`

	sqlInsertImpactPart = `INSERT INTO impact_run_parts (run_id, seq, byte_offset, byte_end, first_line) VALUES ($1, $2, $3, $4, $5)`

	sqlSetImpactPartJob = `UPDATE impact_run_parts SET river_job_id = $3 WHERE run_id = $1 AND seq = $2`

	sqlImpactPartRunning = `
UPDATE impact_run_parts p SET state = 'running'
WHERE p.run_id = $1 AND p.seq = $2 AND p.state = 'queued'
  AND EXISTS (SELECT 1 FROM impact_runs i WHERE i.id = p.run_id AND i.state = 'running')
RETURNING p.run_id, p.seq, p.byte_offset, p.byte_end, p.first_line, p.state, p.rows_done, p.cases_done, p.report`

	// A part's progress touches its run, so that a run whose parts report
	// is not taken for abandoned (FailStaleImpactRuns).
	sqlImpactPartProgress = `
WITH part AS (
    UPDATE impact_run_parts SET rows_done = $3, cases_done = $4
    WHERE run_id = $1 AND seq = $2 AND state = 'running'
    RETURNING run_id)
UPDATE impact_runs i SET updated_at = now() FROM part
WHERE i.id = part.run_id AND i.state = 'running'
RETURNING i.state`

	sqlEndImpactPart = `
UPDATE impact_run_parts SET state = $3, report = $4, rows_done = coalesce($5, rows_done), cases_done = coalesce($6, cases_done)
WHERE run_id = $1 AND seq = $2 AND state IN ('queued', 'running')`

	sqlFailImpactRunByPart = `
UPDATE impact_runs SET state = 'failed', error_message = $2, finished_at = now(), updated_at = now()
WHERE id = $1 AND state IN ('queued', 'running')`

	sqlActiveImpactParts = `SELECT count(*) FROM impact_run_parts WHERE run_id = $1 AND state IN ('queued', 'running')`

	sqlImpactPartReports = `SELECT report FROM impact_run_parts WHERE run_id = $1 ORDER BY seq`

	// The merged report ends a run still running as the parts say (the
	// end's state), and is left on a run a cancel or a failed part ended,
	// marked partial.
	sqlMergeImpactRun = `
UPDATE impact_runs SET state = CASE WHEN state = 'running' THEN $2 ELSE state END,
    partial = state <> 'running' OR $3, report = $4,
    error_message = coalesce(error_message, nullif($5, '')),
    finished_at = coalesce(finished_at, now()), updated_at = now()
WHERE id = $1 AND report IS NULL`
)

// AddImpactParts records the parts of a running run and, in the same
// transaction, enqueues each one's job (enqueue returns its River job id).
// ErrNotFound when the run is no longer running (cancelled, or deleted
// with its caseload, while it was being split): nothing is recorded.
func (s *Store) AddImpactParts(ctx context.Context, runID string, parts []ImpactPart, enqueue func(ctx context.Context, tx pgx.Tx, seq int) (int64, error)) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		run, err := scanImpactRun(tx.QueryRow(ctx, sqlLockImpactRun, runID))
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && run.State != ImpactRunning) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("lock run: %w", err)
		}
		for _, p := range parts {
			if _, err := tx.Exec(ctx, sqlInsertImpactPart, runID, p.Seq, p.Offset, p.End, p.FirstLine); err != nil {
				return fmt.Errorf("insert part %d: %w", p.Seq, err)
			}
			job, err := enqueue(ctx, tx, p.Seq)
			if err != nil {
				return fmt.Errorf("enqueue part %d: %w", p.Seq, err)
			}
			if _, err := tx.Exec(ctx, sqlSetImpactPartJob, runID, p.Seq, job); err != nil {
				return fmt.Errorf("record job of part %d: %w", p.Seq, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("split impact run %s: %w", runID, err)
	}
	return nil
}

// MarkImpactPartRunning moves a queued part of a running run to running
// and returns the run with it; ErrNotFound when the part is not queued or
// its run not running (cancelled, failed by another part, or deleted).
func (s *Store) MarkImpactPartRunning(ctx context.Context, runID string, seq int) (ImpactRun, ImpactPart, error) {
	var p ImpactPart
	err := s.pool.QueryRow(ctx, sqlImpactPartRunning, runID, seq).Scan(&p.RunID, &p.Seq, &p.Offset, &p.End, &p.FirstLine,
		&p.State, &p.RowsDone, &p.CasesDone, &p.Report)
	if errors.Is(err, pgx.ErrNoRows) {
		return ImpactRun{}, ImpactPart{}, ErrNotFound
	}
	if err != nil {
		return ImpactRun{}, ImpactPart{}, fmt.Errorf("start part %d of %s: %w", seq, runID, err)
	}
	run, err := s.ImpactRunByID(ctx, runID)
	return run, p, err
}

// ImpactPartProgress records a running part's progress; ErrNotFound when
// its run is no longer running, so that the part learns of a cancel as it
// reports.
func (s *Store) ImpactPartProgress(ctx context.Context, runID string, seq int, rows, cases int64) error {
	var state string
	err := s.pool.QueryRow(ctx, sqlImpactPartProgress, runID, seq, rows, cases).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("record progress of part %d of %s: %w", seq, runID, err)
	}
	return nil
}

// ImpactPartEnd is how a part ended.
type ImpactPartEnd struct {
	// State is succeeded, failed or stopped.
	State string
	// Report is the part's impact.Report JSON; nil when it has none.
	Report json.RawMessage
	// Message says why a failed part failed: it fails its run with it.
	Message string
	// Rows and Cases are the part's final counts; nil keeps its last
	// progress.
	Rows, Cases *int64
}

// FinishImpactPart records a part's end and, when it was the last of its
// run's parts to end, merges the run: merge is given the run and its
// parts' reports in file order (nil for a part that left none) and
// returns the run's end, which ends a run still running, or is left on a
// run a cancel or a failed part ended, marked partial. A failed part
// fails its run at once, so that its other parts stop. It all happens
// under the run's row lock, so when two parts end together one of them
// merges, exactly once. It reports whether this call merged; ErrNotFound
// when the run is gone.
func (s *Store) FinishImpactPart(ctx context.Context, runID string, seq int, end ImpactPartEnd,
	merge func(run ImpactRun, reports []json.RawMessage) (ImpactEnd, error)) (bool, error) {
	merged := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		run, err := scanImpactRun(tx.QueryRow(ctx, sqlLockImpactRun, runID))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("lock run: %w", err)
		}
		var report any
		if len(end.Report) > 0 {
			report = string(end.Report)
		}
		if _, err := tx.Exec(ctx, sqlEndImpactPart, runID, seq, end.State, report, end.Rows, end.Cases); err != nil {
			return fmt.Errorf("end part %d: %w", seq, err)
		}
		if end.State == ImpactFailed {
			if _, err := tx.Exec(ctx, sqlFailImpactRunByPart, runID, end.Message); err != nil {
				return fmt.Errorf("fail run: %w", err)
			}
		}
		var active int
		if err := tx.QueryRow(ctx, sqlActiveImpactParts, runID).Scan(&active); err != nil {
			return fmt.Errorf("count parts: %w", err)
		}
		if active > 0 || run.Report != nil {
			return nil
		}
		rows, err := tx.Query(ctx, sqlImpactPartReports, runID)
		if err != nil {
			return fmt.Errorf("read part reports: %w", err)
		}
		reports, err := pgx.CollectRows(rows, pgx.RowTo[json.RawMessage])
		if err != nil {
			return fmt.Errorf("read part reports: %w", err)
		}
		out, err := merge(run, reports)
		if err != nil {
			return err
		}
		var mergedReport any
		if len(out.Report) > 0 {
			mergedReport = string(out.Report)
		}
		tag, err := tx.Exec(ctx, sqlMergeImpactRun, runID, out.State, out.Partial, mergedReport, out.Message)
		if err != nil {
			return fmt.Errorf("record merged report: %w", err)
		}
		merged = tag.RowsAffected() == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("end part %d of impact run %s: %w", seq, runID, err)
	}
	return merged, nil
}
