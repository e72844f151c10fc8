package projects

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// format-project-draft prints a text in the canonical layout without
// storing it, says whether it changed, and refuses a text that does not
// parse with its compile errors.
func TestFormatDraft(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	messy := strings.ReplaceAll(grantRules, "\n  ", "\n      ")
	messy = strings.Replace(messy, "field person.age int weight 1", "# Age in whole years.\nfield   person.age   int   weight 1", 1)

	r := g.do(t, http.MethodPost, "/draft/format", map[string]any{"rules": messy})
	want(t, r, http.StatusOK)
	canonical := obj(t, r.Body)["rules"].(string)
	if obj(t, r.Body)["changed"] != true || canonical == messy || !strings.Contains(canonical, "# Age in whole years.\nfield person.age int weight 1\n") {
		t.Fatalf("a messy text: %s", r.Raw)
	}
	r = g.do(t, http.MethodPost, "/draft/format", map[string]any{"rules": canonical})
	want(t, r, http.StatusOK)
	if obj(t, r.Body)["changed"] != false || obj(t, r.Body)["rules"] != canonical {
		t.Fatalf("a canonical text changed: %s", r.Raw)
	}
	// Nothing is stored: the project still has no draft.
	want(t, g.do(t, http.MethodGet, "/draft", nil), http.StatusConflict)
	// A text that parses but does not compile (an unknown field) is
	// formatted all the same.
	r = g.do(t, http.MethodPost, "/draft/format", map[string]any{"rules": strings.Replace(grantRules, "person.age >= 18", "person.height >= 18", 1)})
	want(t, r, http.StatusOK)

	for _, tc := range []struct {
		name, rules string
		status      int
		reason      string
		errors      []string
	}{
		{"an unclosed group", "section grant\ngroup g all \"G\" {\n", 422, "rules_do_not_parse", []string{"draft.rules:3:1: "}},
		{"a stray word", "section grant\nbanana\n", 422, "rules_do_not_parse", []string{`found "banana"`}},
	} {
		r := g.do(t, http.MethodPost, "/draft/format", map[string]any{"rules": tc.rules})
		if r.Status != tc.status || reason(t, r) != tc.reason {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
			continue
		}
		got := toStrings(obj(t, obj(t, r.Body)["detail"])["compile_errors"])
		if len(got) != len(tc.errors) {
			t.Errorf("%s: compile_errors %q, want %d", tc.name, got, len(tc.errors))
			continue
		}
		for i, part := range tc.errors {
			if !strings.HasPrefix(got[i], "draft.rules:") || !strings.Contains(got[i], part) {
				t.Errorf("%s: compile error %q, want draft.rules:line:column: and %q", tc.name, got[i], part)
			}
		}
	}
	if r := g.do(t, http.MethodPost, "/draft/format", map[string]any{"rules": ""}); r.Status != 422 {
		t.Errorf("an empty text: %d %s", r.Status, r.Raw)
	}
	other := tenantKey(t, f, "globex", allProjectScopes...)
	if r := call(t, f, other, http.MethodPost, g.base+"/draft/format", map[string]any{"rules": grantRules}); r.Status != http.StatusNotFound {
		t.Errorf("another tenant's project: %d %s", r.Status, r.Raw)
	}
}

