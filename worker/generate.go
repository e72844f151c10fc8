package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/store"
)

// A generation runs on River in the process that accepted it: that
// process keeps the caller's provider key in its keyring (memory only) and
// inserts the job into a queue only it works. The key is never in a job's
// arguments, a table, a log line or a status. If the process is gone, no
// other can run the job; the heartbeat sweep fails it as
// provider_key_unavailable (retryable) and the caller starts again.

// GenerateArgs names the generation a job runs; nothing else, and never
// the key.
type GenerateArgs struct {
	GenerationID string `json:"generation_id"`
}

// Kind is the job's name in River's table.
func (GenerateArgs) Kind() string { return "generate" }

// keyring holds provider keys in memory, by generation, until the job
// takes its key.
type keyring struct {
	mu   sync.Mutex
	keys map[string]llm.Key
}

func (k *keyring) put(id string, key llm.Key) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys[id] = key
}

// take removes and returns the key of id.
func (k *keyring) take(id string) (llm.Key, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key, ok := k.keys[id]
	delete(k.keys, id)
	return key, ok
}

// Heartbeat timing: a process says it is alive every HeartbeatInterval;
// one silent for OrphanWindow has lost its keys.
const (
	HeartbeatInterval = 10 * time.Second
	OrphanWindow      = 45 * time.Second
)

// Generator accepts, runs, waits for and cancels generations. Build one
// with NewGenerator and give it to New, which registers its worker and
// queue on the River client.
type Generator struct {
	store     *store.Store
	authoring *authoring.Generation
	model     llm.Model
	models    llm.Models
	queue     string
	keys      *keyring
	logger    *slog.Logger
	client    *river.Client[pgx.Tx]
	// poll is how often Wait reads the generation.
	poll time.Duration
	// metrics counts rounds, tokens and outcomes by model; nil counts
	// nothing.
	metrics *metrics.Metrics
}

// CountWith has g count its generations' rounds, tokens and outcomes, by
// model, in m. Call it before the generator runs any.
func (g *Generator) CountWith(m *metrics.Metrics) { g.metrics = m }

// NewGenerator builds a Generator calling model, with models the allowed
// table. Its queue name is drawn at random, so no other process ever works
// its jobs.
func NewGenerator(st *store.Store, work *authoring.Generation, model llm.Model, models llm.Models, logger *slog.Logger) *Generator {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	if logger == nil {
		logger = slog.Default()
	}
	return &Generator{store: st, authoring: work, model: model, models: models, queue: "generate_" + hex.EncodeToString(b[:]),
		keys: &keyring{keys: map[string]llm.Key{}}, logger: logger, poll: 100 * time.Millisecond}
}

// Queue is this process's generation queue.
func (g *Generator) Queue() string { return g.queue }

// Models is the table of allowed models.
func (g *Generator) Models() llm.Models { return g.models }

// StartRequest asks for a generation.
type StartRequest struct {
	TenantID, ProjectID string
	// Mode is fresh (default) or refine; SeedRulesetID is refine's seed.
	Mode, SeedRulesetID string
	// Model names the model; empty for the table's default.
	Model string
	// Key is the caller's provider key, for this generation only.
	Key llm.Key
}

// Reason codes of the Generator's refusals.
const (
	ReasonModelUnknown       = "model_unknown"
	ReasonProviderKeyMissing = "provider_key_missing"
	ReasonGenerationActive   = "generation_active"
	ReasonNotActive          = "generation_not_active"
	ReasonKeyUnavailable     = "provider_key_unavailable"
	ReasonCancelled          = "cancelled"
	ReasonWorkerUnavailable  = "generation_worker_unavailable"
)

// Start plans a generation (a prompt over the model's budget is refused
// here, before any model call), keeps the key in memory and enqueues the
// job on this process's queue.
func (g *Generator) Start(ctx context.Context, req StartRequest) (store.Generation, error) {
	info, err := g.resolve(req.Model, req.Key)
	if err != nil {
		return store.Generation{}, err
	}
	if g.client == nil {
		return store.Generation{}, &authoring.RefusedError{Kind: authoring.Conflict, Reason: ReasonWorkerUnavailable,
			Message: "This server runs no generation worker."}
	}
	if req.Mode == "" {
		req.Mode = authoring.ModeFresh
	}
	if err := g.authoring.GenerationSlot(ctx, req.TenantID); err != nil {
		return store.Generation{}, err
	}
	plan, err := g.authoring.PlanGeneration(ctx, req.TenantID, req.ProjectID,
		authoring.GenerateRequest{Mode: req.Mode, SeedRulesetID: req.SeedRulesetID, Model: info})
	if err != nil {
		return store.Generation{}, err
	}
	id := store.NewGenerationID()
	g.keys.put(id, req.Key)
	gen, err := g.store.StartGenerationWithin(ctx, store.Generation{ID: id, ProjectID: req.ProjectID, TenantID: req.TenantID,
		Mode: req.Mode, SeedRulesetID: req.SeedRulesetID, Model: info.Name, OwnerQueue: g.queue,
		PromptTokens: plan.PromptTokens, TestsTotal: plan.TestsTotal()}, g.authoring.Limits().MaxActiveGenerations,
		func(ctx context.Context, tx pgx.Tx) (int64, error) {
			res, err := g.client.InsertTx(ctx, tx, GenerateArgs{GenerationID: id}, &river.InsertOpts{Queue: g.queue, MaxAttempts: 1})
			if err != nil {
				return 0, err
			}
			return res.Job.ID, nil
		})
	if err != nil {
		g.keys.take(id)
	}
	if errors.Is(err, store.ErrGenerationLimit) {
		return gen, g.authoring.GenerationLimitRefusal(err)
	}
	if errors.Is(err, store.ErrGenerationActive) {
		return gen, &authoring.RefusedError{Kind: authoring.Conflict, Reason: ReasonGenerationActive,
			Message: "The project already has a generation queued or running; read GET /projects/{id}/status, and cancel it only if you mean to."}
	}
	return gen, err
}

