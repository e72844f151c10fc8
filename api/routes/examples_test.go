package routes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/apitest/call"
	"github.com/eligo/eligo/api/openapi"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/clock"
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
	// headers are sent besides the key: the provider key of a model call,
	// never recorded.
	headers map[string]string
	// volatile names members of this answer alone that may differ between
	// runs (a generation's state when it is read as the worker starts):
	// compared by presence only, null or not.
	volatile []string
	// text says the answer is not JSON (a source's bytes as uploaded): it
	// is recorded as a JSON string.
	text bool
	// before, when set, waits for what the call needs (the model to be
	// called, a cancelled worker to stop).
	before func(t *testing.T, answers map[string]any)
}

// volatile names members whose values differ on every run (ids drawn at
// random, times, digests over dated ids, a prompt's token count, which
// holds such ids): compared by presence only.
var volatile = []string{"decision_id", "decision_time", "ruleset_id", "rulebook_id", "release_id", "project_id", "source_id",
	"created_at", "updated_at", "published_at", "verified_at", "label", "title", "content_identity", "reset", "total_ms",
	"retry_after", "key_prefix", "job_id", "guidance_id", "rulesets", "slug_ruleset_id", "project_source_id",
	"started_at", "finished_at", "seconds", "prompt_tokens"}

// drawnID is an id drawn at random (a project's, a source's, a
// generation's) inside a longer text, such as a hint's path.
var drawnID = regexp.MustCompile(`\b(prj|src|gen)_[A-Za-z0-9_-]{16}`)

// normalise replaces volatile members' values, and those of extra, so
// that two runs compare equal when the server answers the same way.
func normalise(v any, extra []string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if slices.Contains(extra, k) || (slices.Contains(volatile, k) && e != nil) {
				out[k] = "<volatile>"
				continue
			}
			out[k] = normalise(e, extra)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e, extra)
		}
		return out
	case string:
		// Concrete ruleset ids carry the publishing date.
		if i := strings.Index(x, ":20"); i > 0 && len(x) > i+10 && !strings.Contains(x, " ") {
			return x[:i] + ":<dated>"
		}
		return drawnID.ReplaceAllString(x, "${1}_<drawn>")
	}
	return v
}

// examplesDay is the day the examples are made on: the server's clock is
// set to it, so a call that names no decision date is decided as of this
// day whatever day the test runs, and its answer, recorded once, holds.
// Inside the period of every casebank ruleset the examples call.
var examplesDay = time.Date(2026, time.November, 23, 0, 0, 0, 0, time.UTC)

