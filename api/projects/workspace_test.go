package projects

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
)

// The acceptance contract's rules: a legacy write never erases a contract;
// a contract replaces tests and contract together; expected_review_bindings
// is checked against the draft's review points sentence by sentence.
func TestContracts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	tests := func(body map[string]any) map[string]any {
		t.Helper()
		r := g.do(t, http.MethodPost, "/tests", body)
		want(t, r, http.StatusOK)
		return obj(t, r.Body)
	}

	// Legacy append, then legacy replace, with no contract in force.
	extra := map[string]any{"name": "adult again", "field_values": map[string]any{"person.age": 40}, "expected_outcome": "undetermined"}
	if p := tests(map[string]any{"test_cases": []any{extra}}); p["tests_total"].(float64) != 3 || p["contract"] != nil {
		t.Fatalf("append: %v", p)
	}
	if r := g.do(t, http.MethodPost, "/tests", map[string]any{"test_cases": []any{extra}}); r.Status != 422 {
		t.Fatalf("appending a duplicate name: %s", r.Raw)
	}
	if p := tests(map[string]any{"replace": true, "test_cases": grantCases}); p["tests_total"].(float64) != 2 {
		t.Fatalf("replace: %v", p)
	}

	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	accepted := func() (bool, []any) {
		t.Helper()
		r := g.do(t, http.MethodGet, "/draft", nil)
		want(t, r, http.StatusOK)
		acc := obj(t, obj(t, r.Body)["acceptance"])
		return acc["accepted"].(bool), list(t, acc["contract_checks"])
	}
	full := map[string]any{"yes": true, "no": false, "undecided": nil}
	for _, tc := range []struct {
		name     string
		bindings any // nil: the member is omitted
		accepted bool
		problem  string
	}{
		{"omitted: no assertion", nil, true, ""},
		{"each field identifies its review point and maps every token", map[string]any{"review.officer_approves": full}, true, ""},
		{"{} asserts there are none, but the draft has one", map[string]any{}, false, "review point officer_approves (completion field review.officer_approves) is not in the contract's bindings"},
		{"a field that identifies no review point", map[string]any{"review.officer_approves": full, "person.age": map[string]any{"1": true}}, false, "completion field person.age identifies no review point"},
		{"a field the draft does not have", map[string]any{"review.officer_approves": full, "review.other": map[string]any{"yes": true}}, false, "completion field review.other is not a field of the draft"},
		{"a token the field does not take", map[string]any{"review.officer_approves": map[string]any{"yes": true, "no": false, "undecided": nil, "maybe": nil}}, false, `completion field review.officer_approves: "maybe" is not one of its answers`},
		{"a token left unmapped", map[string]any{"review.officer_approves": map[string]any{"yes": true, "no": false}}, false, `completion field review.officer_approves: the answer "undecided" is not mapped`},
	} {
		body := map[string]any{"contract_version": 1, "test_cases": grantCases}
		if tc.bindings != nil {
			body["expected_review_bindings"] = tc.bindings
		}
		tests(body)
		ok, checks := accepted()
		if ok != tc.accepted {
			t.Errorf("%s: accepted %v, checks %v", tc.name, ok, checks)
		}
		if tc.problem != "" && (len(checks) != 1 || !strings.Contains(strings.Join(toStrings(obj(t, checks[0])["problems"]), "\n"), tc.problem)) {
			t.Errorf("%s: checks %v lack %q", tc.name, checks, tc.problem)
		}
	}
	// The contract in force is the last one; a legacy replace does not
	// erase it.
	r := g.do(t, http.MethodPost, "/tests", map[string]any{"replace": true, "test_cases": grantCases})
	want(t, r, http.StatusConflict)
	r = g.do(t, http.MethodGet, "", nil)
	if c := obj(t, obj(t, r.Body)["contract"]); c["contract_version"].(float64) != 1 || c["expected_review_bindings"] == nil {
		t.Fatalf("the contract after a refused legacy replace: %s", r.Raw)
	}
	// A failing contract check blocks the publish like a failing test.
	r = g.do(t, http.MethodPost, "/publish", nil)
	if r.Status != 422 || reason(t, r) != "tests_failed" || len(list(t, obj(t, obj(t, r.Body)["detail"])["contract_checks"])) != 1 {
		t.Fatalf("publish under a failing contract: %s", r.Raw)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// A test's field names must match the draft's exactly: a mismatched one is
// treated as absent, and the result says so.
func TestMismatchedFieldNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	g.do(t, http.MethodPost, "/tests", map[string]any{"replace": true, "test_cases": []any{
		map[string]any{"name": "typo", "field_values": map[string]any{"person.agee": 12}, "expected_outcome": "not_eligible"}}})
	r := g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules})
	res := obj(t, list(t, obj(t, obj(t, r.Body)["acceptance"])["results"])[0])
	if res["pass"] != false || res["got"] != "undetermined" || !reflect.DeepEqual(res["ignored_fields"], []any{"person.agee"}) ||
		!strings.Contains(res["hint"].(string), "person.agee") {
		t.Fatalf("a mismatched field name: %v", res)
	}

	// An invalid scenario input fails its check even when the outcome it
	// expects (undetermined) is what the engine answers; expecting the
	// field error explicitly makes it a valid case.
	g.do(t, http.MethodPost, "/tests", map[string]any{"replace": true, "test_cases": []any{
		map[string]any{"name": "bad age", "field_values": map[string]any{"person.age": "old"}, "expected_outcome": "undetermined"},
		map[string]any{"name": "bad age expected", "field_values": map[string]any{"person.age": "old"}, "expected_outcome": "undetermined",
			"expectations": map[string]any{"field_errors": []any{"person.age"}}}}})
	r = g.do(t, http.MethodGet, "/draft", nil)
	results := list(t, obj(t, obj(t, r.Body)["acceptance"])["results"])
	if obj(t, results[0])["pass"] != false || !strings.Contains(r.Raw, "person.age could not be applied") || obj(t, results[1])["pass"] != true {
		t.Fatalf("invalid scenario inputs: %s", r.Raw)
	}
}

