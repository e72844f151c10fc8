package decide

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/solver/plan"
	"github.com/eligo/eligo/store"
)

// This file is POST /decide's registration and its handler, which runs
// the steps in order: resolve the ruleset (catalog), hash and convert
// field_values, look up the decision cache, evaluate (and trace, explain,
// plan) on a miss, stamp the per-call envelope members, queue the decision
// record. Nothing here does I/O except resolution and the record queue.

// Config tunes /decide; the zero value is the production setting.
type Config struct {
	// CacheTTL is how long an identical decision is served from memory;
	// zero means DefaultCacheTTL (10 minutes, docs/api.md#the-decision-cache), negative
	// disables the cache.
	CacheTTL time.Duration
	// CacheEntries bounds the decision cache; zero means
	// DefaultCacheEntries.
	CacheEntries int
}

// Deps are the services /decide calls.
type Deps struct {
	// Catalog resolves ruleset references for the caller.
	Catalog *catalog.Catalog
	// Decisions writes the decision records: a decision is answered only
	// once its record is written. Its owner closes it (flushing it) after
	// the last request.
	Decisions *decisionlog.Recorder
	// Clock is "today" for a request that names no decision date; nil
	// means the system clock.
	Clock clock.Clock
	// Metrics counts decisions and times their evaluation and planning;
	// nil counts nothing.
	Metrics *metrics.Metrics
}

// handler is the /decide operation's state: what it calls and what it
// keeps between requests.
type handler struct {
	server  *api.Server
	catalog *catalog.Catalog
	// cache holds recent decisions and conversions their first level;
	// both nil when disabled.
	cache       *hashedCache[*decisionCore]
	conversions *hashedCache[*conversion]
	// decisions writes decision records by group commit; the server's
	// Close flushes it.
	decisions *decisionlog.Recorder
	// clock says what day it is for a request that names none.
	clock clock.Clock
	// metrics counts answered decisions; nil counts nothing.
	metrics *metrics.Metrics
}

// Register adds POST /decide to s, serving it with deps, which the
// composition root built (wiring.NewServices) and closes.
func Register(s *api.Server, deps Deps, cfg Config) {
	register(s, deps, cfg)
}

