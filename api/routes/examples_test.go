package routes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// exampleCall is one real call whose request and response the document
// shows as its operation's example.
type exampleCall struct {
	op     string
	method string
	// path is relative to the API root, with {name} for params.
	path string
	// params fill the path's {name}s, and the rest go in the query.
	params map[string]string
	body   string
	keyed  bool
}

// volatile names members whose values differ on every run (ids drawn at
// random, times, digests over dated ids): compared by presence only.
var volatile = []string{"decision_id", "decision_time", "ruleset_id", "rulebook_id", "release_id", "project_id", "source_id",
	"created_at", "updated_at", "published_at", "verified_at", "label", "title", "content_identity", "reset", "total_ms",
	"retry_after", "key_prefix", "job_id", "guidance_id", "rulesets", "slug_ruleset_id"}

// normalise replaces volatile members' values, so that two runs compare
// equal when the server answers the same way.
func normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if slices.Contains(volatile, k) && e != nil {
				out[k] = "<volatile>"
				continue
			}
			out[k] = normalise(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e)
		}
		return out
	case string:
		// Concrete ruleset ids carry the publishing date.
		if i := strings.Index(x, ":20"); i > 0 && len(x) > i+10 && !strings.Contains(x, " ") {
			return x[:i] + ":<dated>"
		}
	}
	return v
}

