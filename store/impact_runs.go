package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ImpactRun is one impact run of a caseload (docs/impact.md#over-http).
type ImpactRun struct {
	// ID is "imp_" and 16 URL-safe characters.
	ID string
	// ProjectID and TenantID own it; CaseloadID is the caseload decided.
	ProjectID, TenantID, CaseloadID string
	// BaselineRulesetID is the baseline cut's concrete id;
	// CandidateRulesetID the candidate's, or empty when the candidate is
	// CandidateDraft, the project's draft text as it was when asked for.
	BaselineRulesetID, CandidateRulesetID, CandidateDraft string
	// Rulebook, when set on a run to start, makes it a run of a rulebook
	// (both ruleset ids and CandidateDraft empty); reads leave it nil:
	// ImpactRulebooks reads it.
	Rulebook *ImpactRulebook
	// DecisionDate is the date a case without its own is decided as of.
	DecisionDate time.Time
	// Examples is how many references each transition keeps.
	Examples int
	// RiverJobID is the River job that runs it.
	RiverJobID int64
	// State is queued, running, succeeded, failed or cancelled.
	State string
	// RowsTotal is the caseload's rows; RowsDone and CasesDone the
	// progress last reported.
	RowsTotal, RowsDone, CasesDone int64
	// Partial is true when Report covers only the rows read before the
	// run was stopped.
	Partial bool
	// Report is the impact.Report JSON; nil before the run ends.
	Report json.RawMessage
	// ErrorMessage says why a failed run failed.
	ErrorMessage string
	// CreatedAt, StartedAt and FinishedAt date it.
	CreatedAt             time.Time
	StartedAt, FinishedAt *time.Time
}

// Impact run states.
const (
	ImpactQueued    = "queued"
	ImpactRunning   = "running"
	ImpactSucceeded = "succeeded"
	ImpactFailed    = "failed"
	ImpactCancelled = "cancelled"
)

// Active reports whether r is queued or running.
func (r ImpactRun) Active() bool { return r.State == ImpactQueued || r.State == ImpactRunning }

// ErrImpactLimit is StartImpactRun's refusal: the tenant already has its
// most runs queued or running.
var ErrImpactLimit = errors.New("tenant impact run limit reached")

// NewImpactRunID draws an impact run id.
func NewImpactRunID() string { return "imp_" + randomToken() }

// impactColumns read a run; its progress is the sum of its parts' once it
// has parts (the run's own counts before, and for a run that ended before
// it was split).
const impactColumns = `i.id, i.project_id, i.tenant_id, i.caseload_id, i.baseline_ruleset_id, coalesce(i.candidate_ruleset_id, ''),
coalesce(i.candidate_draft, ''), i.decision_date, i.examples, coalesce(i.river_job_id, 0), i.state, i.rows_total,
coalesce((SELECT sum(p.rows_done)::bigint FROM impact_run_parts p WHERE p.run_id = i.id), i.rows_done),
coalesce((SELECT sum(p.cases_done)::bigint FROM impact_run_parts p WHERE p.run_id = i.id), i.cases_done), i.partial, i.report, coalesce(i.error_message, ''), i.created_at, i.started_at, i.finished_at`

func scanImpactRun(row pgx.Row) (ImpactRun, error) {
	var r ImpactRun
	err := row.Scan(&r.ID, &r.ProjectID, &r.TenantID, &r.CaseloadID, &r.BaselineRulesetID, &r.CandidateRulesetID,
		&r.CandidateDraft, &r.DecisionDate, &r.Examples, &r.RiverJobID, &r.State, &r.RowsTotal, &r.RowsDone,
		&r.CasesDone, &r.Partial, &r.Report, &r.ErrorMessage, &r.CreatedAt, &r.StartedAt, &r.FinishedAt)
	return r, err
}

const (
	sqlInsertImpactRun = `
INSERT INTO impact_runs AS i (id, project_id, tenant_id, caseload_id, baseline_ruleset_id, candidate_ruleset_id, candidate_draft,
    decision_date, examples, rows_total)
SELECT $1, c.project_id, c.tenant_id, c.id, $4, nullif($5, ''), nullif($6, ''), $7, $8, c.row_count
FROM caseloads c WHERE c.id = $9 AND c.project_id = $2 AND c.tenant_id = $3 AND c.expires_at > now()
RETURNING ` + impactColumns

	sqlCountActiveImpactRuns = `SELECT count(*) FROM impact_runs WHERE tenant_id = $1 AND state IN ('queued', 'running')`

	sqlSetImpactJob = `UPDATE impact_runs SET river_job_id = $2 WHERE id = $1`

	sqlImpactRun = `SELECT ` + impactColumns + ` FROM impact_runs i WHERE i.id = $1 AND i.project_id = $2 AND i.tenant_id = $3`

	sqlImpactRunByID = `SELECT ` + impactColumns + ` FROM impact_runs i WHERE i.id = $1`

	sqlListImpactRuns = `SELECT ` + impactColumns + ` FROM impact_runs i
WHERE i.project_id = $1 AND i.tenant_id = $2 ORDER BY i.created_at DESC, i.id DESC LIMIT $3`

	sqlImpactRunning = `
UPDATE impact_runs i SET state = 'running', started_at = now(), updated_at = now()
WHERE i.id = $1 AND i.state = 'queued'
RETURNING ` + impactColumns

	sqlImpactState = `SELECT state FROM impact_runs WHERE id = $1`

	sqlFinishImpactRun = `
UPDATE impact_runs i SET state = $2, partial = $3, report = $4, error_message = nullif($5, ''),
    rows_done = coalesce($6, rows_done), cases_done = coalesce($7, cases_done), finished_at = now(), updated_at = now()
WHERE i.id = $1 AND (i.state IN ('queued', 'running') OR (i.state = 'cancelled' AND i.report IS NULL AND $2 = 'cancelled'))
RETURNING ` + impactColumns

	sqlCancelImpactRun = `
UPDATE impact_runs i SET state = 'cancelled', partial = true, finished_at = now(), updated_at = now()
WHERE i.id = $1 AND i.project_id = $2 AND i.tenant_id = $3 AND i.state IN ('queued', 'running')
RETURNING ` + impactColumns

	sqlFailStaleImpactRuns = `
UPDATE impact_runs SET state = 'failed', partial = report IS NOT NULL,
    error_message = 'the process running it stopped before it ended; start the run again',
    finished_at = now(), updated_at = now()
WHERE state IN ('queued', 'running') AND updated_at < now() - make_interval(secs => $1)`
)

// StartImpactRun records a queued run of the tenant's caseload and, in
// the same transaction, enqueues its job (enqueue returns the River job
// id). RowsTotal is the caseload's. ErrNotFound when the tenant has no
// such unexpired caseload in the project; when maxActive is positive and
// the tenant already has that many runs queued or running, nothing is
// recorded and the error wraps ErrImpactLimit (counted under the tenant's
// row lock, so concurrent starts cannot pass it together).
func (s *Store) StartImpactRun(ctx context.Context, r ImpactRun, maxActive int, enqueue func(context.Context, pgx.Tx) (int64, error)) (ImpactRun, error) {
	if r.ID == "" {
		r.ID = NewImpactRunID()
	}
	var out ImpactRun
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockTenant(ctx, tx, r.TenantID); err != nil {
			return err
		}
		if err := belowLimit(ctx, tx, sqlCountActiveImpactRuns, r.TenantID, maxActive, ErrImpactLimit, "the tenant has %d impact runs queued or running"); err != nil {
			return err
		}
		var err error
		out, err = scanImpactRun(tx.QueryRow(ctx, sqlInsertImpactRun, r.ID, r.ProjectID, r.TenantID, r.BaselineRulesetID,
			r.CandidateRulesetID, r.CandidateDraft, r.DecisionDate, r.Examples, r.CaseloadID))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("insert impact run: %w", err)
		}
		if r.Rulebook != nil {
			if err := insertImpactRulebook(ctx, tx, out.ID, *r.Rulebook); err != nil {
				return err
			}
		}
		out.RiverJobID, err = enqueueJob(ctx, tx, enqueue, sqlSetImpactJob, out.ID)
		return err
	})
	if err != nil {
		return ImpactRun{}, fmt.Errorf("start impact run of caseload %q: %w", r.CaseloadID, err)
	}
	return out, nil
}

