package projects

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
)

// place is the zero-based line and UTF-16 character where the first
// occurrence of find ends in text (ASCII texts: a byte is a unit).
func place(t *testing.T, text, find string) map[string]any {
	t.Helper()
	at := strings.Index(text, find)
	if at < 0 {
		t.Fatalf("%q is not in the text", find)
	}
	end := at + len(find)
	line := strings.Count(text[:end], "\n")
	return map[string]any{"line": line, "character": end - (strings.LastIndex(text[:end], "\n") + 1)}
}

// check-project-draft answers the language server's diagnostics of a
// text that is not saved, at their ranges, with a draft of another
// section as one more error; nothing is stored.
func TestCheckDraftText(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)

	unknown := strings.Replace(grantRules, "person.age >= 18", "person.height >= 18", 1)
	for _, tc := range []struct {
		name     string
		rules    string
		compiles bool
		// the diagnostic whose message has message: its severity, code
		// and the text its range covers ("" for any); count is how many
		// there are (-1: some).
		severity, code, message, covers string
		count                           int
	}{
		{"the draft compiles, with a warning", grantRules, true, "warning", "", "field review.officer_approves is declared but no criterion reads it", "field review.officer_approves", 1},
		{"no fields yet", "ruleset \"acme/grant\"\nsection grant\n", false, "error", "", "the ruleset declares no fields", "", -1},
		{"an undeclared field", unknown, false, "error", "", "unknown field person.height", "person.height", 3},
		{"another section", strings.Replace(grantRules, "section grant", "section loans", 1), false, "error", "section", "the draft's section is loans but the project authors grant", "section loans", 2},
		{"an empty editor", "", false, "error", "", "", "", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.do(t, http.MethodPost, "/draft/check", map[string]any{"rules": tc.rules})
			want(t, r, http.StatusOK)
			body := obj(t, r.Body)
			diags := list(t, body["diagnostics"])
			if body["compiles"] != tc.compiles || tc.count >= 0 && len(diags) != tc.count || tc.count < 0 && len(diags) == 0 {
				t.Fatalf("compiles %v, %d diagnostics: %s", body["compiles"], len(diags), r.Raw)
			}
			if tc.severity == "" {
				return
			}
			var d map[string]any
			for _, x := range diags {
				if strings.Contains(obj(t, x)["message"].(string), tc.message) {
					d = obj(t, x)
				}
			}
			if d == nil || d["severity"] != tc.severity || d["code"] != tc.code || !strings.Contains(d["message"].(string), tc.message) {
				t.Errorf("first diagnostic %v", d)
			}
			if tc.covers != "" {
				rng := obj(t, d["range"])
				start, end := obj(t, rng["start"]), obj(t, rng["end"])
				lines := strings.Split(tc.rules, "\n")
				line := lines[int(start["line"].(float64))]
				if got := line[int(start["character"].(float64)):min(len(line), int(end["character"].(float64)))]; got != tc.covers {
					t.Errorf("the range covers %q, want %q (%v)", got, tc.covers, rng)
				}
			}
		})
	}
	// Nothing is stored: the project still has no draft.
	want(t, g.do(t, http.MethodGet, "/draft", nil), http.StatusConflict)

	for _, tc := range []struct {
		name string
		body any
	}{
		{"no rules", map[string]any{}},
		{"rules not a string", map[string]any{"rules": 3}},
		{"rules over 1 MiB", map[string]any{"rules": strings.Repeat("#", 1<<20+1)}},
	} {
		if r := g.do(t, http.MethodPost, "/draft/check", tc.body); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	other := tenantKey(t, f, "globex", allProjectScopes...)
	if r := call(t, f, other, http.MethodPost, g.base+"/draft/check", map[string]any{"rules": grantRules}); r.Status != http.StatusNotFound {
		t.Errorf("another tenant's project: %d %s", r.Status, r.Raw)
	}
	reader := tenantKey(t, f, "acme", auth.ScopeProjectsRead)
	want(t, call(t, f, reader, http.MethodPost, g.base+"/draft/check", map[string]any{"rules": grantRules}), http.StatusOK)
	writer := tenantKey(t, f, "acme", auth.ScopeProjectsWrite)
	want(t, call(t, f, writer, http.MethodPost, g.base+"/draft/check", map[string]any{"rules": grantRules}), http.StatusForbidden)
}

