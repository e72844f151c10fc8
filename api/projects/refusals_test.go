package projects

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// A small act, its rules and cases: one threshold and one discretionary
// review point with its completion field.
const (
	grantLaw   = "Grant Act.\n\nSection 1. A person qualifies for the grant if the person is at least 18 years old.\n\nSection 2. The officer may, at their discretion, approve the grant.\n"
	grantURL   = "https://laws.example.org/grant"
	grantRules = `ruleset "acme/grant"
section grant
source law "Grant Act" url "https://laws.example.org/grant" licence "CC-BY-4.0"
field person.age int weight 1
  question "How old are you?"
field review.officer_approves enum ["yes", "no", "undecided"] weight 1
  question "Did the officer approve?"
group age all "Age" {
  criterion adult "At least 18" {
    person.age >= 18
    cite law "is at least 18 years old"
  }
}
group officer all "Officer" {
  criterion officer_approves "The officer approves" discretionary {
    cite law "may, at their discretion, approve the grant"
  }
}
outcome age and officer
`
)

var grantCases = []map[string]any{
	{"name": "adult waits for the officer", "field_values": map[string]any{"person.age": 20}, "expected_outcome": "undetermined"},
	{"name": "child", "field_values": map[string]any{"person.age": 17}, "expected_outcome": "not_eligible"},
}

// grantProject is a project with the act uploaded from its public url.
type grantProject struct {
	f         *apitest.Fixture
	key, base string
	sourceID  string
}

func newGrantProject(t *testing.T, f *apitest.Fixture, key string) grantProject {
	t.Helper()
	r := call(t, f, key, http.MethodPost, "/projects/", map[string]any{"name": "Grant", "section_id": "grant", "source_text": "", "test_cases": grantCases})
	want(t, r, http.StatusCreated)
	g := grantProject{f: f, key: key, base: "/projects/" + obj(t, r.Body)["project_id"].(string)}
	r = call(t, f, key, http.MethodPost, g.base+"/sources", map[string]any{"filename": "grant.md", "text": grantLaw, "url": grantURL, "licence": "CC-BY-4.0"})
	want(t, r, http.StatusCreated)
	g.sourceID = obj(t, list(t, obj(t, r.Body)["sources"])[0])["source_id"].(string)
	return g
}

func (g grantProject) do(t *testing.T, method, rest string, body any) apitest.Response {
	t.Helper()
	return call(t, g.f, g.key, method, g.base+rest, body)
}