// get-project-draft-symbols lists what the saved draft declares, with the
// language's functions and keywords, whether or not the draft compiles.
func TestDraftSymbols(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	r := g.do(t, http.MethodGet, "/draft/symbols", nil)
	if r.Status != http.StatusConflict || reason(t, r) != "no_draft" {
		t.Fatalf("before a draft: %d %s", r.Status, r.Raw)
	}
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	r = g.do(t, http.MethodGet, "/draft/symbols", nil)
	want(t, r, http.StatusOK)
	sym := obj(t, r.Body)
	wantSymbols := map[string]any{
		"complete": true,
		"fields": []any{
			map[string]any{"id": "person.age", "type": "int", "question": "How old are you?", "enum_values": []any{}, "line": float64(4)},
			map[string]any{"id": "review.officer_approves", "type": "enum", "question": "Did the officer approve?", "enum_values": []any{"yes", "no", "undecided"}, "line": float64(6)},
		},
		"sources": []any{map[string]any{"id": "law", "title": "Grant Act", "line": float64(3)}},
		"groups": []any{
			map[string]any{"id": "age", "kind": "all", "title": "Age", "line": float64(8)},
			map[string]any{"id": "officer", "kind": "all", "title": "Officer", "line": float64(14)},
		},
		"criteria": []any{
			map[string]any{"id": "adult", "group_id": "age", "title": "At least 18", "discretionary": false, "line": float64(9)},
			map[string]any{"id": "officer_approves", "group_id": "officer", "title": "The officer approves", "discretionary": true, "line": float64(15)},
		},
	}
	for member, w := range wantSymbols {
		if !reflect.DeepEqual(sym[member], w) {
			t.Errorf("%s: %v, want %v", member, sym[member], w)
		}
	}
	for member, words := range map[string][]string{"functions": {"years_between", "decision_date", "present"}, "keywords": {"criterion", "cite", "discretionary", "outcome"}} {
		got := toStrings(sym[member])
		for _, w := range words {
			if !slices.Contains(got, w) {
				t.Errorf("%s %v lack %s", member, got, w)
			}
		}
	}

	// A draft that does not compile (an undeclared field) has its symbols;
	// one with a syntax error has those the parser read, and says so.
	for _, tc := range []struct {
		name     string
		rules    string
		complete bool
		fields   int
		criteria int
	}{
		{"does not compile", strings.Replace(grantRules, "person.age >= 18", "person.height >= 18", 1), true, 2, 2},
		{"a syntax error in the second group", strings.Replace(grantRules, `group officer all "Officer" {`, `group officer sometimes "Officer" {`, 1), false, 2, 1},
	} {
		want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": tc.rules}), http.StatusOK)
		r := g.do(t, http.MethodGet, "/draft/symbols", nil)
		want(t, r, http.StatusOK)
		sym := obj(t, r.Body)
		if sym["complete"] != tc.complete || len(list(t, sym["fields"])) != tc.fields || len(list(t, sym["criteria"])) != tc.criteria {
			t.Errorf("%s: %s", tc.name, r.Raw)
		}
	}
	other := tenantKey(t, f, "globex", allProjectScopes...)
	if r := call(t, f, other, http.MethodGet, g.base+"/draft/symbols", nil); r.Status != http.StatusNotFound {
		t.Errorf("another tenant's project: %d %s", r.Status, r.Raw)
	}
}

// A quote that does not verify carries the nearest passage of its source
// in the draft's provenance report, and the review's evidence names it; a
// verified quote, or one with nothing close, carries none.
func TestNearestPassage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	rules := strings.Replace(grantRules, `cite law "is at least 18 years old"`,
		`cite law "is at least 18 yeras old"`+"\n    "+`cite law "must reside in the state for six consecutive years"`, 1)
	r := g.do(t, http.MethodPut, "/draft", map[string]any{"rules": rules})
	want(t, r, http.StatusOK)
	at := strings.Index(grantLaw, "is at least 18 years old")
	wantNearest := map[string]any{
		"is at least 18 yeras old":                           map[string]any{"text": "is at least 18 years old", "offset": float64(at), "end": float64(at + len("is at least 18 years old")), "similarity": 0.933},
		"must reside in the state for six consecutive years": nil,
		"may, at their discretion, approve the grant":        nil,
	}
	for _, read := range []struct {
		method string
		resp   apitest.Response
	}{{"PUT", r}, {"GET", g.do(t, http.MethodGet, "/draft", nil)}} {
		quotes := list(t, obj(t, obj(t, read.resp.Body)["provenance_report"])["quotes"])
		if len(quotes) != len(wantNearest) {
			t.Fatalf("%s: quotes %v", read.method, quotes)
		}
		for _, q := range quotes {
			q := obj(t, q)
			w, known := wantNearest[q["quote"].(string)]
			if !known || !reflect.DeepEqual(q["nearest_passage"], w) {
				t.Errorf("%s: quote %q: nearest_passage %v, want %v", read.method, q["quote"], q["nearest_passage"], w)
			}
		}
	}
	r = g.do(t, http.MethodPost, "/review", nil)
	want(t, r, http.StatusOK)
	var evidence []string
	for _, c := range list(t, obj(t, r.Body)["checks"]) {
		if obj(t, c)["id"] == "criteria_cited" {
			evidence = toStrings(obj(t, c)["evidence"])
		}
	}
	if !slices.Contains(evidence, `criterion adult: quote "is at least 18 yeras old" not found in grant.md; nearest passage: "is at least 18 years old"`) ||
		!slices.Contains(evidence, `criterion adult: quote "must reside in the state for six consecutive years" not found in grant.md`) {
		t.Errorf("criteria_cited evidence: %q", evidence)
	}
}

