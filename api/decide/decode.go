package decide

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/tidwall/gjson"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/solver/plan"
)

// /decide reads its body itself rather than through huma's body handling,
// which decodes every body twice (once into generic values to validate
// against the schema, once into the struct). Here the common, valid body is
// read in one pass over its top-level members (gjson, no reflection), with
// field_values kept as raw bytes for the engine. Anything that pass does not
// accept outright, it refuses, and only then is the body validated against
// the same schema by huma's validator, so a malformed request gets exactly
// the 422 items every other operation gives.

// decodeRequest reads a /decide body: the strict pass, or, for anything
// it does not accept, the schema validator's 422 items.
func (h *handler) decodeRequest(raw []byte) (*decideRequest, error) {
	if req, ok := readDecideRequest(raw); ok {
		return req, nil
	}
	return nil, h.server.BodyErrors(raw, reflect.TypeFor[decideRequest](), "DecideRequest")
}

// anonymousPrice is /decide's Route.Price: the anonymous cost of a body
// (metering.DecideCost of its costly flags), read with readDecideRequest as
// the handler reads it, so a repeated flag counts by its last true or
// false and a null leaves it as it was. A body the reader refuses costs
// the plain unit; the handler then refuses it without evaluating anything.
func anonymousPrice(body []byte) int64 {
	req, ok := readDecideRequest(body)
	if !ok {
		return metering.DecideCost(0)
	}
	return metering.DecideCost(costlyFlags(req))
}

// readDecideRequest is the fast, strict reading of a body: a JSON object
// with only decideRequest's members, each of its declared type (the
// boolean ones, named by decideFlags, take only true, false or null), and
// field_values present. It reports false for anything else.
func readDecideRequest(raw []byte) (*decideRequest, bool) {
	body, ok := resource.ReadJSONObject(raw)
	if !ok {
		return nil, false
	}
	req := &decideRequest{}
	// An optional member sent as null leaves the member as it was, as
	// encoding/json does, and a repeated member counts by its last
	// occurrence. Anonymous metering prices the request this reads, so a
	// repeated or null flag costs what it gets.
	str := func(v gjson.Result, dst *string) {
		switch v.Type {
		case gjson.Null:
		case gjson.String:
			*dst = resource.DecodedString(v)
		default:
			ok = false
		}
	}
	flag := func(v gjson.Result, i int) {
		switch v.Type {
		case gjson.Null:
		case gjson.True, gjson.False:
			on := v.Type == gjson.True
			*decideFlags[i].member(req) = on
			req.flags = req.flags.with(i, on)
		default:
			ok = false
		}
	}
	body.ForEach(func(key, v gjson.Result) bool {
		switch resource.DecodedString(key) {
		case "ruleset_id":
			str(v, &req.RulesetID)
		case "rulebook_id":
			str(v, &req.RulebookID)
		case "release_id":
			str(v, &req.ReleaseID)
		case "field_values":
			ok = ok && v.IsObject()
			req.FieldValues = resource.JSONObject(v.Raw)
		case "inquiry_context":
			if v.Type == gjson.Null {
				req.InquiryContext = nil
				break
			}
			ic := &plan.InquiryContext{}
			dec := json.NewDecoder(strings.NewReader(v.Raw))
			dec.DisallowUnknownFields()
			ok = ok && v.IsObject() && dec.Decode(ic) == nil
			req.InquiryContext = ic
		case "decision_date":
			if v.Type != gjson.Null {
				var dateOK bool
				req.DecisionDate, dateOK = resource.DecisionDateOf(v)
				ok = ok && dateOK
			}
		case "caller_ref":
			// Any JSON: an unusable caller_ref is dropped, not refused.
			req.CallerRef = json.RawMessage(v.Raw)
		default:
			if i := decideFlagIndex(resource.DecodedString(key)); i >= 0 {
				flag(v, i)
			} else {
				ok = false
			}
		}
		return ok
	})
	return req, ok && len(req.FieldValues) > 0
}

// documentDecideBodies points the request body and the 200 response of
// /decide at the decideRequest and decideResponse schemas: the handler
// reads and writes them as bytes, which huma would otherwise document as
// opaque.
func documentBodies(s *api.Server) {
	op := s.OpenAPI().Paths["/decide"].Post
	registry := s.OpenAPI().Components.Schemas
	s.DocumentRequestBody(http.MethodPost, "/decide", reflect.TypeFor[decideRequest](), "DecideRequest")
	op.Responses["200"] = &huma.Response{
		Description: "The decision envelope.",
		Content: map[string]*huma.MediaType{"application/json": {
			Schema: registry.Schema(reflect.TypeFor[decideResponse](), true, "DecideResponse"),
		}},
	}
	// next_question is null when nothing is left to ask, and a rulebook
	// call's release is null on the live composition.
	response := registry.SchemaFromRef(registry.Schema(reflect.TypeFor[decideResponse](), true, "DecideResponse").Ref)
	for _, name := range []string{"next_question", "release"} {
		if member := response.Properties[name]; member != nil && member.Ref != "" {
			response.Properties[name] = resource.NullableCopy(registry, member)
		}
	}
}
