package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/connlimit"
	"github.com/eligo/eligo/api/decide"
	"github.com/eligo/eligo/api/routes"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/decisionlog/spool"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// serveConfig is every setting of `eligo serve`, from flags whose defaults
// come from the environment.
type serveConfig struct {
	// Addr is the listen address (ELIGO_ADDR, default 127.0.0.1:8080).
	Addr string
	// DatabaseURL is the PostgreSQL URL (DATABASE_URL).
	DatabaseURL string
	// Worker runs the background jobs (package worker) in this process too
	// (ELIGO_WORKER, default true); turn it off where `eligo worker`
	// processes run them instead.
	Worker bool
	// ShutdownTimeout bounds how long in-flight requests may run after
	// SIGTERM/SIGINT, and then again how long queued decision records and
	// usage counts may take to be written (ELIGO_SHUTDOWN_TIMEOUT, default
	// 15s).
	ShutdownTimeout time.Duration
	// DrainDelay is how long, after SIGTERM/SIGINT, the server keeps
	// serving while /readyz answers 503 "draining", so that a load
	// balancer takes it out before its connections close; zero shuts
	// down at once.
	DrainDelay time.Duration
	// GCPercent is the garbage collector's GOGC for the process
	// (ELIGO_GOGC, else the Go runtime's own GOGC, else
	// defaultGCPercent); -1 turns the collector off, for use with
	// GOMEMLIMIT only.
	GCPercent int
	// API is the HTTP interface's configuration, by part (core, /decide,
	// catalog, publish).
	API routes.Config
	// MetricsAddr is where the Prometheus metrics are served, on a
	// listener of their own (ELIGO_METRICS_ADDR); empty serves none. It is
	// never the public port: bind it to loopback or a private network.
	MetricsAddr string
	// Conns caps the connections served (ELIGO_MAX_CONNECTIONS,
	// ELIGO_MAX_CONNECTIONS_PER_CLIENT); the trusted proxies are exempt
	// from the per-client cap.
	Conns connlimit.Limits
	// SpoolFallback is set when no decision log mode was asked for: the
	// spool (API.DecisionLog.Spool.Dir) is the default, and when its
	// directory is not writable serve falls back to database mode with a
	// warning. A spool locked by another process is an error whatever the
	// mode.
	SpoolFallback bool
	// DecisionRetention is how long decision records are kept
	// (ELIGO_DECISION_RETENTION, default every one): the hourly
	// decision_partitions job drops the month partitions entirely older.
	DecisionRetention worker.Retention
}

// defaultSpoolDir is where serve spools decision records unless told
// otherwise: beside the development database's .data/pg, relative to the
// working directory (the repository's root under `make run`). A
// deployment sets --decision-spool to a persistent volume of its own per
// replica.
const defaultSpoolDir = ".data/spool"