// Wait returns the generation once it has ended, or as it stands when ctx
// ends first.
func (g *Generator) Wait(ctx context.Context, tenantID, projectID, id string) (store.Generation, error) {
	t := time.NewTicker(g.poll)
	defer t.Stop()
	for {
		gen, err := g.store.GenerationOf(context.WithoutCancel(ctx), tenantID, projectID, id)
		if err != nil || !gen.Active() {
			return gen, err
		}
		select {
		case <-ctx.Done():
			return gen, nil
		case <-t.C:
		}
	}
}

// Cancel ends the project's active generation id as failed (outcome
// cancelled), releasing the project, and stops its job. already is true
// when id was cancelled before; a generation that ended otherwise, or an
// id that is not the active one, is a 409 generation_not_active.
func (g *Generator) Cancel(ctx context.Context, tenantID, projectID, id string) (gen store.Generation, already bool, err error) {
	gen, err = g.store.GenerationOf(ctx, tenantID, projectID, id)
	if err != nil {
		return gen, false, err
	}
	if gen.Active() {
		ended, err := g.store.FinishGeneration(ctx, id, store.GenerationEnd{State: store.GenerationFailed, Outcome: ReasonCancelled,
			Reason: ReasonCancelled, Message: "cancelled by the caller"})
		switch {
		case err == nil:
			if g.client != nil && gen.RiverJobID != 0 {
				if _, err := g.client.JobCancel(ctx, gen.RiverJobID); err != nil && !errors.Is(err, river.ErrNotFound) {
					g.logger.WarnContext(ctx, "cancel generation job", "generation", id, "err", err)
				}
			}
			g.keys.take(id)
			return ended, false, nil
		case !errors.Is(err, store.ErrNotFound):
			return gen, false, err
		}
		// It ended meanwhile: judge the end.
		if gen, err = g.store.GenerationOf(ctx, tenantID, projectID, id); err != nil {
			return gen, false, err
		}
	}
	if gen.Outcome == ReasonCancelled {
		return gen, true, nil
	}
	return gen, false, &authoring.RefusedError{Kind: authoring.Conflict, Reason: ReasonNotActive,
		Message: fmt.Sprintf("Generation %s is not active (it ended %s); there is nothing to cancel.", id, gen.Outcome)}
}

// Heartbeat says this process is alive every HeartbeatInterval, and fails
// the generations of processes that have gone quiet, until ctx ends; then
// it forgets this process, so its own unfinished generations are failed
// by the others at once.
func (g *Generator) Heartbeat(ctx context.Context) {
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		g.beat(ctx)
		select {
		case <-ctx.Done():
			if err := g.store.ForgetOwner(context.WithoutCancel(ctx), g.queue); err != nil {
				g.logger.Warn("forget generation queue", "err", err)
			}
			return
		case <-t.C:
		}
	}
}

func (g *Generator) beat(ctx context.Context) {
	if err := g.store.HeartbeatOwner(ctx, g.queue); err != nil && ctx.Err() == nil {
		g.logger.WarnContext(ctx, "generation heartbeat", "err", err)
	}
	swept, err := g.store.SweepOrphans(ctx, g.queue, OrphanWindow)
	if err != nil && ctx.Err() == nil {
		g.logger.WarnContext(ctx, "sweep generations", "err", err)
	}
	for _, gen := range swept {
		g.logger.InfoContext(ctx, "generation orphaned", "generation", gen.ID, "queue", gen.OwnerQueue)
	}
}

// GenerateWorker runs generation jobs with the keys in its Generator's
// keyring.
type GenerateWorker struct {
	river.WorkerDefaults[GenerateArgs]
	gen *Generator
}

// Timeout bounds a whole generation: every round's model call and check.
func (w *GenerateWorker) Timeout(*river.Job[GenerateArgs]) time.Duration { return 15 * time.Minute }

