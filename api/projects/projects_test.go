package projects

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/source/sourcetest"
	"github.com/eligo/eligo/clock"
)

// The real statute the tests author from: the FMLA casebank folder, whose
// source.txt holds 29 U.S.C. 2611 and 29 CFR 825.110.
const (
	fmlaDir = "../../casebank/us-fmla-employee/"
	uscURL  = "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title29-section2611&num=0&edition=prelim"
	cfrURL  = "https://www.ecfr.gov/current/title-29/subtitle-B/chapter-V/subchapter-C/part-825/subpart-A/section-825.110"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(fmlaDir + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newFixture serves the projects and the ruleset reads.
func newFixture(t testing.TB) *apitest.Fixture {
	t.Helper()
	return newFixtureAt(t, nil)
}

// newFixtureAt is newFixture whose project handler reads projectClock
// (the run's clock when nil).
func newFixtureAt(t testing.TB, projectClock clock.Clock) *apitest.Fixture {
	t.Helper()
	return apitest.New(t, api.Config{Metering: apitest.GenerousMetering()}, func(s *api.Server, sv apitest.Services) {
		c := projectClock
		if c == nil {
			c = sv.Clock
		}
		Register(s, Deps{Authoring: sv.Authoring, Catalog: sv.Catalog, Clock: c, Gate: sv.Gate})
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
	})
}

// stoppedClock is a clock that never moves: a rate's refill then does not
// depend on how fast the machine runs the test.
type stoppedClock struct{ at time.Time }

// Now is always the same time.
func (c stoppedClock) Now() time.Time { return c.at }

// tenantKey issues a key for tenant carrying scopes.
func tenantKey(t testing.TB, f *apitest.Fixture, tenant string, scopes ...auth.Scope) string {
	t.Helper()
	text, _, _, err := auth.IssueKey(context.Background(), f.Store, auth.KeyRequest{TenantID: tenant, Scopes: scopes, Tier: auth.TierPro})
	if err != nil {
		t.Fatal(err)
	}
	return text
}

var allProjectScopes = []auth.Scope{auth.ScopeProjectsRead, auth.ScopeProjectsWrite, auth.ScopeRulesetsRead, auth.ScopeRulesetsExplain, auth.ScopeRulesetsWrite}

// call sends body (a Go value marshalled, or nil) with key.
func call(t testing.TB, f *apitest.Fixture, key, method, path string, body any) apitest.Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	return f.Do(t, method, path, apitest.WithKey(key), r)
}

// send posts raw bytes of contentType.
func send(t testing.TB, f *apitest.Fixture, key, method, path, contentType string, body []byte) apitest.Response {
	t.Helper()
	return f.Do(t, method, path, map[string]string{"x-api-key": key, "Content-Type": contentType}, bytes.NewReader(body))
}

// form builds a multipart upload of one file with fields.
func form(t testing.TB, filename, mediaType string, content []byte, fields map[string]string) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	h := map[string][]string{"Content-Disposition": {fmt.Sprintf(`form-data; name="file"; filename=%q`, filename)}, "Content-Type": {mediaType}}
	part, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(content)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), buf.Bytes()
}

// statuteHTML is the statute as an HTML page: a paragraph per line, with
// entities, a script and a style that extraction must drop.
func statuteHTML(text []byte) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>29 U.S.C. 2611</title><style>p{color:red}</style></head><body><script>var x = 'employs 50';</script>\n")
	for _, line := range strings.Split(string(text), "\n") {
		b.WriteString("<p>" + html.EscapeString(line) + "</p>\n")
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}

// statutePDF is the statute as a PDF whose regulation (29 CFR 825.110)
// starts on a page of its own: the number of that page is returned.
func statutePDF(text []byte) (pdf []byte, cfrPage int) {
	usc, cfr, _ := strings.Cut(string(text), "== cfr29_825_110 ==")
	pages := sourcetest.Layout(usc)
	return sourcetest.PDF(append(pages, sourcetest.Layout(cfr)...)), len(pages) + 1
}

// rawBytes downloads path's body as bytes, with its Content-Type.
func rawBytes(t testing.TB, f *apitest.Fixture, key, path string) ([]byte, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
	}
	return b, res.Header.Get("Content-Type")
}

func obj(t testing.TB, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %v", v)
	}
	return m
}

func list(t testing.TB, v any) []any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("not a list: %v", v)
	}
	return l
}

func want(t testing.TB, r apitest.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
}