// TestRecordedExamples makes one real call per operation below, checks
// each answer against its operation's documented schema, and compares it
// with the example committed in api/examples.json (volatile members by
// presence only): the document's examples are real calls and cannot
// drift. With -update it records them instead; then run make openapi.
func TestRecordedExamples(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	res, _ := f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	f.PublishCasebank(t, "demo", "snap-income", "demo/snap-income", true)
	key := f.Key(t, "demo", auth.AllScopes, time.Time{})
	answers := `{"employment.employer_type":"private","employment.months_employed":14,"employment.hours_12_months":1300}`
	calls := []exampleCall{
		{op: "list-rulesets", method: http.MethodGet, path: "/rulesets", params: map[string]string{"limit": "1"}},
		{op: "get-ruleset-schema", method: http.MethodGet, path: "/rulesets/{ruleset_id}/schema", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}},
		{op: "explain-ruleset", method: http.MethodGet, path: "/rulesets/{ruleset_id}/explain", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}},
		{op: "get-ruleset-graph", method: http.MethodGet, path: "/rulesets/{ruleset_id}/graph", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}},
		{op: "get-ruleset-source", method: http.MethodGet, path: "/rulesets/{ruleset_id}/source", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}, keyed: true},
		{op: "diff-ruleset", method: http.MethodGet, path: "/rulesets/{ruleset_id}/diff", params: map[string]string{"ruleset_id": "demo/us-fmla-employee", "against": "demo/us-fmla-employee"}, keyed: true},
		{op: "decide", method: http.MethodPost, path: "/decide",
			body: `{"ruleset_id":"demo/us-fmla-employee","field_values":` + answers + `,"include_explanation":true}`},
		{op: "explain-ruleset-failure", method: http.MethodPost, path: "/rulesets/{ruleset_id}/explain-failure", params: map[string]string{"ruleset_id": res.RulesetID},
			body: `{"expected_outcome":"eligible","field_values":{"employment.employer_type":"private","employment.months_employed":3}}`},
		{op: "set-ruleset-visibility", method: http.MethodPatch, path: "/rulesets/{ruleset_id}/visibility", params: map[string]string{"ruleset_id": "demo/snap-income"},
			body: `{"visibility":"private"}`, keyed: true},
		{op: "archive-ruleset", method: http.MethodPost, path: "/rulesets/{ruleset_id}/archive", params: map[string]string{"ruleset_id": "demo/snap-income"}, keyed: true},
		{op: "get-usage", method: http.MethodGet, path: "/usage", keyed: true},
		{op: "create-rulebook", method: http.MethodPost, path: "/rulebooks/", keyed: true,
			body: `{"name":"Family leave","slug":"demo/family-leave","domain":"employment","ruleset_refs":[{"section_id":"fmla_employee"}]}`},
		{op: "activate-rulebook", method: http.MethodPost, path: "/rulebooks/{rulebook_id}/activate", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true},
		{op: "get-rulebook", method: http.MethodGet, path: "/rulebooks/{rulebook_id}", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true},
		{op: "list-rulebooks", method: http.MethodGet, path: "/rulebooks/", keyed: true},
		{op: "get-rulebook-schema", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/schema", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true},
		{op: "create-project", method: http.MethodPost, path: "/projects/", keyed: true,
			body: `{"name":"FMLA","section_id":"fmla_employee","source_text":"An eligible employee has been employed for at least 12 months by the employer.","test_cases":[{"name":"short tenure","field_values":{"employment.months_employed":3},"expected_outcome":"not_eligible"}]}`},
		{op: "list-projects", method: http.MethodGet, path: "/projects", keyed: true},
		{op: "get-project", method: http.MethodGet, path: "/projects/{project_id}", params: map[string]string{"project_id": "$project_id"}, keyed: true},
		{op: "get-project-status", method: http.MethodGet, path: "/projects/{project_id}/status", params: map[string]string{"project_id": "$project_id"}, keyed: true},
		{op: "upload-project-sources", method: http.MethodPost, path: "/projects/{project_id}/sources", params: map[string]string{"project_id": "$project_id"}, keyed: true,
			body: `{"filename":"fmla-notes.txt","text":"An employer must employ 50 or more employees within 75 miles.","licence":"public-domain","title":"Notes on 29 U.S.C. 2611"}`},
		{op: "list-project-sources", method: http.MethodGet, path: "/projects/{project_id}/sources", params: map[string]string{"project_id": "$project_id"}, keyed: true},
		{op: "update-project-source", method: http.MethodPatch, path: "/projects/{project_id}/sources/{source_id}", params: map[string]string{"project_id": "$project_id", "source_id": "$source_id"}, keyed: true,
			body: `{"status":"reference_only"}`},
		{op: "add-project-guidance", method: http.MethodPost, path: "/projects/{project_id}/guidance", params: map[string]string{"project_id": "$project_id"}, keyed: true,
			body: `{"guidance_text":"Count months of employment, not of the current contract.","process_type":"rule_generation"}`},
		{op: "list-project-guidance", method: http.MethodGet, path: "/projects/{project_id}/guidance", params: map[string]string{"project_id": "$project_id"}, keyed: true},
		{op: "set-project-tests", method: http.MethodPost, path: "/projects/{project_id}/tests", params: map[string]string{"project_id": "$project_id"}, keyed: true,
			body: `{"replace":true,"test_cases":[{"name":"long tenure","field_values":{"employment.months_employed":14},"expected_outcome":"undetermined"}]}`},
		{op: "update-rulebook", method: http.MethodPatch, path: "/rulebooks/{rulebook_id}", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true,
			body: `{"description":"Federal family and medical leave: the employee's eligibility."}`},
		{op: "explain-rulebook", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/explain", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true},
		{op: "get-rulebook-graph", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/graph", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true},
		{op: "set-rulebook-visibility", method: http.MethodPatch, path: "/rulebooks/{rulebook_id}/visibility", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true,
			body: `{"visibility":"public"}`},
		{op: "archive-rulebook", method: http.MethodPost, path: "/rulebooks/{rulebook_id}/archive", params: map[string]string{"rulebook_id": "demo/family-leave"}, keyed: true},
	}
	// $name in a parameter is the member name of an earlier answer.
	captured := map[string]string{}
	recorded := map[string]api.Example{}
	if !*update {
		var err error
		if recorded, err = api.Examples(); err != nil {
			t.Fatal(err)
		}
	}
	ops := operations(f.Server.OpenAPI())
	doc := publishedDoc{published(t, "3.1")}
	fresh := map[string]api.Example{}
	for _, c := range calls {
		path, query := c.path, url.Values{}
		for name, v := range c.params {
			if ref, ok := strings.CutPrefix(v, "$"); ok {
				v = captured[ref]
				c.params = maps.Clone(c.params)
				c.params[name] = v
			}
			if strings.Contains(path, "{"+name+"}") {
				path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(v))
			} else {
				query.Set(name, v)
			}
		}
		if len(query) > 0 {
			path += "?" + query.Encode()
		}
		headers := map[string]string{}
		if c.keyed {
			headers["x-api-key"] = key
		}
		var body *strings.Reader
		var r apitest.Response
		if c.body != "" {
			body = strings.NewReader(c.body)
			r = f.Do(t, c.method, path, headers, body)
		} else {
			r = f.Do(t, c.method, path, headers, nil)
		}
		if r.Status >= 300 {
			t.Errorf("%s: %d %.300s", c.op, r.Status, r.Raw)
			continue
		}
		op := ops[c.op]
		if op == nil {
			t.Fatalf("no operation %s", c.op)
		}
		if resp := op.Responses[strconv.Itoa(r.Status)]; resp == nil {
			t.Errorf("%s: status %d is not documented", c.op, r.Status)
		} else if mt := resp.Content["application/json"]; mt != nil {
			// The answer against the published document, what clients
			// are generated from.
			schema := doc.response(c.op, r.Status)
			for _, e := range doc.validate(schema, r.Body, "") {
				t.Errorf("%s: %s", c.op, e)
			}
		}
		capture(captured, r.Body)
		ex := api.Example{Params: c.params, Status: r.Status}
		if c.body != "" {
			ex.Request = json.RawMessage(c.body)
		}
		if len(bytes.TrimSpace([]byte(r.Raw))) > 0 {
			ex.Response = json.RawMessage(r.Raw)
		}
		fresh[c.op] = ex
		if *update {
			continue
		}
		want, ok := recorded[c.op]
		if !ok {
			t.Errorf("%s: no recorded example; run go test ./api/routes -run TestRecordedExamples -args -update, then make openapi", c.op)
			continue
		}
		if !sameExample(want, ex) {
			t.Errorf("%s: the server no longer answers as its recorded example:\nrecorded %.400s\nnow      %.400s", c.op, want.Response, ex.Response)
		}
	}
	if *update {
		b, err := json.MarshalIndent(fresh, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../examples.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// capture keeps the ids of an answer (a project's, its first source's)
// for later calls' parameters.
func capture(into map[string]string, body any) {
	m, _ := body.(map[string]any)
	if id, ok := m["project_id"].(string); ok {
		into["project_id"] = id
	}
	if sources, ok := m["sources"].([]any); ok && len(sources) > 0 {
		if id, ok := sources[0].(map[string]any)["source_id"].(string); ok {
			into["source_id"] = id
		}
	}
}

// sameExample compares two recordings with volatile members normalised.
func sameExample(a, b api.Example) bool {
	decode := func(raw json.RawMessage) any {
		if raw == nil {
			return nil
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		return normalise(v)
	}
	x, _ := json.Marshal([]any{a.Status, decode(a.Request), decode(a.Response)})
	y, _ := json.Marshal([]any{b.Status, decode(b.Request), decode(b.Response)})
	return bytes.Equal(x, y)
}

// publishedDoc validates values against the published document's schemas:
// the subset of JSON Schema the document uses (type, enum, properties,
// required, additionalProperties, items, min/maxItems, oneOf, allOf,
// $ref).
type publishedDoc struct{ doc map[string]any }

// response is the schema of op's answer with status.
func (d publishedDoc) response(op string, status int) map[string]any {
	o := operationsOf(d.doc)[op]
	resp := o["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	return resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
}

// validate lists how v breaks schema s, at path.
func (d publishedDoc) validate(s map[string]any, v any, path string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		return d.validate(d.doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any), v, path)
	}
	var errs []string
	for _, sub := range asList(s["allOf"]) {
		errs = append(errs, d.validate(sub.(map[string]any), v, path)...)
	}
	if one := asList(s["oneOf"]); len(one) > 0 {
		matched := 0
		for _, sub := range one {
			if len(d.validate(sub.(map[string]any), v, path)) == 0 {
				matched++
			}
		}
		if matched != 1 {
			errs = append(errs, fmt.Sprintf("%s: %d of oneOf match %.100v", path, matched, v))
		}
	}
	if types := append(asList(s["type"]), s["type"]); s["type"] != nil && !slices.ContainsFunc(types, func(t any) bool { return jsonType(t, v) }) {
		return append(errs, fmt.Sprintf("%s: %T %.100v is not %v", path, v, v, s["type"]))
	}
	if values := asList(s["enum"]); len(values) > 0 && !slices.Contains(values, v) {
		errs = append(errs, fmt.Sprintf("%s: %v not in %v", path, v, values))
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, name := range asList(s["required"]) {
			if _, ok := x[name.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: %s missing", path, name))
			}
		}
		for k, e := range x {
			if p, ok := props[k].(map[string]any); ok {
				errs = append(errs, d.validate(p, e, path+"."+k)...)
			} else if extra, ok := s["additionalProperties"].(map[string]any); ok {
				errs = append(errs, d.validate(extra, e, path+"."+k)...)
			} else if s["additionalProperties"] == false {
				errs = append(errs, fmt.Sprintf("%s: unexpected member %s", path, k))
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				errs = append(errs, d.validate(items, e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			errs = append(errs, fmt.Sprintf("%s: %d items, at least %v", path, len(x), n))
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(x)) > n {
			errs = append(errs, fmt.Sprintf("%s: %d items, at most %v", path, len(x), n))
		}
	}
	return errs
}

// jsonType says whether v is of the JSON Schema type t.
func jsonType(t, v any) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case float64:
		return t == "number" || t == "integer" && x == float64(int64(x))
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}
