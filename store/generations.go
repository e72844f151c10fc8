package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Generation is one model-backed generation of a project's draft.
type Generation struct {
	// ID is "gen_" and 16 URL-safe characters.
	ID string
	// ProjectID and TenantID own it.
	ProjectID, TenantID string
	// Mode is fresh or refine; SeedRulesetID is refine's explicit seed.
	Mode, SeedRulesetID string
	// Model is the model called.
	Model string
	// OwnerQueue is the River queue of the process holding the key.
	OwnerQueue string
	// RiverJobID is the River job that runs it.
	RiverJobID int64
	// State is queued, running, success or failed; Outcome (terminal
	// only) is accepted, failing_tests, failed or cancelled.
	State, Outcome string
	// Stage, Round, TestsPassing, TestsTotal, PromptTokens and TokensUsed
	// are the progress last reported.
	Stage                                                     string
	Round, TestsPassing, TestsTotal, PromptTokens, TokensUsed int
	// ErrorReason, ErrorRetryable and ErrorMessage say why it failed.
	ErrorReason    string
	ErrorRetryable bool
	ErrorMessage   string
	// Result is the finished generation's result JSON; nil before.
	Result json.RawMessage
	// CreatedAt, StartedAt and FinishedAt date it; ReleasedAt is when
	// the worker that ran it returned.
	CreatedAt                         time.Time
	StartedAt, FinishedAt, ReleasedAt *time.Time
}

// Generation states.
const (
	GenerationQueued  = "queued"
	GenerationRunning = "running"
	GenerationSuccess = "success"
	GenerationFailed  = "failed"
)

// Active reports whether g is queued or running.
func (g Generation) Active() bool { return g.State == GenerationQueued || g.State == GenerationRunning }

// ErrGenerationActive is StartGeneration's refusal: the project already
// has a queued or running generation.
var ErrGenerationActive = errors.New("the project has an active generation")

// ErrGenerationLimit is StartGeneration's refusal: the tenant already has
// its most generations queued or running.
var ErrGenerationLimit = errors.New("tenant generation limit reached")

// NewGenerationID draws a generation id.
func NewGenerationID() string { return "gen_" + randomToken() }

const generationColumns = `g.id, g.project_id, g.tenant_id, g.mode, g.seed_ruleset_id, g.model, g.owner_queue,
coalesce(g.river_job_id, 0), g.state, coalesce(g.outcome, ''), g.stage, g.round, g.tests_passing, g.tests_total,
g.prompt_tokens, g.tokens_used, coalesce(g.error_reason, ''), coalesce(g.error_retryable, false),
coalesce(g.error_message, ''), g.result, g.created_at, g.started_at, g.finished_at, g.released_at`

func scanGeneration(row pgx.Row) (Generation, error) {
	var g Generation
	err := row.Scan(&g.ID, &g.ProjectID, &g.TenantID, &g.Mode, &g.SeedRulesetID, &g.Model, &g.OwnerQueue,
		&g.RiverJobID, &g.State, &g.Outcome, &g.Stage, &g.Round, &g.TestsPassing, &g.TestsTotal,
		&g.PromptTokens, &g.TokensUsed, &g.ErrorReason, &g.ErrorRetryable, &g.ErrorMessage, &g.Result,
		&g.CreatedAt, &g.StartedAt, &g.FinishedAt, &g.ReleasedAt)
	return g, err
}

