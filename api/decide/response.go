package decide

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/solver/plan"
)

// This file is the decision response: the audit envelope as the OpenAPI
// document describes it, the part of a decision the cache keeps
// (decisionCore, encoded once as coreJSON), and the explanation in its
// wire shape. envelope.go writes the per-call members around it.

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
	Decision        string               `json:"decision" enum:"eligible,not_eligible,undetermined" enumName:"Outcome" enumDoc:"The outcome of a decision." doc:"The outcome. Always undetermined when field_errors is not empty."`
	Slug            string               `json:"slug" doc:"Resolved slug."`
	RulesetID       string               `json:"ruleset_id,omitempty" doc:"Concrete ruleset_id that ran (ruleset calls)."`
	RulebookID      string               `json:"rulebook_id,omitempty" doc:"Rulebook calls: the rulebook's id."`
	Release         *resource.Release    `json:"release,omitempty" doc:"Rulebook calls: the release evaluated, or null for the live composition (before the first release)."`
	SectionResults  []sectionResult      `json:"section_results,omitempty" doc:"Rulebook calls: each section's own decision under the same answers, in letter order."`
	RulesetVersion  string               `json:"ruleset_version" doc:"Authoring label v<N> of the ruleset that ran. Necessary, not sufficient, for replay: pin content_digest."`
	ContentDigest   string               `json:"content_digest" doc:"sha256:<hex> of the rules that ran: the content identity replay pins to."`
	EngineVersion   string               `json:"engine_version" doc:"Engine build that decided, eligo-core@<semver>."`
	DecisionID      string               `json:"decision_id" doc:"dec_ + 16 URL-safe characters; new on every call, cache hits included. Names the server-side decision record."`
	InputsHash      string               `json:"inputs_hash" doc:"sha256:<hex> of the RFC 8785 canonical form of field_values; unsalted, invariant under key order, white space and number spelling. When field_values holds a number beyond the IEEE double range, which RFC 8785 cannot write (the decision is then undetermined with a field error), that number is written in one normal spelling (1e400 for 1E+400 or 10e399) inside the otherwise canonical form, so the invariants hold."`
	DecisionTime    time.Time            `json:"decision_time" doc:"UTC time of this call, ISO 8601; fresh on cache hits."`
	DecisionDate    string               `json:"decision_date" format:"date" doc:"The date the decision was made as of, YYYY-MM-DD: the request's decision_date, else the day of the call (UTC). What decision_date() read and what the effective period of the cut that ran was checked against; replay sends it back as decision_date."`
	FieldsProvided  int                  `json:"fields_provided" doc:"Count of non-null keys sent."`
	FieldsEvaluated int                  `json:"fields_evaluated" doc:"Count of fields the rules reason over; may exceed fields_provided."`
	MissingFields   []string             `json:"missing_fields" nullable:"false" doc:"Unanswered fields some pending criterion reads. Advisory."`
	NextQuestion    *plan.Question       `json:"next_question" doc:"The field to ask next: the first of optimal_path, or null when nothing is left to ask (or no plan could be made; see warnings). Advisory."`
	OptimalPath     []plan.PathStep      `json:"optimal_path" nullable:"false" doc:"The cheapest set of unanswered fields (least total weight, then fewest) through which the outcome can still become eligible, or, when eligible is out of reach, settled; ordered by weight then declaration order. Advisory."`
	FieldErrors     []engine.FieldError  `json:"field_errors" nullable:"false" doc:"Inputs that could not be applied: unknown key, value not convertible to the field type, or a conversion failure at evaluation. The only blocking channel."`
	Trace           *traceJSON           `json:"trace,omitempty" doc:"With include_trace."`
	Explanation     *explanationJSON     `json:"explanation,omitempty" doc:"With include_explanation."`
	GraphOverlay    *resource.Graph      `json:"graph_overlay,omitempty" doc:"With include_graph_overlay: the ruleset's graph (the shape of GET /rulesets/{ruleset_id}/graph's graph member: nodes, edges, sections, stats) with every node's and route's overlay set to {status, supporting_facts}."`
	ChoiceContext   *plan.ChoiceContext  `json:"choice_context,omitempty" doc:"With include_choice_context: every field's section and each OR-group's alternatives with their labels, fields and status (open, closed or satisfied)."`
	Timing          *timing              `json:"timing,omitempty" doc:"With include_timing."`
	Warnings        []warning            `json:"warnings,omitempty" doc:"Server warnings about the request that did not stop it, e.g. a dropped caller_ref. Absent when there are none."`
	AnswersLogged   *answersLogged       `json:"answers_logged,omitempty" doc:"Present only when the decision's answers were kept: the slug's own tenant turned answer logging on (PUT /rulesets/{ruleset_id}/answer-logging or /rulebooks/{rulebook_id}/answer-logging) and this key is that tenant's. Absent otherwise, the default: the record then keeps only inputs_hash. See docs/decision-records.md#answer-logging."`
	Values          []engine.OutputValue `json:"values,omitempty" doc:"The rules' output values (named values marked output) with their figures, in declaration order: what the law computed on the way (net income, a deduction), figure null when the answers do not settle it. Part of the envelope, so a replay reproduces them. Absent for rules without output values."`
}