// parseServeConfig reads flags over environment defaults.
func parseServeConfig(args []string, stderr io.Writer) (serveConfig, error) {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Addr, "addr", envOr("ELIGO_ADDR", "127.0.0.1:8080"), "listen address (env ELIGO_ADDR)")
	fs.StringVar(&cfg.MetricsAddr, "metrics-addr", os.Getenv("ELIGO_METRICS_ADDR"), "serve Prometheus metrics at http://ADDR/metrics on a listener of their own, e.g. 127.0.0.1:9090; empty serves none; never expose it publicly (env ELIGO_METRICS_ADDR)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	origins := fs.String("first-party-origins", os.Getenv("ELIGO_FIRST_PARTY_ORIGINS"), "comma-separated browser origins granted CORS on non-open routes (env ELIGO_FIRST_PARTY_ORIGINS)")
	proxies := fs.String("trusted-proxies", os.Getenv("ELIGO_TRUSTED_PROXIES"), "comma-separated CIDRs of reverse proxies whose X-Forwarded-For, X-Forwarded-Proto and X-Request-Id are trusted; anyone else's request id is replaced (env ELIGO_TRUSTED_PROXIES)")
	bodyLimit := fs.String("keyed-body-limit", envOr("ELIGO_KEYED_BODY_LIMIT", "33554432"), "body cap in bytes for callers with a valid key (env ELIGO_KEYED_BODY_LIMIT)")
	keyCache := fs.String("key-cache-ttl", envOr("ELIGO_KEY_CACHE_TTL", "10s"), "how long an API key's stored row is reused; a revocation normally reaches every process at once by notification, and within this time should one be lost (env ELIGO_KEY_CACHE_TTL)")
	refCache := fs.String("ref-cache-ttl", envOr("ELIGO_REF_CACHE_TTL", catalog.DefaultRefTTL.String()), "how long a resolved slug or id is reused; visibility changes, archives and republishes normally reach every process at once by notification, and within this time should one be lost (env ELIGO_REF_CACHE_TTL)")
	decisionCache := fs.String("decision-cache-ttl", envOr("ELIGO_DECISION_CACHE_TTL", "10m"), "how long /decide serves an identical decision from memory, at most 10m; 0 disables the cache (env ELIGO_DECISION_CACHE_TTL)")
	nsFlags := addNamespaceFlags(fs)
	budgets := fs.String("budgets", os.Getenv("ELIGO_BUDGETS"), "comma-separated rolling 24-hour budget overrides, tier.class=n, e.g. anonymous.decide=500,pro.generate=1000 (env ELIGO_BUDGETS)")
	fs.BoolVar(&cfg.Worker, "worker", envOr("ELIGO_WORKER", "true") == "true", "also run the background jobs in this process (env ELIGO_WORKER)")
	shutdown := fs.String("shutdown-timeout", envOr("ELIGO_SHUTDOWN_TIMEOUT", "15s"), "grace period for in-flight requests at shutdown (env ELIGO_SHUTDOWN_TIMEOUT)")
	drain := fs.String("drain-delay", envOr("ELIGO_DRAIN_DELAY", "0s"), "at SIGTERM, how long /readyz answers 503 draining while requests are still served, before the shutdown starts: set it above the load balancer's time to take a failing replica out (env ELIGO_DRAIN_DELAY)")
	fs.StringVar(&cfg.API.Generation.BaseURL, "model-base-url", envOr("ELIGO_MODEL_BASE_URL", llm.DefaultBaseURL), "OpenAI-compatible API that generation calls with the caller's key: the provider's, or your own vLLM, Ollama or llama.cpp server (env ELIGO_MODEL_BASE_URL)")
	models := fs.String("models", os.Getenv("ELIGO_MODELS"), "the models generation offers, name:context_window[:encoding],...; the first is the default (env ELIGO_MODELS; default the built-in table)")
	modelTimeout := fs.String("model-timeout", envOr("ELIGO_MODEL_TIMEOUT", "5m"), "bound on one model call (env ELIGO_MODEL_TIMEOUT)")
	gogc := fs.String("gogc", envOr("ELIGO_GOGC", envOr("GOGC", strconv.Itoa(defaultGCPercent))), "garbage collector target percentage, as Go's GOGC; GOMEMLIMIT still caps the heap (env ELIGO_GOGC)")
	maxConns := fs.String("max-connections", envOr("ELIGO_MAX_CONNECTIONS", "4096"), "connections served at once; more are answered 503 too_many_connections, health probes still served (env ELIGO_MAX_CONNECTIONS)")
	maxPerClient := fs.String("max-connections-per-client", envOr("ELIGO_MAX_CONNECTIONS_PER_CLIENT", "256"), "connections one client address may hold; trusted proxies are exempt (env ELIGO_MAX_CONNECTIONS_PER_CLIENT)")
	logMode := fs.String("decision-log-mode", os.Getenv("ELIGO_DECISION_LOG_MODE"), "spool: a decision is answered once its record is in the local spool (--decision-spool), which ships records to the database in batches; database: once its record is committed in the database (for a deployment without a writable disk); buffered: once queued in memory (the last moments' records are lost if the process is killed). Default spool, or database when the spool directory is not writable (env ELIGO_DECISION_LOG_MODE)")
	fs.StringVar(&cfg.API.DecisionLog.Spool.Dir, "decision-spool", envOr("ELIGO_DECISION_SPOOL", defaultSpoolDir), "the decision spool's directory, one per serve process (locked while it runs) on a persistent volume; relative to the working directory (env ELIGO_DECISION_SPOOL)")
	spoolMax := fs.String("decision-spool-max-bytes", envOr("ELIGO_DECISION_SPOOL_MAX_BYTES", strconv.Itoa(1<<30)), "bound on the decision spool's size on disk; when it is full, /decide answers 503 decision_log_backlogged (env ELIGO_DECISION_SPOOL_MAX_BYTES)")
	fs.BoolVar(&cfg.API.DecisionLog.Spool.Fsync, "decision-spool-fsync", envOr("ELIGO_DECISION_SPOOL_FSYNC", "false") == "true", "flush each spool write to disk before answering, so that records survive a machine crash or power loss, not only a process kill (env ELIGO_DECISION_SPOOL_FSYNC)")
	retention := fs.String("decision-retention", envOr("ELIGO_DECISION_RETENTION", "0"), decisionRetentionUsage)
	bodyTimeout := fs.String("body-timeout", envOr("ELIGO_BODY_TIMEOUT", "30s"), "time a caller has to send a request body, else 408 (env ELIGO_BODY_TIMEOUT)")
	bodyMemory := fs.String("body-memory", envOr("ELIGO_BODY_MEMORY", strconv.Itoa(api.DefaultBodyMemory)), "bytes of request bodies over 64 KiB held in memory at once, whatever the connections; more wait up to 2 s, then 503 server_busy (env ELIGO_BODY_MEMORY)")
	solverSlots := fs.String("solver-slots", envOr("ELIGO_SOLVER_SLOTS", "0"), "heavy runs (reviews, publish analyses, diffs, explanations, uploads' text extraction, impact runs) at once; one tenant holds at most half; 0 means one per core (env ELIGO_SOLVER_SLOTS)")
	smallCount := fs.String("impact-small-count", envOr("ELIGO_IMPACT_SMALL_COUNT", strconv.Itoa(worker.MinSmallCount)), "an impact report shows a count below this as \"fewer than\" it; at least 10 (env ELIGO_IMPACT_SMALL_COUNT)")
	writeTimeout := fs.String("write-timeout", envOr("ELIGO_WRITE_TIMEOUT", "60s"), "time a response may take to be written and read, else the connection is closed (env ELIGO_WRITE_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	var err error
	if cfg.Conns.Max, err = strconv.Atoi(*maxConns); err != nil || cfg.Conns.Max < 1 {
		return cfg, fmt.Errorf("max connections %q: want a positive count", *maxConns)
	}
	if cfg.Conns.PerClient, err = strconv.Atoi(*maxPerClient); err != nil || cfg.Conns.PerClient < 1 {
		return cfg, fmt.Errorf("max connections per client %q: want a positive count", *maxPerClient)
	}
	if os.Getenv("ELIGO_DECISION_RECORDS") != "" {
		// The removed spelling of the mode: refused rather than ignored, so
		// that a deployment that asked for database mode is not moved to
		// the spool without being told.
		return cfg, errors.New("ELIGO_DECISION_RECORDS is no longer read: set ELIGO_DECISION_LOG_MODE instead (database for durable, buffered for buffered)")
	}
	if err := cfg.setDecisionLogMode(*logMode); err != nil {
		return cfg, err
	}
	if cfg.API.DecisionLog.Spool.MaxBytes, err = strconv.ParseInt(*spoolMax, 10, 64); err != nil || cfg.API.DecisionLog.Spool.MaxBytes < 1<<20 {
		return cfg, fmt.Errorf("decision spool max bytes %q: want a byte count of at least 1048576", *spoolMax)
	}
	if cfg.DecisionRetention, err = worker.ParseRetention(*retention); err != nil {
		return cfg, err
	}
	if cfg.API.API.BodyReadTimeout, err = time.ParseDuration(*bodyTimeout); err != nil || cfg.API.API.BodyReadTimeout <= 0 {
		return cfg, fmt.Errorf("body timeout %q: want a positive duration such as 30s", *bodyTimeout)
	}
	if cfg.API.API.WriteTimeout, err = time.ParseDuration(*writeTimeout); err != nil || cfg.API.API.WriteTimeout <= 0 {
		return cfg, fmt.Errorf("write timeout %q: want a positive duration such as 60s", *writeTimeout)
	}
	if cfg.API.SolverSlots, err = strconv.Atoi(*solverSlots); err != nil || cfg.API.SolverSlots < 0 {
		return cfg, fmt.Errorf("solver slots %q: want a count, or 0 for one per core", *solverSlots)
	}
	if cfg.API.Impact.SmallCount, err = strconv.ParseInt(*smallCount, 10, 64); err != nil || cfg.API.Impact.SmallCount < worker.MinSmallCount {
		return cfg, fmt.Errorf("impact small count %q: want a count of at least %d (it may be raised, never lowered)", *smallCount, worker.MinSmallCount)
	}
	if *models != "" {
		if cfg.API.Generation.Models, err = llm.ParseModels(*models); err != nil {
			return cfg, err
		}
	}
	if cfg.API.Generation.Timeout, err = time.ParseDuration(*modelTimeout); err != nil {
		return cfg, fmt.Errorf("model timeout: %w", err)
	}
	if *gogc == "off" {
		*gogc = "-1"
	}
	if cfg.GCPercent, err = strconv.Atoi(*gogc); err != nil || cfg.GCPercent < -1 {
		return cfg, fmt.Errorf("gogc %q: want a percentage, or off", *gogc)
	}
	for _, o := range splitList(*origins) {
		cfg.API.API.FirstPartyOrigins = append(cfg.API.API.FirstPartyOrigins, strings.TrimSuffix(o, "/"))
	}
	for _, c := range splitList(*proxies) {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return cfg, fmt.Errorf("trusted proxies: %w", err)
		}
		cfg.API.API.TrustedProxies = append(cfg.API.API.TrustedProxies, p)
	}
	cfg.Conns.Exempt = cfg.API.API.TrustedProxies
	limit, err := strconv.ParseInt(*bodyLimit, 10, 64)
	if err != nil || limit < api.AnonymousBodyLimit {
		return cfg, fmt.Errorf("keyed body limit %q: want a byte count of at least %d", *bodyLimit, api.AnonymousBodyLimit)
	}
	cfg.API.API.KeyedBodyLimit = limit
	if cfg.API.API.BodyMemory, err = strconv.ParseInt(*bodyMemory, 10, 64); err != nil || cfg.API.API.BodyMemory < cfg.API.API.KeyedBodyLimit {
		return cfg, fmt.Errorf("body memory %q: want a byte count of at least the keyed body limit", *bodyMemory)
	}
	if cfg.API.API.KeyCacheTTL, err = time.ParseDuration(*keyCache); err != nil || cfg.API.API.KeyCacheTTL < 0 {
		return cfg, fmt.Errorf("key cache TTL %q: want a duration such as 10s (0 disables the cache)", *keyCache)
	}
	if cfg.API.Catalog.RefTTL, err = time.ParseDuration(*refCache); err != nil || cfg.API.Catalog.RefTTL <= 0 {
		return cfg, fmt.Errorf("reference cache TTL %q: want a positive duration such as 2s", *refCache)
	}
	ttl, err := time.ParseDuration(*decisionCache)
	if err != nil || ttl < 0 || ttl > decide.DefaultCacheTTL {
		return cfg, fmt.Errorf("decision cache TTL %q: want a duration from 0 (disabled) to 10m", *decisionCache)
	}
	cfg.API.Decide.CacheTTL = ttl
	if ttl == 0 {
		cfg.API.Decide.CacheTTL = -1
	}
	if cfg.API.API.Metering.Budgets, err = metering.DefaultBudgets().Override(*budgets); err != nil {
		return cfg, err
	}
	if err := nsFlags.apply(&cfg.API.Publish); err != nil {
		return cfg, err
	}
	if cfg.DrainDelay, err = time.ParseDuration(*drain); err != nil || cfg.DrainDelay < 0 {
		return cfg, fmt.Errorf("--drain-delay %q: want a duration of zero or more, like 5s", *drain)
	}
	if cfg.ShutdownTimeout, err = time.ParseDuration(*shutdown); err != nil {
		return cfg, fmt.Errorf("shutdown timeout: %w", err)
	}
	return cfg, nil
}

