// Package api is Eligo's HTTP interface: huma operations rooted at
// /api/v1/public, their declarations (scope, open surface, metering class),
// and the middleware that reads those declarations: request ids and logs,
// CORS, authentication, body caps and the mapping of errors to the spec's
// bodies. Each resource lives in its own file and registers its operations
// with Register.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/store"
)

// RootPath is the versioned API root; every operation path is relative to
// it.
const RootPath = "/api/v1/public"

// AnonymousBodyLimit is the spec's cap on an anonymous request body (2 MB).
// A larger body is refused with 413 before it is read.
const AnonymousBodyLimit = 2 << 20

// Config is what the API needs from its environment.
type Config struct {
	// FirstPartyOrigins are the browser origins (scheme://host[:port])
	// granted CORS, with credentials, on routes outside the open surface.
	FirstPartyOrigins []string
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-For is believed when working out the client address.
	// Empty means the TCP peer is the client.
	TrustedProxies []netip.Prefix
	// KeyedBodyLimit caps request bodies from callers with a valid key;
	// default 32 MiB.
	KeyedBodyLimit int64
	// KeyCacheTTL is how long an API key's stored row is reused before it
	// is read again; a revocation reaches this process within that time.
	// Zero reads the row on every request.
	KeyCacheTTL time.Duration
	// Version is reported in the OpenAPI document.
	Version string
	// DecisionCacheTTL is how long /decide serves an identical decision
	// from memory; zero means DefaultDecisionCacheTTL (the spec's 10
	// minutes), negative disables the cache.
	DecisionCacheTTL time.Duration
	// DecisionCacheEntries bounds the decision cache; zero means
	// DefaultDecisionCacheEntries.
	DecisionCacheEntries int
	// DecisionLog tunes the batching writer of decision records.
	DecisionLog decisionlog.Config
	// Metering sets budgets and counter timing; the zero value gives the
	// spec's budgets (see package metering).
	Metering metering.Config
	// Logger receives one line per request; slog.Default() when nil.
	Logger *slog.Logger
}

// Server is the HTTP interface. Build it with New, add operations with
// Register, serve Handler.
type Server struct {
	cfg   Config
	store *store.Store
	auth  *auth.Authenticator
	// catalog resolves ruleset references to compiled rulesets (catalog.go).
	catalog *catalog
	log     *slog.Logger
	mux     *http.ServeMux
	huma    huma.API
	routes  map[string]Route // by ServeMux pattern
	// meter counts every metered request; Close writes its last counts.
	meter *metering.Meter
	// cache holds recent decisions and conversions their first level;
	// both nil when disabled.
	cache       *hashedCache[*decisionCore]
	conversions *hashedCache[*conversion]
	// decisions queues decision records for batched writing; Close
	// flushes it.
	decisions *decisionlog.Recorder
	// planner works out next_question and optimal_path; Close frees it.
	planner *solver.Planner
	// closeOnce makes Close idempotent; closeErr is its result.
	closeOnce sync.Once
	closeErr  error
	open      []Endpoint // OpenSurface; tests of this package add test-only endpoints
}