func (s *Store) impactRun(ctx context.Context, query string, args ...any) (ImpactRun, error) {
	return queryOne(ctx, s, scanImpactRun, "impact run", query, args...)
}

// ImpactRunOf reads a run of the tenant's project; ErrNotFound otherwise.
func (s *Store) ImpactRunOf(ctx context.Context, tenantID, projectID, id string) (ImpactRun, error) {
	return s.impactRun(ctx, sqlImpactRun, id, projectID, tenantID)
}

// ImpactRunByID reads a run, for the worker that runs it.
func (s *Store) ImpactRunByID(ctx context.Context, id string) (ImpactRun, error) {
	return s.impactRun(ctx, sqlImpactRunByID, id)
}

// ImpactRuns lists the newest limit runs of the tenant's project, newest
// first.
func (s *Store) ImpactRuns(ctx context.Context, tenantID, projectID string, limit int) ([]ImpactRun, error) {
	return queryAll(ctx, s, scanImpactRun, fmt.Sprintf("impact runs of project %q", projectID), sqlListImpactRuns, projectID, tenantID, limit)
}

// MarkImpactRunning moves a queued run to running; ErrNotFound when it is
// no longer queued (cancelled, or its caseload deleted).
func (s *Store) MarkImpactRunning(ctx context.Context, id string) (ImpactRun, error) {
	return s.impactRun(ctx, sqlImpactRunning, id)
}

