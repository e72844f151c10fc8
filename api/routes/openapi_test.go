package routes

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
)

// documentedErrors lists the error statuses op documents.
func documentedErrors(op *huma.Operation) []int {
	var out []int
	for code := range op.Responses {
		if n, err := strconv.Atoi(code); err == nil && n >= 400 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// operations indexes the document's operations by id.
func operations(doc *huma.OpenAPI) map[string]*huma.Operation {
	ops := map[string]*huma.Operation{}
	for _, item := range doc.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op != nil {
				ops[op.OperationID] = op
			}
		}
	}
	return ops
}

// TestEveryOperationDocumentsItsErrors: each operation lists the error
// statuses its declaration can give, with the body shapes docs/api.md#errors gives
// them, and an opaque default. Operations added later without an entry
// here are still held to the rules every operation obeys.
func TestEveryOperationDocumentsItsErrors(t *testing.T) {
	t.Parallel()
	s, err := New(Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	const (
		problem    = "#/components/schemas/ProblemError"
		validation = "#/components/schemas/ValidationError"
		notFound   = "#/components/schemas/NotFoundError"
		anonymous  = "#/components/schemas/AnonymousLimited"
	)
	openRead := map[int][]string{401: {problem}, 403: {problem}, 404: {notFound}, 422: {validation, problem},
		429: {problem, anonymous}, 503: {problem}}
	want := map[string]map[int][]string{
		"decide": {401: {problem}, 403: {problem}, 404: {notFound}, 413: {problem}, 422: {validation, problem},
			429: {problem, anonymous}, 503: {problem}},
		"list-rulesets":      {401: {problem}, 403: {problem}, 422: {validation}, 429: {problem, anonymous}, 503: {problem}},
		"get-ruleset-schema": openRead,
		"explain-ruleset":    openRead,
		"get-ruleset-graph":  openRead,
		"explain-ruleset-failure": {401: {problem}, 403: {problem}, 404: {notFound}, 413: {problem}, 422: {validation, problem},
			429: {problem, anonymous}, 503: {problem}},
		"get-ruleset-source": {401: {problem}, 403: {problem}, 404: {notFound}, 422: {validation, problem}, 429: {problem}, 503: {problem}},
		"set-ruleset-visibility": {401: {problem}, 403: {problem}, 404: {notFound}, 413: {problem}, 422: {validation, problem},
			429: {problem}, 503: {problem}},
		// Archive never loads the rules: no ruleset_record_corrupt.
		"archive-ruleset": {401: {problem}, 403: {problem}, 404: {notFound}, 422: {validation}, 429: {problem}, 503: {problem}},
		// Any key will do (no 403), and it is never metered (no 429).
		"get-usage": {401: {problem}, 503: {problem}},
	}
	ops := operations(s.OpenAPI())
	for id := range want {
		if ops[id] == nil {
			t.Errorf("operation %s is not in the document", id)
		}
	}
	for id, op := range ops {
		for _, required := range []string{"401", "503", "default"} {
			if op.Responses[required] == nil {
				t.Errorf("%s: no %s response", id, required)
			}
		}
		statuses, known := want[id]
		if !known {
			continue
		}
		if got := documentedErrors(op); !slices.Equal(got, slices.Sorted(mapKeys(statuses))) {
			t.Errorf("%s documents errors %v, want %v", id, got, slices.Sorted(mapKeys(statuses)))
		}
		for status, refs := range statuses {
			resp := op.Responses[strconv.Itoa(status)]
			if resp == nil {
				continue
			}
			if got := schemaRefs(resp.Content["application/json"].Schema); !slices.Equal(got, refs) {
				t.Errorf("%s %d: body shapes %v, want %v", id, status, got, refs)
			}
		}
		if strings.Contains(id, "ruleset") && op.Responses["422"] != nil &&
			slices.Contains(statuses[422], problem) != strings.Contains(op.Responses["422"].Description, "ruleset_record_corrupt") {
			t.Errorf("%s: 422 description %q disagrees with its shapes", id, op.Responses["422"].Description)
		}
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// schemaRefs lists the references of a response schema: the one, or each
// of a oneOf.
func schemaRefs(s *huma.Schema) []string {
	if s.Ref != "" {
		return []string{s.Ref}
	}
	var refs []string
	for _, sub := range s.OneOf {
		refs = append(refs, sub.Ref)
	}
	return refs
}

// TestErrorBodiesMatchTheirDocumentation: real error answers, from the
// middleware, the metering layer and the handlers, are each documented on
// their operation, and their bodies validate against the documented schema.
func TestErrorBodiesMatchTheirDocumentation(t *testing.T) {
	t.Parallel()
	budgets := apitest.GenerousMetering()
	budgets.Budgets[metering.Anonymous][api.ClassRulesets] = 2
	f := newFixture(t, api.Config{Metering: budgets})
	res := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)
	corrupt := f.Publish(t, "acme", "acme/corrupt", apitest.LeaveRules("13"), true)
	if _, err := f.Pool.Exec(context.Background(), `UPDATE rulesets SET compiled_ir = jsonb_set(compiled_ir, '{name}', '"Other"') WHERE id = $1`, corrupt.RulesetID); err != nil {
		t.Fatal(err)
	}
	reader := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	source := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsSource}, time.Time{})
	expired := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsSource}, time.Now().Add(-time.Hour))

	type call struct {
		name, method, path, key, body string
		status                        int
	}
	calls := []call{
		{"no key", http.MethodGet, apitest.RulesetPath(res.RulesetID, "/source"), "", "", 401},
		{"expired key", http.MethodGet, apitest.RulesetPath(res.RulesetID, "/source"), expired, "", 401},
		{"no scope", http.MethodGet, apitest.RulesetPath(res.RulesetID, "/source"), reader, "", 403},
		{"unknown ruleset", http.MethodGet, apitest.RulesetPath("acme/missing", "/graph"), "", "", 404},
		{"unknown ruleset on decide", http.MethodPost, "/decide", "", `{"ruleset_id":"acme/missing","field_values":{}}`, 404},
		{"undefined member", http.MethodPost, "/decide", "", `{"ruleset_id":"acme/leave","field_values":{},"x":1}`, 422},
		{"query out of range", http.MethodGet, "/rulesets?limit=0", reader, "", 422},
		{"corrupt record", http.MethodGet, apitest.RulesetPath(corrupt.RulesetID, "/source"), source, "", 422},
		{"body too large", http.MethodPost, "/decide", "", `{"ruleset_id":"` + strings.Repeat("x", api.AnonymousBodyLimit) + `"}`, 413},
		{"usage without key", http.MethodGet, "/usage", "", "", 401},
	}
	// The anonymous rulesets budget is 2 (the reads above count too): the
	// third read at the latest is refused.
	calls = append(calls, call{"anonymous over budget", http.MethodGet, apitest.RulesetPath(res.RulesetID, "/schema"), "", "", 429})
	registry := f.Server.OpenAPI().Components.Schemas
	for _, c := range calls {
		headers := map[string]string{}
		if c.key != "" {
			headers["x-api-key"] = c.key
		}
		var body *strings.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		if c.status == http.StatusTooManyRequests {
			for range 2 {
				if r := f.Do(t, c.method, c.path, headers, nil); r.Status == c.status {
					break
				}
			}
		}
		var r apitest.Response
		if body != nil {
			r = f.Do(t, c.method, c.path, headers, body)
		} else {
			r = f.Do(t, c.method, c.path, headers, nil)
		}
		if r.Status != c.status {
			t.Errorf("%s: got %d %.200s, want %d", c.name, r.Status, r.Raw, c.status)
			continue
		}
		if c.status < 400 {
			continue
		}
		op := operationFor(t, f.Server.OpenAPI(), c.method, c.path)
		resp := op.Responses[strconv.Itoa(c.status)]
		if resp == nil {
			t.Errorf("%s: %s does not document %d", c.name, op.OperationID, c.status)
			continue
		}
		result := &huma.ValidateResult{}
		huma.Validate(registry, resp.Content["application/json"].Schema, huma.NewPathBuffer(nil, 0), huma.ModeReadFromServer, r.Body, result)
		for _, e := range result.Errors {
			t.Errorf("%s: %s %d body %.200s: %v", c.name, op.OperationID, c.status, r.Raw, e)
		}
		for name := range resp.Headers {
			if r.Header.Get(name) == "" && !(c.status == 429 && name == "Retry-After") {
				t.Errorf("%s: documented header %s not sent", c.name, name)
			}
		}
	}
}