// A source cited as an artefact makes a v2 reference: the owner sees the
// project and source it names, an anonymous caller never does, and the
// ruleset cannot be made public.
func TestArtefactReference(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	r := g.do(t, http.MethodPost, "/sources", map[string]any{"filename": "internal-memo.txt", "text": grantLaw, "licence": "internal"})
	memo := obj(t, list(t, obj(t, r.Body)["sources"])[0])["source_id"].(string)
	rules := strings.Replace(grantRules, `url "https://laws.example.org/grant" licence "CC-BY-4.0"`, `artefact "`+memo+`" licence "internal"`, 1)
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": rules}), http.StatusOK)
	r = g.do(t, http.MethodPost, "/publish", map[string]any{"slug": "acme/grant-internal"})
	want(t, r, http.StatusCreated)
	id := obj(t, r.Body)["ruleset_id"].(string)
	pid := strings.TrimPrefix(g.base, "/projects/")

	r = call(t, f, key, http.MethodGet, "/rulesets/"+id+"/explain", nil)
	ref := obj(t, list(t, obj(t, list(t, obj(t, r.Body)["criteria"])[0])["source_references"])[0])
	if ref["schema_version"].(float64) != 2 || ref["target_kind"] != "artefact" || ref["artefact_project_id"] != pid ||
		ref["artefact_source_id"] != memo || ref["url"] != "/projects/"+pid+"/sources/"+memo+"/raw" || ref["licence"] != "internal" {
		t.Fatalf("v2 reference: %v", ref)
	}
	r = call(t, f, key, http.MethodPatch, "/rulesets/"+id+"/visibility", map[string]any{"visibility": "public"})
	if r.Status != 422 || reason(t, r) != "artefact_reference_public_visibility_forbidden" {
		t.Fatalf("making an artefact-backed ruleset public: %s", r.Raw)
	}
	// The same source bound by url instead: it has none, so it fails.
	r = g.do(t, http.MethodPost, "/publish", map[string]any{"slug": "acme/grant-internal",
		"source_targets": map[string]any{"law": map[string]any{"source_id": memo, "target_kind": "url"}}})
	if r.Status != 422 || !strings.Contains(r.Raw, "has no url") {
		t.Fatalf("a url reference to a file without a url: %s", r.Raw)
	}
}

