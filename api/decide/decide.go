package decide

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/solver/plan"
	"github.com/eligo/eligo/store"
)

// This file is POST /decide: the request and envelope types, the handler,
// and the steps it runs, in order: resolve the ruleset (catalog), hash and
// convert field_values, look up the decision cache, evaluate (and trace,
// explain, plan) on a miss, stamp the per-call envelope members, queue the
// decision record. Nothing here does I/O except resolution and the record
// queue.

// Config tunes /decide; the zero value is the production setting.
type Config struct {
	// CacheTTL is how long an identical decision is served from memory;
	// zero means DefaultCacheTTL (the spec's 10 minutes), negative
	// disables the cache.
	CacheTTL time.Duration
	// CacheEntries bounds the decision cache; zero means
	// DefaultCacheEntries.
	CacheEntries int
	// DecisionLog tunes the group-committing writer of decision records
	// (a decision is answered only once its record is written); its Logger
	// defaults to the server's.
	DecisionLog decisionlog.Config
}

// Deps are the services /decide calls.
type Deps struct {
	// Catalog resolves ruleset references for the caller.
	Catalog *catalog.Catalog
	// Store receives the decision records.
	Store *store.Store
	// Clock is "today" for a request that names no decision date; nil
	// means the system clock.
	Clock clock.Clock
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
	// planner works out next_question and optimal_path.
	planner *plan.Planner
	// clock says what day it is for a request that names none.
	clock clock.Clock
}

// Register adds POST /decide to s. Its record writer and planner are
// closed by s.Close, the writer flushing every queued record first.
func Register(s *api.Server, deps Deps, cfg Config) {
	register(s, deps, cfg)
}

// register is Register, returning the handler for this package's tests.
func register(s *api.Server, deps Deps, cfg Config) *handler {
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.CacheEntries == 0 {
		cfg.CacheEntries = DefaultCacheEntries
	}
	if cfg.DecisionLog.Logger == nil {
		cfg.DecisionLog.Logger = s.Logger()
	}
	h := &handler{
		server:      s,
		catalog:     deps.Catalog,
		cache:       newHashedCache[*decisionCore](cfg.CacheEntries, cfg.CacheTTL),
		conversions: newHashedCache[*conversion](cfg.CacheEntries, cfg.CacheTTL),
		decisions:   decisionlog.New(deps.Store, cfg.DecisionLog),
		planner:     plan.NewPlanner(planCacheSize),
		clock:       clock.Or(deps.Clock),
	}
	s.OnClose(func(ctx context.Context) error {
		defer h.planner.Close()
		return h.decisions.Close(ctx)
	})
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
			{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonReleaseMemberUnresolved, Meaning: "a member of the live composition cannot be used."}},
	}, h.decide)
	documentBodies(s)
	return h
}

// decideInput is the decision request. huma hands over the body as bytes
// (after its size limit, without validating it) and decodeDecideRequest
// reads it in one strict pass; the OpenAPI document still describes
// decideRequest (see documentDecideBodies). RawBody is huma's pooled
// buffer: nothing may keep it past the handler (decideRequest copies what
// it keeps).
type decideInput struct {
	RawBody []byte
}

