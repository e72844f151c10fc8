package decide

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/solver/plan"
)

// This file is the body of POST /decide as the handler reads it, and the
// checks of its members that are not one field's type: the choice between
// ruleset_id and rulebook_id, and caller_ref, which is dropped with a
// warning rather than refused.

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
	RulesetID            string                `json:"ruleset_id,omitempty" doc:"Slug (e.g. demo/us-fmla-employee) or concrete ruleset_id of a published ruleset. Exactly one of ruleset_id and rulebook_id is required." example:"demo/us-fmla-employee"`
	RulebookID           string                `json:"rulebook_id,omitempty" doc:"Rulebook id (rb_...) or slug of a composed rulebook to evaluate; needs a key with the decide scope (anonymous: 401). The tenant's own rulebooks and public ones are reached; any other is 404 with a string detail."`
	ReleaseID            string                `json:"release_id,omitempty" doc:"Rulebook requests only: release UUID or exact two-word label, evaluated from its frozen content whatever was published since. Without it the current release, or, before the first release, the live composition (release null). A release of another rulebook is 404. With ruleset_id it is refused with 422."`
	FieldValues          resource.JSONObject   `json:"field_values" required:"true" doc:"Map of field_id to answer. Types must match the ruleset schema; a key or value that cannot be applied is reported in field_errors (HTTP 200, decision undetermined), never rejected. null means unanswered. Must be I-JSON (RFC 7493): a repeated key or text that is not valid Unicode is 422 json_invalid."`
	IncludeTrace         bool                  `json:"include_trace,omitempty" doc:"Adds trace."`
	IncludeExplanation   bool                  `json:"include_explanation,omitempty" doc:"Adds explanation."`
	IncludeGraphOverlay  bool                  `json:"include_graph_overlay,omitempty" doc:"Adds graph_overlay."`
	IncludeChoiceContext bool                  `json:"include_choice_context,omitempty" doc:"Adds choice_context. It is meant for rulebook requests; on a ruleset request it describes the ruleset's one section."`
	IncludeTiming        bool                  `json:"include_timing,omitempty" doc:"Adds timing (total_ms)."`
	NoCache              bool                  `json:"no_cache,omitempty" doc:"Bypasses the decision cache: the decision is evaluated afresh and not stored in the cache."`
	flags                flagSet               // the boolean members as readDecideRequest read them (see flagSet); here it takes no room
	InquiryContext       *plan.InquiryContext  `json:"inquiry_context,omitempty" doc:"Steers the choice of next_question and optimal_path only, never the outcome: fields the applicant declines to answer, and a preferred section or groups that break ties between equally cheap paths. Ids the ruleset does not declare are ignored. It is normalised (trimmed, sorted, deduplicated) and then part of the cache identity."`
	DecisionDate         resource.DecisionDate `json:"decision_date,omitempty"`
	CallerRef            json.RawMessage       `json:"caller_ref,omitempty" openapi:"stringmap" doc:"Flat string-to-string map, at most 2048 bytes of JSON, no key containing '$' or '.'. Stored on the server-side decision record of keyed callers for their own attribution; never used for authorization and never stored for anonymous callers. An invalid caller_ref is never rejected: it is dropped and the response's warnings array carries an entry with code caller_ref_dropped."`
}

// SchemaName is the name of decideRequest's schema in the published API document,
// where the Go name would not say what it is.
func (decideRequest) SchemaName() string { return "DecisionRequest" }

// maxCallerRefBytes is the caller_ref limit (docs/api.md#deciding-post-decide), on its
// compact JSON.
const maxCallerRefBytes = 2048

// maxCallerRefRawBytes bounds the caller_ref member as sent that is worth
// decoding: room for white space and escapes around a map within the
// limit, without decoding megabytes to drop them.
const maxCallerRefRawBytes = 16 * maxCallerRefBytes

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
