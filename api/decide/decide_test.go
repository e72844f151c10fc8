package decide

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
)

// allTypesRules declares one field of every type, so that every conversion
// failure can be provoked against one ruleset.
const allTypesRules = `ruleset "acme/all-types"
section all_types

source law "Test law" url "https://example.test/law" licence "public-domain"

field a.count int weight 1
  question "How many?"
field a.amount decimal weight 2
  question "How much?"
field a.flag bool weight 1
field a.kind enum ["x", "y"] weight 1
field a.born date weight 1

group g all "Everything holds" {
  criterion enough "Enough of everything" {
    a.count >= 1 and a.amount >= 1.5 and a.flag and a.kind == "x" and a.born >= date("2000-01-01")
    cite law "the whole law"
  }
}
`

var decisionIDPattern = regexp.MustCompile(`^dec_[A-Za-z0-9_-]{16}$`)

func TestDecideEnvelope(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	pub, cb := f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	values, _ := json.Marshal(cb.Cases[0].FieldValues)
	r := f.Decide(t, "", `{"ruleset_id":"demo/us-fmla-employee","field_values":`+string(values)+`,"include_timing":true}`)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	hash, err := engine.InputsHash(values)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"decision":         "eligible",
		"slug":             "demo/us-fmla-employee",
		"ruleset_id":       pub.RulesetID,
		"ruleset_version":  pub.Version,
		"content_digest":   pub.ContentDigest,
		"engine_version":   engine.Version,
		"inputs_hash":      hash,
		"fields_provided":  5.0,
		"fields_evaluated": 5.0,
		"missing_fields":   []any{},
		"next_question":    nil,
		"optimal_path":     []any{},
		"field_errors":     []any{},
	}
	for k, v := range want {
		if got := r.Field(t, k); !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	if id, _ := r.Field(t, "decision_id").(string); !decisionIDPattern.MatchString(id) {
		t.Errorf("decision_id %q", id)
	}
	if ts, _ := r.Field(t, "decision_time").(string); !strings.HasSuffix(ts, "Z") {
		t.Errorf("decision_time %q is not UTC", ts)
	} else if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
		t.Errorf("decision_time %q: %v", ts, err)
	}
	if tm, _ := r.Field(t, "timing").(map[string]any); tm == nil || tm["total_ms"] == nil {
		t.Errorf("timing = %v", r.Field(t, "timing"))
	}
	for _, absent := range []string{"trace", "explanation", "graph_overlay", "warnings"} {
		if _, present := r.Body.(map[string]any)[absent]; present {
			t.Errorf("%s present without being asked for", absent)
		}
	}
}

// TestDecideCasebankOutcomes runs every case of a casebank ruleset through
// HTTP, each as of its date: the served outcome is the engine's.
func TestDecideCasebankOutcomes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	_, cb := f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	bodies := decideBodies(t, cb, "demo/us-fmla-employee", "")
	for i, c := range cb.Cases {
		r := f.Decide(t, "", string(bodies[i]))
		if r.Status != 200 || r.Field(t, "decision") != c.ExpectedOutcome {
			t.Errorf("%s: got %d %v, want %s", c.Name, r.Status, r.Field(t, "decision"), c.ExpectedOutcome)
		}
	}
}

func TestDecideIncludes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	_, cb := f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	r := f.Decide(t, "", `{"ruleset_id":"demo/us-fmla-employee","field_values":`+string(cb.Cases[0].FieldValues)+
		`,"include_trace":true,"include_explanation":true,"include_graph_overlay":true}`)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	trace, _ := r.Field(t, "trace").(map[string]any)
	if trace["status"] != "eligible" || trace["group_statuses"].(map[string]any)["service"] != "satisfied" {
		t.Errorf("trace = %v", trace)
	}
	expl, _ := r.Field(t, "explanation").(map[string]any)
	if expl["decision"] != "eligible" || len(expl["groups"].([]any)) != 3 {
		t.Errorf("explanation = %v", expl)
	}
	crit := expl["groups"].([]any)[0].(map[string]any)["criteria"].([]any)[0].(map[string]any)
	refs, _ := crit["source_references"].([]any)
	if len(refs) == 0 || refs[0].(map[string]any)["quote"].(map[string]any)["exact"] == "" {
		t.Errorf("criterion without source references: %v", crit)
	}
	graph, _ := r.Field(t, "graph_overlay").(map[string]any)
	nodes, _ := graph["nodes"].([]any)
	outcomes := 0
	for _, n := range nodes {
		node := n.(map[string]any)
		if node["overlay"] == nil {
			t.Errorf("node %v has no overlay", node["id"])
		}
		if node["type"] == "outcome" {
			outcomes++
		}
	}
	if outcomes != 1 {
		t.Errorf("graph_overlay has %d outcome nodes, want 1", outcomes)
	}
}