// Each refusal of the workspace, with its exact status and reason code.
func TestRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)

	r := g.do(t, http.MethodPost, "/publish", nil)
	want(t, r, http.StatusConflict)
	if !reflect.DeepEqual(r.Body, map[string]any{"detail": map[string]any{"error": "conflict", "reason_code": "no_draft",
		"message": "The project has no draft yet: PUT /projects/{id}/draft with rules text, or generate one."}}) {
		t.Fatalf("publish without a draft: %s", r.Raw)
	}

	bigPDF := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("x"), 10<<20)...)
	for _, tc := range []struct {
		name   string
		body   any
		status int
		reason string
	}{
		{"unsupported media type", map[string]any{"filename": "scan.png", "content_base64": base64.StdEncoding.EncodeToString([]byte("\x89PNG"))}, 422, "unsupported_media_type"},
		{"not a PDF", map[string]any{"filename": "act.pdf", "content_base64": base64.StdEncoding.EncodeToString([]byte("not a pdf at all"))}, 422, "source_unreadable"},
		{"invalid UTF-8", map[string]any{"filename": "act.txt", "content_base64": base64.StdEncoding.EncodeToString([]byte("ok \xff\xfe"))}, 422, "source_unreadable"},
		{"blank text", map[string]any{"filename": "act.txt", "text": " \n\t "}, 422, "source_unreadable"},
		{"over the per-file limit", map[string]any{"filename": "big.pdf", "content_base64": base64.StdEncoding.EncodeToString(bigPDF)}, 413, "source_too_large"},
	} {
		r := g.do(t, http.MethodPost, "/sources", tc.body)
		if r.Status != tc.status || reason(t, r) != tc.reason {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Raw[:min(len(r.Raw), 300)], tc.status, tc.reason)
		}
	}
	for _, tc := range []struct {
		name string
		body any
		typ  string
		loc  []any
	}{
		{"no filename", map[string]any{"text": "x"}, "missing", []any{"body", "filename"}},
		{"unknown member", map[string]any{"filename": "a.txt", "text": "x", "colour": "red"}, "extra_forbidden", []any{"body", "colour"}},
		{"both contents", map[string]any{"filename": "a.txt", "text": "x", "content_base64": "eA=="}, "value_error", []any{"body", "content_base64"}},
		{"bad base64", map[string]any{"filename": "a.txt", "content_base64": "%%%"}, "value_error", []any{"body", "content_base64"}},
		{"url not http", map[string]any{"filename": "a.txt", "text": "x", "url": "ftp://example.org/a"}, "value_error", []any{"body", "url"}},
	} {
		r := g.do(t, http.MethodPost, "/sources", tc.body)
		items, _ := obj(t, r.Body)["detail"].([]any)
		if r.Status != 422 || len(items) == 0 || obj(t, items[0])["type"] != tc.typ || !reflect.DeepEqual(obj(t, items[0])["loc"], tc.loc) {
			t.Errorf("%s: %d %s, want 422 %s at %v", tc.name, r.Status, r.Raw, tc.typ, tc.loc)
		}
	}
	r = send(t, f, key, http.MethodPost, g.base+"/sources", "text/plain", []byte("hello"))
	if r.Status != 422 {
		t.Errorf("a text/plain body: %d %s", r.Status, r.Raw)
	}

	r = g.do(t, http.MethodPatch, "/sources/"+g.sourceID, map[string]any{"status": "retired"})
	if r.Status != 422 || obj(t, list(t, obj(t, r.Body)["detail"])[0])["type"] != "enum" {
		t.Errorf("unknown status: %s", r.Raw)
	}
	r = g.do(t, http.MethodPatch, "/sources/"+g.sourceID, map[string]any{"status": "superseded", "superseded_by": g.sourceID})
	if r.Status != 422 {
		t.Errorf("a source superseding itself: %s", r.Raw)
	}
	r = g.do(t, http.MethodPost, "/tests", map[string]any{"contract_version": 1, "test_cases": grantCases, "expected_review_bindings": nil})
	if r.Status != 422 {
		t.Errorf("null expected_review_bindings: %s", r.Raw)
	}
	r = g.do(t, http.MethodPost, "/tests", map[string]any{"replace": true, "test_cases": []any{}})
	if r.Status != 422 {
		t.Errorf("an empty replace: %s", r.Raw)
	}

	// The act again, uploaded from an address only an intranet reaches.
	want(t, g.do(t, http.MethodPost, "/sources", map[string]any{"filename": "intranet.txt", "text": grantLaw,
		"url": "http://10.1.2.3/grant", "licence": "CC-BY-4.0"}), http.StatusCreated)

	// Drafts that cannot be published, each for its own reason.
	for _, tc := range []struct {
		name, rules string
		body        any
		status      int
		reason      string
	}{
		{"does not compile", "section grant\nfield", nil, 422, "draft_does_not_compile"},
		{"another section", strings.Replace(grantRules, "section grant", "section other", 1), nil, 422, "draft_does_not_compile"},
		{"quote not in the text", strings.Replace(grantRules, "is at least 18 years old", "is at least eighteen years old", 1), nil, 422, "quote_unverified"},
		{"url never uploaded", strings.Replace(grantRules, grantURL, "https://laws.example.org/other", 1), nil, 422, "source_reference_unresolved"},
		{"private url", strings.Replace(grantRules, grantURL, "http://10.1.2.3/grant", 1), nil, 422, "source_reference_unresolved"},
		{"licence differs", strings.Replace(grantRules, `licence "CC-BY-4.0"`, `licence "OGL-3.0"`, 1), nil, 422, "source_reference_unresolved"},
		{"unknown target", grantRules, map[string]any{"source_targets": map[string]any{"law": map[string]any{"source_id": "src_AAAAAAAAAAAAAAAA", "target_kind": "url"}}}, 422, "source_reference_unresolved"},
		{"failing test", strings.Replace(grantRules, ">= 18", ">= 21", 1), nil, 422, "tests_failed"},
		{"reserved slug", strings.Replace(grantRules, `"acme/grant"`, `"eligo/grant"`, 1), nil, 403, "reserved_namespace"},
	} {
		want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": tc.rules}), http.StatusOK)
		r := g.do(t, http.MethodPost, "/publish", tc.body)
		if r.Status != tc.status || reason(t, r) != tc.reason {
			t.Errorf("%s: %d %s, want %d %s", tc.name, r.Status, r.Raw, tc.status, tc.reason)
		}
	}
	// A failing test published with force_unsafe: 201 and the audit event.
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": strings.Replace(grantRules, ">= 18", ">= 21", 1)}), http.StatusOK)
	r = g.do(t, http.MethodPost, "/publish", map[string]any{"force_unsafe": true, "slug": "acme/grant-forced"})
	want(t, r, http.StatusCreated)
	if fails := list(t, obj(t, r.Body)["failures"]); len(fails) != 1 || obj(t, fails[0])["name"] != "adult waits for the officer" {
		t.Fatalf("forced publish: %s", r.Raw)
	}
	var events int
	if err := f.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_events WHERE kind = 'publish_force_bypass'`).Scan(&events); err != nil || events != 1 {
		t.Fatalf("publish_force_bypass events: %d, %v", events, err)
	}
}

// A limit on the sources of a project is 413 and stores nothing.
func TestSourceCountLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	for batch := range 3 {
		var buf bytes.Buffer
		ct, body := multiFiles(t, &buf, batch, 20)
		r := send(t, f, key, http.MethodPost, g.base+"/sources", ct, body)
		if batch < 2 {
			want(t, r, http.StatusCreated)
			continue
		}
		// 1 + 40 held; 20 more would pass the 50.
		if r.Status != http.StatusRequestEntityTooLarge || reason(t, r) != "project_source_limit" {
			t.Fatalf("the third batch: %s", r.Raw)
		}
	}
	r := g.do(t, http.MethodGet, "/sources", nil)
	if n := len(list(t, obj(t, r.Body)["sources"])); n != 41 {
		t.Fatalf("%d sources stored, want 41", n)
	}
}

// The other tenant sees none of a project, on every route, and a key
// without the scope is refused before anything is looked up.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	owner := tenantKey(t, f, "acme", allProjectScopes...)
	other := tenantKey(t, f, "globex", allProjectScopes...)
	g := newGrantProject(t, f, owner)
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	src := "/sources/" + g.sourceID
	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "", nil},
		{http.MethodGet, "/status", nil},
		{http.MethodGet, "/guidance", nil},
		{http.MethodPost, "/guidance", map[string]any{"guidance_text": "x", "process_type": "rule_generation"}},
		{http.MethodPost, "/tests", map[string]any{"replace": true, "test_cases": grantCases}},
		{http.MethodGet, "/sources", nil},
		{http.MethodPost, "/sources", map[string]any{"filename": "a.txt", "text": "x"}},
		{http.MethodPatch, src, map[string]any{"status": "reference_only"}},
		{http.MethodGet, src + "/raw", nil},
		{http.MethodGet, src + "/text", nil},
		{http.MethodDelete, src, nil},
		{http.MethodGet, "/draft", nil},
		{http.MethodPut, "/draft", map[string]any{"rules": grantRules}},
		{http.MethodPost, "/publish", nil},
		{http.MethodPost, "/review", nil},
	}
	for _, rt := range routes {
		r := call(t, f, other, rt.method, g.base+rt.path, rt.body)
		if r.Status != http.StatusNotFound {
			t.Errorf("%s %s by another tenant: %d %s", rt.method, rt.path, r.Status, r.Raw)
		}
		if _, isString := obj(t, r.Body)["detail"].(string); !isString {
			t.Errorf("%s %s: a 404's detail is a string: %s", rt.method, rt.path, r.Raw)
		}
		if r := call(t, f, other, rt.method, "/projects/prj_%00bad"+rt.path, rt.body); r.Status != http.StatusNotFound {
			t.Errorf("%s %s with a malformed id: %d %s", rt.method, rt.path, r.Status, r.Raw)
		}
	}
	r := call(t, f, other, http.MethodGet, "/projects", nil)
	if len(list(t, r.Body)) != 0 {
		t.Fatalf("another tenant's list: %s", r.Raw)
	}
	// The owner's project is untouched.
	r = g.do(t, http.MethodGet, "/sources", nil)
	if n := len(list(t, obj(t, r.Body)["sources"])); n != 1 {
		t.Fatalf("owner's sources: %d", n)
	}
	reader := tenantKey(t, f, "acme", auth.ScopeProjectsRead)
	if r := call(t, f, reader, http.MethodPut, g.base+"/draft", map[string]any{"rules": grantRules}); r.Status != http.StatusForbidden {
		t.Fatalf("a read-only key writing: %s", r.Raw)
	}
	if r := call(t, f, reader, http.MethodPost, g.base+"/review", nil); r.Status != http.StatusForbidden || !strings.Contains(r.Raw, "rulesets:read") {
		t.Fatalf("review needs rulesets:read too: %s", r.Raw)
	}
}

// multiFiles is a multipart form of n small distinct text files.
func multiFiles(t *testing.T, buf *bytes.Buffer, batch, n int) (string, []byte) {
	t.Helper()
	w := multipart.NewWriter(buf)
	for i := range n {
		part, err := w.CreateFormFile("file", fmt.Sprintf("part-%d-%d.txt", batch, i))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(part, "Regulation %d of batch %d: a distinct small text.", i, batch)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), buf.Bytes()
}