// The review scores a weak project below a strong one for stated reasons,
// and coaching comes only when asked for.
func TestReviewWeakAndStrong(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	weak := newGrantProject(t, f, key)
	strong := newGrantProject(t, f, key)
	for _, g := range []grantProject{weak, strong} {
		want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	}
	boundary := []any{grantCases[0], grantCases[1],
		map[string]any{"name": "exactly 18", "field_values": map[string]any{"person.age": 18}, "expected_outcome": "undetermined"},
		map[string]any{"name": "just 17", "field_values": map[string]any{"person.age": 17}, "expected_outcome": "not_eligible"},
		map[string]any{"name": "no answer", "field_values": map[string]any{}, "expected_outcome": "undetermined"},
		map[string]any{"name": "elderly", "field_values": map[string]any{"person.age": 90}, "expected_outcome": "undetermined"}}
	want(t, strong.do(t, http.MethodPost, "/tests", map[string]any{"replace": true, "test_cases": boundary}), http.StatusOK)
	want(t, weak.do(t, http.MethodPost, "/tests", map[string]any{"replace": true, "test_cases": grantCases[1:]}), http.StatusOK)

	report := func(g grantProject, coach bool) map[string]any {
		r := g.do(t, http.MethodPost, "/review", map[string]any{"coach": coach})
		want(t, r, http.StatusOK)
		return obj(t, r.Body)
	}
	status := func(rep map[string]any, id string) string {
		for _, c := range list(t, rep["checks"]) {
			if obj(t, c)["id"] == id {
				return obj(t, c)["status"].(string)
			}
		}
		return ""
	}
	w, s := report(weak, false), report(strong, true)
	if w["score"].(float64) >= s["score"].(float64) {
		t.Fatalf("weak %v scores no lower than strong %v", w["score"], s["score"])
	}
	for id, want := range map[string][2]string{"tests_per_section": {"warn", "pass"}, "threshold_boundaries": {"fail", "pass"}} {
		if got := [2]string{status(w, id), status(s, id)}; got != want {
			t.Errorf("%s: weak/strong %v, want %v", id, got, want)
		}
	}
	if w["data_completeness"] != "thin" || s["data_completeness"] != "ok" || w["coaching"] != nil || s["coaching"] == nil {
		t.Fatalf("completeness or coaching: weak %v / %v, strong %v / %v", w["data_completeness"], w["coaching"], s["data_completeness"], s["coaching"])
	}
	hint := obj(t, w["next_skill"])
	if !strings.HasSuffix(hint["docs_url"].(string), "docs/authoring.md#"+hint["check_id"].(string)) {
		t.Fatalf("next_skill: %v", hint)
	}
}

// Guidance accumulates in order; the status is idle before any
// generation; the list pages.
func TestGuidanceStatusAndList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	for i, text := range []string{"Ages are in completed years.", "Quote section numbers."} {
		r := g.do(t, http.MethodPost, "/guidance", map[string]any{"guidance_text": text, "process_type": "rule_generation", "adherence": "exact"})
		want(t, r, http.StatusCreated)
		if obj(t, r.Body)["position"].(float64) != float64(i) {
			t.Fatalf("guidance %d: %s", i, r.Raw)
		}
	}
	r := g.do(t, http.MethodGet, "/guidance", nil)
	got := list(t, obj(t, r.Body)["guidance"])
	if len(got) != 2 || obj(t, got[1])["guidance_text"] != "Quote section numbers." || obj(t, got[0])["adherence"] != "exact" {
		t.Fatalf("guidance: %s", r.Raw)
	}
	if r := g.do(t, http.MethodPost, "/guidance", map[string]any{"guidance_text": "x", "process_type": "poetry"}); r.Status != 422 {
		t.Fatalf("unknown process_type: %s", r.Raw)
	}

	r = g.do(t, http.MethodGet, "/status", nil)
	st := obj(t, r.Body)
	if st["state"] != "idle" || st["generation_contract_version"].(float64) != 1 || st["retry_readiness"] != "ready" || st["job_id"] != nil || st["draft"] != nil {
		t.Fatalf("idle status: %s", r.Raw)
	}

	newGrantProject(t, f, key)
	newGrantProject(t, f, key)
	var seen []string
	cursor := ""
	for {
		r := f.Do(t, http.MethodGet, "/projects?limit=2&cursor="+cursor, map[string]string{"x-api-key": key}, nil)
		want(t, r, http.StatusOK)
		for _, p := range list(t, r.Body) {
			seen = append(seen, obj(t, p)["project_id"].(string))
		}
		if cursor = r.Header.Get("X-Next-Cursor"); cursor == "" {
			break
		}
	}
	if len(seen) != 3 || seen[0] != strings.TrimPrefix(g.base, "/projects/") {
		t.Fatalf("paged list: %v", seen)
	}
	if r := f.Do(t, http.MethodGet, "/projects?cursor=bogus", map[string]string{"x-api-key": key}, nil); r.Status != 422 {
		t.Fatalf("a bogus cursor: %s", r.Raw)
	}
}

