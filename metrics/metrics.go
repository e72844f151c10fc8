// Package metrics is the catalogue of what an Eligo process counts for its
// operators, exported in the Prometheus text format on a listener of its
// own (eligo serve --metrics-addr), never on the public port.
//
// Every family is declared here, once, with its name, unit and labels, so
// that the list an operator reads (docs/metrics.md#metrics) and the
// list the process exports are the same list, and so that no label can take
// an unbounded value: every label takes its values from a fixed set (route
// ids, methods, status classes, outcomes, metering classes and tiers, cache
// names, job kinds and states, model names from the offered list), and a
// value outside its set is counted as Other; never a slug, an id, a key, a
// path or a caller's method. Every combination of the known sets is
// exported at zero from the start, so that rate() and alerts over a family
// see it before its first event. The components that count (the API core,
// /decide, the catalog, the decision log, the worker) take a *Metrics from
// the composition root; a nil *Metrics counts nothing, so a component
// built without one (a test, the CLI) needs no stand-in.
package metrics

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every family Eligo itself defines.
const Namespace = "eligo"

// Other is the value a label takes when what was counted lies outside the
// label's fixed set (an invented HTTP method, a model not offered), so that
// no caller can add a series.
const Other = "other"

// Labels are the label sets New cannot know by itself, which the
// composition root reads from the components that define them. A value
// counted that is not in its set is counted as Other; every combination is
// exported at zero from the start.
type Labels struct {
	// MeteringClasses are the metering classes requests are counted
	// under (metering.Classes).
	MeteringClasses []string
	// Tiers are the callers' budget tiers, anonymous included
	// (metering.Tiers).
	Tiers []string
	// JobKinds are the background job kinds (worker.Kinds).
	JobKinds []string
	// Models are the models generation offers.
	Models []string
}

// Values of the labels whose sets Eligo fixes itself.
const (
	// Decision kinds for Decision.
	KindRuleset  = "ruleset"
	KindRulebook = "rulebook"
)

// fixed sets of the labels Eligo defines; never changed after start.
var (
	methodSet         = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}
	outcomeSet        = []string{"eligible", "not_eligible", "undetermined"}
	kindSet           = []string{KindRuleset, KindRulebook}
	hitMissSet        = []string{"hit", "miss"}
	meteringResultSet = []string{"admitted", "refused"}
	cacheSet          = []string{CacheReferences, CacheContent, CacheRulebooks}
	logEventSet       = []string{LogWritten, LogRefused, LogBacklogged}
	jobStateSet       = []string{"completed", "failed", "cancelled", "snoozed"}
	generationEndSet  = []string{"accepted", "failing_tests", "failed", "cancelled"}
)

// oneOf is v when set holds it, and Other otherwise: how every label stays
// within its fixed set whatever a caller passes.
func oneOf(v string, set []string) string {
	if slices.Contains(set, v) {
		return v
	}
	return Other
}

// zero creates every combination of sets' values in vec at zero.
func zero(vec *prometheus.CounterVec, sets ...[]string) {
	values := make([]string, len(sets))
	var walk func(int)
	walk = func(i int) {
		if i == len(sets) {
			vec.WithLabelValues(values...)
			return
		}
		for _, v := range sets[i] {
			values[i] = v
			walk(i + 1)
		}
	}
	walk(0)
}

// Metrics holds the process's metric families and the registry they are
// exported from. Build one per process with New; it is safe for
// concurrent use.
type Metrics struct {
	registry *prometheus.Registry
	labels   Labels

	requests       *prometheus.CounterVec
	requestSeconds *prometheus.HistogramVec

	decisions         *prometheus.CounterVec
	evaluationSeconds prometheus.Histogram
	planningSeconds   prometheus.Histogram

	metering *prometheus.CounterVec

	cacheLookups  *prometheus.CounterVec
	invalidations prometheus.Counter

	logRecords *prometheus.CounterVec

	jobs             *prometheus.CounterVec
	generationRounds *prometheus.CounterVec
	generationTokens *prometheus.CounterVec
	generations      *prometheus.CounterVec
}