// TestDecideFieldErrors provokes every kind of conversion failure: each is
// HTTP 200, the key in field_errors, and an undetermined decision.
func TestDecideFieldErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	good := map[string]string{
		"a.count": `3`, "a.amount": `2.5`, "a.flag": `true`, "a.kind": `"x"`, "a.born": `"2001-02-03"`,
	}
	body := func(key, value string) string {
		parts := []string{}
		for k, v := range good {
			if k == key {
				v = value
			}
			parts = append(parts, `"`+k+`":`+v)
		}
		if _, declared := good[key]; !declared && key != "" {
			parts = append(parts, `"`+key+`":`+value)
		}
		return `{"ruleset_id":"acme/all-types","no_cache":true,"field_values":{` + strings.Join(parts, ",") + `}}`
	}
	// The control: the good answers are eligible.
	if r := f.Decide(t, "", body("", "")); r.Field(t, "decision") != "eligible" {
		t.Fatalf("good answers: %s", r.Raw)
	}
	cases := []struct {
		name, key, value, typ string
	}{
		{"unknown key", "a.nope", `1`, ""},
		{"int given a fraction", "a.count", `1.5`, "int"},
		{"int given a string", "a.count", `"3"`, "int"},
		{"int given a bool", "a.count", `true`, "int"},
		{"int over 18 digits", "a.count", `1234567890123456789012`, "int"},
		{"decimal given a string", "a.amount", `"2.5"`, "decimal"},
		{"decimal given an object", "a.amount", `{"v":1}`, "decimal"},
		{"bool given a number", "a.flag", `1`, "bool"},
		{"bool given a string", "a.flag", `"true"`, "bool"},
		{"enum value not listed", "a.kind", `"z"`, "enum"},
		{"enum given a number", "a.kind", `0`, "enum"},
		{"date not a calendar day", "a.born", `"2023-02-29"`, "date"},
		{"date as a datetime", "a.born", `"2001-02-03T00:00:00Z"`, "date"},
		{"date in another layout", "a.born", `"03/02/2001"`, "date"},
		{"date ordinal zero", "a.born", `0`, "date"},
		{"date ordinal with a fraction", "a.born", `730000.5`, "date"},
		{"date given a list", "a.born", `[2001, 2, 3]`, "date"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Decide(t, "", body(c.key, c.value))
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Raw)
			}
			if d := r.Field(t, "decision"); d != "undetermined" {
				t.Errorf("decision %v with a field error", d)
			}
			errs, _ := r.Field(t, "field_errors").([]any)
			if len(errs) != 1 {
				t.Fatalf("field_errors = %v, want one entry", errs)
			}
			e := errs[0].(map[string]any)
			if e["field"] != c.key || e["message"] == "" || !reflect.DeepEqual(e["value"], apitest.JSONValue(t, c.value)) {
				t.Errorf("field error %v for %s=%s", e, c.key, c.value)
			}
			if typ, _ := e["type"].(string); typ != c.typ {
				t.Errorf("field error type %q, want %q", typ, c.typ)
			}
		})
	}
}