// complete-project-draft answers what the language server proposes at a
// place of a text that is not saved: the declared sources after cite
// (their titles as the detail), an enum field's values, the groups in the
// outcome, else the fields, functions and keywords.
func TestCompleteDraftText(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)

	citing := strings.Replace(grantRules, `    cite law "is at least 18 years old"`, "    cite ", 1)
	comparing := strings.Replace(grantRules, "person.age >= 18", "person.age >= 18 and review.officer_approves == ", 1)
	for _, tc := range []struct {
		name, rules, after string
		// first are the first items' label, kind, detail, insert_text.
		first [][4]string
		// has are labels among the items.
		has []string
	}{
		{"after cite", citing, "    cite ", [][4]string{{"law", "source", "Grant Act", "law"}}, nil},
		{"after cite, a word begun", strings.Replace(citing, "    cite ", "    cite la", 1), "    cite la", [][4]string{{"law", "source", "Grant Act", "law"}}, nil},
		{"an enum compared", comparing, "review.officer_approves == ", [][4]string{{`"yes"`, "value", "", `"yes"`}, {`"no"`, "value", "", `"no"`}, {`"undecided"`, "value", "", `"undecided"`}}, nil},
		{"the outcome", grantRules, "outcome ", [][4]string{{"age", "group", "Age", "age"}, {"officer", "group", "Officer", "officer"}}, []string{"and", "or", "not"}},
		{"a condition", grantRules, "    person.", [][4]string{{"person.age", "field", "int", "person.age"}}, []string{"review.officer_approves", "years_between", "criterion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.do(t, http.MethodPost, "/draft/complete", map[string]any{"rules": tc.rules, "position": place(t, tc.rules, tc.after)})
			want(t, r, http.StatusOK)
			items := list(t, obj(t, r.Body)["items"])
			if len(items) < len(tc.first) {
				t.Fatalf("%d items: %s", len(items), r.Raw)
			}
			for i, w := range tc.first {
				it := obj(t, items[i])
				if got := [4]string{it["label"].(string), it["kind"].(string), it["detail"].(string), it["insert_text"].(string)}; !reflect.DeepEqual(got, w) {
					t.Errorf("item %d: %q, want %q", i, got, w)
				}
			}
			labels := map[string]bool{}
			for _, it := range items {
				labels[obj(t, it)["label"].(string)] = true
			}
			for _, l := range tc.has {
				if !labels[l] {
					t.Errorf("no %s among %s", l, r.Raw)
				}
			}
		})
	}
	want(t, g.do(t, http.MethodGet, "/draft", nil), http.StatusConflict)

	for _, tc := range []struct {
		name string
		body any
	}{
		{"no position", map[string]any{"rules": grantRules}},
		{"a negative line", map[string]any{"rules": grantRules, "position": map[string]any{"line": -1, "character": 0}}},
		{"no rules", map[string]any{"position": map[string]any{"line": 0, "character": 0}}},
	} {
		if r := g.do(t, http.MethodPost, "/draft/complete", tc.body); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	// A place past the end of the text is its end.
	r := g.do(t, http.MethodPost, "/draft/complete", map[string]any{"rules": "cite ", "position": map[string]any{"line": 40, "character": 9}})
	want(t, r, http.StatusOK)
	other := tenantKey(t, f, "globex", allProjectScopes...)
	if r := call(t, f, other, http.MethodPost, g.base+"/draft/complete", map[string]any{"rules": grantRules, "position": map[string]any{"line": 0, "character": 0}}); r.Status != http.StatusNotFound {
		t.Errorf("another tenant's project: %d %s", r.Status, r.Raw)
	}
}

// The editor's checks and completions are not counted against the
// tenant's projects budget (typing would spend it and leave no room to
// save): they carry no rate-limit class, as every metered answer does. A
// tenant's checks and completions together are bounded instead, burst
// then one a second: the one past the burst is 429 editor_checks_limited
// with Retry-After, and another tenant is not held back.
func TestEditorChecksAreUnmeteredButPaced(t *testing.T) {
	t.Parallel()
	f := newFixtureAt(t, stoppedClock{time.Now()})
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	if c := g.do(t, http.MethodGet, "", nil).Header.Get("X-RateLimit-Class"); c != "projects" {
		t.Fatalf("a project read is counted against %q, want projects", c)
	}
	for i := range EditorChecksBurst {
		path, body := "/draft/check", map[string]any{"rules": grantRules}
		if i%2 == 1 {
			path, body = "/draft/complete", map[string]any{"rules": grantRules, "position": place(t, grantRules, "cite ")}
		}
		r := g.do(t, http.MethodPost, path, body)
		want(t, r, http.StatusOK)
		if c := r.Header.Get("X-RateLimit-Class"); c != "" {
			t.Fatalf("%s counted against %s", path, c)
		}
	}
	r := g.do(t, http.MethodPost, "/draft/check", map[string]any{"rules": grantRules})
	want(t, r, http.StatusTooManyRequests)
	if reason := obj(t, r.Body)["detail"].(map[string]any)["reason_code"]; reason != "editor_checks_limited" || r.Header.Get("Retry-After") == "" {
		t.Errorf("past the burst: %v, Retry-After %q: %s", reason, r.Header.Get("Retry-After"), r.Raw)
	}
	other := tenantKey(t, f, "globex", allProjectScopes...)
	h := newGrantProject(t, f, other)
	want(t, h.do(t, http.MethodPost, "/draft/check", map[string]any{"rules": grantRules}), http.StatusOK)
}