// register is Register, returning the handler for this package's tests.
func register(s *api.Server, deps Deps, cfg Config) *handler {
	if deps.Catalog == nil || deps.Decisions == nil {
		panic("decide.Register: Deps.Catalog and Decisions are required")
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.CacheEntries == 0 {
		cfg.CacheEntries = DefaultCacheEntries
	}
	h := &handler{
		server:      s,
		catalog:     deps.Catalog,
		cache:       newHashedCache[*decisionCore](cfg.CacheEntries, cfg.CacheTTL),
		conversions: newHashedCache[*conversion](cfg.CacheEntries, cfg.CacheTTL),
		decisions:   deps.Decisions,
		clock:       clock.Or(deps.Clock),
		metrics:     deps.Metrics,
	}
	api.Register(s, api.Route{
		OperationID: "decide",
		Method:      http.MethodPost,
		Path:        "/decide",
		Summary:     "Evaluate field values against a ruleset",
		Description: description(),
		Tags:        []string{"Evaluation"},
		Access:      api.Open,
		Scopes:      []auth.Scope{auth.ScopeDecide},
		Class:       api.ClassDecide,
		Price:       anonymousPrice,
		NotFound:    "ruleset, rulebook or release",
		Refusals: []api.Refusal{api.RefusalRecordCorrupt, {Status: http.StatusServiceUnavailable, ReasonCode: api.ReasonDecisionLogBacklogged,
			Meaning: "the decision's record could not be written in time (the decision log is backlogged or the database is unavailable), so no decision was issued; retry with backoff."},
			{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonRulebookReleaseMissing, Meaning: "the rulebook's head names a release this server does not hold."},
			{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonRulebookReleaseCorrupt, Meaning: "the release's frozen content fails its identity check."},
			{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonReleaseMemberUnresolved, Meaning: "a member of the live composition cannot be used."},
			api.RefusalRulebookEmpty},
	}, h.decide)
	documentBodies(s)
	return h
}

// decide is the handler of POST /decide.
func (h *handler) decide(ctx context.Context, in *decideInput) (*decideOutput, error) {
	start := time.Now()
	principal, keyed := auth.PrincipalFrom(ctx)
	req, err := h.decodeRequest(in.RawBody)
	if err != nil {
		return nil, err
	}

	if err := checkTarget(ctx, req); err != nil {
		return nil, err
	}
	// Metering (the quota check and its cost) ran in the middleware before
	// the handler; every call that reaches here is one metered decision.

	decisionDate, err := req.DecisionDate.Ordinal(h.clock.Now())
	if err != nil {
		return nil, err
	}
	target, book, err := h.resolve(ctx, req, decisionDate)
	if err != nil {
		return nil, err
	}
	conv, err := h.convert(target, req.FieldValues, !req.NoCache)
	if err != nil {
		return nil, err
	}
	inputsHash, inputs := conv.inputsHash, conv.inputs
	var inquiry plan.InquiryContext
	if req.InquiryContext != nil {
		inquiry = plan.NormalizeInquiryContext(*req.InquiryContext)
	}

	flags := requestCacheFlags(req)
	// A decision depends on the date only when the rules read it or
	// declare an effective period; only then is the date part of the cache
	// key.
	var keyDate int64
	if target.Rules.DependsOnDate() {
		keyDate = decisionDate
	}
	var (
		core     *decisionCore
		cacheHit bool
		keyBuf   [512]byte
		key      []byte
	)
	if !req.NoCache && h.cache != nil {
		key = decisionCacheKey(keyBuf[:0], target.ContentDigest, target.UpdatedAt, target.Slug, keyDate, flags, inquiry.Key(), inputs)
		core, cacheHit = h.cache.get(key)
	}
	if !cacheHit {
		if core, err = h.evaluate(ctx, target, book, inputs, decisionDate, flags, inquiry); err != nil {
			return nil, err
		}
		if key != nil && !core.planFailed {
			h.cache.add(key, core)
		}
	}

	decisionID := newDecisionID()
	callerRef, warn := parseCallerRef(req.CallerRef, keyed)
	var warnings []warning
	if warn != nil {
		warnings = append(warnings, *warn)
	}
	if core.periodWarning != "" {
		warnings = append(warnings, warning{Code: engine.WarningOutsidePeriod, Message: core.periodWarning, Period: core.period})
	}
	if core.unlistedFieldErrors > 0 {
		warnings = append(warnings, warning{Code: "field_errors_truncated",
			Message: fmt.Sprintf("field_errors lists the first %d errors; %d more were not listed.", resource.MaxListedFieldErrors, core.unlistedFieldErrors)})
	}
	if core.planFailed {
		warnings = append(warnings, warning{Code: "plan_unavailable",
			Message: "next_question and optimal_path could not be worked out for this request; the decision stands. Retry for a plan."})
	}
	members := core.members
	if !keyed {
		members = core.anonymousMembers
	}
	var logging store.AnswerLogging
	if keyed {
		logging = h.answerLogging(ctx, principal.TenantID, target, book)
	}
	elapsed := time.Since(start)
	env := envelope{
		outcome: core.outcome, target: target, book: book, inputsHash: inputsHash, decisionID: decisionID,
		decisionTime: start.UTC(), decisionDate: decisionDate, members: members, warnings: warnings,
	}
	if logging.On() {
		env.answersLogged = &answersLogged{SettingVersion: logging.Version, Dropped: logging.Dropped, Masked: logging.Masked,
			RetentionDays: logging.RetentionDays}
	}
	if req.IncludeTiming {
		env.timing = &timing{TotalMS: float64(elapsed.Microseconds()) / 1000}
	}
	head, tail, err := env.encode()
	if err != nil {
		return nil, fmt.Errorf("encode envelope: %w", err)
	}

	record := store.DecisionRecord{
		DecisionID:     decisionID,
		RulesetID:      target.ID,
		Slug:           target.Slug,
		RulesetVersion: target.Label,
		ContentDigest:  target.ContentDigest,
		EngineVersion:  engine.Version,
		Outcome:        core.outcome.String(),
		InputsHash:     inputsHash,
		Flags:          requestFlagNames(req),
		CacheHit:       cacheHit,
		FieldsProvided: core.fieldsProvided,
		FieldErrors:    core.fieldErrors,
		DecidedAt:      env.decisionTime,
		DecisionDate:   ordinalTime(decisionDate),
		Duration:       elapsed,
	}
	if book != nil {
		record.RulebookID = book.Rulebook.ID
		if book.Release != nil {
			record.ReleaseID = book.Release.ID
		}
	}
	if keyed {
		record.TenantID = principal.TenantID
		record.CallerRef = callerRef
	}
	if logging.On() {
		if record.Answers, err = logging.Keep(req.FieldValues); err != nil {
			return nil, fmt.Errorf("keep answers: %w", err)
		}
		record.AnswerSetting, record.AnswerRetentionDays = logging.Version, logging.RetentionDays
	}
	if err := h.decisions.Record(ctx, record); err != nil {
		if errors.Is(err, decisionlog.ErrBacklogged) || errors.Is(err, decisionlog.ErrUnconfirmed) || errors.Is(err, decisionlog.ErrClosed) {
			return nil, errDecisionLogBacklogged
		}
		return nil, fmt.Errorf("record decision: %w", err)
	}
	kind := metrics.KindRuleset
	if book != nil {
		kind = metrics.KindRulebook
	}
	h.metrics.Decision(record.Outcome, kind, cacheHit)
	return &decideOutput{Body: func(hc huma.Context) { writeEnvelope(hc, head, members, tail) }}, nil
}

// answerLogging is the answer logging setting in force for a decision of
// tenantID's key under target's slug (its rulebook's, for a rulebook
// call): the setting of the tenant's own slug, off for a slug it does not
// own (its setting would be the owner's) and off when the setting cannot
// be read (the database down and no copy read within
// store.OutageWindow), since answers are kept only when their owner is
// known to have asked. Read from the catalog's cache: no database round
// trip per decision.
func (h *handler) answerLogging(ctx context.Context, tenantID string, target *catalog.PreparedRuleset, book *catalog.PreparedRulebook) store.AnswerLogging {
	kind, owner := store.KindRuleset, target.TenantID
	if book != nil {
		kind, owner = store.KindRulebook, book.Rulebook.TenantID
	}
	if target.Slug == "" || owner != tenantID {
		return store.AnswerLogging{}
	}
	a, err := h.catalog.AnswerLogging(ctx, tenantID, kind, target.Slug)
	if err != nil {
		return store.AnswerLogging{}
	}
	return a
}

// ordinalTime is the ordinal date at midnight UTC, as the decision record
// keeps it.
func ordinalTime(ord int64) time.Time {
	y, m, d := value.Civil(ord)
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
}

var errDecisionLogBacklogged = api.NewProblem(http.StatusServiceUnavailable, "service_unavailable", api.ReasonDecisionLogBacklogged,
	"The decision could not be recorded, so none was issued. Retry with backoff.")
