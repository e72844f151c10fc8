package rulebooks

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// TestReleaseHistory reads a rulebook's releases over HTTP: newest first,
// the current one marked, each with the sections and member versions it
// froze, paged by X-Next-Cursor; another tenant's rulebook (public or
// not) and a cursor of another list are refused.
func TestReleaseHistory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	scopes := []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite}
	b := &book{f: f, key: f.Key(t, "acme", scopes, time.Time{})}
	age := f.Publish(t, "acme", "acme/age", section("age", "person.age", "int", "person.age >= 18"), false).RulesetID
	res := f.Publish(t, "acme", "acme/residence", section("residence", "person.years_resident", "int", "person.years_resident >= 5"), false).RulesetID

	r := b.do(t, http.MethodPost, "/rulebooks/", `{"name":"Benefits","slug":"acme/benefits","ruleset_refs":[{"section_id":"age"},{"section_id":"residence"}],
		"outcome_logic":{"op":"and","args":[{"section":"A"},{"section":"B"}]}}`)
	want(t, r, http.StatusCreated, "create")
	id := r.Field(t, "rulebook_id").(string)

	empty := b.do(t, http.MethodGet, rulebookPath(id, "/releases"), "")
	want(t, empty, http.StatusOK, "history of a draft")
	if list, ok := empty.Body.([]any); !ok || len(list) != 0 || empty.Header.Get("X-Next-Cursor") != "" {
		t.Fatalf("a draft's history: %s (cursor %q)", empty.Raw, empty.Header.Get("X-Next-Cursor"))
	}

	first := b.do(t, http.MethodPost, rulebookPath(id, "/activate"), "")
	want(t, first, http.StatusOK, "activate")
	// A newer cut of residence, promoted, makes the second release.
	res2 := f.Publish(t, "acme", "acme/residence", section("residence", "person.years_resident", "int", "person.years_resident >= 3"), false).RulesetID
	r = b.do(t, http.MethodPost, rulebookPath(id, "/rulesets/residence/promote-to-live"), `{"ruleset_id":"`+res2+`"}`)
	want(t, r, http.StatusOK, "promote")
	r = b.do(t, http.MethodPatch, rulebookPath(id, ""), `{"outcome_logic":{"op":"or","args":[{"section":"A"},{"section":"B"}]}}`)
	want(t, r, http.StatusOK, "edit")
	third := r.Field(t, "release").(map[string]any)

	type section struct{ letter, sectionID, rulesetID, version string }
	wantReleases := []struct {
		version  float64
		current  bool
		sections []section
	}{
		{3, true, []section{{"A", "age", age, "v1"}, {"B", "residence", res2, "v2"}}},
		{2, false, []section{{"A", "age", age, "v1"}, {"B", "residence", res2, "v2"}}},
		{1, false, []section{{"A", "age", age, "v1"}, {"B", "residence", res, "v1"}}},
	}
	// One release a page, then all in one: the same history.
	var paged []any
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > len(wantReleases) {
			t.Fatalf("paging does not end: %d pages", pages)
		}
		p := b.do(t, http.MethodGet, rulebookPath("acme/benefits", "/releases?limit=1&cursor="+url.QueryEscape(cursor)), "")
		want(t, p, http.StatusOK, "a page of releases")
		paged = append(paged, p.Body.([]any)...)
		if cursor = p.Header.Get("X-Next-Cursor"); cursor == "" {
			break
		}
	}
	whole := b.do(t, http.MethodGet, rulebookPath(id, "/releases"), "")
	want(t, whole, http.StatusOK, "releases")
	for name, list := range map[string][]any{"paged": paged, "whole": whole.Body.([]any)} {
		if len(list) != len(wantReleases) {
			t.Fatalf("%s: %d releases, want %d: %v", name, len(list), len(wantReleases), list)
		}
		for i, w := range wantReleases {
			got := list[i].(map[string]any)
			if got["version"] != w.version || got["current"] != w.current || got["label"] == "" || got["content_identity"] == "" || got["title"] != "Benefits" {
				t.Fatalf("%s: release %d is %v, want version %v current %v", name, i, got, w.version, w.current)
			}
			sections := got["sections"].([]any)
			if len(sections) != len(w.sections) {
				t.Fatalf("%s: release %v sections %v", name, w.version, sections)
			}
			for j, ws := range w.sections {
				s := sections[j].(map[string]any)
				if s["letter"] != ws.letter || s["section_id"] != ws.sectionID || s["ruleset_id"] != ws.rulesetID || s["ruleset_version"] != ws.version {
					t.Fatalf("%s: release %v section %d is %v, want %v", name, w.version, j, s, ws)
				}
			}
		}
	}
	if top := whole.Body.([]any)[0].(map[string]any); top["release_id"] != third["release_id"] || top["label"] != third["label"] {
		t.Fatalf("the newest release %v is not the edit's %v", top, third)
	}
	if last := whole.Body.([]any)[2].(map[string]any); last["release_id"] != first.Field(t, "release").(map[string]any)["release_id"] {
		t.Fatalf("the oldest release %v is not the first activation's", last)
	}

	// Refusals: another tenant's rulebook, even public; a cursor of another
	// list; an unknown rulebook.
	r = b.do(t, http.MethodPatch, rulebookPath(id, "/visibility"), `{"visibility":"public"}`)
	want(t, r, http.StatusOK, "make public")
	other := f.Key(t, "globex", []auth.Scope{auth.ScopeRulebooksRead}, time.Time{})
	for _, c := range []struct {
		name, path, key string
		status          int
	}{
		{"another tenant's public rulebook", rulebookPath(id, "/releases"), other, http.StatusNotFound},
		{"another tenant's rulebook by slug", rulebookPath("acme/benefits", "/releases"), other, http.StatusNotFound},
		{"unknown rulebook", rulebookPath("rb_0000000000000000", "/releases"), b.key, http.StatusNotFound},
		{"a slug cursor", rulebookPath(id, "/releases?cursor=c2x1ZzphY21lL2JlbmVmaXRz"), b.key, http.StatusUnprocessableEntity},
		{"a version cursor of no version", rulebookPath(id, "/releases?cursor=dmVyOjA"), b.key, http.StatusUnprocessableEntity},
		{"no key", rulebookPath(id, "/releases"), "", http.StatusUnauthorized},
	} {
		var headers map[string]string
		if c.key != "" {
			headers = apitest.WithKey(c.key)
		}
		got := f.Do(t, http.MethodGet, c.path, headers, nil)
		if got.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, got.Status, got.Raw, c.status)
		}
	}
}
