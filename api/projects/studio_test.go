package projects

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
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
