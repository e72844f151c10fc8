// Package api is the core of Eligo's HTTP interface: the server rooted at
// /api/v1/public, the Route declaration every operation is registered with
// (scope, open surface, metering class and price, the errors it can
// answer), and the middleware that reads those declarations: request ids
// and logs, CORS, authentication, body caps, metering, and the mapping of
// errors to the bodies of docs/api.md#errors.
//
// The resources live in subpackages (api/decide, api/rulesets, api/usage),
// each with a Register function; api/routes mounts them all. The core
// imports none of them, and they call the services (catalog, publish,
// store) for everything that is not HTTP.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"golang.org/x/sync/semaphore"

	"github.com/eligo/eligo/api/proxy"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/store"
)

// RootPath is the versioned API root; every operation path is relative to
// it.
const RootPath = "/api/v1/public"

// AnonymousBodyLimit is the cap on an anonymous request body (2 MB,
// docs/api.md#keys-and-access).
// A larger body is refused with 413 before it is read.
const AnonymousBodyLimit = 2 << 20

// Body memory: bodies of at most SmallBody bytes are read without a
// reservation (4,096 connections of them hold at most 256 MiB); larger
// ones reserve their size from Config.BodyMemory, DefaultBodyMemory unless
// set, waiting at most BodyWait.
const (
	SmallBody         = 64 << 10
	DefaultBodyMemory = 512 << 20
	BodyWait          = 2 * time.Second
)

// Config is what the API needs from its environment.
type Config struct {
	// Clock is the clock the composition root builds the authenticator
	// with (key expiry); nil means the system clock. It hands every
	// service the same one (wiring.Config.Clock).
	Clock clock.Clock
	// SchemaNamer names the schemas of the generated document (huma's
	// registry namer); nil means huma's default, the Go type's name. The
	// composition root sets openapi.SchemaName, the published names.
	SchemaNamer func(t reflect.Type, hint string) string
	// FirstPartyOrigins are the browser origins (scheme://host[:port])
	// granted CORS, with credentials, on routes outside the open surface.
	FirstPartyOrigins []string
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-For is believed when working out the client address.
	// Empty means the TCP peer is the client.
	TrustedProxies proxy.Trusted
	// KeyedBodyLimit caps request bodies from callers with a valid key;
	// default 32 MiB.
	KeyedBodyLimit int64
	// BodyReadTimeout is how long a caller has to send a request's body
	// once its headers are read; default 30s. A body still arriving then
	// is answered 408 and the connection closed.
	BodyReadTimeout time.Duration
	// WriteTimeout is how long a response may take to be written (and so
	// read by the caller) once the request's headers are read; default
	// 60s. A caller that does not read its answers loses its connection.
	WriteTimeout time.Duration
	// WorkTimeout bounds the work of one request: its context ends then,
	// work still under way stops without committing, and the caller is
	// answered 503 work_deadline_exceeded with a Retry-After, so that an
	// answer always arrives before the write timeout closes the
	// connection (a caller that saw no answer would retry work that did
	// commit). Default WriteTimeout less a quarter of it, at most 10s
	// less (50s of the default 60s).
	WorkTimeout time.Duration
	// BodyMemory bounds the bytes of request bodies over SmallBody held
	// in memory at once, whatever the connections: each such body
	// reserves its size (its Content-Length, else the caller's cap) before
	// it is read, and one that cannot within BodyWait is answered 503
	// server_busy. Bodies of at most SmallBody (a /decide, a draft) pass
	// without a reservation. Default DefaultBodyMemory; it must hold the
	// largest body cap.
	BodyMemory int64
	// KeyCacheTTL is how long an API key's stored row is reused before it
	// is read again. A revocation reaches the process at once when its
	// invalidation listener runs (api/routes.Listen), and within this time
	// otherwise. Zero reads the row on every request.
	KeyCacheTTL time.Duration
	// Version is reported in the OpenAPI document.
	Version string
	// Unmetered turns usage metering off: no request is counted or
	// refused and no X-RateLimit-* header is sent; GET /usage answers 503.
	// For deployments that meter at another layer, and for measuring what
	// metering itself costs.
	Unmetered bool
	// Metering sets budgets and counter timing; the zero value gives the
	// budgets of docs/metering.md (see package metering).
	Metering metering.Config
	// Logger receives one line per request; slog.Default() when nil.
	Logger *slog.Logger
}