// New builds the server with the health probes, the OpenAPI documents and
// every resource's operations.
func New(cfg Config, st *store.Store) *Server {
	useEligoErrors()
	if cfg.KeyedBodyLimit <= 0 {
		cfg.KeyedBodyLimit = 32 << 20
	}
	if cfg.KeyedBodyLimit < AnonymousBodyLimit {
		cfg.KeyedBodyLimit = AnonymousBodyLimit
	}
	if cfg.DecisionCacheTTL == 0 {
		cfg.DecisionCacheTTL = DefaultDecisionCacheTTL
	}
	if cfg.DecisionCacheEntries == 0 {
		cfg.DecisionCacheEntries = DefaultDecisionCacheEntries
	}
	if cfg.DecisionLog.Logger == nil {
		cfg.DecisionLog.Logger = cfg.Logger
	}
	if cfg.Version == "" {
		cfg.Version = "0.1.0"
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &Server{
		cfg:     cfg,
		store:   st,
		auth:    auth.NewAuthenticator(st, nil, cfg.KeyCacheTTL),
		catalog: newCatalog(st, refTTL),
		log:     logger,
		mux:     http.NewServeMux(),
		routes:  map[string]Route{},
		open:    OpenSurface,
		cache:   newHashedCache[*decisionCore](cfg.DecisionCacheEntries, cfg.DecisionCacheTTL),
	}
	s.conversions = newHashedCache[*conversion](cfg.DecisionCacheEntries, cfg.DecisionCacheTTL)
	s.decisions = decisionlog.New(st, cfg.DecisionLog)
	s.planner = solver.NewPlanner(planCacheSize)
	if cfg.Metering.Logger == nil {
		cfg.Metering.Logger = logger
	}
	s.meter = metering.New(cfg.Metering, st)
	s.huma = humago.NewWithPrefix(s.mux, RootPath, s.humaConfig())
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.registerOperations()
	return s
}

// registerOperations is the one list of resources. Each resource lives in its
// own file and registers its operations from one method listed here.
func (s *Server) registerOperations() {
	s.registerRulesets()
	s.registerDecide()
	s.registerUsage()
}

// Close writes every queued decision record and stops the record writer,
// then writes the meter's pending counts. Call it after the HTTP server has
// shut down (no request in flight); if ctx ends first, it reports how many
// records were lost. Later calls return the first call's result.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		defer s.planner.Close()
		s.closeErr = errors.Join(s.decisions.Close(ctx), s.meter.Close(ctx))
	})
	return s.closeErr
}

// Handler returns the server's http.Handler: logging and panic recovery
// outermost, then CORS, authentication and body caps, then the routes.
func (s *Server) Handler() http.Handler {
	return s.observe(http.HandlerFunc(s.gate))
}

// OpenAPI returns the generated OpenAPI document.
func (s *Server) OpenAPI() *huma.OpenAPI {
	return s.huma.OpenAPI()
}

func (s *Server) humaConfig() huma.Config {
	cfg := huma.DefaultConfig("Eligo eligibility rules API", s.cfg.Version)
	// No $schema member in bodies and no Link header.
	cfg.CreateHooks = nil
	cfg.OpenAPIPath = "/openapi"
	cfg.Info.Description = apiDescription
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"apiKey": {Type: "apiKey", In: "header", Name: "x-api-key",
			Description: "An Eligo API key (elg_<prefix>_<secret>). Scopes are listed per operation."},
	}
	return cfg
}

var apiDescription = `Eligo evaluates applicants' answers against published, compiled eligibility rulesets and rulebooks, deterministically, with an audit envelope, and lets invited authoring teams turn source text plus test cases into verified rulesets.

## Authentication

Send an API key in the ` + "`x-api-key`" + ` header. Operations outside the open surface need a key carrying the scopes listed on each operation: no key gives 401 ` + "`missing_api_key`" + `, an unknown or revoked key 401 ` + "`invalid_api_key`" + `, an expired key 401 ` + "`api_key_expired`" + `, a key without the scope 403 ` + "`denied_missing_permission`" + `.

## Open surface

These operations serve anonymous callers. A key carrying the operation's scope is used (it can reach the tenant's private objects); any other key sent there is ignored, and the call is served as anonymous. Browsers may call them from any origin, without credentials.

` + openSurfaceText() + `
Every other operation grants CORS only to the deployment's first-party origins.

## Errors

Most errors carry ` + "`detail`" + ` as ` + "`{error, reason_code, message}`" + `. Validation failures are 422 with ` + "`detail`" + ` a list of ` + "`{type, loc, msg, input}`" + `. Not-found lookups carry a plain string ` + "`detail`" + `. A 500 is opaque; quote its ` + "`X-Request-Id`" + ` response header when reporting it. An anonymous request body over 2 MB is refused with 413 before it is read. Each operation lists the error statuses it can answer with, the reason codes of each and its body shapes (components ` + "`ProblemError`, `ValidationError`, `NotFoundError` and, for anonymous 429s, `AnonymousLimited`" + `).
`

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		logFrom(r.Context()).WarnContext(r.Context(), "not ready", "error", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
