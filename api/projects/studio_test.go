package projects

import (
	"net/http"
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