// TestRecordedExamples makes one real call per operation (exampleCalls),
// checks each answer against its operation's documented schema, and
// compares it with the example committed in api/openapi/examples.json (volatile
// members by presence only): the document's examples are real calls and
// cannot drift. With -update it records them instead, keeping each
// recorded example the server still answers the same way (so recording
// twice changes nothing, and `make openapi` rewrites the documents only
// where an answer changed); then run make openapi. Every operation of the
// document must have its call.
func TestRecordedExamples(t *testing.T) {
	t.Parallel()
	f, model := newGenerationFixture(t, api.Config{Metering: apitest.GenerousMetering(), Clock: clock.Starting(examplesDay)})
	calls := exampleCalls(t, f, model)
	key := f.Key(t, "demo", auth.AllScopes, time.Time{})
	recorded, err := openapi.Examples()
	if err != nil && !*update {
		t.Fatal(err)
	}
	ops := operations(f.Server.OpenAPI())
	doc := publishedDoc{published(t, "3.1")}
	// answers are the decoded answers so far, by operation, for the
	// $operation.member references of later calls.
	answers := map[string]any{}
	fresh := map[string]openapi.Example{}
	for _, c := range calls {
		if c.before != nil {
			c.before(t, answers)
		}
		ex, r := runExample(t, f, c, key, answers)
		answers[c.op] = r.Body
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
		} else if schema := doc.response(c.op, r.Status); schema != nil {
			// The answer against the published document, what clients
			// are generated from.
			for _, e := range doc.validate(schema, r.Body, "") {
				t.Errorf("%s: %s", c.op, e)
			}
		}
		want, ok := recorded[c.op]
		same := ok && sameExample(want, ex, c.volatile)
		if same {
			fresh[c.op] = want
		} else {
			fresh[c.op] = ex
		}
		if *update {
			continue
		}
		if !ok {
			t.Errorf("%s: no recorded example; run go test ./api/routes -run TestRecordedExamples -args -update, then make openapi", c.op)
			continue
		}
		if !same {
			t.Errorf("%s: the server no longer answers as its recorded example:\nrecorded %.400s\nnow      %.400s", c.op, want.Response, ex.Response)
		}
	}
	for id := range ops {
		if _, ok := fresh[id]; !ok {
			t.Errorf("%s: no example call; add one to exampleCalls", id)
		}
	}
	if *update && !t.Failed() {
		b, err := json.MarshalIndent(fresh, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../openapi/examples.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runExample makes call c, its $operation.member references resolved
// against the earlier answers, with key when it is keyed, and returns its
// recording and the answer.
func runExample(t *testing.T, f *apitest.Fixture, c exampleCall, key string, answers map[string]any) (openapi.Example, apitest.Response) {
	t.Helper()
	path, query := c.path, url.Values{}
	params := maps.Clone(c.params)
	for name, v := range params {
		v = resolve(t, v, answers)
		params[name] = v
		if strings.Contains(path, "{"+name+"}") {
			path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(v))
		} else {
			query.Set(name, v)
		}
	}
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	headers := maps.Clone(c.headers)
	if headers == nil {
		headers = map[string]string{}
	}
	if c.keyed {
		headers["x-api-key"] = key
	}
	ex := openapi.Example{Params: params}
	var r apitest.Response
	if c.text {
		r = doText(t, c.method, f.URL+path, headers)
	} else if c.body != "" {
		body := resolveJSON(t, c.body, answers)
		ex.Request = json.RawMessage(body)
		r = f.Do(t, c.method, path, headers, strings.NewReader(body))
	} else {
		r = f.Do(t, c.method, path, headers, nil)
	}
	ex.Status = r.Status
	if len(bytes.TrimSpace([]byte(r.Raw))) > 0 {
		ex.Response = json.RawMessage(r.Raw)
	}
	return ex, r
}

// doText makes a call whose answer is not JSON, and gives the answer as a
// JSON string in Raw (Body is the text).
func doText(t *testing.T, method, target string, headers map[string]string) apitest.Response {
	t.Helper()
	r := call.Send(t, method, target, headers, nil)
	raw, err := json.Marshal(r.Raw)
	if err != nil {
		t.Fatal(err)
	}
	r.Body, r.Raw = r.Raw, string(raw)
	return r
}

// resolve gives a parameter's value: v itself, or, for $op.path, the
// member of op's answer at path (dot-separated, array items by index).
func resolve(t *testing.T, v string, answers map[string]any) string {
	t.Helper()
	ref, ok := strings.CutPrefix(v, "$")
	if !ok {
		return v
	}
	op, path, _ := strings.Cut(ref, ".")
	at, ok := answers[op]
	for part := range strings.SplitSeq(path, ".") {
		switch x := at.(type) {
		case map[string]any:
			at = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				at = nil
				break
			}
			at = x[i]
		default:
			at = nil
		}
	}
	s, isString := at.(string)
	if !ok || !isString {
		t.Fatalf("reference %s: no string there in the earlier answers", v)
	}
	return s
}

// resolveJSON replaces every JSON string "$op.path" of body with the
// value it refers to.
func resolveJSON(t *testing.T, body string, answers map[string]any) string {
	t.Helper()
	var out strings.Builder
	for {
		i := strings.Index(body, `"$`)
		if i < 0 {
			break
		}
		j := strings.IndexByte(body[i+1:], '"')
		if j < 0 {
			break
		}
		value, err := json.Marshal(resolve(t, body[i+1:i+1+j], answers))
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(body[:i])
		out.Write(value)
		body = body[i+2+j:]
	}
	out.WriteString(body)
	return out.String()
}

// sameExample compares two recordings with volatile members, and those of
// extra, normalised.
func sameExample(a, b openapi.Example, extra []string) bool {
	decode := func(raw json.RawMessage) any {
		if raw == nil {
			return nil
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		return normalise(v, extra)
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

// response is the schema of op's JSON answer with status; nil when that
// answer has no JSON body (204, a source's bytes).
func (d publishedDoc) response(op string, status int) map[string]any {
	o := operationsOf(d.doc)[op]
	resp, _ := o["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	content, _ := resp["content"].(map[string]any)
	mt, _ := content["application/json"].(map[string]any)
	schema, _ := mt["schema"].(map[string]any)
	return schema
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
