package routes

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/web"
)

// TestConsoleAtTheRoot: the binary's server answers / with the console and
// its policy, serves its files, and still answers the API's own 404 and
// 405 around it; the console is no operation, so it gets no CORS grant and
// no metering headers.
func TestConsoleAtTheRoot(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	origin := f.HTTP.URL
	get := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, origin+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "https://elsewhere.example")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(b)
	}
	res, body := get(http.MethodGet, "/")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "/console/js/main.js") {
		t.Fatalf("GET / = %d, body without the console's entry module", res.StatusCode)
	}
	if got := res.Header.Get("Content-Security-Policy"); got != web.ContentSecurityPolicy {
		t.Errorf("GET / policy %q", got)
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Error("GET / has no X-Request-Id: the console is outside the request log")
	}
	for _, h := range []string{"Access-Control-Allow-Origin", "X-RateLimit-Class"} {
		if res.Header.Get(h) != "" {
			t.Errorf("GET / carries %s", h)
		}
	}
	// HEAD, not GET: this package's tests run in parallel, and some measure
	// what the process allocates; 3.5 MB read here would count there.
	if res, _ := get(http.MethodHead, "/console/vendor/mermaid.min.js"); res.StatusCode != http.StatusOK || res.ContentLength < 1<<20 {
		t.Errorf("HEAD the vendored Mermaid = %d, %d bytes", res.StatusCode, res.ContentLength)
	}
	if res, body := get(http.MethodGet, api.RootPath+"/nothing-here"); res.StatusCode != http.StatusNotFound || !strings.Contains(body, "detail") {
		t.Errorf("GET an unknown API path = %d %q, want the API's 404", res.StatusCode, body)
	}
	if res, _ := get(http.MethodPost, "/"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %d, want 405", res.StatusCode)
	}
}