// decideRequest is the body of POST /decide. Unknown members are refused
// (422 extra_forbidden).
type decideRequest struct {
	RulesetID            string               `json:"ruleset_id,omitempty" doc:"Slug (e.g. demo/us-fmla-employee) or concrete ruleset_id of a published ruleset. Exactly one of ruleset_id and rulebook_id is required." example:"demo/us-fmla-employee"`
	RulebookID           string               `json:"rulebook_id,omitempty" doc:"Rulebook id (rb_...) or slug of a composed rulebook to evaluate; needs a key with the decide scope (anonymous: 401). The tenant's own rulebooks and public ones are reached; any other is 404 with a string detail."`
	ReleaseID            string               `json:"release_id,omitempty" doc:"Rulebook requests only: release UUID or exact two-word label, evaluated from its frozen content whatever was published since. Without it the current release, or, before the first release, the live composition (release null). A release of another rulebook is 404. With ruleset_id it is refused with 422."`
	FieldValues          api.JSONObject       `json:"field_values" required:"true" doc:"Map of field_id to answer. Types must match the ruleset schema; a key or value that cannot be applied is reported in field_errors (HTTP 200, decision undetermined), never rejected. null means unanswered. Must be I-JSON (RFC 7493): a repeated key or text that is not valid Unicode is 422 json_invalid."`
	IncludeTrace         bool                 `json:"include_trace,omitempty" doc:"Adds trace."`
	IncludeExplanation   bool                 `json:"include_explanation,omitempty" doc:"Adds explanation."`
	IncludeGraphOverlay  bool                 `json:"include_graph_overlay,omitempty" doc:"Adds graph_overlay."`
	IncludeChoiceContext bool                 `json:"include_choice_context,omitempty" doc:"Adds choice_context. The spec names it for rulebook requests; on a ruleset request it describes the ruleset's one section."`
	IncludeTiming        bool                 `json:"include_timing,omitempty" doc:"Adds timing (total_ms)."`
	NoCache              bool                 `json:"no_cache,omitempty" doc:"Bypasses the decision cache: the decision is evaluated afresh and not stored in the cache."`
	flags                flagSet              // the boolean members as readDecideRequest read them (see flagSet); here it takes no room
	InquiryContext       *plan.InquiryContext `json:"inquiry_context,omitempty" doc:"Steers the choice of next_question and optimal_path only, never the outcome: fields the applicant declines to answer, and a preferred section or groups that break ties between equally cheap paths. Ids the ruleset does not declare are ignored. It is normalised (trimmed, sorted, deduplicated) and then part of the cache identity."`
	DecisionDate         api.DecisionDate     `json:"decision_date,omitempty"`
	CallerRef            json.RawMessage      `json:"caller_ref,omitempty" doc:"Flat string-to-string map, at most 2048 bytes of JSON, no key containing '$' or '.'. Stored on the server-side decision record of keyed callers for their own attribution; never used for authorization and never stored for anonymous callers. An invalid caller_ref is never rejected: it is dropped and the response's warnings array carries an entry with code caller_ref_dropped."`
}

// decideOutput is the decision response. The body is the decideResponse
// envelope, written by writeEnvelope rather than by huma's encoder: the
// part of it that the cache keeps is encoded once, when the decision is
// made, and every response writes the per-call members around those bytes
// without copying them (with trace and explanation they are tens of
// kilobytes). The OpenAPI document still describes decideResponse (see
// documentDecideBodies).
type decideOutput struct {
	Body func(huma.Context)
}

