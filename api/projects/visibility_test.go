package projects

import (
	"net/http"
	"strings"
	"testing"
)

// A new version keeps the visibility of the version its slug points at:
// made public, the programme stays public through the next publish (an
// anonymous caller still reads it by slug, now at the new version), until
// the team publishes one privately. The answer says which visibility the
// new version has and where it came from.
func TestPublishKeepsTheSlugsVisibility(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	version := 0
	steps := []struct {
		name       string
		body       map[string]any
		makePublic bool
		// visibility and from are the answer's; anonymous is the status
		// of an anonymous read of the slug afterwards.
		visibility, from string
		anonymous        int
	}{
		{"first version", nil, true, "private", "new_slug", http.StatusOK},
		{"next version, nothing asked", nil, false, "public", "kept", http.StatusOK},
		{"next version, asked private", map[string]any{"visibility": "private"}, false, "private", "requested", http.StatusNotFound},
		{"next version of a private slug", nil, false, "private", "kept", http.StatusNotFound},
		{"next version, asked public", map[string]any{"visibility": "public"}, false, "public", "requested", http.StatusOK},
	}
	for _, s := range steps {
		version++
		rules := strings.Replace(grantRules, "How old are you?", "How old are you (version "+string(rune('0'+version))+")?", 1)
		want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": rules}), http.StatusOK)
		var body any // no body at all unless the step sends one
		if s.body != nil {
			body = s.body
		}
		r := g.do(t, http.MethodPost, "/publish", body)
		want(t, r, http.StatusCreated)
		published := obj(t, r.Body)
		id := published["ruleset_id"].(string)
		if s.makePublic {
			want(t, call(t, f, key, http.MethodPatch, "/rulesets/"+id+"/visibility", map[string]any{"visibility": "public"}), http.StatusOK)
		}
		read := call(t, f, "", http.MethodGet, "/rulesets/acme%2Fgrant/schema", nil)
		if read.Status != s.anonymous || (read.Status == http.StatusOK && obj(t, read.Body)["ruleset_id"] != id) {
			t.Fatalf("%s: anonymous read of the slug %d %s, want %d naming %s", s.name, read.Status, read.Raw, s.anonymous, id)
		}
		if published["visibility"] != s.visibility || published["visibility_from"] != s.from {
			t.Fatalf("%s: answered visibility %v from %v, want %s from %s", s.name, published["visibility"], published["visibility_from"], s.visibility, s.from)
		}
	}
	r := g.do(t, http.MethodPost, "/publish", map[string]any{"visibility": "everyone"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Raw, "visibility") {
		t.Fatalf("an unknown visibility: %d %s", r.Status, r.Raw)
	}
}