// diff-project-draft compares the saved draft with the cut in force under
// its slug, or the cut against names, and refuses with a reason when
// there is no draft, it does not compile, or nothing is published.
func TestDraftDiff(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	refused := func(name, query string, status int, code string) map[string]any {
		t.Helper()
		r := g.do(t, http.MethodGet, "/draft/diff"+query, nil)
		if r.Status != status || reason(t, r) != code {
			t.Fatalf("%s: %d %s, want %d %s", name, r.Status, r.Raw, status, code)
		}
		return obj(t, obj(t, r.Body)["detail"])
	}
	refused("before a draft", "", http.StatusConflict, "no_draft")
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	refused("nothing published under acme/grant", "", http.StatusUnprocessableEntity, "nothing_published")

	r := g.do(t, http.MethodPost, "/publish", nil)
	want(t, r, http.StatusCreated)
	published := obj(t, r.Body)["ruleset_id"].(string)
	diff := func(query string) map[string]any {
		t.Helper()
		r := g.do(t, http.MethodGet, "/draft/diff"+query, nil)
		want(t, r, http.StatusOK)
		return obj(t, r.Body)
	}
	d := diff("")
	if d["equivalent"] != true || d["against"] != published || d["against_slug"] != "acme/grant" || d["against_version"] != "v1" ||
		d["project_id"] != strings.TrimPrefix(g.base, "/projects/") || len(list(t, d["changes"])) != 0 {
		t.Fatalf("the draft as published: %v", d)
	}

	// Raising the age to 21 makes 18 to 20 year olds not eligible: the
	// witness is one of them, and adult is the criterion that changed.
	older := strings.Replace(grantRules, "person.age >= 18", "person.age >= 21", 1)
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": older}), http.StatusOK)
	for _, query := range []string{"", "?against=" + published, "?against=acme%2Fgrant", "?decision_date=2030-01-01"} {
		d := diff(query)
		changes := list(t, d["changes"])
		if d["equivalent"] != false || d["against"] != published || len(changes) != 1 {
			t.Fatalf("%q: %v", query, d)
		}
		c := obj(t, changes[0])
		age := obj(t, c["witness"])["person.age"].(float64)
		crit := obj(t, list(t, c["criteria"])[0])
		if c["from"] != "undetermined" || c["to"] != "not_eligible" || age < 18 || age > 20 ||
			crit["criterion_id"] != "adult" || crit["old_status"] != "satisfied" || crit["new_status"] != "not_satisfied" ||
			!reflect.DeepEqual(crit["old_quotes"], []any{"is at least 18 years old"}) {
			t.Errorf("%q: change %v", query, c)
		}
	}

	other := tenantKey(t, f, "globex", allProjectScopes...)
	h := newGrantProject(t, f, other)
	want(t, h.do(t, http.MethodPut, "/draft", map[string]any{"rules": strings.Replace(grantRules, `ruleset "acme/grant"`, `ruleset "globex/grant"`, 1)}), http.StatusOK)
	want(t, h.do(t, http.MethodPost, "/publish", nil), http.StatusCreated)

	for _, tc := range []struct {
		name, query string
		status      int
	}{
		{"an unknown slug", "?against=acme%2Fnone", http.StatusNotFound},
		{"another tenant's private cut", "?against=globex%2Fgrant", http.StatusNotFound},
		{"not a date", "?decision_date=2030-02-30", http.StatusUnprocessableEntity},
	} {
		if r := g.do(t, http.MethodGet, "/draft/diff"+tc.query, nil); r.Status != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	if r := call(t, f, other, http.MethodGet, g.base+"/draft/diff", nil); r.Status != http.StatusNotFound {
		t.Errorf("another tenant's project: %d %s", r.Status, r.Raw)
	}
	reader := tenantKey(t, f, "acme", auth.ScopeProjectsRead)
	if r := call(t, f, reader, http.MethodGet, g.base+"/draft/diff", nil); r.Status != http.StatusForbidden {
		t.Errorf("without rulesets:read: %d %s", r.Status, r.Raw)
	}

	// A draft that declares no slug has nothing in force to compare with,
	// unless against names a cut; another tenant's slug is nothing too.
	for _, tc := range []struct{ name, from, to string }{
		{"no ruleset header", `ruleset "acme/grant"` + "\n", ""},
		{"another tenant's slug", `ruleset "acme/grant"`, `ruleset "globex/grant"`},
	} {
		want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": strings.Replace(grantRules, tc.from, tc.to, 1)}), http.StatusOK)
		if msg := refused(tc.name, "", http.StatusUnprocessableEntity, "nothing_published")["message"].(string); !strings.Contains(msg, "against") {
			t.Errorf("%s: message %q", tc.name, msg)
		}
	}
	if d := diff("?against=" + published); d["equivalent"] != true {
		t.Errorf("a draft without a slug, against the cut: %v", d)
	}
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": strings.Replace(grantRules, "person.age >= 18", "person.height >= 18", 1)}), http.StatusOK)
	if errs := toStrings(refused("does not compile", "", http.StatusUnprocessableEntity, "draft_does_not_compile")["compile_errors"]); len(errs) == 0 || !strings.Contains(errs[0], "person.height") {
		t.Errorf("compile_errors: %q", errs)
	}
}

// suggest-project-cases proposes the boundary cases the tests lack, each
// in the shape set-project-tests takes with the surviving mutants it
// kills; adding them through set-project-tests kills every survivor.
func TestSuggestCases(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	if r := g.do(t, http.MethodPost, "/suggest-cases", nil); r.Status != http.StatusConflict || reason(t, r) != "no_draft" {
		t.Fatalf("before a draft: %d %s", r.Status, r.Raw)
	}
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	r := g.do(t, http.MethodPost, "/suggest-cases", nil)
	want(t, r, http.StatusOK)
	body := obj(t, r.Body)
	score := obj(t, body["mutation_score"])
	survivors := list(t, score["survivors"])
	if body["complete"] != true || score["complete"] != true || len(survivors) == 0 {
		t.Fatalf("suggestions: %s", r.Raw)
	}
	var cases []any
	killed := map[string]bool{}
	for _, s := range list(t, body["suggestions"]) {
		s := obj(t, s)
		if s["reachable"] != true {
			if s["case"] != nil {
				t.Errorf("an unreachable goal with a case: %v", s)
			}
			continue
		}
		c := obj(t, s["case"])
		if c["name"] != s["goal"] || c["expected_outcome"] == nil || c["field_values"] == nil {
			t.Errorf("a case not in the tests' shape: %v", c)
		}
		cases = append(cases, c)
		for _, m := range list(t, s["kills"]) {
			killed[obj(t, m)["id"].(string)] = true
		}
	}
	at18 := false
	for _, c := range cases {
		c := obj(t, c)
		if obj(t, c["field_values"])["person.age"] == float64(18) && c["expected_outcome"] == "undetermined" &&
			reflect.DeepEqual(c["expectations"], map[string]any{"criteria": map[string]any{"adult": "satisfied"}}) {
			at18 = true
		}
	}
	if !at18 {
		t.Errorf("no case at the threshold 18: %v", cases)
	}
	for _, m := range survivors {
		if !killed[obj(t, m)["id"].(string)] {
			t.Errorf("survivor %v is killed by no suggestion", m)
		}
	}
	if score["killed_with_suggestions"] != score["total"] || score["score_with_suggestions"] != float64(1) || score["score"].(float64) >= 1 {
		t.Errorf("mutation_score: %v", score)
	}

	// One click: the suggestions go to set-project-tests as they are, and
	// the tests then pass and leave no survivor.
	want(t, g.do(t, http.MethodPost, "/tests", map[string]any{"test_cases": cases}), http.StatusOK)
	r = g.do(t, http.MethodGet, "/draft", nil)
	want(t, r, http.StatusOK)
	if acc := obj(t, obj(t, r.Body)["acceptance"]); acc["accepted"] != true {
		t.Errorf("the suggested cases fail: %v", acc)
	}
	r = g.do(t, http.MethodPost, "/suggest-cases", map[string]any{"decision_date": "2030-06-01"})
	want(t, r, http.StatusOK)
	if score := obj(t, obj(t, r.Body)["mutation_score"]); len(list(t, score["survivors"])) != 0 || score["score"] != float64(1) {
		t.Errorf("with the suggestions added: %v", score)
	}

	for _, tc := range []struct {
		name   string
		body   any
		status int
	}{
		{"not a date", map[string]any{"decision_date": "2030-02-30"}, http.StatusUnprocessableEntity},
		{"not a date at all", map[string]any{"decision_date": "soon"}, http.StatusUnprocessableEntity},
		{"an unknown member", map[string]any{"budget": 5}, http.StatusUnprocessableEntity},
	} {
		if r := g.do(t, http.MethodPost, "/suggest-cases", tc.body); r.Status != tc.status {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": strings.Replace(grantRules, "person.age >= 18", "person.height >= 18", 1)}), http.StatusOK)
	if r := g.do(t, http.MethodPost, "/suggest-cases", nil); r.Status != http.StatusUnprocessableEntity || reason(t, r) != "draft_does_not_compile" {
		t.Errorf("a draft that does not compile: %d %s", r.Status, r.Raw)
	}
	other := tenantKey(t, f, "globex", allProjectScopes...)
	if r := call(t, f, other, http.MethodPost, g.base+"/suggest-cases", nil); r.Status != http.StatusNotFound {
		t.Errorf("another tenant's project: %d %s", r.Status, r.Raw)
	}
}