// SchemaName is the name of decideResponse's schema in the published API document,
// where the Go name would not say what it is.
func (decideResponse) SchemaName() string { return "Decision" }

// sectionResult is one section's own decision in a rulebook call.
type sectionResult struct {
	Letter        string `json:"letter" doc:"A, B, C... in ruleset_refs order."`
	SectionID     string `json:"section_id"`
	RulesetID     string `json:"ruleset_id" doc:"The member cut that ran."`
	ContentDigest string `json:"content_digest" doc:"The member cut's content digest."`
	Decision      string `json:"decision" enum:"eligible,not_eligible,undetermined" doc:"The section's own decision."`
}

// answersLogged says which answer logging setting kept a decision's
// answers, and how.
type answersLogged struct {
	SettingVersion int64    `json:"setting_version" doc:"The setting the answers were kept under (its setting_version)."`
	Dropped        []string `json:"dropped" nullable:"false" doc:"Fields left out of the answers kept."`
	Masked         []string `json:"masked" nullable:"false" doc:"Fields whose answers were kept as the string [masked]."`
	RetentionDays  int      `json:"retention_days" doc:"Days the answers are kept after the decision."`
}

// SchemaName is the name of answersLogged's schema in the published API
// document, where the Go name would not say what it is.
func (answersLogged) SchemaName() string { return "AnswersLogged" }

// timing reports the server time spent on the call.
type timing struct {
	TotalMS float64 `json:"total_ms" doc:"Milliseconds from the start of the handler to the envelope being ready."`
}

// warning is one entry of the envelope's warnings.
type warning struct {
	Code    string `json:"code" enum:"caller_ref_dropped,caller_ref_not_stored,plan_unavailable,outside_effective_period"`
	Message string `json:"message"`
	// Period is the effective period the rules cover, on
	// outside_effective_period only, so a reader can say which dates the
	// rules do decide without parsing the message.
	Period *resource.Period `json:"period,omitempty" doc:"On outside_effective_period only: the period the rules cover."`
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
	// period is the cut's effective period, beside periodWarning.
	period *resource.Period
	// unlistedFieldErrors counts the field errors past
	// resource.MaxListedFieldErrors, which the answer counts in a warning
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
	FieldsProvided  int                  `json:"fields_provided"`
	FieldsEvaluated int                  `json:"fields_evaluated"`
	MissingFields   []string             `json:"missing_fields"`
	NextQuestion    *plan.Question       `json:"next_question"`
	OptimalPath     []plan.PathStep      `json:"optimal_path"`
	FieldErrors     []engine.FieldError  `json:"field_errors"`
	Trace           *engine.Trace        `json:"trace,omitempty"`
	Explanation     *explanationWire     `json:"explanation,omitempty"`
	GraphOverlay    *present.Graph       `json:"graph_overlay,omitempty"`
	ChoiceContext   *plan.ChoiceContext  `json:"choice_context,omitempty"`
	SectionResults  []sectionResult      `json:"section_results,omitempty"`
	Values          []engine.OutputValue `json:"values,omitempty"`
}

// explanationWire is the engine's explanation as the envelope carries it:
// the same members, with every criterion's references in the
// SourceReference shape (docs/api.md#source-references), converted by sourceReferencesFor exactly as GET
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
	Values           []resource.ValueFact      `json:"values,omitempty"`
	SourceReferences []catalog.SourceReference `json:"source_references"`
}

// explanationFor converts e, an explanation of target's ruleset, for a keyed
// or an anonymous caller.
func explanationFor(target *catalog.PreparedRuleset, e *engine.Explanation, keyed bool) *explanationWire {
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
			wg.Criteria[ci].Values = resource.ValueFacts(target, g.Criteria[ci].Values, !keyed)
			i++
		}
		w.Groups[gi] = wg
	}
	return w
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
