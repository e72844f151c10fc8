// Package wiring is the composition root: from one Config it builds every
// long-lived object the HTTP interface, its worker and the command line
// share (the clock, the solver gate, the planner, the catalog, the
// publisher, the authoring workspace's jobs, the generator, the key
// checker, the meter, the decision log and the metrics), and the core
// server over them.
// The binary (through api/routes), the publishing commands, the generation
// benchmark and every HTTP test (api/apitest) build their services here,
// so a test runs what production runs.
//
// It imports no resource package, so that a resource's own tests can
// serve it over these services; api/routes mounts every resource.
package wiring

import (
	"context"
	"log/slog"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/openapi"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/plan"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// Config configures the services and the core, by part. Its zero value is
// the production setting but for where decisions are recorded (database
// mode unless DecisionLog.Spool.Dir is set; `eligo serve` spools by
// default).
type Config struct {
	// API configures the core: origins, proxies, body caps, metering,
	// logging.
	API api.Config
	// DecisionLog tunes the writer of decision records (a decision is
	// answered only once its record is written: in the spool when
	// Spool.Dir is set, else in the table, or queued when Buffered); its
	// Logger defaults to API.Logger.
	DecisionLog decisionlog.Config
	// Catalog tunes reference resolution; its Planner and Metrics are
	// the ones built here.
	Catalog catalog.Config
	// Publish holds the publish rules (the reserved namespace).
	Publish publish.Config
	// Authoring sets the workspace's limits.
	Authoring authoring.Config
	// Generation says where the model is and which models are offered.
	Generation Generation
	// Impact bounds impact runs of caseloads: the tenant's runs under
	// way, a run's time, and the small-count threshold of reports.
	Impact worker.ImpactConfig
	// SolverSlots is how many heavy solver runs (reviews, publish
	// analyses, diffs, explanations, polarity gates) the process runs at
	// once; 0 means one per core (GOMAXPROCS). Others wait their turn
	// within their request's deadline.
	SolverSlots int
	// Clock is the one clock every service reads "today" and "now" from:
	// the default decision date, publication and draft times, key expiry.
	// Nil means the system clock; tests and demos set it (clock.Starting)
	// so that answers do not change as the calendar moves.
	Clock clock.Clock
}

// Generation configures model-backed generation.
type Generation struct {
	// BaseURL is the OpenAI-compatible API the model is reached at: the
	// provider's, or an agency's own vLLM, Ollama or llama.cpp server.
	BaseURL string
	// Models is the table of allowed models; llm.DefaultModels() when
	// empty.
	Models llm.Models
	// Timeout bounds one model call; 0 takes the client's default.
	Timeout time.Duration
	// Logger receives the generator's log lines; API.Logger when nil.
	Logger *slog.Logger
}

// Services are what the resources, the worker and the commands call
// beside the store.
type Services struct {
	// Store is the database.
	Store *store.Store
	// Catalog resolves references for callers.
	Catalog *catalog.Catalog
	// Planner works out /decide's next questions and shortest paths; the
	// catalog's prepared rulesets plan with it.
	Planner *plan.Planner
	// Publisher writes published content.
	Publisher *publish.Publisher
	// Authoring is the authoring workspace's jobs; each resource gets the
	// ones it calls.
	Authoring authoring.Workspace
	// Model is the model client generation calls (Generation.BaseURL).
	Model llm.Model
	// Generator runs generations with Model; give it to worker.New, which
	// attaches the River client that runs its jobs.
	Generator *worker.Generator
	// Impact starts and runs impact runs of caseloads, under Gate; give
	// it to worker.New, which attaches the River client that runs them.
	Impact *worker.ImpactRunner
	// Clock is Config.Clock, or the system clock.
	Clock clock.Clock
	// Gate is the process's bound on heavy solver runs (SolverSlots).
	Gate *bound.Gate
	// Auth checks API keys; Meter counts usage (nil when API.Unmetered).
	// The core serves with them (api.Parts).
	Auth  *auth.Authenticator
	Meter *metering.Meter
	// Decisions writes /decide's records; Close flushes and closes it.
	Decisions *decisionlog.Recorder
	// Metrics counts for operators; the binary serves it on its own
	// listener (--metrics-addr).
	Metrics *metrics.Metrics
}

// metricLabels are the label sets the metrics take from the other
// components: the metering classes and tiers, the job kinds and the
// offered models.
func metricLabels(models llm.Models) metrics.Labels {
	classes := make([]string, len(metering.Classes))
	for i, c := range metering.Classes {
		classes[i] = string(c.Class)
	}
	return metrics.Labels{MeteringClasses: classes, Tiers: metering.Tiers(), JobKinds: worker.Kinds(), Models: models.Names()}
}

// NewServices builds every long-lived object over st and hands each its
// dependencies; the resources only register. A nil st builds services
// for describing the interface only (its OpenAPI documents). Close
// releases what they hold: NewServer arranges it on the server's Close.
func NewServices(st *store.Store, cfg Config) (Services, error) {
	now := clock.Or(cfg.Clock)
	gate := bound.NewGate(cfg.SolverSlots)
	logger := cfg.API.Logger
	if logger == nil {
		logger = slog.Default()
	}

	models := cfg.Generation.Models
	if len(models.Names()) == 0 {
		models = llm.DefaultModels()
	}
	// One set of metrics for the process, exported on --metrics-addr,
	// its label sets read from the components that define them.
	m := metrics.New(metricLabels(models))
	if st != nil {
		m.Register(metrics.PoolCollector(st.Pool()))
	}
	planner := plan.NewPlanner(plan.DefaultCacheSize)
	cfg.Catalog.Metrics, cfg.Catalog.Planner = m, planner
	cat := catalog.New(st, cfg.Catalog)
	release := func() { cat.Close(); planner.Close() }
	cfg.Publish.Clock, cfg.Authoring.Clock = now, now
	cfg.Publish.Gate, cfg.Authoring.Gate = gate, gate
	// Uploads report the budget a generation with the default model is
	// held to, so the two never disagree.
	cfg.Authoring.TokenBudget = models.Default().Budget()
	pub := publish.New(st, cat, cfg.Publish)
	work, err := authoring.New(st, pub, cfg.Authoring)
	if err != nil {
		release()
		return Services{}, err
	}
	if cfg.Generation.Logger == nil {
		cfg.Generation.Logger = logger
	}
	model := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: cfg.Generation.BaseURL, Timeout: cfg.Generation.Timeout})
	gen := worker.NewGenerator(st, work.Generation, model, models, cfg.Generation.Logger)
	gen.CountWith(m)
	var meter *metering.Meter
	if !cfg.API.Unmetered {
		if cfg.API.Metering.Logger == nil {
			cfg.API.Metering.Logger = logger
		}
		meter = metering.New(cfg.API.Metering, st)
	}
	if cfg.DecisionLog.Logger == nil {
		cfg.DecisionLog.Logger = logger
	}
	cfg.DecisionLog.Metrics = m
	decisions, err := decisionlog.Open(st, cfg.DecisionLog)
	if err != nil {
		release()
		return Services{}, err
	}
	m.WatchDecisionLog(func() metrics.DecisionLogLag {
		if sp := decisions.Status().Spool; sp != nil {
			return metrics.DecisionLogLag{Bytes: float64(sp.Bytes), OldestSeconds: sp.OldestAgeSeconds, Shipped: float64(sp.Shipped)}
		}
		return metrics.DecisionLogLag{}
	})
	imp := worker.NewImpactRunner(st, cat, gate, cfg.Impact, logger)
	return Services{Store: st, Catalog: cat, Planner: planner, Publisher: pub, Authoring: work, Model: model, Generator: gen, Impact: imp, Clock: now, Gate: gate,
		Auth:  auth.NewAuthenticator(st, now.Now, cfg.API.KeyCacheTTL),
		Meter: meter, Decisions: decisions, Metrics: m}, nil
}

// Close writes the decision records still queued or spooled (within
// ctx), then frees the catalog's and the planner's solver state. The
// services are not used afterwards.
func (sv Services) Close(ctx context.Context) error {
	defer sv.Planner.Close()
	defer sv.Catalog.Close()
	return sv.Decisions.Close(ctx)
}

// NewServer builds the core server over sv as the binary serves it: the
// published schema names, sv's key checker, meter and metrics, the
// operations mount registers, the OpenAPI documents, the decision log in
// /readyz (in spool mode /readyz answers degraded, not failing, while the
// database is away, since /decide still answers), and sv's Close on the
// server's Close.
func NewServer(cfg api.Config, sv Services, mount func(*api.Server)) *api.Server {
	cfg.SchemaNamer = openapi.SchemaName
	s := api.New(cfg, sv.Store, api.Parts{Auth: sv.Auth, Meter: sv.Meter, Metrics: sv.Metrics})
	mount(s)
	openapi.Mount(s)
	s.ReportReadiness("decision_log", func() any { return sv.Decisions.Status() })
	if sv.Decisions.Mode() == decisionlog.ModeSpool {
		s.ServesWithoutDatabase()
	}
	s.OnClose(sv.Close)
	return s
}