const (
	sqlInsertGeneration = `
INSERT INTO generations AS g (id, project_id, tenant_id, mode, seed_ruleset_id, model, owner_queue, prompt_tokens, tests_total)
SELECT $1, p.id, p.tenant_id, $4, $5, $6, $7, $8, $9 FROM projects p WHERE p.id = $2 AND p.tenant_id = $3
RETURNING ` + generationColumns

	// The tenant's active generations, through its projects: both steps
	// are indexed (projects by tenant, active generations by project).
	sqlCountActiveGenerations = `
SELECT count(*) FROM generations g JOIN projects p ON p.id = g.project_id
WHERE p.tenant_id = $1 AND g.state IN ('queued', 'running')`

	sqlSetRiverJob = `UPDATE generations SET river_job_id = $2 WHERE id = $1`

	sqlGeneration = `SELECT ` + generationColumns + ` FROM generations g WHERE g.id = $1 AND g.project_id = $2 AND g.tenant_id = $3`

	sqlGenerationByID = `SELECT ` + generationColumns + ` FROM generations g WHERE g.id = $1`

	sqlLatestGeneration = `
SELECT ` + generationColumns + ` FROM generations g WHERE g.project_id = $1 AND g.tenant_id = $2
ORDER BY g.created_at DESC, g.id DESC LIMIT 1`

	sqlGenerationRunning = `
UPDATE generations g SET state = 'running', started_at = now(), updated_at = now()
WHERE g.id = $1 AND g.state = 'queued'
RETURNING ` + generationColumns

	sqlGenerationProgress = `
UPDATE generations SET stage = $2, round = $3, tests_passing = $4, tests_total = $5, tokens_used = $6, updated_at = now()
WHERE id = $1 AND state IN ('queued', 'running')`

	sqlFinishGeneration = `
UPDATE generations g SET state = $2, outcome = $3, error_reason = nullif($4, ''), error_retryable = $5,
    error_message = nullif($6, ''), result = $7, finished_at = now(), updated_at = now()
WHERE g.id = $1 AND g.state IN ('queued', 'running')
RETURNING ` + generationColumns

	sqlReleaseGeneration = `UPDATE generations SET released_at = now() WHERE id = $1`

	sqlHeartbeat = `
INSERT INTO generation_owners (queue, heartbeat_at) VALUES ($1, now())
ON CONFLICT (queue) DO UPDATE SET heartbeat_at = now()`

	sqlForgetOwner = `DELETE FROM generation_owners WHERE queue = $1`

	// An active generation whose owner has not said it is alive within
	// the window (or never registered) can never get its key back.
	sqlSweepOrphans = `
UPDATE generations g SET state = 'failed', outcome = 'failed', error_reason = 'provider_key_unavailable',
    error_retryable = true, error_message = 'the process that held the provider key is gone; start the generation again',
    finished_at = now(), updated_at = now()
WHERE g.state IN ('queued', 'running') AND g.owner_queue <> $1 AND NOT EXISTS (
    SELECT 1 FROM generation_owners o WHERE o.queue = g.owner_queue AND o.heartbeat_at > now() - make_interval(secs => $2))
RETURNING ` + generationColumns
)

// StartGeneration records a queued generation of the tenant's project and,
// in the same transaction, enqueues its job (enqueue returns the River job
// id), so a generation is never recorded without its job nor the reverse.
// ErrGenerationActive when one is already queued or running; ErrNotFound
// for a project the tenant does not own. It counts no limit on the
// tenant's generations: StartGenerationWithin does.
func (s *Store) StartGeneration(ctx context.Context, g Generation, enqueue func(context.Context, pgx.Tx) (int64, error)) (Generation, error) {
	return s.StartGenerationWithin(ctx, g, 0, enqueue)
}

// StartGenerationWithin is StartGeneration within a limit: when maxActive
// is positive and the tenant already has that many generations queued or
// running, across its projects, nothing is recorded and the error wraps
// ErrGenerationLimit. The count is taken under the tenant's row lock, in
// the transaction that inserts, so concurrent starts cannot pass it
// together.
func (s *Store) StartGenerationWithin(ctx context.Context, g Generation, maxActive int, enqueue func(context.Context, pgx.Tx) (int64, error)) (Generation, error) {
	if g.ID == "" {
		g.ID = NewGenerationID()
	}
	var out Generation
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if maxActive > 0 {
			if err := lockTenant(ctx, tx, g.TenantID); err != nil {
				return err
			}
		}
		var err error
		out, err = scanGeneration(tx.QueryRow(ctx, sqlInsertGeneration, g.ID, g.ProjectID, g.TenantID, g.Mode, g.SeedRulesetID,
			g.Model, g.OwnerQueue, g.PromptTokens, g.TestsTotal))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return ErrNotFound
		case isUniqueViolation(err, "generations_one_active_idx"):
			return ErrGenerationActive
		case err != nil:
			return fmt.Errorf("insert generation: %w", err)
		}
		if maxActive > 0 {
			// Counted with the new one, so a project's own active
			// generation is reported as that first.
			var active int
			if err := tx.QueryRow(ctx, sqlCountActiveGenerations, g.TenantID).Scan(&active); err != nil {
				return fmt.Errorf("count active generations: %w", err)
			}
			if active > maxActive {
				return fmt.Errorf("%w: the tenant has %d generations queued or running and at most %d are allowed", ErrGenerationLimit, active-1, maxActive)
			}
		}
		out.RiverJobID, err = enqueueJob(ctx, tx, enqueue, sqlSetRiverJob, out.ID)
		return err
	})
	if err != nil {
		return Generation{}, fmt.Errorf("start generation of project %q: %w", g.ProjectID, err)
	}
	return out, nil
}

// ActiveGenerations counts the tenant's generations queued or running,
// across its projects: a cheap look before a start is planned, which
// StartGeneration's own count, under the tenant's lock, then confirms.
func (s *Store) ActiveGenerations(ctx context.Context, tenantID string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, sqlCountActiveGenerations, tenantID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count active generations of tenant %q: %w", tenantID, err)
	}
	return n, nil
}

func (s *Store) generation(ctx context.Context, query string, args ...any) (Generation, error) {
	return queryOne(ctx, s, scanGeneration, "generation", query, args...)
}

// GenerationOf reads a generation of the tenant's project.
func (s *Store) GenerationOf(ctx context.Context, tenantID, projectID, id string) (Generation, error) {
	return s.generation(ctx, sqlGeneration, id, projectID, tenantID)
}