// Authoring routes grant CORS to first-party origins only, preflights
// included: another origin gets no Access-Control-Allow-Origin.
func TestCORSFirstPartyOnly(t *testing.T) {
	t.Parallel()
	const console = "https://console.example.org"
	f := apitest.New(t, api.Config{Metering: apitest.GenerousMetering(), FirstPartyOrigins: []string{console}}, func(s *api.Server, sv apitest.Services) {
		Register(s, Deps{Authoring: sv.Authoring})
	})
	key := tenantKey(t, f, "acme", allProjectScopes...)
	for _, tc := range []struct {
		origin string
		want   string
	}{{console, console}, {"https://evil.example.com", ""}} {
		pre := f.Do(t, http.MethodOptions, "/projects/", map[string]string{"Origin": tc.origin,
			"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-api-key"}, nil)
		if got := pre.Header.Get("Access-Control-Allow-Origin"); got != tc.want {
			t.Errorf("preflight from %s: Access-Control-Allow-Origin %q, want %q", tc.origin, got, tc.want)
		}
		r := f.Do(t, http.MethodGet, "/projects", map[string]string{"Origin": tc.origin, "x-api-key": key}, nil)
		if got := r.Header.Get("Access-Control-Allow-Origin"); r.Status != 200 || got != tc.want {
			t.Errorf("GET from %s: %d, Access-Control-Allow-Origin %q, want %q", tc.origin, r.Status, got, tc.want)
		}
	}
}

// A guidance note that settles a draft's source question marks it
// resolved in the same write, leaving the draft's text, origin and time as
// they were, and the review no longer counts it open; a question the draft
// does not have is refused with the ones it has, and nothing is added.
func TestGuidanceSettlesASourceQuestion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	question := map[string]any{"id": "approval_form", "quote": "may, at their discretion, approve the grant",
		"question": "Does approval need a form?", "candidate_readings": []string{"yes", "no"}, "provisional_reading": "no", "resolved": false}
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules, "source_questions": []any{question}}), http.StatusOK)
	before := obj(t, g.do(t, http.MethodGet, "/draft", nil).Body)
	if r := g.do(t, http.MethodPost, "/review", nil); !strings.Contains(r.Raw, "Does approval need a form?") {
		t.Fatalf("review of an open question: %s", r.Raw)
	}

	settle := func(id string) apitest.Response {
		return g.do(t, http.MethodPost, "/guidance", map[string]any{"guidance_text": "Approval needs no form.",
			"process_type": "rule_generation", "settles": id})
	}
	r := settle("approval_from")
	if r.Status != 422 || !strings.Contains(r.Raw, `did you mean \"approval_form\"`) || !strings.Contains(r.Raw, `"settles"`) {
		t.Fatalf("an unknown question: %s", r.Raw)
	}
	if got := list(t, obj(t, g.do(t, http.MethodGet, "/guidance", nil).Body)["guidance"]); len(got) != 0 {
		t.Fatalf("a refused note was added: %v", got)
	}

	want(t, settle("approval_form"), http.StatusCreated)
	after := obj(t, g.do(t, http.MethodGet, "/draft", nil).Body)
	qs := list(t, after["source_questions"])
	if len(qs) != 1 || obj(t, qs[0])["resolved"] != true || obj(t, qs[0])["provisional_reading"] != "no" {
		t.Fatalf("settled question: %v", qs)
	}
	for _, k := range []string{"rules", "origin", "updated_at", "content_digest"} {
		if fmt.Sprint(after[k]) != fmt.Sprint(before[k]) {
			t.Errorf("settling changed the draft's %s: %v, was %v", k, after[k], before[k])
		}
	}
	r = g.do(t, http.MethodPost, "/review", nil)
	for _, c := range list(t, obj(t, r.Body)["checks"]) {
		if c := obj(t, c); c["id"] == "source_questions" && c["status"] != "pass" {
			t.Fatalf("the review still counts the settled question: %v", c)
		}
	}
	if got := list(t, obj(t, g.do(t, http.MethodGet, "/guidance", nil).Body)["guidance"]); len(got) != 1 {
		t.Fatalf("guidance after settling: %v", got)
	}
}