// decideResponse is the audit envelope of one decision.
type decideResponse struct {
	Decision        string              `json:"decision" enum:"eligible,not_eligible,undetermined" doc:"The outcome. Always undetermined when field_errors is not empty."`
	Slug            string              `json:"slug" doc:"Resolved slug."`
	RulesetID       string              `json:"ruleset_id,omitempty" doc:"Concrete ruleset_id that ran (ruleset calls)."`
	RulebookID      string              `json:"rulebook_id,omitempty" doc:"Rulebook calls: the rulebook's id."`
	Release         *api.Release        `json:"release,omitempty" doc:"Rulebook calls: the release evaluated, or null for the live composition (before the first release)."`
	SectionResults  []sectionResult     `json:"section_results,omitempty" doc:"Rulebook calls: each section's own decision under the same answers, in letter order."`
	RulesetVersion  string              `json:"ruleset_version" doc:"Authoring label v<N> of the ruleset that ran. Necessary, not sufficient, for replay: pin content_digest."`
	ContentDigest   string              `json:"content_digest" doc:"sha256:<hex> of the rules that ran: the content identity replay pins to."`
	EngineVersion   string              `json:"engine_version" doc:"Engine build that decided, eligo-core@<semver>."`
	DecisionID      string              `json:"decision_id" doc:"dec_ + 16 URL-safe characters; new on every call, cache hits included. Names the server-side decision record."`
	InputsHash      string              `json:"inputs_hash" doc:"sha256:<hex> of the RFC 8785 canonical form of field_values; unsalted, invariant under key order, white space and number spelling. When field_values holds a number beyond the IEEE double range, which RFC 8785 cannot write (the decision is then undetermined with a field error), that number is written in one normal spelling (1e400 for 1E+400 or 10e399) inside the otherwise canonical form, so the invariants hold."`
	DecisionTime    time.Time           `json:"decision_time" doc:"UTC time of this call, ISO 8601; fresh on cache hits."`
	DecisionDate    string              `json:"decision_date" format:"date" doc:"The date the decision was made as of, YYYY-MM-DD: the request's decision_date, else the day of the call (UTC). What decision_date() read and what the effective period of the cut that ran was checked against; replay sends it back as decision_date."`
	FieldsProvided  int                 `json:"fields_provided" doc:"Count of non-null keys sent."`
	FieldsEvaluated int                 `json:"fields_evaluated" doc:"Count of fields the rules reason over; may exceed fields_provided."`
	MissingFields   []string            `json:"missing_fields" nullable:"false" doc:"Unanswered fields some pending criterion reads. Advisory."`
	NextQuestion    *plan.Question      `json:"next_question" doc:"The field to ask next: the first of optimal_path, or null when nothing is left to ask (or no plan could be made; see warnings). Advisory."`
	OptimalPath     []plan.PathStep     `json:"optimal_path" nullable:"false" doc:"The cheapest set of unanswered fields (least total weight, then fewest) through which the outcome can still become eligible, or, when eligible is out of reach, settled; ordered by weight then declaration order. Advisory."`
	FieldErrors     []engine.FieldError `json:"field_errors" nullable:"false" doc:"Inputs that could not be applied: unknown key, value not convertible to the field type, or a conversion failure at evaluation. The only blocking channel."`
	Trace           *traceJSON          `json:"trace,omitempty" doc:"With include_trace."`
	Explanation     *explanationJSON    `json:"explanation,omitempty" doc:"With include_explanation."`
	GraphOverlay    *api.Graph          `json:"graph_overlay,omitempty" doc:"With include_graph_overlay: the ruleset's graph (the shape of GET /rulesets/{ruleset_id}/graph's graph member: nodes, edges, sections, stats) with every node's and route's overlay set to {status, supporting_facts}."`
	ChoiceContext   *plan.ChoiceContext `json:"choice_context,omitempty" doc:"With include_choice_context: every field's section and each OR-group's alternatives with their labels, fields and status (open, closed or satisfied)."`
	Timing          *timing             `json:"timing,omitempty" doc:"With include_timing."`
	Warnings        []warning           `json:"warnings,omitempty" doc:"Server warnings about the request that did not stop it, e.g. a dropped caller_ref. Absent when there are none."`
}

// sectionResult is one section's own decision in a rulebook call.
type sectionResult struct {
	Letter        string `json:"letter" doc:"A, B, C... in ruleset_refs order."`
	SectionID     string `json:"section_id"`
	RulesetID     string `json:"ruleset_id" doc:"The member cut that ran."`
	ContentDigest string `json:"content_digest" doc:"The member cut's content digest."`
	Decision      string `json:"decision" enum:"eligible,not_eligible,undetermined" doc:"The section's own decision."`
}

// timing reports the server time spent on the call.
type timing struct {
	TotalMS float64 `json:"total_ms" doc:"Milliseconds from the start of the handler to the envelope being ready."`
}

// warning is one entry of the envelope's warnings.
type warning struct {
	Code    string `json:"code" enum:"caller_ref_dropped,caller_ref_not_stored,plan_unavailable,outside_effective_period"`
	Message string `json:"message"`
}