// GenerationByID reads a generation, for the worker that runs it.
func (s *Store) GenerationByID(ctx context.Context, id string) (Generation, error) {
	return s.generation(ctx, sqlGenerationByID, id)
}

// LatestGeneration reads the project's newest generation; ErrNotFound when
// it has none.
func (s *Store) LatestGeneration(ctx context.Context, tenantID, projectID string) (Generation, error) {
	return s.generation(ctx, sqlLatestGeneration, projectID, tenantID)
}

// MarkGenerationRunning moves a queued generation to running; ErrNotFound
// when it is no longer queued (cancelled, or swept).
func (s *Store) MarkGenerationRunning(ctx context.Context, id string) (Generation, error) {
	return s.generation(ctx, sqlGenerationRunning, id)
}

// GenerationProgress records an active generation's progress.
func (s *Store) GenerationProgress(ctx context.Context, id, stage string, round, passing, total, tokens int) error {
	if _, err := s.pool.Exec(ctx, sqlGenerationProgress, id, stage, round, passing, total, tokens); err != nil {
		return fmt.Errorf("record progress of %s: %w", id, err)
	}
	return nil
}

// GenerationEnd is how a generation ended.
type GenerationEnd struct {
	// State is success or failed; Outcome is accepted, failing_tests,
	// failed or cancelled.
	State, Outcome string
	// Reason, Retryable and Message say why it failed.
	Reason    string
	Retryable bool
	Message   string
	// Result is the result JSON; nil when none.
	Result json.RawMessage
}

// FinishGeneration ends an active generation. ErrNotFound when it had
// already ended (a cancel or the sweeper got there first): the first end
// stands.
func (s *Store) FinishGeneration(ctx context.Context, id string, end GenerationEnd) (Generation, error) {
	var result any
	if len(end.Result) > 0 {
		result = string(end.Result)
	}
	return s.generation(ctx, sqlFinishGeneration, id, end.State, end.Outcome, end.Reason, end.Retryable, end.Message, result)
}

// ReleaseGeneration records that the worker running a generation
// returned.
func (s *Store) ReleaseGeneration(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, sqlReleaseGeneration, id); err != nil {
		return fmt.Errorf("release generation %s: %w", id, err)
	}
	return nil
}

// HeartbeatOwner says the process serving queue is alive.
func (s *Store) HeartbeatOwner(ctx context.Context, queue string) error {
	if _, err := s.pool.Exec(ctx, sqlHeartbeat, queue); err != nil {
		return fmt.Errorf("heartbeat %s: %w", queue, err)
	}
	return nil
}

// ForgetOwner removes a stopping process's queue, so its generations are
// failed at the next sweep rather than after the window.
func (s *Store) ForgetOwner(ctx context.Context, queue string) error {
	if _, err := s.pool.Exec(ctx, sqlForgetOwner, queue); err != nil {
		return fmt.Errorf("forget %s: %w", queue, err)
	}
	return nil
}

// SweepOrphans fails, as provider_key_unavailable (retryable), every
// active generation of another process (not self) whose owner has not
// heartbeaten within window, and returns them.
func (s *Store) SweepOrphans(ctx context.Context, self string, window time.Duration) ([]Generation, error) {
	rows, err := s.pool.Query(ctx, sqlSweepOrphans, self, window.Seconds())
	if err != nil {
		return nil, fmt.Errorf("sweep generations: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Generation, error) { return scanGeneration(r) })
	if err != nil {
		return nil, fmt.Errorf("sweep generations: %w", err)
	}
	return out, nil
}

// enqueueJob enqueues the River job of a row just inserted in tx (a
// generation, an impact run) and records its id on the row with setJob
// ($1 the row's id, $2 the job's), so that neither is ever kept without
// the other.
func enqueueJob(ctx context.Context, tx pgx.Tx, enqueue func(context.Context, pgx.Tx) (int64, error), setJob, id string) (int64, error) {
	jobID, err := enqueue(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("enqueue job of %s: %w", id, err)
	}
	if _, err := tx.Exec(ctx, setJob, id, jobID); err != nil {
		return 0, fmt.Errorf("record job of %s: %w", id, err)
	}
	return jobID, nil
}

// queryOne reads the one row query finds with scan: ErrNotFound when there
// is none, else what (a generation, an impact run) names the row in the
// error.
func queryOne[T any](ctx context.Context, s *Store, scan func(pgx.Row) (T, error), what, query string, args ...any) (T, error) {
	v, err := scan(s.pool.QueryRow(ctx, query, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		var zero T
		return zero, ErrNotFound
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("read %s: %w", what, err)
	}
	return v, nil
}

// queryAll reads every row query answers with scan, in the query's order;
// what names the rows in an error ("caseloads of project x").
func queryAll[T any](ctx context.Context, s *Store, scan func(pgx.Row) (T, error), what, query string, args ...any) ([]T, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", what, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", what, err)
	}
	return out, nil
}