// latencyBuckets are the request and evaluation histograms' bounds, in
// seconds: from 50 µs (a cached decision) to 60 s (the write timeout).
var latencyBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// New builds the families, with the Go runtime's and the process's own
// collectors, in a registry of their own (never the global default one),
// and exports every combination of labels' known values at zero.
func New(labels Labels) *Metrics {
	m := &Metrics{registry: prometheus.NewRegistry(), labels: labels}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "http_requests_total",
		Help: "HTTP requests answered, by declared route id (an operation id, a served pattern, or unmatched), method (other outside GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS) and status class."},
		[]string{"route", "method", "code"})
	m.requestSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "http_request_duration_seconds",
		Help: "Time from a request's arrival to its answer's end, by declared route id and method.", Buckets: latencyBuckets},
		[]string{"route", "method"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "decisions_total",
		Help: "Decisions answered by /decide, by outcome, kind (ruleset or rulebook) and whether the decision cache answered (cache: hit or miss)."},
		[]string{"outcome", "kind", "cache"})
	m.evaluationSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "decision_evaluation_seconds",
		Help: "Time the engine took to evaluate a decision's answers (decisions the cache answered are not counted).", Buckets: latencyBuckets})
	m.planningSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "decision_planning_seconds",
		Help: "Time the planner took to work out a decision's next question and shortest path (cached decisions not counted).", Buckets: latencyBuckets})
	m.metering = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "metering_requests_total",
		Help: "Metered requests by class, tier and result (admitted, or refused over the budget)."},
		[]string{"class", "tier", "result"})
	m.cacheLookups = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "cache_lookups_total",
		Help: "Lookups in the process's caches, by cache and result (hit or miss)."},
		[]string{"cache", "result"})
	m.invalidations = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "catalog_invalidations_total",
		Help: "Invalidations the catalog received (its own writes and other processes' notifications)."})
	m.logRecords = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "decision_log_records_total",
		Help: "Decision records by what happened to them: written (durable before the answer: in the spool or the table; in buffered mode, queued), refused (invalid data, never writable) or backlogged (not taken, the decision answered 503: the log was full or did not confirm in time)."},
		[]string{"event"})
	m.jobs = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "jobs_total",
		Help: "Background jobs that ended, by kind and state (completed, failed, cancelled, snoozed)."},
		[]string{"kind", "state"})
	m.generationRounds = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "generation_rounds_total",
		Help: "Generation rounds run (one model call each), by model."},
		[]string{"model"})
	m.generationTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "generation_tokens_total",
		Help: "Tokens generations used (prompt and completion, as the provider reported them), by model."},
		[]string{"model"})
	m.generations = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "generations_total",
		Help: "Generations that ended, by model and outcome (accepted, failing_tests, failed, cancelled)."},
		[]string{"model", "outcome"})
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.requestSeconds, m.decisions, m.evaluationSeconds, m.planningSeconds, m.metering,
		m.cacheLookups, m.invalidations, m.logRecords, m.jobs, m.generationRounds, m.generationTokens, m.generations,
	)
	zero(m.decisions, outcomeSet, kindSet, hitMissSet)
	zero(m.metering, labels.MeteringClasses, labels.Tiers, meteringResultSet)
	zero(m.cacheLookups, cacheSet, hitMissSet)
	zero(m.logRecords, logEventSet)
	zero(m.jobs, labels.JobKinds, jobStateSet)
	zero(m.generationRounds, labels.Models)
	zero(m.generationTokens, labels.Models)
	zero(m.generations, labels.Models, generationEndSet)
	return m
}

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// Register adds a collector of the caller's (the database pool's
// statistics, the decision log's lag) to the registry.
func (m *Metrics) Register(c prometheus.Collector) {
	if m == nil {
		return
	}
	m.registry.MustRegister(c)
}

// Gatherer is the registry, for tests that read what was counted.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.registry }

// Request counts one answered request. route must be a declared route id
// or one of a fixed few names; never a path. method is the request's as
// received: one outside the standard set is counted as Other.
func (m *Metrics) Request(route, method string, status int, took time.Duration) {
	if m == nil {
		return
	}
	method = oneOf(method, methodSet)
	m.requests.WithLabelValues(route, method, statusClass(status)).Inc()
	m.requestSeconds.WithLabelValues(route, method).Observe(took.Seconds())
}

// statusClass is the status's class, "1xx" to "5xx", or Other.
func statusClass(status int) string {
	if status < 100 || status > 599 {
		return Other
	}
	return strconv.Itoa(status/100) + "xx"
}