// Server is the HTTP core. Build it with New, add operations with Register
// (each resource package has a Register that does), serve Handler, and
// Close it after the HTTP server has shut down.
type Server struct {
	cfg   Config
	store *store.Store
	auth  *auth.Authenticator
	log   *slog.Logger
	mux   *http.ServeMux
	huma  huma.API
	// routes are the declarations by ServeMux pattern: how the middleware
	// finds the declaration of an incoming request.
	routes map[string]Route
	// open lists the registered open-surface operations in registration
	// order (OpenSurface).
	open []Endpoint
	// jsonBodies are the patterns of the operations that read their JSON
	// body raw (DocumentRequestBody): the middleware checks their
	// Content-Type, which huma checks for every other operation.
	jsonBodies map[string]bool
	// bodyMembers are the top-level member names of each operation's
	// request body, by pattern, for the 422's "did you mean".
	bodyMembers map[string][]string
	// bodySchemas are the JSON schemas of the operations' request bodies,
	// by pattern: what checkBody walks a body against before it is decoded.
	bodySchemas map[string]*huma.Schema
	// meter counts every metered request; Close writes its last counts.
	meter *metering.Meter
	// metrics counts for operators; nil counts nothing.
	metrics *metrics.Metrics
	// bodies is the process's budget of body bytes in memory at once
	// (Config.BodyMemory), which every large body reserves its size from.
	bodies *semaphore.Weighted
	// closers are the resources' shutdown steps (OnClose), run by Close
	// in registration order before the meter's last counts are written.
	closers []func(context.Context) error
	// closeOnce makes Close idempotent; closeErr is its result.
	closeOnce sync.Once
	closeErr  error
	// readiness are the members /readyz adds to its answer (ReportReadiness).
	readiness []readinessReport
	// degradable is set by ServesWithoutDatabase: /readyz answers 200
	// "degraded" rather than 503 while the database does not answer.
	degradable bool
	// draining is set by Drain: /readyz answers 503 "draining".
	draining atomic.Bool
}

// readinessReport is one member of /readyz's answer.
type readinessReport struct {
	name   string
	report func() any
}

// Parts are the long-lived objects the core serves with, which the
// composition root (wiring.NewServices, for the binary and every test) builds from the
// Config and hands to New, as it does every service.
type Parts struct {
	// Auth checks API keys (auth.NewAuthenticator with Config.Clock and
	// Config.KeyCacheTTL). Required.
	Auth *auth.Authenticator
	// Meter counts usage (metering.New with Config.Metering); nil when
	// Config.Unmetered. The server writes its last counts on Close.
	Meter *metering.Meter
	// Metrics counts requests and metering outcomes for operators; nil
	// counts nothing.
	Metrics *metrics.Metrics
}

// New builds the core server with the health probes over st and parts
// (package openapi serves the published documents); resources add their operations with
// Register.
func New(cfg Config, st *store.Store, parts Parts) *Server {
	if parts.Auth == nil || (parts.Meter == nil && !cfg.Unmetered) {
		panic("api.New: Parts.Auth is required, and Parts.Meter unless Config.Unmetered")
	}
	useEligoErrors()
	if cfg.KeyedBodyLimit <= 0 {
		cfg.KeyedBodyLimit = 32 << 20
	}
	if cfg.KeyedBodyLimit < AnonymousBodyLimit {
		cfg.KeyedBodyLimit = AnonymousBodyLimit
	}
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = 30 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 60 * time.Second
	}
	if cfg.BodyMemory <= 0 {
		cfg.BodyMemory = DefaultBodyMemory
	}
	cfg.BodyMemory = max(cfg.BodyMemory, cfg.KeyedBodyLimit)
	if cfg.WorkTimeout <= 0 || cfg.WorkTimeout >= cfg.WriteTimeout {
		cfg.WorkTimeout = cfg.WriteTimeout - min(cfg.WriteTimeout/4, 10*time.Second)
	}
	if cfg.Version == "" {
		cfg.Version = "0.1.0"
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &Server{
		cfg:    cfg,
		store:  st,
		auth:   parts.Auth,
		log:    logger,
		mux:    http.NewServeMux(),
		routes: map[string]Route{},

		jsonBodies:  map[string]bool{},
		bodyMembers: map[string][]string{},
		bodySchemas: map[string]*huma.Schema{},
		bodies:      semaphore.NewWeighted(cfg.BodyMemory),
	}
	if !cfg.Unmetered {
		s.meter = parts.Meter
	}
	s.metrics = parts.Metrics
	s.huma = humago.NewWithPrefix(s.mux, RootPath, s.humaConfig())
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	return s
}