// Work runs one generation. It never asks River to retry: a failed
// generation records why, and the caller decides whether to start again.
func (w *GenerateWorker) Work(ctx context.Context, job *river.Job[GenerateArgs]) error {
	g, id := w.gen, job.Args.GenerationID
	detached := context.WithoutCancel(ctx)
	defer func() {
		if err := g.store.ReleaseGeneration(detached, id); err != nil {
			g.logger.Warn("release generation", "generation", id, "err", err)
		}
	}()
	// model is the generation's model once read: a metrics label, from
	// the offered list only (metrics.Other until then).
	model := metrics.Other
	finish := func(end store.GenerationEnd) error {
		if _, err := g.store.FinishGeneration(detached, id, end); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		g.metrics.GenerationEnded(model, end.Outcome)
		return nil
	}
	if err := w.work(ctx, id, &model, finish); err != nil {
		g.logger.Error("generation", "generation", id, "err", err)
		return finish(store.GenerationEnd{State: store.GenerationFailed, Outcome: store.GenerationFailed, Reason: "internal_error", Retryable: true,
			Message: "the generation failed on the server; start it again"})
	}
	return nil
}

// work runs the generation id, ending it through finish; it sets *model
// to the generation's model when it is one of the offered models.
func (w *GenerateWorker) work(ctx context.Context, id string, model *string, finish func(store.GenerationEnd) error) error {
	g, detached := w.gen, context.WithoutCancel(ctx)
	key, ok := g.keys.take(id)
	if !ok {
		return finish(store.GenerationEnd{State: store.GenerationFailed, Outcome: store.GenerationFailed, Reason: ReasonKeyUnavailable, Retryable: true,
			Message: "this process does not hold the provider key; start the generation again"})
	}
	gen, err := g.store.MarkGenerationRunning(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // cancelled or swept before it started
	}
	if err != nil {
		return err
	}
	info, offered := g.models.Lookup(gen.Model)
	if offered {
		*model = info.Name
	}
	round, tokens := 0, 0
	plan, err := g.authoring.PlanGeneration(ctx, gen.TenantID, gen.ProjectID,
		authoring.GenerateRequest{Mode: gen.Mode, SeedRulesetID: gen.SeedRulesetID, Model: info})
	var refused *authoring.RefusedError
	if errors.As(err, &refused) {
		return finish(store.GenerationEnd{State: store.GenerationFailed, Outcome: store.GenerationFailed, Reason: refused.Reason, Message: refused.Message})
	}
	if err != nil {
		return err
	}
	res, err := g.authoring.RunGeneration(ctx, plan, g.model, key, func(p authoring.Progress) {
		if p.Round > round {
			g.metrics.GenerationRound(*model)
			round = p.Round
		}
		g.metrics.GenerationTokens(*model, p.TokensUsed-tokens)
		tokens = max(tokens, p.TokensUsed)
		if err := g.store.GenerationProgress(detached, id, p.Stage, p.Round, p.TestsPassing, p.TestsTotal, p.TokensUsed); err != nil {
			g.logger.Warn("generation progress", "generation", id, "err", err)
		}
	})
	if ctx.Err() != nil {
		return finish(store.GenerationEnd{State: store.GenerationFailed, Outcome: ReasonCancelled, Reason: ReasonCancelled, Message: "the generation was stopped"})
	}
	var failed *authoring.GenerationError
	if errors.As(err, &failed) {
		return finish(store.GenerationEnd{State: store.GenerationFailed, Outcome: store.GenerationFailed, Reason: failed.Reason,
			Retryable: failed.Retryable, Message: failed.Message})
	}
	if err != nil {
		return err
	}
	outcome := "accepted"
	if !res.Accepted {
		outcome = "failing_tests"
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode generation result: %w", err)
	}
	return finish(store.GenerationEnd{State: store.GenerationSuccess, Outcome: outcome, Result: raw})
}

// Discover runs a field or section discovery with the caller's key, now:
// no job, nothing stored.
func (g *Generator) Discover(ctx context.Context, tenantID, projectID, what, model string, key llm.Key) (authoring.Discovery, error) {
	info, err := g.resolve(model, key)
	if err != nil {
		return authoring.Discovery{}, err
	}
	return g.authoring.Discover(ctx, tenantID, projectID, what, info, g.model, key)
}

// resolve checks a request's model and key: the model must be in the
// table (empty takes the default) and the key present. An unknown model
// is quoted back with any credential in it redacted (a provider key sent
// as the model's name is never echoed). There is no
// fallback to another model or to a platform key.
func (g *Generator) resolve(model string, key llm.Key) (llm.ModelInfo, error) {
	if model == "" {
		model = g.models.Default().Name
	}
	info, ok := g.models.Lookup(model)
	if !ok {
		return info, &authoring.RefusedError{Kind: authoring.Unprocessable, Reason: ReasonModelUnknown,
			Message: fmt.Sprintf("Model %q is not offered; choose one of %v.", auth.RedactSecrets(model), g.models.Names())}
	}
	if key.Empty() {
		return info, &authoring.RefusedError{Kind: authoring.Unprocessable, Reason: ReasonProviderKeyMissing,
			Message: "Send your provider key for " + info.Name + " in the X-Provider-Key header or the provider_key member; there is no platform key."}
	}
	return info, nil
}