// Decision counts one decision /decide answered. outcome is the decision's
// (eligible, not_eligible, undetermined), kind "ruleset" or "rulebook".
func (m *Metrics) Decision(outcome, kind string, cacheHit bool) {
	if m == nil {
		return
	}
	cache := "miss"
	if cacheHit {
		cache = "hit"
	}
	m.decisions.WithLabelValues(oneOf(outcome, outcomeSet), oneOf(kind, kindSet), cache).Inc()
}

// Evaluated records the engine's time for one decision.
func (m *Metrics) Evaluated(took time.Duration) {
	if m == nil {
		return
	}
	m.evaluationSeconds.Observe(took.Seconds())
}

// Planned records the planner's time for one decision.
func (m *Metrics) Planned(took time.Duration) {
	if m == nil {
		return
	}
	m.planningSeconds.Observe(took.Seconds())
}

// Metered counts one metered request of class from a caller of tier:
// admitted, or refused over its budget.
func (m *Metrics) Metered(class, tier string, admitted bool) {
	if m == nil {
		return
	}
	result := "refused"
	if admitted {
		result = "admitted"
	}
	m.metering.WithLabelValues(oneOf(class, m.labels.MeteringClasses), oneOf(tier, m.labels.Tiers), result).Inc()
}

// Cache names for CacheLookup.
const (
	CacheReferences = "references" // catalog: a slug or id to its stored cut
	CacheContent    = "content"    // catalog: a content digest to loaded rules
	CacheRulebooks  = "rulebooks"  // catalog: a rulebook reference to its row
)

// CacheLookup counts one lookup in the named cache.
func (m *Metrics) CacheLookup(cache string, hit bool) {
	if m == nil {
		return
	}
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cacheLookups.WithLabelValues(oneOf(cache, cacheSet), result).Inc()
}

// Invalidated counts one invalidation the catalog received.
func (m *Metrics) Invalidated() {
	if m == nil {
		return
	}
	m.invalidations.Inc()
}

// Decision log events for LogRecords.
const (
	LogWritten    = "written"
	LogRefused    = "refused"
	LogBacklogged = "backlogged"
)

// LogRecords counts n decision records of event.
func (m *Metrics) LogRecords(event string, n int) {
	if m == nil || n <= 0 {
		return
	}
	m.logRecords.WithLabelValues(oneOf(event, logEventSet)).Add(float64(n))
}

// DecisionLogLag is what WatchDecisionLog reads of the decision log when
// scraped; all zero outside spool mode.
type DecisionLogLag struct {
	// Bytes is what the spool holds on disk.
	Bytes float64
	// OldestSeconds is the age of the oldest record not yet shipped.
	OldestSeconds float64
	// Shipped counts the records shipped to the database since start.
	Shipped float64
}

// WatchDecisionLog exports the decision log's lag, read from lag when
// scraped: the bytes its spool holds, the age in seconds of its oldest
// unshipped record, and the records shipped.
func (m *Metrics) WatchDecisionLog(lag func() DecisionLogLag) {
	if m == nil {
		return
	}
	m.registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: "decision_log_shipped_total",
			Help: "Decision records shipped from the spool to the database since the process started."},
			func() float64 { return lag().Shipped }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "decision_log_spool_bytes",
			Help: "Bytes of decision records the spool holds, shipped or not yet deleted."},
			func() float64 { return lag().Bytes }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "decision_log_oldest_unshipped_seconds",
			Help: "Age of the oldest decision record not yet shipped to the database; 0 when none waits."},
			func() float64 { return lag().OldestSeconds }),
	)
}

// JobEnded counts one background job of kind that ended in state.
func (m *Metrics) JobEnded(kind, state string) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues(oneOf(kind, m.labels.JobKinds), oneOf(state, jobStateSet)).Inc()
}

// GenerationRound counts one model call of a generation with model.
func (m *Metrics) GenerationRound(model string) {
	if m == nil {
		return
	}
	m.generationRounds.WithLabelValues(oneOf(model, m.labels.Models)).Inc()
}

// GenerationTokens counts tokens a generation with model used.
func (m *Metrics) GenerationTokens(model string, tokens int) {
	if m == nil || tokens <= 0 {
		return
	}
	m.generationTokens.WithLabelValues(oneOf(model, m.labels.Models)).Add(float64(tokens))
}

// GenerationEnded counts one generation with model that ended in outcome.
func (m *Metrics) GenerationEnded(model, outcome string) {
	if m == nil {
		return
	}
	m.generations.WithLabelValues(oneOf(model, m.labels.Models), oneOf(outcome, generationEndSet)).Inc()
}
