package openapi

import (
	"embed"
	"net/http"
	"strings"

	"github.com/eligo/eligo/api"
)

// The reference page at /api/v1/public/docs: Redoc's standalone bundle
// (MIT, vendored from npm's redoc package by `make openapi`; licence in
// reference/) rendering the published 3.1 document. Everything it loads is
// embedded in the binary and served from here, so the page works on a
// network with no way out.

//go:embed reference/index.html reference/redoc.standalone.js reference/redoc.standalone.js.LICENSE.txt reference/REDOC-LICENSE
var referenceAssets embed.FS

// ReferencePath is where the reference page is served.
const ReferencePath = api.RootPath + "/docs"

// referenceCSP lets the page load only what this server serves. Redoc
// needs three allowances beyond 'self', none of which reaches another
// host: inline styles (styled-components writes <style> elements at run
// time), data: images (icons inlined in its CSS) and a blob: worker (the
// search index, built from the bundle's own code).
const referenceCSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
	"script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; worker-src blob:"

// serveReference serves the page and its assets on s.
func serveReference(s *api.Server) {
	serve := func(name, contentType string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, err := referenceAssets.ReadFile("reference/" + name)
			if err != nil {
				api.WriteError(w, api.NotFound("Not Found"))
				return
			}
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Content-Security-Policy", referenceCSP)
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(b)
		}
	}
	s.Published("GET "+ReferencePath, serve("index.html", "text/html; charset=utf-8"))
	for _, name := range []string{"redoc.standalone.js", "redoc.standalone.js.LICENSE.txt", "REDOC-LICENSE"} {
		contentType := "text/plain; charset=utf-8"
		if strings.HasSuffix(name, ".js") {
			contentType = "text/javascript; charset=utf-8"
		}
		s.Published("GET "+ReferencePath+"/"+name, serve(name, contentType))
	}
}
