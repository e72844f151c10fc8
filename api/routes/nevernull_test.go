package routes

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// nullArrays are the array members of answers that the server does send
// as null, with when: every other array of an answer is never null.
var nullArrays = map[string]string{
	"Promotion.presence_polarity_advisories": "null unless findings were let through",
	"SchemaField.enum_values":                "null for a field that is not an enum",
}

// TestAnswersDeclareArraysNullOnlyWhereTheyAre: in the 3.1 document, an
// array reachable from any answer is nullable only when nullArrays says
// the server sends null there. Arrays that only requests carry may stay
// nullable (the server reads null as empty).
func TestAnswersDeclareArraysNullOnlyWhereTheyAre(t *testing.T) {
	t.Parallel()
	doc := published(t, "3.1")
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	var found []string
	seen := map[string]bool{}
	var visit func(owner string, s any)
	visit = func(owner string, s any) {
		switch x := s.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/components/schemas/")
				if !seen[name] {
					seen[name] = true
					visit(name, schemas[name])
				}
				return
			}
			for member, p := range asMap(x["properties"]) {
				if types := asList(asMap(p)["type"]); slices.Contains(types, "array") && slices.Contains(types, "null") {
					found = append(found, owner+"."+member)
				}
			}
			for _, v := range x {
				visit(owner, v)
			}
		case []any:
			for _, v := range x {
				visit(owner, v)
			}
		}
	}
	for id, op := range operationsOf(doc) {
		for status, resp := range asMap(op["responses"]) {
			for _, mt := range asMap(asMap(resp)["content"]) {
				schema := asMap(asMap(mt)["schema"])
				if types := asList(schema["type"]); slices.Contains(types, "array") && slices.Contains(types, "null") {
					found = append(found, id+" "+status+" (the answer itself)")
				}
				visit(id+" "+status, schema)
			}
		}
	}
	for _, path := range found {
		if _, ok := nullArrays[path]; !ok {
			t.Errorf("%s is a nullable array in an answer: make the server send [] and tag the member nullable:\"false\", or say in nullArrays when it is null", path)
		}
	}
	if len(found) == 0 {
		t.Fatal("no nullable array found at all: the walk is broken")
	}
}

// The arrays of a project's draft that the recorded examples leave empty
// or out go out as arrays, never null, and the answers validate against
// the published document: an acceptance contract's checks and their
// problems, and a source question's candidate readings, sent as null.
func TestDraftArraysAreNeverNull(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	key := map[string]string{"x-api-key": f.Key(t, "demo", auth.AllScopes, time.Time{})}
	doc := publishedDoc{published(t, "3.1")}
	do := func(op, method, path, body string, status int) map[string]any {
		t.Helper()
		var r apitest.Response
		if body == "" {
			r = f.Do(t, method, path, key, nil)
		} else {
			r = f.Do(t, method, path, key, strings.NewReader(body))
		}
		if r.Status != status {
			t.Fatalf("%s: %d %s", op, r.Status, r.Raw)
		}
		for _, e := range doc.validate(doc.response(op, status), r.Body, "") {
			t.Errorf("%s: %s", op, e)
		}
		return r.Body.(map[string]any)
	}
	created := do("create-project", http.MethodPost, "/projects/",
		`{"name":"FMLA","section_id":"fmla_employee","source_text":"An eligible employee has been employed for at least 12 months by the employer.","test_cases":[]}`, http.StatusCreated)
	base := "/projects/" + created["project_id"].(string)
	do("set-project-tests", http.MethodPost, base+"/tests",
		`{"contract_version":1,"test_cases":[{"name":"long tenure","field_values":{"employment.months_employed":14},"expected_outcome":"undetermined"}],"expected_review_bindings":{}}`, http.StatusOK)
	draft := do("put-project-draft", http.MethodPut, base+"/draft", mustJSON(t, map[string]any{"rules": fmlaDraft,
		"source_questions": []any{map[string]any{"id": "q1", "quote": "has been employed for at least 12 months", "question": "Do months before a seven-year break count?",
			"candidate_readings": nil, "provisional_reading": "They count.", "resolved": false}}}), http.StatusOK)
	again := do("get-project-draft", http.MethodGet, base+"/draft", "", http.StatusOK)
	for name, answer := range map[string]map[string]any{"put": draft, "get": again} {
		checks := asList(asMap(answer["acceptance"])["contract_checks"])
		if len(checks) != 1 || asMap(checks[0])["problems"] == nil {
			t.Errorf("%s: contract checks %v, want one with its problems as an array", name, checks)
		}
		questions := asList(answer["source_questions"])
		if len(questions) != 1 || fmt.Sprint(asMap(questions[0])["candidate_readings"]) != "[]" {
			t.Errorf("%s: source questions %v, want candidate_readings []", name, questions)
		}
	}
}

// asMap is v as a JSON object, nil when it is not one.
func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