// setDecisionLogMode reads --decision-log-mode into cfg: the spool by
// default, falling back to database mode when the spool cannot be opened.
func (cfg *serveConfig) setDecisionLogMode(mode string) error {
	switch decisionlog.Mode(mode) {
	case "":
		cfg.SpoolFallback = true
	case decisionlog.ModeSpool:
	case decisionlog.ModeDatabase:
		cfg.API.DecisionLog.Spool.Dir = ""
	case decisionlog.ModeBuffered:
		cfg.API.DecisionLog.Spool.Dir = ""
		cfg.API.DecisionLog.Buffered = true
	default:
		return fmt.Errorf("decision log mode %q: want spool, database or buffered", mode)
	}
	if cfg.API.DecisionLog.Spool.Dir == "" && decisionlog.Mode(mode) == decisionlog.ModeSpool {
		return errors.New("decision log mode spool needs a --decision-spool directory")
	}
	return nil
}

// newServices builds the services over st; with SpoolFallback, a spool
// directory that cannot be opened for any reason but another process's
// lock falls back to database mode, with a warning.
func newServices(st *store.Store, cfg *serveConfig, logger *slog.Logger) (wiring.Services, error) {
	services, err := wiring.NewServices(st, cfg.API.Config)
	if err == nil || !cfg.SpoolFallback || !errors.Is(err, decisionlog.ErrSpoolUnavailable) || errors.Is(err, spool.ErrLocked) {
		return services, err
	}
	logger.Warn("the decision spool cannot be opened; recording decisions in database mode (answered once committed)",
		"dir", cfg.API.DecisionLog.Spool.Dir, "error", err)
	cfg.API.DecisionLog.Spool.Dir = ""
	return wiring.NewServices(st, cfg.API.Config)
}