// decisionCore is the part of a decision that depends only on the ruleset
// content, the converted inputs, the flags and the inquiry context: what
// the decision cache holds. It is immutable once built and shared between
// responses.
type decisionCore struct {
	outcome        engine.Outcome
	fieldsProvided int
	fieldErrors    int
	// planFailed is set when the planner failed: the decision stands with
	// no next_question, the response says so, and the core is not cached.
	planFailed bool
	// periodWarning says why the decision is undetermined when its date
	// falls outside the effective period of the cut that ran; empty
	// otherwise. The date is part of the cache key of such a cut.
	periodWarning string
	// unlistedFieldErrors counts the field errors past
	// api.MaxListedFieldErrors, which the answer counts in a warning
	// rather than lists.
	unlistedFieldErrors int
	// members is the JSON of the envelope members from fields_provided to
	// graph_overlay, without braces, for keyed callers.
	members []byte
	// anonymousMembers is members without v2 (artefact) source references,
	// which never appear in an anonymous response; the same slice as
	// members when the ruleset cites no artefacts or there is no
	// explanation.
	anonymousMembers []byte
}

// coreJSON is the cached part of the envelope, encoded once per decision.
type coreJSON struct {
	FieldsProvided  int                 `json:"fields_provided"`
	FieldsEvaluated int                 `json:"fields_evaluated"`
	MissingFields   []string            `json:"missing_fields"`
	NextQuestion    *plan.Question      `json:"next_question"`
	OptimalPath     []plan.PathStep     `json:"optimal_path"`
	FieldErrors     []engine.FieldError `json:"field_errors"`
	Trace           *engine.Trace       `json:"trace,omitempty"`
	Explanation     *explanationWire    `json:"explanation,omitempty"`
	GraphOverlay    *engine.Graph       `json:"graph_overlay,omitempty"`
	ChoiceContext   *plan.ChoiceContext `json:"choice_context,omitempty"`
	SectionResults  []sectionResult     `json:"section_results,omitempty"`
}

// explanationWire is the engine's explanation as the envelope carries it:
// the same members, with every criterion's references in the spec's
// SourceReference shape, converted by sourceReferencesFor exactly as GET
// /explain converts them (verification members included).
type explanationWire struct {
	Decision     engine.Outcome         `json:"decision"`
	DecisionPath []string               `json:"decision_path"`
	Groups       []groupExplanationWire `json:"groups"`
	UnusedFacts  []string               `json:"unused_facts"`
}

// groupExplanationWire is an engine group explanation whose criteria carry
// wire references; the outer Criteria hides the embedded one.
type groupExplanationWire struct {
	engine.GroupExplanation
	Criteria []criterionExplanationWire `json:"criteria"`
}

// criterionExplanationWire is an engine criterion explanation with wire
// references; the outer SourceReferences hides the embedded one.
type criterionExplanationWire struct {
	engine.CriterionExplanation
	SourceReferences []catalog.SourceReference `json:"source_references"`
}

// explanationFor converts e, an explanation of target's ruleset, for a keyed
// or an anonymous caller.
func explanationFor(target *catalog.Ruleset, e *engine.Explanation, keyed bool) *explanationWire {
	w := &explanationWire{Decision: e.Decision, DecisionPath: e.DecisionPath, UnusedFacts: e.UnusedFacts,
		Groups: make([]groupExplanationWire, len(e.Groups))}
	// i counts criteria in group then declaration order, the order of
	// Ruleset.References; an explanation lists every criterion in it.
	i := 0
	for gi := range e.Groups {
		g := &e.Groups[gi]
		wg := groupExplanationWire{GroupExplanation: *g, Criteria: make([]criterionExplanationWire, len(g.Criteria))}
		for ci := range g.Criteria {
			wg.Criteria[ci] = criterionExplanationWire{CriterionExplanation: g.Criteria[ci],
				SourceReferences: target.SourceReferences(target.Rules.References(i), !keyed)}
			i++
		}
		w.Groups[gi] = wg
	}
	return w
}

