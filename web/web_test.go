package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// serve mounts the console as api/routes does, on a plain mux.
func serve(t *testing.T) *httptest.Server {
	t.Helper()
	h := New()
	mux := http.NewServeMux()
	for _, p := range h.Patterns() {
		mux.Handle(p, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
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

// TestPageAndAssetsCarryThePolicy: the page and every file it loads are
// served with the strict policy, the right types and an ETag.
func TestPageAndAssetsCarryThePolicy(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	res, page := get(t, srv.URL+"/", nil)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / = %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// Every file the page names is served from AssetPrefix.
	refs := regexp.MustCompile(`(?:src|href)="(/console/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 2 {
		t.Fatalf("the page names %d console files, want the stylesheet and the entry module", len(refs))
	}
	want := map[string]string{".css": "text/css", ".js": "text/javascript"}
	for _, m := range append(refs, []string{"", "/console/vendor/mermaid.min.js"}) {
		res, _ := get(t, srv.URL+m[1], nil)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d", m[1], res.StatusCode)
			continue
		}
		for ext, ctype := range want {
			if strings.HasSuffix(m[1], ext) && !strings.HasPrefix(res.Header.Get("Content-Type"), ctype) {
				t.Errorf("GET %s: Content-Type %q, want %s", m[1], res.Header.Get("Content-Type"), ctype)
			}
		}
	}
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "ETag"} {
		if res.Header.Get(h) == "" {
			t.Errorf("GET / has no %s header", h)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, directive := range []string{"default-src 'self'", "script-src 'self';", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, directive) {
			t.Errorf("policy %q lacks %q", csp, directive)
		}
	}
	if strings.Contains(strings.SplitN(strings.SplitN(csp, "script-src", 2)[1], ";", 2)[0], "unsafe") {
		t.Errorf("policy %q lets scripts run inline or from eval", csp)
	}
}

// TestPageNamesNoOtherHost: the page and the console's own modules and
// stylesheet load nothing from another host (no CDN, no web fonts).
func TestPageNamesNoOtherHost(t *testing.T) {
	t.Parallel()
	foreign := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?(https?:)?//|fetch\(\s*["'](https?:)?//`)
	h := New()
	for name, a := range h.assets {
		if strings.HasPrefix(name, "vendor/") {
			continue // Mermaid's own bundle; the browser test watches its requests
		}
		body, err := dist.ReadFile(a.path)
		if err != nil {
			t.Fatal(err)
		}
		if loc := foreign.FindIndex(body); loc != nil {
			t.Errorf("%s refers to another host: %q", name, body[loc[0]:min(loc[1]+40, len(body))])
		}
	}
	if len(h.assets) < 5 {
		t.Fatalf("%d embedded files; the console is not built", len(h.assets))
	}
}

// TestRevalidationAndUnknownPaths: a repeated request with the ETag is a
// 304; unknown files, the page under its file name, and paths outside the
// console are 404.
func TestRevalidationAndUnknownPaths(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	res, _ := get(t, srv.URL+"/console/console.css", nil)
	again, body := get(t, srv.URL+"/console/console.css", http.Header{"If-None-Match": {res.Header.Get("ETag")}})
	if again.StatusCode != http.StatusNotModified || body != "" {
		t.Errorf("revalidation with the ETag = %d with %d bytes, want 304 and no body", again.StatusCode, len(body))
	}
	for _, p := range []string{"/console/missing.js", "/console/index.html", "/console/", "/elsewhere"} {
		if res, _ := get(t, srv.URL+p, nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, res.StatusCode)
		}
	}
}

// TestGzipWhenAccepted: a browser that takes gzip gets the large files
// compressed, under their own ETag, and the bytes decompress to the file;
// one that refuses gzip gets the file as it is.
func TestGzipWhenAccepted(t *testing.T) {
	t.Parallel()
	srv := serve(t)
	// The stylesheet: large enough to compress, small enough to do so
	// quickly under the race detector.
	const p = "/console/console.css"
	plain, body := get(t, srv.URL+p, http.Header{"Accept-Encoding": {"identity"}})
	if plain.Header.Get("Content-Encoding") != "" || !strings.Contains(plain.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("identity: Content-Encoding %q, Vary %q", plain.Header.Get("Content-Encoding"), plain.Header.Get("Vary"))
	}
	zipped, zbody := get(t, srv.URL+p, http.Header{"Accept-Encoding": {"br;q=1.0, gzip;q=0.8"}})
	if zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip accepted: Content-Encoding %q", zipped.Header.Get("Content-Encoding"))
	}
	if len(zbody)*2 > len(body) {
		t.Errorf("gzip body %d bytes for a %d-byte file", len(zbody), len(body))
	}
	zr, err := gzip.NewReader(strings.NewReader(zbody))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(unzipped) != body {
		t.Error("the gzip body does not decompress to the file")
	}
	if zipped.Header.Get("ETag") == plain.Header.Get("ETag") {
		t.Error("both representations share one ETag")
	}
	if again, _ := get(t, srv.URL+p, http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {zipped.Header.Get("ETag")}}); again.StatusCode != http.StatusNotModified {
		t.Errorf("revalidating the gzip form = %d, want 304", again.StatusCode)
	}
	if refused, _ := get(t, srv.URL+p, http.Header{"Accept-Encoding": {"gzip;q=0"}}); refused.Header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 still got gzip")
	}
}

// TestNewCopiesNothing: building a handler (every server the tests start
// builds one) reads no file; the 3.5 MB of Mermaid stay in the binary's
// embedded data until a browser asks for them. Not parallel, so that the
// process's allocation count is this test's alone.
func TestNewCopiesNothing(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := New()
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
		t.Errorf("New allocated %d bytes for %d files", grew, len(h.assets))
	}
}