// runServe migrates the database, then serves the API until ctx ends
// (SIGTERM/SIGINT), then stops accepting, lets in-flight requests finish
// within the shutdown timeout, and closes the pool.
func runServe(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, stderr)
	if err != nil {
		return err
	}
	cfg.API.Clock = clk
	debug.SetGCPercent(cfg.GCPercent)
	logs := newBufferedLog(stderr, logBufferSize, logFlushInterval)
	defer logs.Close()
	logger := slog.New(flushingHandler{slog.NewJSONHandler(logs, nil), logs})
	cfg.API.API.Logger = logger

	pool, res, err := openMigrated(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	logger.Info("migrated", "applied", res.Applied, "river_versions", res.RiverVersions)
	st := store.New(pool)

	cfg.API.Generation.Logger = logger
	services, err := newServices(st, &cfg, logger)
	if err != nil {
		return err
	}
	logger.Info("decision log", "mode", string(services.Decisions.Mode()), "spool", cfg.API.DecisionLog.Spool.Dir,
		"fsync", cfg.API.DecisionLog.Spool.Fsync)
	// This process always works its own generation queue (it alone holds
	// the provider keys of the generations it accepts) and the impact
	// queue (runs need its catalog and CPU gate); with --worker it also
	// works the shared queue and the periodic jobs.
	stopWorker, err := startWorker(ctx, st, worker.Config{Logger: logger, Generator: services.Generator, Impact: services.Impact, GenerationOnly: !cfg.Worker, Metrics: services.Metrics,
		DecisionRetention: cfg.DecisionRetention})
	if err != nil {
		return err
	}
	beat, stopBeat := context.WithCancel(ctx)
	beating := make(chan struct{})
	go func() { defer close(beating); services.Generator.Heartbeat(beat) }()
	// Deferred calls run last in, first out: the worker stops before the
	// pool closes.
	defer func() {
		stopBeat()
		<-beating
		if err := stopWorker(cfg.ShutdownTimeout); err != nil {
			logger.Error("stop worker", "err", err)
		}
	}()

	apiServer := routes.NewWith(cfg.API, services)
	// Other processes' revocations, visibility changes and archives reach
	// this process's caches by notification. The listener outlives the
	// signal: it stops once the last request has been served.
	listenCtx, stopListening := context.WithCancel(context.WithoutCancel(ctx))
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		routes.Listen(listenCtx, apiServer, services, store.ListenConfig{Logger: logger})
	}()
	defer func() { stopListening(); <-listening }()
	srv := &http.Server{
		Handler:           apiServer.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ConnContext:       connlimit.ConnContext,
	}
	if cfg.MetricsAddr != "" {
		stopMetrics, err := serveMetrics(ctx, cfg.MetricsAddr, services.Metrics, logger, stdout)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	ln = connlimit.Listener(ln, cfg.Conns)
	logger.Info("serving", "addr", ln.Addr().String(), "root", api.RootPath)
	fmt.Fprintf(stdout, "eligo serving on http://%s%s\n", ln.Addr(), api.RootPath)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	if cfg.DrainDelay > 0 {
		// Still serving, but no longer ready: the balancer's health check
		// takes this replica out, so that no request is sent on a
		// connection the shutdown below is about to close.
		apiServer.Drain()
		logger.Info("draining", "delay", cfg.DrainDelay.String())
		select {
		case <-time.After(cfg.DrainDelay):
		case err := <-served:
			return fmt.Errorf("serve: %w", err)
		}
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	shutdownErr := srv.Shutdown(shutdownCtx)
	if shutdownErr != nil {
		_ = srv.Close()
	}
	// No request is in flight now: write every queued decision record and
	// usage count before the pool closes, with a grace period of its own,
	// so slow requests at shutdown cannot use up the time the records need.
	flushCtx, cancelFlush := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancelFlush()
	if err := apiServer.Close(flushCtx); err != nil {
		return fmt.Errorf("flush decision records and usage counts: %w", err)
	}
	if shutdownErr != nil {
		return fmt.Errorf("shutdown: %w", shutdownErr)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serveMetrics serves m at http://addr/metrics until stop is called. The
// listener is separate from the API's, so the metrics are never reachable
// on the public port and their scrapes are never metered or logged as
// requests.
func serveMetrics(ctx context.Context, addr string, m *metrics.Metrics, logger *slog.Logger, stdout io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:    slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener", "err", err)
		}
	}()
	logger.Info("serving metrics", "addr", ln.Addr().String())
	fmt.Fprintf(stdout, "eligo metrics on http://%s/metrics\n", ln.Addr())
	return func() {
		_ = srv.Close()
		<-done
	}, nil
}

// defaultGCPercent is the serve process's GOGC unless set otherwise. The
// server's live heap is small (a few MB: the caches and the record queue),
// so Go's default of 100 collects several times a second under load, each
// cycle showing in the tail latency (docs/performance.md#tuning-choices); 400
// collects a quarter as often for a heap of tens of MB. GOMEMLIMIT, read
// by the Go runtime, still bounds the heap.
const defaultGCPercent = 400

// The request log is buffered: one write(2) per log line is a noticeable
// share of the server's CPU on a cached /decide
// (docs/performance.md#tuning-choices). Lines are
// written when the buffer fills, every logFlushInterval, at once for
// warnings and errors, and at shutdown; a crash loses at most one interval
// of info lines.
const (
	logBufferSize    = 64 << 10
	logFlushInterval = 100 * time.Millisecond
)

// bufferedLog collects log lines in memory and writes them in batches. It
// is safe for concurrent use; each Write holds the lock for one whole line,
// so lines never interleave.
type bufferedLog struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// newBufferedLog starts a bufferedLog writing to w at least every interval.
// Close it to write what is left.
func newBufferedLog(w io.Writer, size int, interval time.Duration) *bufferedLog {
	b := &bufferedLog{w: bufio.NewWriterSize(w, size), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				_ = b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

// Write buffers one log line.
func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

// Flush writes every buffered line.
func (b *bufferedLog) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the periodic flush and writes what is buffered. Lines
// logged after Close are still buffered and written by a later Flush.
func (b *bufferedLog) Close() error {
	b.once.Do(func() { close(b.stop) })
	<-b.done
	return b.Flush()
}

// flushingHandler writes warnings and errors out at once, so that a problem
// is visible when it happens rather than up to a flush interval later.
type flushingHandler struct {
	slog.Handler
	log *bufferedLog
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.log.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.log}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.log}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