// maxCallerRefBytes is the spec's caller_ref limit (Limits 9), on its
// compact JSON.
const maxCallerRefBytes = 2048

// maxCallerRefRawBytes bounds the caller_ref member as sent that is worth
// decoding: room for white space and escapes around a map within the
// limit, without decoding megabytes to drop them.
const maxCallerRefRawBytes = 16 * maxCallerRefBytes

// description is the operation's reference text, with the anonymous
// price worked out from the flag table.
func description() string {
	return decideDescription + "\n\nAnonymous cost: " + strconv.Itoa(metering.PlainDecideCost) + " unit plain, plus " +
		strconv.Itoa(metering.FlagSurcharge) + " for each of " + costlyFlagList() + " set (trace plus explanation costs 11); a key counts one unit per call."
}

const decideDescription = `Evaluates field_values against a published ruleset (by slug or concrete ruleset_id) and returns the audit envelope.

Anonymous callers reach public rulesets only; a private ruleset, or one of another tenant, answers 404 with a string detail. A key with the decide scope also reaches its tenant's private rulesets.

Bad inputs never fail the request: unknown keys and values that cannot be converted to the field type are listed in field_errors with HTTP 200, and the decision is then undetermined. The body itself is strict: an undefined top-level member is 422 extra_forbidden, a field_values that is not an object is 422 dict_type.

field_values must be I-JSON (RFC 7493), because inputs_hash is its RFC 8785 canonical form: a key repeated within one object or a string that is not valid Unicode (invalid UTF-8, or a lone surrogate escape such as \ud800) is 422 json_invalid at body.field_values, since such JSON reads differently from one parser to the next; a body nested deeper than 10000 levels is 422 json_invalid at body. A number beyond the IEEE double range (such as 1e400) is a value like any other: no field type takes it, so it is a field_errors entry (200, undetermined). RFC 8785 cannot write such a number, so inputs_hash writes it in one normal spelling (1e400 for 1E+400 or 10e399) inside the otherwise canonical form.

Identical requests (same ruleset content, field values, flags and normalised inquiry_context) may be served from a cache for up to 10 minutes; decision_id, decision_time and timing are fresh on every call, and every call, hit or not, is one decision with its own server-side record. no_cache bypasses the cache.

Warnings: a request member that is dropped rather than refused (an invalid caller_ref; a caller_ref sent anonymously, which is never stored) is reported in the response's warnings array as {code, message}.

Law over time: decision_date (optional; an ISO YYYY-MM-DD string or an integer ordinal, like a date answer; default today, UTC) is the date the decision is made as of, e.g. an application or appeal date. A ruleset may declare the period its rules hold for (effective from/until). A slug resolves to the cut published under it whose period covers decision_date; when none does, to the slug's latest cut. A concrete ruleset_id always runs that cut. When decision_date falls outside the period of the cut that runs, the decision is undetermined and warnings carries {code: outside_effective_period, message} naming the date and the period: another period's law never answers silently. The envelope names the cut that ran (ruleset_id, ruleset_version, content_digest) and the date (decision_date). decision_date is part of the cache identity of rulesets whose decisions depend on it and is kept on the decision record. Replay: send the same field_values, inquiry_context and the envelope's decision_date with the envelope's ruleset_id, then compare inputs_hash, engine_version, content_digest, ruleset_id, decision_date and the outcome.

Rulebooks: rulebook_id (a rulebook id or slug) needs a key with the decide scope (anonymous: 401); the tenant's own rulebooks and public ones are reached, any other is 404 with a string detail. With release_id (a release UUID or exact two-word label) that release's frozen content is evaluated, whatever was published since; a release of another rulebook is 404. Without it the current release, or, before the first release, the live composition of the draft (release null, ruleset_version unknown). A head naming a release this server does not hold is 422 rulebook_release_missing (the latest is never served instead); a release whose frozen content fails its identity check is 422 rulebook_release_corrupt; a live member that cannot be used is 422 release_member_unresolved. The envelope then carries rulebook_id, release and section_results (each section's own decision) instead of ruleset_id; content_digest is the composition's content identity and ruleset_version is v<release version>. Date answers may be ISO YYYY-MM-DD strings or integer ordinals on rulebooks as on rulesets (the spec names only ordinals for rulebooks; this is a superset). release_id without rulebook_id is 422.

Null members: an optional member sent as null is the same as leaving it out (field_values may not be null). When a member is repeated, the last occurrence wins; a null one leaves an earlier string or flag in place and clears an earlier inquiry_context or caller_ref, as encoding/json reads them. Anonymous cost units are counted from the same decoded body.

503 decision_log_backlogged: the decision could not be recorded (the record queue stayed full); no decision was issued, retry with backoff.`

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
		warnings = append(warnings, warning{Code: "outside_effective_period", Message: core.periodWarning})
	}
	if core.unlistedFieldErrors > 0 {
		warnings = append(warnings, warning{Code: "field_errors_truncated",
			Message: fmt.Sprintf("field_errors lists the first %d errors; %d more were not listed.", api.MaxListedFieldErrors, core.unlistedFieldErrors)})
	}
	if core.planFailed {
		warnings = append(warnings, warning{Code: "plan_unavailable",
			Message: "next_question and optimal_path could not be worked out for this request; the decision stands. Retry for a plan."})
	}
	members := core.members
	if !keyed {
		members = core.anonymousMembers
	}
	elapsed := time.Since(start)
	env := envelope{
		outcome: core.outcome, target: target, book: book, inputsHash: inputsHash, decisionID: decisionID,
		decisionTime: start.UTC(), decisionDate: decisionDate, members: members, warnings: warnings,
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
	if err := h.decisions.Record(ctx, record); err != nil {
		if errors.Is(err, decisionlog.ErrBacklogged) || errors.Is(err, decisionlog.ErrUnconfirmed) || errors.Is(err, decisionlog.ErrClosed) {
			return nil, errDecisionLogBacklogged
		}
		return nil, fmt.Errorf("record decision: %w", err)
	}
	return &decideOutput{Body: func(hc huma.Context) { writeEnvelope(hc, head, members, tail) }}, nil
}