// detail is the refusal's reason_code.
func reason(t testing.TB, r apitest.Response) string {
	t.Helper()
	d, _ := obj(t, r.Body)["detail"].(map[string]any)
	code, _ := d["reason_code"].(string)
	return code
}

// casesJSON are the FMLA casebank's cases.
func casesJSON(t testing.TB) []any {
	t.Helper()
	var cases []any
	if err := json.Unmarshal(read(t, "cases.json"), &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// From a statute to a published ruleset with verified provenance: a
// project from source text, the statute uploaded as HTML (multipart) and
// as a PDF (JSON), duplicates spotted, a contract, a hand-written draft,
// a review, a publish whose references link to the HTML text and the PDF
// page, and a cited source that can no longer be deleted.
func TestStatuteToPublishedRuleset(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	statute := read(t, "source.txt")
	cases := casesJSON(t)

	r := call(t, f, key, http.MethodPost, "/projects/", map[string]any{"name": "FMLA", "section_id": "fmla_employee",
		"source_text": string(statute), "test_cases": cases[:2]})
	want(t, r, http.StatusCreated)
	created := obj(t, r.Body)
	pid := created["project_id"].(string)
	first := obj(t, list(t, created["sources"])[0])
	if first["filename"] != "source.txt" || first["estimated_tokens"].(float64) < 300 || created["project_estimated_tokens"] != first["estimated_tokens"] ||
		created["generation_token_budget"].(float64) != float64(llm.DefaultModels().Default().Budget()) || created["tests_total"].(float64) != 2 {
		t.Fatalf("create answered %s", r.Raw)
	}
	base := "/projects/" + pid

	ct, body := form(t, "2611.html", "text/html", statuteHTML(statute), map[string]string{"url": uscURL, "licence": "public-domain", "title": "29 U.S.C. 2611"})
	r = send(t, f, key, http.MethodPost, base+"/sources", ct, body)
	want(t, r, http.StatusCreated)
	htmlSrc := obj(t, list(t, obj(t, r.Body)["sources"])[0])
	dups := list(t, htmlSrc["possible_duplicates"])
	if len(dups) != 1 || obj(t, dups[0])["source_id"] != first["source_id"] || obj(t, dups[0])["kind"] != "near_duplicate_text" {
		t.Fatalf("the HTML copy of source.txt should be a near duplicate of it: %s", r.Raw)
	}
	if got := obj(t, r.Body)["project_estimated_tokens"].(float64); got <= first["estimated_tokens"].(float64) {
		t.Fatalf("project tokens %v did not grow", got)
	}

	pdf, cfrPage := statutePDF(statute)
	r = call(t, f, key, http.MethodPost, base+"/sources", map[string]any{"filename": "825.110.pdf", "content_base64": base64.StdEncoding.EncodeToString(pdf),
		"url": cfrURL, "licence": "public-domain"})
	want(t, r, http.StatusCreated)
	pdfSrc := obj(t, list(t, obj(t, r.Body)["sources"])[0])
	if pdfSrc["media_type"] != "application/pdf" || pdfSrc["size"].(float64) != float64(len(pdf)) {
		t.Fatalf("pdf upload: %s", r.Raw)
	}

	// The same HTML bytes again: an identical duplicate, which is deleted.
	r = send(t, f, key, http.MethodPost, base+"/sources", ct, body)
	want(t, r, http.StatusCreated)
	again := obj(t, list(t, obj(t, r.Body)["sources"])[0])
	if d := obj(t, list(t, again["possible_duplicates"])[1]); d["source_id"] != htmlSrc["source_id"] || d["kind"] != "identical_bytes" {
		t.Fatalf("identical bytes not reported: %s", r.Raw)
	}
	want(t, call(t, f, key, http.MethodDelete, base+"/sources/"+again["source_id"].(string), nil), http.StatusNoContent)

	if got, ctype := rawBytes(t, f, key, base+"/sources/"+pdfSrc["source_id"].(string)+"/raw"); !bytes.Equal(got, pdf) || ctype != "application/pdf" {
		t.Fatalf("raw download: %d bytes of %s, want the %d uploaded", len(got), ctype, len(pdf))
	}

	r = call(t, f, key, http.MethodPost, base+"/tests", map[string]any{"contract_version": 1, "test_cases": cases, "expected_review_bindings": map[string]any{}})
	want(t, r, http.StatusOK)
	r = call(t, f, key, http.MethodPost, base+"/tests", map[string]any{"test_cases": cases[:1]})
	want(t, r, http.StatusConflict)
	if reason(t, r) != "contract_in_force" {
		t.Fatalf("legacy append over a contract: %s", r.Raw)
	}

	r = call(t, f, key, http.MethodPut, base+"/draft", map[string]any{"rules": string(read(t, "us-fmla-employee.rules"))})
	want(t, r, http.StatusOK)
	draft := obj(t, r.Body)
	acc := obj(t, draft["acceptance"])
	if draft["compiles"] != true || acc["accepted"] != true || acc["tests_passing"].(float64) != float64(len(cases)) {
		t.Fatalf("the casebank rules should pass their own cases: %s", r.Raw)
	}
	totals := obj(t, obj(t, draft["provenance_report"])["totals"])
	if totals["flagged"].(float64) != 0 || totals["verified"].(float64) < 9 {
		t.Fatalf("every quote should verify against the HTML and PDF: %v", totals)
	}
	if sc := obj(t, draft["source_check"]); sc["status"] != "warnings" || obj(t, list(t, sc["findings"])[0])["kind"] != "no_authoring_inputs_recorded" {
		t.Fatalf("a hand-written draft records no authoring inputs: %v", sc)
	}

	r = call(t, f, key, http.MethodPost, base+"/review", map[string]any{"coach": true})
	want(t, r, http.StatusOK)
	if rep := obj(t, r.Body); rep["data_completeness"] != "ok" || rep["coaching"] == nil || len(list(t, rep["checks"])) != 14 {
		t.Fatalf("review: %s", r.Raw)
	}

	r = call(t, f, key, http.MethodPost, base+"/publish", map[string]any{"slug": "acme/fmla-employee"})
	want(t, r, http.StatusCreated)
	pub := obj(t, r.Body)
	if pub["version"] != "v1" || pub["tests_passing"] != pub["tests_total"] || pub["visibility"] != "private" {
		t.Fatalf("publish: %s", r.Raw)
	}
	rulesetID := pub["ruleset_id"].(string)

	r = call(t, f, key, http.MethodGet, "/rulesets/"+rulesetID+"/explain", nil)
	want(t, r, http.StatusOK)
	links := map[string]string{}
	for _, c := range list(t, obj(t, r.Body)["criteria"]) {
		for _, ref := range list(t, obj(t, c)["source_references"]) {
			ref := obj(t, ref)
			links[ref["source"].(string)] = ref["deep_link"].(string)
			if ref["content_digest"] == nil || ref["schema_version"].(float64) != 1 {
				t.Fatalf("reference not verified: %v", ref)
			}
		}
	}
	if !strings.HasPrefix(links["usc29_2611"], uscURL+"#:~:text=") || links["cfr29_825_110"] != fmt.Sprintf("%s#page=%d", cfrURL, cfrPage) {
		t.Fatalf("deep links: %v", links)
	}

	r = call(t, f, key, http.MethodDelete, base+"/sources/"+htmlSrc["source_id"].(string), nil)
	want(t, r, http.StatusConflict)
	d := obj(t, obj(t, r.Body)["detail"])
	if d["reason_code"] != "source_cited" || !reflect.DeepEqual(d["cited_by"], []any{rulesetID}) {
		t.Fatalf("deleting a cited source: %s", r.Raw)
	}
	r = call(t, f, key, http.MethodGet, base+"/sources", nil)
	if n := len(list(t, obj(t, r.Body)["sources"])); n != 3 {
		t.Fatalf("%d sources after the refused delete, want 3", n)
	}

	// Superseding the cited HTML: the draft's quotes now rest on a source
	// that is not active, which the source check reports (warn-only).
	r = call(t, f, key, http.MethodPatch, base+"/sources/"+htmlSrc["source_id"].(string), map[string]any{"status": "superseded", "superseded_by": first["source_id"]})
	want(t, r, http.StatusOK)
	if got := obj(t, r.Body); got["status"] != "superseded" || got["superseded_by"] != first["source_id"] {
		t.Fatalf("patch: %s", r.Raw)
	}
	r = call(t, f, key, http.MethodGet, base+"/draft", nil)
	if !strings.Contains(r.Raw, `"kind":"mismatch","source_id":"`+htmlSrc["source_id"].(string)+`"`) {
		t.Fatalf("source check after superseding a cited source: %s", obj(t, r.Body)["source_check"])
	}
	r = call(t, f, key, http.MethodPost, base+"/review", nil)
	if !strings.Contains(r.Raw, `"id":"superseded_sources","title":"Citations rest on active sources","status":"warn"`) {
		t.Fatalf("review after superseding a cited source: %s", r.Raw)
	}
}