// operationFor finds the operation that serves method and path (relative
// to the API root, escaped as sent).
func operationFor(t *testing.T, doc *huma.OpenAPI, method, path string) *huma.Operation {
	t.Helper()
	path, _, _ = strings.Cut(path, "?")
	got := strings.Split(strings.Trim(path, "/"), "/")
	for pattern, item := range doc.Paths {
		want := strings.Split(strings.Trim(pattern, "/"), "/")
		if len(want) != len(got) {
			continue
		}
		match := true
		for i := range want {
			if want[i] != got[i] && !strings.HasPrefix(want[i], "{") {
				match = false
			}
		}
		if !match {
			continue
		}
		if op := map[string]*huma.Operation{http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPatch: item.Patch}[method]; op != nil {
			return op
		}
	}
	t.Fatalf("no operation serves %s %s", method, path)
	return nil
}

// TestGraphsMatchTheirSchema validates the graph of GET /graph and the
// graph_overlay of /decide, on a casebank ruleset, against the Graph
// schema, and checks the schema is not vacuous: a node without its id, or
// with an unknown type, is refused.
func TestGraphsMatchTheirSchema(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	doc := f.Server.OpenAPI()
	registry := doc.Components.Schemas
	graphOp := operationFor(t, doc, http.MethodGet, "/rulesets/x/graph")
	validate := func(name string, schema *huma.Schema, v any) []string {
		return validateAgainst(registry, name, schema, v)
	}

	r := f.Do(t, http.MethodGet, apitest.RulesetPath("demo/us-fmla-employee", "/graph"), nil, nil)
	if r.Status != 200 {
		t.Fatalf("graph: %d %s", r.Status, r.Raw)
	}
	for _, e := range validate("GET /graph", graphOp.Responses["200"].Content["application/json"].Schema, r.Body) {
		t.Error(e)
	}
	plain := r.Field(t, "graph").(map[string]any)

	d := f.Decide(t, "", `{"ruleset_id":"demo/us-fmla-employee","field_values":{"employment.employer_type":"private","employment.months_employed":12},"include_graph_overlay":true}`)
	if d.Status != 200 {
		t.Fatalf("decide: %d %s", d.Status, d.Raw)
	}
	overlay := d.Field(t, "graph_overlay").(map[string]any)
	graph := resource.Graph{}.Schema(registry)
	for _, e := range validate("graph_overlay", graph, overlay) {
		t.Error(e)
	}

	kinds := map[string]bool{}
	for i, n := range plain["nodes"].([]any) {
		node := n.(map[string]any)
		kinds[node["type"].(string)] = true
		if node["overlay"] != nil {
			t.Errorf("GET /graph node %v has an overlay", node["id"])
		}
		if got := overlay["nodes"].([]any)[i].(map[string]any)["overlay"]; got == nil {
			t.Errorf("graph_overlay node %v has no overlay", node["id"])
		}
	}
	if len(kinds) != 4 {
		t.Errorf("node types %v: the casebank ruleset should exercise all four", kinds)
	}

	// The schema refuses what a client could not decode.
	broken := apitest.JSONValue(t, rawMember(t, d, "graph_overlay")).(map[string]any)
	first := broken["nodes"].([]any)[0].(map[string]any)
	delete(first, "id")
	if len(validate("node without id", graph, broken)) == 0 {
		t.Error("a node without id validates")
	}
	first["id"], first["type"] = "x", "bogus"
	if len(validate("node of unknown type", graph, broken)) == 0 {
		t.Error("a node of unknown type validates")
	}
}