// ordinalTime is the ordinal date at midnight UTC, as the decision record
// keeps it.
func ordinalTime(ord int64) time.Time {
	y, m, d := engine.Civil(ord)
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
}

var errDecisionLogBacklogged = api.NewProblem(http.StatusServiceUnavailable, "service_unavailable", api.ReasonDecisionLogBacklogged,
	"The decision could not be recorded, so none was issued. Retry with backoff.")

// resolve finds what the request evaluates, for the caller: a ruleset, or
// a rulebook's release (or live composition) presented as a ruleset with
// the prepared rulebook beside it.
func (h *handler) resolve(ctx context.Context, req *decideRequest, date int64) (*catalog.Ruleset, *catalog.PreparedRulebook, error) {
	viewer := api.ViewerOf(ctx)
	if req.RulebookID == "" {
		target, err := h.catalog.RulesetOn(ctx, viewer, req.RulesetID, date)
		if err != nil {
			return nil, nil, api.LookupFailed(ctx, err, "Ruleset", req.RulesetID)
		}
		return target, nil, nil
	}
	rb, err := h.catalog.Rulebook(ctx, viewer, req.RulebookID)
	if err != nil {
		return nil, nil, api.LookupFailed(ctx, err, "Rulebook", req.RulebookID)
	}
	book, err := h.catalog.PrepareRulebook(ctx, rb, req.ReleaseID)
	if err != nil {
		return nil, nil, api.LookupFailed(ctx, err, "Release", req.ReleaseID)
	}
	return book.Ruleset, book, nil
}

