// Package routes is the one list of the HTTP interface's resources: it
// builds the services they share (the catalog and the publisher) and
// mounts every resource on an api.Server. The binary serves what New
// returns; the OpenAPI documents and generated clients come from it too.
package routes

import (
	"context"
	"log/slog"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/decide"
	"github.com/eligo/eligo/api/openapi"
	"github.com/eligo/eligo/api/projects"
	"github.com/eligo/eligo/api/rulebooks"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/signin"
	"github.com/eligo/eligo/api/usage"
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
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/web"
	"github.com/eligo/eligo/worker"
)

// Config is the whole interface's configuration, by part.
type Config struct {
	// API configures the core: origins, proxies, body caps, metering,
	// logging.
	API api.Config
	// Decide tunes /decide's cache.
	Decide decide.Config
	// DecisionLog tunes the writer of decision records (a decision is
	// answered only once its record is written: in the spool when
	// Spool.Dir is set, else in the table, or queued when Buffered); its
	// Logger defaults to API.Logger.
	DecisionLog decisionlog.Config
	// Catalog tunes reference resolution.
	Catalog catalog.Config
	// Publish holds the publish rules (the reserved namespace).
	Publish publish.Config
	// Authoring sets the workspace's limits.
	Authoring authoring.Config
	// Generation says where the model is and which models are offered.
	Generation Generation
	// SolverSlots is how many heavy solver runs (reviews, publish
	// analyses, diffs, explanations, polarity gates) the process runs at
	// once; 0 means one per core (GOMAXPROCS). Others wait their turn
	// within their request's deadline.
	SolverSlots int
	// Clock is the one clock every service reads "today" and "now" from:
	// the default decision date, publication and draft times. Nil means
	// the system clock; tests and demos set it (clock.Starting) so that
	// answers do not change as the calendar moves.
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
	// Logger receives the generator's log lines.
	Logger *slog.Logger
}

// Services are what the resources call beside the store.
type Services struct {
	// Store is the database.
	Store *store.Store
	// Catalog resolves references for callers.
	Catalog *catalog.Catalog
	// Publisher writes published content.
	Publisher *publish.Publisher
	// Authoring is the authoring workspace's jobs; each resource gets the
	// ones it calls.
	Authoring authoring.Workspace
	// Generator runs generations; give it to worker.New, which attaches
	// the River client that runs its jobs.
	Generator *worker.Generator
	// Clock is Config.Clock, or the system clock.
	Clock clock.Clock
	// Gate is the process's bound on heavy solver runs (SolverSlots).
	Gate *bound.Gate
	// Auth checks API keys; Meter counts usage (nil when API.Unmetered).
	// The core serves with them (api.Parts).
	Auth  *auth.Authenticator
	Meter *metering.Meter
	// Decisions writes /decide's records; closing the server flushes and
	// closes it. (The catalog's prepared rulesets plan next questions.)
	Decisions *decisionlog.Recorder
	// Metrics counts for operators; the binary serves it on its own
	// listener (--metrics-addr). Nil counts nothing.
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

// NewServices is the composition root: it builds every long-lived object
// over st (the clock, the solver gate, the catalog, the publisher, the
// authoring workspace's jobs, the generator, the key checker, the meter, the
// decision log and the metrics) and hands each its dependencies; the
// resources only register. The catalog, the decision log and the planner
// hold state to release: New and NewWith arrange it on the server's Close.
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
	cfg.Catalog.Metrics = m
	cat := catalog.New(st, cfg.Catalog)
	cfg.Publish.Clock, cfg.Authoring.Clock = now, now
	cfg.Publish.Gate, cfg.Authoring.Gate = gate, gate
	// Uploads report the budget a generation with the default model is
	// held to, so the two never disagree.
	cfg.Authoring.TokenBudget = models.Default().Budget()
	pub := publish.New(st, cat, cfg.Publish)
	work, err := authoring.New(st, pub, cfg.Authoring)
	if err != nil {
		cat.Close()
		return Services{}, err
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
		cat.Close()
		return Services{}, err
	}
	m.WatchDecisionLog(func() metrics.DecisionLogLag {
		if sp := decisions.Status().Spool; sp != nil {
			return metrics.DecisionLogLag{Bytes: float64(sp.Bytes), OldestSeconds: sp.OldestAgeSeconds, Shipped: float64(sp.Shipped)}
		}
		return metrics.DecisionLogLag{}
	})
	return Services{Store: st, Catalog: cat, Publisher: pub, Authoring: work, Generator: gen, Clock: now, Gate: gate,
		Auth:  auth.NewAuthenticator(st, now.Now, cfg.API.KeyCacheTTL),
		Meter: meter, Decisions: decisions, Metrics: m}, nil
}

// Mount registers every resource on s, and the web console.
func Mount(s *api.Server, sv Services, cfg Config) {
	rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
	rulebooks.Register(s, rulebooks.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
	decide.Register(s, decide.Deps{Catalog: sv.Catalog, Decisions: sv.Decisions, Clock: sv.Clock, Metrics: sv.Metrics}, cfg.Decide)
	projects.Register(s, projects.Deps{Authoring: sv.Authoring, Generator: sv.Generator, Catalog: sv.Catalog, Gate: sv.Gate, Clock: sv.Clock})
	usage.Register(s)
	// The web console at "/": a page, not an operation, and its sign-in.
	signin.ServeSessions(s)
	pages := web.New()
	for _, pattern := range pages.Patterns() {
		s.Page(pattern, pages)
	}
}

// New builds the whole interface over st: the core, the services and every
// resource. Closing the server also closes the services.
func New(cfg Config, st *store.Store) (*api.Server, error) {
	sv, err := NewServices(st, cfg)
	if err != nil {
		return nil, err
	}
	return NewWith(cfg, sv), nil
}

// NewWith builds the interface over services already built (the binary
// first attaches the generator to its River client). Closing the server
// also closes the services.
func NewWith(cfg Config, sv Services) *api.Server {
	apiCfg := cfg.API
	apiCfg.SchemaNamer = openapi.SchemaName
	s := api.New(apiCfg, sv.Store, api.Parts{Auth: sv.Auth, Meter: sv.Meter, Metrics: sv.Metrics})
	Mount(s, sv, cfg)
	openapi.Mount(s)
	s.ReportReadiness("decision_log", func() any { return sv.Decisions.Status() })
	if sv.Decisions.Mode() == decisionlog.ModeSpool {
		s.ServesWithoutDatabase()
	}
	s.OnClose(func(ctx context.Context) error {
		defer sv.Catalog.Close()
		return sv.Decisions.Close(ctx)
	})
	return s
}
