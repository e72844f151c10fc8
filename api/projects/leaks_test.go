package projects

import (
	"net/http"
	"strings"
	"testing"

	"github.com/eligo/eligo/api/apitest"
	httpcall "github.com/eligo/eligo/api/apitest/call"
)

// An uploaded HTML page is downloaded as an attachment the browser may
// neither sniff into something else nor run: nosniff and a sandboxing CSP.
func TestRawSourceIsSandboxed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	page := "<!doctype html><html><body><p>" + grantLaw + "</p><script>fetch('/api/v1/public/projects')</script></body></html>"
	for _, up := range []map[string]any{
		{"filename": "act.html", "text": page, "url": grantURL + "/page", "licence": "CC-BY-4.0"},
		{"filename": "notes.txt", "text": grantLaw},
	} {
		r := g.do(t, http.MethodPost, "/sources", up)
		want(t, r, http.StatusCreated)
		id := obj(t, list(t, obj(t, r.Body)["sources"])[0])["source_id"].(string)
		raw := httpcall.Send(t, http.MethodGet, f.URL+g.base+"/sources/"+id+"/raw", apitest.WithKey(key), nil)
		want(t, raw, http.StatusOK)
		h := raw.Header
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Security-Policy") != "sandbox; default-src 'none'" ||
			!strings.HasPrefix(h.Get("Content-Disposition"), "attachment") {
			t.Errorf("%s: headers %v", up["filename"], h)
		}
	}
}

// A body refused by validation never echoes the provider key, whatever
// member carries it (a misspelt one, one in other letter case, one meant
// for something else, free text), and a long text is not sent back whole.
func TestValidationNeverEchoesTheProviderKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	const secret = "sk-proj-SENTINEL0123456789abcdefghijklmnopqrstuv"
	// A key of no known provider's shape, only random: caught by its look.
	const random = "Zx8qL2pW9vT4mN7bR1cY6kD3hJ5gF0sA8eU2iSENTINEL"
	for _, body := range []map[string]any{
		{"provider_key": secret, "mode": "sideways"},
		{"provider_key": secret, "extra": map[string]any{"provider_key": secret}},
		{"provider_key": secret + strings.Repeat("x", 5000)},
		{"provider_key": secret, "seed_ruleset_id": strings.Repeat("s", 400)},
		{"provider_keyy": secret},
		{"Provider_Key": secret, "mode": "sideways", "extra": 1},
		{"provider_\u212aey": secret, "model": 7},
		{"mode": secret},
		{"mode": "sideways", "note": "my key is " + secret + ", thanks"},
		{"creds": random},
		{"mode": []any{strings.Repeat("a", 190) + secret}},
	} {
		for _, rest := range []string{"/generate", "/generate-and-test", "/discover/fields"} {
			r := g.do(t, http.MethodPost, rest, body)
			if r.Status != http.StatusUnprocessableEntity || strings.Contains(r.Raw, "SENTINEL") || strings.Contains(r.Header.Get("X-Provider-Key"), "SENTINEL") {
				t.Errorf("%s %v: %d %.300s", rest, body["mode"], r.Status, r.Raw)
			}
		}
	}
	long := strings.Repeat("Follow the statute to the letter. ", 25_000) // 850 KB
	r := g.do(t, http.MethodPost, "/guidance", map[string]any{"guidance_text": long})
	if r.Status != http.StatusUnprocessableEntity || len(r.Raw) > 8<<10 || !strings.Contains(r.Raw, "(850000 bytes)") {
		t.Fatalf("guidance without process_type: %d, %d bytes: %.300s", r.Status, len(r.Raw), r.Raw)
	}
}

// Another tenant's namespace is refused with 403 namespace_owned, the same
// answer whether or not the slug exists.
func TestPublishUnderAnotherTenantsNamespace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	owner := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, owner)
	want(t, g.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	want(t, g.do(t, http.MethodPost, "/publish", map[string]any{"slug": "acme/grant"}), http.StatusCreated)

	squatter := newGrantProject(t, f, tenantKey(t, f, "globex", allProjectScopes...))
	want(t, squatter.do(t, http.MethodPut, "/draft", map[string]any{"rules": grantRules}), http.StatusOK)
	var answers []string
	for _, slug := range []string{"acme/grant", "acme/squat"} {
		r := squatter.do(t, http.MethodPost, "/publish", map[string]any{"slug": slug})
		if r.Status != http.StatusForbidden || reason(t, r) != "namespace_owned" {
			t.Fatalf("publish %s under acme: %d %s", slug, r.Status, r.Raw)
		}
		answers = append(answers, r.Raw)
	}
	if answers[0] != answers[1] || strings.Contains(answers[0], "grant") {
		t.Fatalf("the answers tell a taken slug from a free one: %q", answers)
	}
	want(t, squatter.do(t, http.MethodPost, "/publish", map[string]any{"slug": "globex/grant"}), http.StatusCreated)
}