// checkTarget enforces the choice between ruleset_id and rulebook_id
// before anything is resolved.
func checkTarget(ctx context.Context, req *decideRequest) error {
	switch {
	case req.RulesetID != "" && req.RulebookID != "":
		return api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "rulebook_id"},
			Msg: "Send exactly one of ruleset_id and rulebook_id", Input: req.RulebookID})
	case req.RulesetID == "" && req.RulebookID == "":
		return api.ValidationFailed(api.ValidationItem{Type: "missing", Loc: []any{"body", "ruleset_id"},
			Msg: "Field required: send ruleset_id or rulebook_id", Input: nil})
	case req.RulebookID != "":
		_, err := api.RequirePrincipal(ctx)
		return err
	case req.ReleaseID != "":
		return api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "release_id"},
			Msg: "release_id applies to rulebook requests only", Input: req.ReleaseID})
	}
	return nil
}

// convert hashes and converts field_values for target, reusing the result
// of byte-identical field_values on the same content when useCache is set.
func (h *handler) convert(target *catalog.Ruleset, fieldValues []byte, useCache bool) (*conversion, error) {
	var (
		keyBuf [maxCachedFieldValues + 128]byte
		key    []byte
	)
	if useCache && h.conversions != nil && len(fieldValues) <= maxCachedFieldValues {
		key = conversionCacheKey(keyBuf[:0], target.ContentDigest, fieldValues)
		if c, ok := h.conversions.get(key); ok {
			return c, nil
		}
	}
	inputsHash, inputs, err := api.ConvertFieldValues(target.Rules, fieldValues)
	if err != nil {
		return nil, err
	}
	c := &conversion{inputsHash: inputsHash, inputs: inputs}
	if key != nil {
		h.conversions.add(key, c)
	}
	return c, nil
}

// evaluate runs the engine (and trace, explanation and graph
// overlay when asked), plans the next questions, and encodes what the
// cache may keep. A planner failure leaves the decision standing without a
// plan (planFailed).
func (h *handler) evaluate(ctx context.Context, target *catalog.Ruleset, book *catalog.PreparedRulebook, inputs *engine.Inputs, decisionDate int64, flags cacheFlags, inquiry plan.InquiryContext) (*decisionCore, error) {
	rules := target.Rules
	res := rules.Evaluate(inputs, engine.Options{
		DecisionDate: decisionDate,
		Trace:        flags&flagTrace != 0,
		Explanation:  flags&flagExplanation != 0,
	})
	c := coreJSON{
		FieldsProvided:  res.FieldsProvided,
		FieldsEvaluated: res.FieldsEvaluated,
		MissingFields:   res.MissingFields,
		FieldErrors:     res.FieldErrors,
		OptimalPath:     []plan.PathStep{},
		Trace:           res.Trace,
	}
	if res.Explanation != nil {
		c.Explanation = explanationFor(target, res.Explanation, true)
	}
	planFailed := false
	pl, err := h.planner.Plan(ctx, rules, inputs, res, inquiry)
	if err != nil {
		api.Log(ctx).WarnContext(ctx, "plan next question", "ruleset_id", target.ID, "error", err)
		planFailed = true
	} else {
		c.NextQuestion, c.OptimalPath = pl.NextQuestion, pl.OptimalPath
		if flags&flagChoiceContext != 0 {
			c.ChoiceContext = &pl.ChoiceContext
			if book != nil {
				cc := pl.ChoiceContext.InSections(book.Composed.FieldSections, book.Composed.GroupSectionID)
				c.ChoiceContext = &cc
			}
		}
	}
	if flags&flagGraphOverlay != 0 {
		c.GraphOverlay = rules.Graph(target.Slug, inputs, res)
	}
	if book != nil {
		for _, r := range book.Composed.SectionResults(res) {
			c.SectionResults = append(c.SectionResults, sectionResult{Letter: r.Letter, SectionID: r.SectionID,
				RulesetID: r.RulesetID, ContentDigest: r.ContentDigest, Decision: r.Decision.String()})
		}
	}
	if c.MissingFields == nil {
		c.MissingFields = []string{}
	}
	if c.FieldErrors == nil {
		c.FieldErrors = []engine.FieldError{}
	}
	unlisted := max(0, len(c.FieldErrors)-api.MaxListedFieldErrors)
	c.FieldErrors = c.FieldErrors[:len(c.FieldErrors)-unlisted]
	members, err := encodeMembers(&c)
	if err != nil {
		return nil, err
	}
	core := &decisionCore{
		outcome:             res.Outcome,
		fieldsProvided:      res.FieldsProvided,
		fieldErrors:         len(res.FieldErrors),
		planFailed:          planFailed,
		unlistedFieldErrors: unlisted,
		members:             members,
		anonymousMembers:    members,
	}
	if res.OutsidePeriod {
		core.periodWarning = rules.PeriodWarning(res.DecisionDate)
	}
	if res.Explanation != nil && catalog.CitesArtefacts(rules) {
		c.Explanation = explanationFor(target, res.Explanation, false)
		if core.anonymousMembers, err = encodeMembers(&c); err != nil {
			return nil, err
		}
	}
	return core, nil
}