// ImpactState reads a run's state; ErrNotFound when it is gone.
func (s *Store) ImpactState(ctx context.Context, id string) (string, error) {
	var state string
	err := s.pool.QueryRow(ctx, sqlImpactState, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read state of %s: %w", id, err)
	}
	return state, nil
}

// ImpactEnd is how a run ended.
type ImpactEnd struct {
	// State is succeeded, failed or cancelled.
	State string
	// Partial is true when Report covers only part of the caseload.
	Partial bool
	// Report is the impact.Report JSON; nil when there is none.
	Report json.RawMessage
	// Message says why a failed run failed.
	Message string
	// Rows and Cases are the final counts; nil keeps the last progress.
	Rows, Cases *int64
}

// FinishImpactRun ends an active run, or records the report of a run
// cancelled while it ran (end.State cancelled: the cancel ended the run,
// the worker then leaves what it decided). ErrNotFound when the run had
// already ended otherwise: the first end stands.
func (s *Store) FinishImpactRun(ctx context.Context, id string, end ImpactEnd) (ImpactRun, error) {
	var report any
	if len(end.Report) > 0 {
		report = string(end.Report)
	}
	return s.impactRun(ctx, sqlFinishImpactRun, id, end.State, end.Partial, report, end.Message, end.Rows, end.Cases)
}

// CancelImpactRun ends the tenant's queued or running run as cancelled;
// ErrNotFound when it is not active (or not the tenant's: read it to tell
// which).
func (s *Store) CancelImpactRun(ctx context.Context, tenantID, projectID, id string) (ImpactRun, error) {
	return s.impactRun(ctx, sqlCancelImpactRun, id, projectID, tenantID)
}

// FailStaleImpactRuns fails every run queued or running that has not
// reported for the window, by the database's clock: its process stopped (a run reports while it
// runs, and is bounded in time), so that it no longer counts against its
// tenant's limit. It returns how many.
func (s *Store) FailStaleImpactRuns(ctx context.Context, window time.Duration) (int64, error) {
	tag, err := s.pool.Exec(ctx, sqlFailStaleImpactRuns, window.Seconds())
	if err != nil {
		return 0, fmt.Errorf("fail stale impact runs: %w", err)
	}
	return tag.RowsAffected(), nil
}