// OnClose adds a shutdown step that Close runs, in the order added, before
// it writes the meter's last counts: a resource's record writer flushing
// its queue, a cache freeing solver state.
func (s *Server) OnClose(step func(context.Context) error) {
	s.closers = append(s.closers, step)
}

// ReportReadiness adds a member name to /readyz's answer, holding what
// report returns at each probe: how a resource with state of its own (the
// decision log's mode, state and lag) makes it visible to operators. Call
// it before serving.
func (s *Server) ReportReadiness(name string, report func() any) {
	s.readiness = append(s.readiness, readinessReport{name, report})
}

// ServesWithoutDatabase says that the server keeps serving decisions while
// the database is unreachable (the decision log spools them; metering and
// key checks degrade): /readyz then answers 200 with status "degraded"
// instead of 503, so that a load balancer keeps sending it traffic rather
// than taking every replica out at once. Call it before serving.
func (s *Server) ServesWithoutDatabase() { s.degradable = true }

// Drain makes /readyz answer 503 with status "draining" from now on,
// while every other route serves as before: the first step of a graceful
// shutdown, so that a load balancer stops sending requests before the
// server closes its connections.
func (s *Server) Drain() { s.draining.Store(true) }

// Close runs the shutdown steps (OnClose), then writes the meter's pending
// counts. Call it after the HTTP server has shut down (no request in
// flight); if ctx ends first, the steps report what they lost. Later calls
// return the first call's result.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		errs := make([]error, 0, len(s.closers)+1)
		for _, step := range s.closers {
			errs = append(errs, step(ctx))
		}
		if s.meter != nil {
			errs = append(errs, s.meter.Close(ctx))
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// Meter is the server's usage meter (its budgets, slack and usage
// reports), or nil when the server is Unmetered.
func (s *Server) Meter() *metering.Meter { return s.meter }

// Authenticator is the server's key checker, for the process's cache
// invalidation listener: a key revoked by any process is dropped from its
// cache (auth.Authenticator.InvalidateKey).
func (s *Server) Authenticator() *auth.Authenticator { return s.auth }

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
	if s.cfg.SchemaNamer != nil {
		cfg.Components.Schemas = huma.NewMapRegistry("#/components/schemas/", s.cfg.SchemaNamer)
	}
	// No $schema member in bodies and no Link header.
	cfg.CreateHooks = nil
	// The documents and the reference page are served by package
	// openapi: the published form of the document, and a page whose
	// assets are embedded.
	cfg.OpenAPIPath = ""
	cfg.DocsPath = ""
	// The description and the clients generated from it are Apache-2.0,
	// so users may generate and ship clients; the server is not. 3.1 names
	// the licence by its SPDX identifier (never beside a url); the 3.0
	// form gets the url (see downgrade).
	cfg.Info.Contact = &huma.Contact{Name: "Eligo API support"}
	cfg.Info.License = &huma.License{Name: "Apache 2.0", Identifier: "Apache-2.0"}
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"apiKey": {Type: "apiKey", In: "header", Name: "x-api-key",
			Description: "An Eligo API key (elg_<prefix>_<secret>). Scopes are listed per operation."},
	}
	return cfg
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	body := map[string]any{"status": "ready"}
	for _, r := range s.readiness {
		body[r.name] = r.report()
	}
	if s.draining.Load() {
		body["status"] = "draining"
		writeJSON(w, http.StatusServiceUnavailable, body)
		return
	}
	if err := s.store.Ping(ctx); err != nil {
		Log(r.Context()).WarnContext(r.Context(), "not ready", "error", err)
		if s.degradable {
			body["status"] = "degraded"
			body["database"] = "unavailable"
			writeJSON(w, http.StatusOK, body)
			return
		}
		body["status"] = "unavailable"
		writeJSON(w, http.StatusServiceUnavailable, body)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