// encodeMembers encodes c without its braces, ready to be spliced into an
// envelope; < > & are left as written.
func encodeMembers(c *coreJSON) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode decision: %w", err)
	}
	b := bytes.TrimSpace(buf.Bytes())
	return b[1 : len(b)-1], nil
}

// newDecisionID draws dec_ + 16 URL-safe characters (96 random bits).
func newDecisionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "dec_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// parseCallerRef checks a caller_ref and returns it when it is valid and the
// caller is keyed. An invalid one is dropped with a warning; a valid one
// from an anonymous caller is dropped with a warning too, since anonymous
// records never carry one.
func parseCallerRef(raw json.RawMessage, keyed bool) (map[string]string, *warning) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	ref, problem := readCallerRef(raw)
	if problem != "" {
		return nil, &warning{Code: "caller_ref_dropped", Message: "caller_ref was dropped: " + problem + "."}
	}
	if !keyed {
		return nil, &warning{Code: "caller_ref_not_stored", Message: "caller_ref is stored only for callers with an API key; it was ignored."}
	}
	return ref, nil
}

// readCallerRef decodes a caller_ref, or says what is wrong with it: it must
// be a flat string-to-string map, no key may contain '$' or '.', no key or
// value may contain U+0000 (PostgreSQL cannot store it in jsonb), and its
// compact JSON must fit in maxCallerRefBytes. The size is that of the
// decoded map written back compactly, so white space and escapes in the
// request (\u00e9 for é) do not change whether it fits. A raw member
// beyond maxCallerRefRawBytes is not decoded at all.
func readCallerRef(raw json.RawMessage) (map[string]string, string) {
	if len(raw) > maxCallerRefRawBytes {
		return nil, fmt.Sprintf("it is %d bytes, far over the limit of %d", len(raw), maxCallerRefBytes)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, "it is not a JSON object"
	}
	ref := make(map[string]string, len(m))
	for k, v := range m {
		value, ok := v.(string)
		switch {
		case strings.ContainsAny(k, "$."):
			return nil, "a key contains '$' or '.'"
		case !ok:
			return nil, "every value must be a string (a flat string-to-string map)"
		case strings.ContainsRune(k, 0) || strings.ContainsRune(value, 0):
			return nil, "a key or value contains the character U+0000"
		}
		ref[k] = value
	}
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false) // count "<" as the one byte it is stored as
	if err := enc.Encode(ref); err != nil {
		return nil, "it could not be re-encoded"
	}
	if size := compact.Len() - 1; size > maxCallerRefBytes { // Encode adds a newline
		return nil, fmt.Sprintf("it is %d bytes as compact JSON, over the limit of %d", size, maxCallerRefBytes)
	}
	return ref, ""
}
