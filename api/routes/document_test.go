package routes

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite api/openapi.json, api/openapi-3.0.json and api/openapi/examples.json from the code and a live server")

// committedDocuments are the published documents kept in the repository,
// by version: what `eligo openapi` prints and clients are generated from.
var committedDocuments = map[string]string{"3.1": "../openapi.json", "3.0": "../openapi-3.0.json"}

// TestCommittedDocumentsMatchTheCode: the committed documents are what the
// code generates; `make openapi` (or go test -update) rewrites them.
func TestCommittedDocumentsMatchTheCode(t *testing.T) {
	t.Parallel()
	for version, path := range committedDocuments {
		doc, err := Document(context.Background(), version)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(path, doc, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(doc, committed) {
			t.Errorf("%s differs from the %s document the code generates: run make openapi and commit it", path, version)
		}
	}
}

// published reads a committed document as generic JSON.
func published(t *testing.T, version string) map[string]any {
	t.Helper()
	doc, err := Document(context.Background(), version)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// eachSchema calls f on every schema below s with its path, including s.
func eachSchema(s map[string]any, path string, f func(path string, s map[string]any)) {
	f(path, s)
	if props, ok := s["properties"].(map[string]any); ok {
		for k, v := range props {
			eachSchema(v.(map[string]any), path+"."+k, f)
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if v, ok := s[k].(map[string]any); ok {
			eachSchema(v, path+"["+k+"]", f)
		}
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		for i, v := range asList(s[k]) {
			eachSchema(v.(map[string]any), path+"|"+k+string(rune('0'+i)), f)
		}
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

// operationsOf lists the document's operations with their ids.
func operationsOf(doc map[string]any) map[string]map[string]any {
	ops := map[string]map[string]any{}
	for _, item := range doc["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			op := op.(map[string]any)
			ops[op["operationId"].(string)] = op
		}
	}
	return ops
}

// pascal is how Go generators name an operation's wrappers.
func pascal(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// TestDocumentIsGeneratorFriendly holds the published documents to the
// rules that give clean generated clients.
func TestDocumentIsGeneratorFriendly(t *testing.T) {
	t.Parallel()
	doc := published(t, "3.1")
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	ops := operationsOf(doc)

	// No schema is named like a wrapper a generator makes for an
	// operation.
	for id := range ops {
		for _, suffix := range []string{"Response", "JSONBody", "JSONRequestBody", "Params", "RequestObject", "ResponseObject"} {
			if _, clash := schemas[pascal(id)+suffix]; clash {
				t.Errorf("schema %s%s clashes with operation %s's wrapper", pascal(id), suffix, id)
			}
		}
	}

	// Every value set is named once, with Go names for its values, and
	// every object below a named schema is a reference.
	sets := map[string]string{}
	for name, s := range schemas {
		eachSchema(s.(map[string]any), name, func(path string, s map[string]any) {
			types := append(asList(s["type"]), s["type"])
			if values, ok := s["enum"].([]any); ok {
				if path != name {
					t.Errorf("%s: inline value set %v", path, values)
				}
				if len(asList(s["x-enum-varnames"])) != len(values) {
					t.Errorf("%s: x-enum-varnames %v for %v", path, s["x-enum-varnames"], values)
				}
				key, _ := json.Marshal(values)
				if other, dup := sets[string(key)]; dup {
					t.Errorf("value set %s named twice: %s and %s", key, other, name)
				}
				sets[string(key)] = name
			}
			if path != name && slices.Contains(types, any("object")) && s["properties"] != nil {
				t.Errorf("%s: inline object; name it", path)
			}
		})
	}
	for _, want := range []string{"Outcome", "CriterionStatus", "FieldType", "Question", "Fact", "Explanation", "Trace", "Overlay", "Decision", "DecisionRequest"} {
		if schemas[want] == nil {
			t.Errorf("no schema %s", want)
		}
	}
	decision := schemas["Decision"].(map[string]any)["properties"].(map[string]any)
	if got := decision["next_question"].(map[string]any)["oneOf"].([]any)[0].(map[string]any)["$ref"]; got != "#/components/schemas/Question" {
		t.Errorf("next_question is %v, want a nullable Question", got)
	}
	callerRef := schemas["DecisionRequest"].(map[string]any)["properties"].(map[string]any)["caller_ref"].(map[string]any)
	if callerRef["type"] != "object" || callerRef["additionalProperties"].(map[string]any)["type"] != "string" {
		t.Errorf("caller_ref is %v, want a string map", callerRef)
	}

	// Arrays the server never sends as null are not nullable.
	for _, path := range []string{"FailureExplanation.field_errors", "FailureReason.facts", "FailureReason.missing_fields",
		"FailureReason.source_references", "ChoiceContext.or_groups", "ChoiceGroup.alternatives", "ChoiceAlternative.fields",
		"Problem.missing_permissions"} {
		component, member, _ := strings.Cut(path, ".")
		s := schemas[component].(map[string]any)["properties"].(map[string]any)[member].(map[string]any)
		if s["type"] != "array" {
			t.Errorf("%s: type %v, want array", path, s["type"])
		}
	}

	// Tags are defined and described, info has a licence and contact.
	tags := map[string]bool{}
	for _, tag := range asList(doc["tags"]) {
		tag := tag.(map[string]any)
		tags[tag["name"].(string)] = tag["description"] != ""
	}
	for id, op := range ops {
		for _, tag := range asList(op["tags"]) {
			if !tags[tag.(string)] {
				t.Errorf("%s: tag %v not defined with a description", id, tag)
			}
		}
		// Every response names its request id; metered successes their
		// rate-limit headers.
		for status, resp := range op["responses"].(map[string]any) {
			headers, _ := resp.(map[string]any)["headers"].(map[string]any)
			if headers["X-Request-Id"] == nil {
				t.Errorf("%s %s: X-Request-Id not declared", id, status)
			}
			if strings.HasPrefix(status, "2") && op["x-eligo-metering-class"] != "unmetered" && headers["X-RateLimit-Remaining"] == nil {
				t.Errorf("%s %s: X-RateLimit-Remaining not declared", id, status)
			}
		}
	}
	info := doc["info"].(map[string]any)
	if info["license"] == nil || info["contact"] == nil {
		t.Errorf("info lacks licence or contact: %v", info)
	}
}

// TestDescriptionsNameOnlyRoutesThatExist: every path the texts mention
// is an operation's path (or a prefix of some, written /x/*).
func TestDescriptionsNameOnlyRoutesThatExist(t *testing.T) {
	t.Parallel()
	doc := published(t, "3.1")
	var paths []string
	for p := range doc["paths"].(map[string]any) {
		paths = append(paths, p)
	}
	// A mention matches a path's tail segment by segment; a {parameter}
	// on either side matches any segment, and a final * any rest.
	matches := func(mention, path string) bool {
		m := strings.Split(strings.Trim(mention, "/"), "/")
		p := strings.Split(strings.Trim(path, "/"), "/")
		if m[len(m)-1] == "*" {
			m = m[:len(m)-1]
			for len(p) > len(m) {
				p = p[:len(p)-1]
				if len(p) == len(m) {
					break
				}
			}
		}
		if len(m) > len(p) {
			return false
		}
		p = p[len(p)-len(m):]
		for i := range m {
			if m[i] != p[i] && !strings.HasPrefix(m[i], "{") && !strings.HasPrefix(p[i], "{") {
				return false
			}
		}
		return true
	}
	known := func(mention string) bool {
		if slices.Contains([]string{"/healthz", "/readyz", "/openapi.json", "/openapi-3.0.json", "/docs"}, mention) {
			return true
		}
		for _, p := range paths {
			if matches(mention, p) {
				return true
			}
		}
		return false
	}
	// A route is written after a space, a backtick or a parenthesis, and
	// starts with a letter: text/plain or /64 are not routes.
	mentioned := regexp.MustCompile("(?:^|[\\s`(])(/[a-z][a-z0-9_{}./*-]*)")
	var texts []string
	texts = append(texts, doc["info"].(map[string]any)["description"].(string))
	for _, op := range operationsOf(doc) {
		texts = append(texts, op["description"].(string))
	}
	for _, text := range texts {
		for _, m := range mentioned.FindAllStringSubmatch(text, -1) {
			mention := strings.TrimRight(m[1], ".")
			if !known(mention) {
				t.Errorf("the description names %s, which is no route", mention)
			}
		}
	}
}

// TestDowngradeLeavesNothingBesideRef: 3.0 ignores what sits beside a
// $ref, so nothing may.
func TestDowngradeLeavesNothingBesideRef(t *testing.T) {
	t.Parallel()
	doc := published(t, "3.0")
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["$ref"]; ok && len(x) > 1 {
				t.Errorf("%s: $ref with siblings %v", path, x)
			}
			for k, e := range x {
				if k != "example" {
					walk(e, path+"/"+k)
				}
			}
		case []any:
			for _, e := range x {
				walk(e, path+"[]")
			}
		}
	}
	walk(doc, "")
	if doc["openapi"] != "3.0.3" {
		t.Errorf("openapi %v", doc["openapi"])
	}
}