// validateAgainst validates v, a decoded response member, against schema
// as a client reads it, and returns the errors prefixed with name.
func validateAgainst(registry huma.Registry, name string, schema *huma.Schema, v any) []string {
	res := &huma.ValidateResult{}
	huma.Validate(registry, schema, huma.NewPathBuffer(nil, 0), huma.ModeReadFromServer, v, res)
	var errs []string
	for _, e := range res.Errors {
		errs = append(errs, name+": "+e.Error())
	}
	return errs
}

// rawMember re-encodes one member of the body, for a copy to break.
func rawMember(t *testing.T, r apitest.Response, name string) string {
	t.Helper()
	b, err := json.Marshal(r.Body.(map[string]any)[name])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestArraysAlwaysSentAreNotNullable: members the API always sends as
// arrays are documented as arrays, not ["array","null"].
func TestArraysAlwaysSentAreNotNullable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	r := f.Do(t, http.MethodGet, "/openapi.json", nil, nil)
	doc := r.Body.(map[string]any)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	resolve := func(s map[string]any) map[string]any {
		if ref, ok := s["$ref"].(string); ok {
			return schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		}
		return s
	}
	okSchema := func(path, method string) map[string]any {
		op := doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)
		return resolve(op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any))
	}
	member := func(s map[string]any, name string) map[string]any {
		return resolve(s)["properties"].(map[string]any)[name].(map[string]any)
	}
	schemaBody := okSchema("/rulesets/{ruleset_id}/schema", "get")
	explainBody := okSchema("/rulesets/{ruleset_id}/explain", "get")
	criterion := member(explainBody, "criteria")["items"].(map[string]any)
	arrays := map[string]map[string]any{
		"list-rulesets body":           okSchema("/rulesets", "get"),
		"schema fields":                member(schemaBody, "fields"),
		"schema field notes":           member(member(schemaBody, "fields")["items"].(map[string]any), "notes"),
		"explain groups":               member(explainBody, "groups"),
		"explain criteria":             member(explainBody, "criteria"),
		"explain criterion fields":     member(criterion, "fields"),
		"explain criterion references": member(criterion, "source_references"),
		"usage classes":                member(okSchema("/usage", "get"), "classes"),
		"validation error detail":      member(schemas["ValidationError"].(map[string]any), "detail"),
		"validation item loc":          member(schemas["ValidationItem"].(map[string]any), "loc"),
		"explain group criterion_ids":  member(member(explainBody, "groups")["items"].(map[string]any), "criterion_ids"),
	}
	for name, s := range arrays {
		if s["type"] != "array" {
			t.Errorf("%s: type %v, want array", name, s["type"])
		}
	}
	// enum_values is null for a field that is not an enum, and says so.
	enumValues := member(member(schemaBody, "fields")["items"].(map[string]any), "enum_values")
	if types, _ := enumValues["type"].([]any); !slices.Contains(types, any("null")) {
		t.Errorf("enum_values type %v, want nullable", enumValues["type"])
	}
}