// TestDecideInputsHashInvariance: key order, white space and number
// spelling never change inputs_hash, and a changed value does.
func TestDecideInputsHashInvariance(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	spellings := []string{
		`{"a.count":1,"a.amount":2.5,"a.kind":"x"}`,
		`{"a.kind":"x","a.amount":2.5,"a.count":1}`,
		`{ "a.count" : 1.0 ,"a.amount":25e-1,
		   "a.kind":"x" }`,
		`{"a.count":1e0,"a.amount":2.50,"a.kind":"x"}`,
	}
	var first string
	for i, fv := range spellings {
		r := f.Decide(t, "", `{"ruleset_id":"acme/all-types","field_values":`+fv+`}`)
		h, _ := r.Field(t, "inputs_hash").(string)
		if !strings.HasPrefix(h, "sha256:") {
			t.Fatalf("inputs_hash %q: %s", h, r.Raw)
		}
		if i == 0 {
			first = h
		} else if h != first {
			t.Errorf("spelling %d gives %s, want %s", i, h, first)
		}
	}
	r := f.Decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{"a.count":2,"a.amount":2.5,"a.kind":"x"}}`)
	if r.Field(t, "inputs_hash") == first {
		t.Error("a different value gives the same inputs_hash")
	}
}

func TestDecideStrictBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	cases := []struct {
		name, body, want string
	}{
		{"undefined top-level key", `{"ruleset_id":"acme/all-types","field_values":{},"include_everything":true}`,
			`{"detail":[{"type":"extra_forbidden","loc":["body","include_everything"],"msg":"Extra inputs are not permitted","input":true}]}`},
		{"field_values missing", `{"ruleset_id":"acme/all-types"}`,
			`{"detail":[{"type":"missing","loc":["body","field_values"],"msg":"Field required","input":{"ruleset_id":"acme/all-types"}}]}`},
		{"field_values not an object", `{"ruleset_id":"acme/all-types","field_values":[1]}`,
			`{"detail":[{"type":"dict_type","loc":["body","field_values"],"msg":"Input should be a valid dictionary","input":[1]}]}`},
		{"flag not a bool", `{"ruleset_id":"acme/all-types","field_values":{},"no_cache":"yes"}`,
			`{"detail":[{"type":"bool_type","loc":["body","no_cache"],"msg":"Input should be a valid boolean","input":"yes"}]}`},
		{"no ruleset or rulebook", `{"field_values":{}}`,
			`{"detail":[{"type":"missing","loc":["body","ruleset_id"],"msg":"Field required: send ruleset_id or rulebook_id","input":null}]}`},
		{"both ruleset and rulebook", `{"ruleset_id":"acme/all-types","rulebook_id":"rb","field_values":{}}`,
			`{"detail":[{"type":"value_error","loc":["body","rulebook_id"],"msg":"Send exactly one of ruleset_id and rulebook_id","input":"rb"}]}`},
		{"release without rulebook", `{"ruleset_id":"acme/all-types","release_id":"brave-otter","field_values":{}}`,
			`{"detail":[{"type":"value_error","loc":["body","release_id"],"msg":"release_id applies to rulebook requests only","input":"brave-otter"}]}`},
		{"empty body", ``,
			`{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"not an object", `[1,2]`,
			`{"detail":[{"type":"dict_type","loc":["body"],"msg":"Input should be a valid dictionary","input":[1,2]}]}`},
		{"malformed JSON", `{"ruleset_id":`,
			`{"detail":[{"type":"json_invalid","loc":["body"],"msg":"JSON decode error","input":{}}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Decide(t, "", c.body)
			if r.Status != 422 || !reflect.DeepEqual(r.Body, apitest.JSONValue(t, c.want)) {
				t.Fatalf("got %d %s\nwant 422 %s", r.Status, r.Raw, c.want)
			}
		})
	}
}

func TestDecideRulebooks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	r := f.Decide(t, "", `{"rulebook_id":"acme/book","field_values":{}}`)
	if r.Status != 401 || r.Field(t, "detail").(map[string]any)["reason_code"] != "missing_api_key" {
		t.Errorf("anonymous rulebook: %d %s", r.Status, r.Raw)
	}
	r = f.Decide(t, key, `{"rulebook_id":"acme/book","field_values":{}}`)
	if detail, ok := r.Field(t, "detail").(string); r.Status != 404 || !ok || detail != `Rulebook "acme/book" not found.` {
		t.Errorf("keyed, unknown rulebook: %d %s", r.Status, r.Raw)
	}
}

// TestDecideTenantIsolation: anonymous callers and other tenants get the
// same 404 for a private ruleset; its owner's decide key reaches it by slug
// and by id. A key presented but unusable (without the decide scope,
// expired, unknown) earns its own 401/403 instead, for an existing private
// ruleset and an unknown ref alike, so the answer reveals nothing.
func TestDecideTenantIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	pub := f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), false)
	acme := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	acmeRead := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	acmeExpired := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Now().Add(-time.Minute))
	other := f.Key(t, "globex", []auth.Scope{auth.ScopeDecide}, time.Time{})
	unknown := "elg_zzzzzzzz_" + strings.Repeat("A", 43)
	for _, ref := range []string{"acme/all-types", pub.RulesetID, "acme/no-such-ruleset"} {
		body := `{"ruleset_id":"` + ref + `","field_values":{"a.count":1}}`
		for _, c := range []struct {
			name, key string
			status    int
			reason    string // reason_code, or "" for the 404's string detail
		}{
			{"anonymous", "", 404, ""},
			{"other tenant", other, 404, ""},
			{"owner without decide", acmeRead, 403, "denied_missing_permission"},
			{"owner's expired key", acmeExpired, 401, "api_key_expired"},
			{"unknown key", unknown, 401, "invalid_api_key"},
		} {
			r := f.Decide(t, c.key, body)
			if r.Status != c.status {
				t.Errorf("%s, %s: got %d %s, want %d", c.name, ref, r.Status, r.Raw, c.status)
				continue
			}
			if c.reason == "" {
				if want := `{"detail":"Ruleset \"` + ref + `\" not found."}`; !reflect.DeepEqual(r.Body, apitest.JSONValue(t, want)) {
					t.Errorf("%s, %s: got %s", c.name, ref, r.Raw)
				}
			} else if detail, _ := r.Field(t, "detail").(map[string]any); detail["reason_code"] != c.reason {
				t.Errorf("%s, %s: got %s, want reason %s", c.name, ref, r.Raw, c.reason)
			}
		}
		if ref == "acme/no-such-ruleset" {
			continue
		}
		if r := f.Decide(t, acme, body); r.Status != 200 || r.Field(t, "ruleset_id") != pub.RulesetID {
			t.Errorf("owner, %s: got %d %s", ref, r.Status, r.Raw)
		}
	}
	// On a public ruleset an unusable key is ignored (docs/api.md#keys-and-access).
	f.Publish(t, "acme", "acme/open-types", []byte(allTypesRules), true)
	for _, key := range []string{acmeRead, acmeExpired, unknown} {
		if r := f.Decide(t, key, `{"ruleset_id":"acme/open-types","field_values":{"a.count":1}}`); r.Status != 200 {
			t.Errorf("public ruleset with an unusable key: %d %s", r.Status, r.Raw)
		}
	}
}

func TestDecideCallerRef(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	cases := []struct {
		name      string
		key       string
		callerRef string
		warning   string // expected warning code, "" for none
		stored    map[string]string
	}{
		{"valid, keyed", key, `{"case":"c-17","agent":"desk 4"}`, "", map[string]string{"case": "c-17", "agent": "desk 4"}},
		{"valid, anonymous", "", `{"case":"c-17"}`, "caller_ref_not_stored", nil},
		{"dollar in a key", key, `{"$where":"x"}`, "caller_ref_dropped", nil},
		{"dot in a key", key, `{"a.b":"x"}`, "caller_ref_dropped", nil},
		{"nested value", key, `{"a":{"b":"c"}}`, "caller_ref_dropped", nil},
		{"number value", key, `{"a":1}`, "caller_ref_dropped", nil},
		{"not an object", key, `"just a string"`, "caller_ref_dropped", nil},
		{"a list", key, `["a"]`, "caller_ref_dropped", nil},
		{"over 2 KB", key, `{"a":"` + strings.Repeat("x", 2100) + `"}`, "caller_ref_dropped", nil},
		// The limit is on the compact JSON: white space and escapes in the
		// request do not count, and "<" counts as one byte.
		{"2 KB compact, padded with spaces", key, `{ "a" : "` + strings.Repeat("x", 2040) + `" }` + strings.Repeat(" ", 100),
			"", map[string]string{"a": strings.Repeat("x", 2040)}},
		{"2 KB compact, written with escapes", key, `{"a":"` + strings.Repeat(`\u00e9`, 1020) + `"}`,
			"", map[string]string{"a": strings.Repeat("é", 1020)}},
		{"angle brackets count once", key, `{"a":"` + strings.Repeat("<", 2040) + `"}`,
			"", map[string]string{"a": strings.Repeat("<", 2040)}},
		{"one byte over as compact JSON", key, `{"a":"` + strings.Repeat("x", 2041) + `"}`, "caller_ref_dropped", nil},
		{"NUL in a value", key, `{"a":"x\u0000y"}`, "caller_ref_dropped", nil},
		{"NUL in a key", key, `{"a\u0000":"x"}`, "caller_ref_dropped", nil},
		{"null", key, `null`, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Decide(t, c.key, `{"ruleset_id":"acme/all-types","field_values":{"a.count":1},"caller_ref":`+c.callerRef+`}`)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Raw)
			}
			warnings, _ := r.Field(t, "warnings").([]any)
			var codes []string
			for _, w := range warnings {
				codes = append(codes, w.(map[string]any)["code"].(string))
			}
			if (c.warning == "") != (len(codes) == 0) || (c.warning != "" && !slices.Equal(codes, []string{c.warning})) {
				t.Errorf("warnings %v, want %q", codes, c.warning)
			}
			rec := f.RecordOf(t, r.Field(t, "decision_id").(string))
			if !reflect.DeepEqual(rec.CallerRef, c.stored) {
				t.Errorf("stored caller_ref %v, want %v", rec.CallerRef, c.stored)
			}
		})
	}
}

// waitForRecord polls until the decision's record is written (the writer

// TestDecideResponsesMatchTheirSchema validates real envelopes (a finished
// decision, whose next_question is null, and an open one, with every
// optional member) against the published Decision schema.
func TestDecideResponsesMatchTheirSchema(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	registry := f.Server.OpenAPI().Components.Schemas
	schema := registry.Map()["Decision"]
	flags := `,"include_trace":true,"include_explanation":true,"include_graph_overlay":true,"include_timing":true`
	for name, values := range map[string]string{
		"finished": `{"a.count":1,"a.amount":2,"a.flag":true,"a.kind":"x","a.born":"2001-01-01"}`,
		"open":     `{"a.count":1}`,
	} {
		r := f.Decide(t, "", `{"ruleset_id":"acme/all-types","field_values":`+values+flags+`}`)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
		}
		if name == "finished" && r.Field(t, "next_question") != nil {
			t.Fatalf("finished decision asks %v", r.Field(t, "next_question"))
		}
		res := &huma.ValidateResult{}
		huma.Validate(registry, schema, huma.NewPathBuffer(nil, 0), huma.ModeReadFromServer, r.Body, res)
		for _, e := range res.Errors {
			t.Errorf("%s decision: %v", name, e)
		}
	}
}

// TestDecideOpenAPI: the envelope is written as bytes, yet the document
// describes it, and the request body schema is the strict one.
func TestDecideOpenAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	r := f.Do(t, http.MethodGet, "/openapi.json", nil, nil)
	doc := r.Body.(map[string]any)
	post := doc["paths"].(map[string]any)["/decide"].(map[string]any)["post"].(map[string]any)
	ok := post["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	if ok["$ref"] != "#/components/schemas/Decision" {
		t.Fatalf("200 schema %v", ok)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	props := schemas["Decision"].(map[string]any)["properties"].(map[string]any)
	for _, name := range []string{"decision", "slug", "ruleset_id", "ruleset_version", "content_digest", "engine_version",
		"decision_id", "inputs_hash", "decision_time", "fields_provided", "fields_evaluated", "missing_fields",
		"next_question", "optimal_path", "field_errors", "trace", "explanation", "graph_overlay", "timing", "warnings"} {
		if props[name] == nil {
			t.Errorf("Decision lacks %s", name)
		}
	}
	if trace := schemas["Trace"].(map[string]any); props["trace"].(map[string]any)["$ref"] != "#/components/schemas/Trace" || trace["properties"] == nil {
		t.Errorf("trace schema is opaque: %v", props["trace"])
	}
	req := schemas["DecisionRequest"]
	if req == nil || req.(map[string]any)["additionalProperties"] != false {
		t.Errorf("request schema is not strict: %v", req)
	}
}

// TestDecidePlan: next_question and optimal_path come from the planner,
// inquiry_context steers them (and is part of the cache identity), and
// include_choice_context adds the choice context.
func TestDecidePlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	const answers = `{"employment.employer_type":"private","employment.months_employed":12}`
	plain := f.Decide(t, "", `{"ruleset_id":"demo/us-fmla-employee","field_values":`+answers+`}`)
	path, _ := plain.Field(t, "optimal_path").([]any)
	next, _ := plain.Field(t, "next_question").(map[string]any)
	if len(path) == 0 || next == nil || next["field_id"] != path[0].(map[string]any)["field_id"] {
		t.Fatalf("next_question %v, optimal_path %v", next, path)
	}
	var asked []string
	for _, step := range path {
		asked = append(asked, step.(map[string]any)["field_id"].(string))
	}
	if !slices.Contains(asked, "employment.hours_12_months") || slices.Contains(asked, "employment.months_employed") {
		t.Errorf("optimal_path %v: want the unanswered hours, not the answered months", asked)
	}
	declined := f.Decide(t, "", `{"ruleset_id":"demo/us-fmla-employee","field_values":`+answers+
		`,"inquiry_context":{"declined_fields":["`+asked[0]+`"]},"include_choice_context":true}`)
	for _, step := range declined.Field(t, "optimal_path").([]any) {
		if step.(map[string]any)["field_id"] == asked[0] {
			t.Errorf("declined field %s still on the path: %s", asked[0], declined.Raw)
		}
	}
	if cc, _ := declined.Field(t, "choice_context").(map[string]any); cc == nil || cc["field_sections"] == nil {
		t.Errorf("choice_context = %v", declined.Field(t, "choice_context"))
	}
	if _, present := plain.Body.(map[string]any)["choice_context"]; present {
		t.Error("choice_context without include_choice_context")
	}
	r := f.Decide(t, "", `{"ruleset_id":"demo/us-fmla-employee","field_values":{},"inquiry_context":{"declined":["x"]}}`)
	want := `{"detail":[{"type":"extra_forbidden","loc":["body","inquiry_context","declined"],"msg":"Extra inputs are not permitted","input":["x"]}]}`
	if r.Status != 422 || !reflect.DeepEqual(r.Body, apitest.JSONValue(t, want)) {
		t.Errorf("unknown inquiry_context member: %d %s", r.Status, r.Raw)
	}
}

// TestDecideExplanationReferencesMatchExplain: /decide's explanation shows
// each criterion's references exactly as GET /explain does, verification
// members (content_digest, verified_at, snapshot) included, for an
// anonymous and a keyed caller, evaluated afresh and served from the cache.
func TestDecideExplanationReferencesMatchExplain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	law := []byte("The Leave Act.\nLeave is granted to an employee with twelve months of service\non request.\n")
	if _, err := f.Publisher.Ruleset(context.Background(), publish.RulesetRequest{
		TenantID: "acme", Filename: "leave.rules", Source: apitest.LeaveRules("12"), Visibility: publish.VisibilityOf(true),
		Sources: map[string][]byte{"law": law}, Actor: "test",
	}); err != nil {
		t.Fatal(err)
	}
	f.Publish(t, "acme", "acme/internal", []byte(apitest.ArtefactRules), false)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide, auth.ScopeRulesetsExplain}, time.Time{})

	for _, tc := range []struct {
		name, key, slug string
		verified        bool
	}{
		{"anonymous, verified sources", "", "acme/leave", true},
		{"keyed, verified sources", key, "acme/leave", true},
		{"keyed, artefact sources", key, "acme/internal", false},
	} {
		explain := f.Do(t, http.MethodGet, apitest.RulesetPath(tc.slug, "/explain"), apitest.WithKey(tc.key), nil)
		if explain.Status != http.StatusOK {
			t.Fatalf("%s: explain = %d %s", tc.name, explain.Status, explain.Raw)
		}
		want := map[string]any{}
		for _, c := range explain.Field(t, "criteria").([]any) {
			c := c.(map[string]any)
			want[c["criterion_id"].(string)] = c["source_references"]
			for _, ref := range c["source_references"].([]any) {
				if _, ok := ref.(map[string]any)["content_digest"]; ok != tc.verified {
					t.Errorf("%s: explain reference %v: content_digest present %v, want %v", tc.name, ref, ok, tc.verified)
				}
			}
		}
		for _, pass := range []string{"evaluated", "cached"} {
			r := f.Decide(t, tc.key, `{"ruleset_id":"`+tc.slug+`","field_values":{"employment.months":3},"include_explanation":true}`)
			if r.Status != http.StatusOK {
				t.Fatalf("%s, %s: decide = %d %s", tc.name, pass, r.Status, r.Raw)
			}
			got := map[string]any{}
			for _, g := range r.Field(t, "explanation").(map[string]any)["groups"].([]any) {
				for _, c := range g.(map[string]any)["criteria"].([]any) {
					c := c.(map[string]any)
					got[c["criterion_id"].(string)] = c["source_references"]
				}
			}
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %s: decide references\n%v\nexplain references\n%v", tc.name, pass, got, want)
			}
		}
	}
}

// TestDecideFieldValuesBeyondCanonicalJSON: a number beyond the float64
// range is a value like any other, a field error (200, undetermined) with
// an inputs_hash over the compacted field_values, never the 422 dict_type
// it once was; field_values that is not I-JSON (a repeated key, text that is
// not valid Unicode, nesting beyond 10000 levels) has no inputs_hash and is
// 422 json_invalid at body.field_values.
func TestDecideFieldValuesBeyondCanonicalJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	// post decodes numbers as written: the echoed 1e400 is no float64.
	post := func(t *testing.T, fieldValues string) (int, map[string]any) {
		t.Helper()
		return apitest.PostExact(t, f, "/decide", `{"ruleset_id":"acme/all-types","field_values":`+fieldValues+`}`)
	}
	hashOf := func(canonical string) string {
		sum := sha256.Sum256([]byte(canonical))
		return "sha256:" + hex.EncodeToString(sum[:])
	}

	for _, tc := range []struct {
		name, fieldValues, field, value string
		canonical                       string // RFC 8785 form, the huge number in its normal spelling
	}{
		{"int beyond float64", `{"a.count": 1e400}`, "a.count", "1e400", `{"a.count":1e400}`},
		{"decimal below float64", `{ "a.amount" : -1e400 }`, "a.amount", "-1e400", `{"a.amount":-1e400}`},
		{"bool given a huge number", `{"a.kind":"x","a.flag":1E+999}`, "a.flag", "1E+999", `{"a.flag":1e999,"a.kind":"x"}`},
		{"unknown key", `{"a.nope":1e400}`, "a.nope", "1e400", `{"a.nope":1e400}`},
		{"inside a list", `{"a.born":[1e400]}`, "a.born", "[1e400]", `{"a.born":[1e400]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, tc.fieldValues)
			if status != http.StatusOK || body["decision"] != "undetermined" {
				t.Fatalf("%d %v", status, body)
			}
			errs, _ := body["field_errors"].([]any)
			if len(errs) != 1 {
				t.Fatalf("field_errors %v, want one", errs)
			}
			e := errs[0].(map[string]any)
			value, _ := json.Marshal(e["value"])
			if e["field"] != tc.field || string(value) != tc.value || e["message"] == "" {
				t.Errorf("field error %v, want %s = %s", e, tc.field, tc.value)
			}
			if body["inputs_hash"] != hashOf(tc.canonical) {
				t.Errorf("inputs_hash %v, want the sha256 of %s", body["inputs_hash"], tc.canonical)
			}
		})
	}

	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	for _, tc := range []struct{ name, fieldValues string }{
		{"repeated key", `{"a.count":1,"a.count":2}`},
		{"repeated key, spelt differently", `{"a.count":1,"a\u002ecount":2}`},
		{"repeated key in a value", `{"a.born":{"y":1,"y":2}}`},
		{"lone high surrogate", `{"a.kind":"\ud800"}`},
		{"lone low surrogate in a key", `{"\udc00":1}`},
		{"invalid UTF-8", "{\"a.kind\":\"x\xff\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, tc.fieldValues)
			detail, _ := body["detail"].([]any)
			if status != http.StatusUnprocessableEntity || len(detail) != 1 {
				t.Fatalf("%d %v, want 422 with one item", status, body)
			}
			item := detail[0].(map[string]any)
			msg, _ := item["msg"].(string)
			if item["type"] != "json_invalid" || !reflect.DeepEqual(item["loc"], []any{"body", "field_values"}) ||
				!strings.Contains(msg, "I-JSON") {
				t.Errorf("item %v", item)
			}
		})
	}
	// Nesting beyond encoding/json's limit is refused with the body, as
	// malformed JSON, before field_values is read.
	status, body := post(t, `{"a.born":`+deep+`}`)
	detail, _ := body["detail"].([]any)
	if status != http.StatusUnprocessableEntity || len(detail) != 1 || detail[0].(map[string]any)["type"] != "json_invalid" {
		t.Errorf("field_values nested too deep: %d %v", status, body)
	}
}
