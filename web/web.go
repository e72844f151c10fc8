// Package web is Eligo's console: the pages a person opens in a browser to
// find a public ruleset, answer its questions one at a time, and read the
// decision with the law behind it and the ruleset's graph. The console is
// TypeScript (web/src) compiled to plain ES modules in web/dist, which is
// committed and embedded here, so the binary serves it with no Node.js at
// run time and no request to any other host.
//
// The console talks only to the open surface of the API under
// api.RootPath, as any browser client would; this package serves its files
// and nothing else.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// dist holds the built console: index.html, the stylesheet, the compiled
// modules and the vendored Mermaid. Naming index.html makes a build that
// left it out fail to compile rather than serve an empty console.
//
//go:embed dist dist/index.html
var dist embed.FS

// AssetPrefix is the path under which the console's files are served; the
// page itself is at "/".
const AssetPrefix = "/console/"

// ContentSecurityPolicy is the policy of every console response. Scripts,
// styles, images, fonts and requests come from this origin only; nothing
// inline runs. The one allowance beyond 'self' is 'unsafe-inline' for
// styles: Mermaid writes the diagram's look as a <style> element inside the
// SVG it draws, and inline style attributes on its shapes, neither of which
// can carry a nonce or a stable hash. Styles cannot run code, and scripts
// stay 'self' only. Nothing may frame the console, and forms may post only
// here.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self'; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// contentTypes are the types of the console's files, fixed here rather
// than read from the machine's mime.types, which differ between systems.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".txt":  "text/plain; charset=utf-8",
}

// asset is one embedded file with what its response needs.
type asset struct {
	body        []byte
	contentType string
	etag        string
	// gzipped is body compressed, made on first demand (gzipOnce); nil
	// when the file is too small to gain from it.
	gzipped  []byte
	gzipOnce sync.Once
}

// compressed returns the gzip form of the file, or nil when compressing
// saves less than a tenth (or the file is under 1 KiB). The vendored
// Mermaid drops from 3.5 MB to about a quarter of that on the wire.
func (a *asset) compressed() []byte {
	a.gzipOnce.Do(func() {
		if len(a.body) < 1024 {
			return
		}
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return
		}
		if _, err := zw.Write(a.body); err != nil || zw.Close() != nil {
			return
		}
		if buf.Len() < len(a.body)*9/10 {
			a.gzipped = buf.Bytes()
		}
	})
	return a.gzipped
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (named, or *, without q=0).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if q, err := strconv.ParseFloat(v, 64); err == nil && q == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// Handler serves the console: the page at "/" and its files under
// AssetPrefix, each with the content security policy, a strong ETag (the
// file's SHA-256) so a browser revalidates cheaply, gzip when the browser
// takes it, and headers that keep the page out of frames and its addresses
// out of Referer headers sent to the law sites it links to.
type Handler struct {
	assets map[string]*asset
}

// New indexes the embedded console and hashes each file once.
func New() *Handler {
	h := &Handler{assets: map[string]*asset{}}
	err := fs.WalkDir(dist, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := dist.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		sum := sha256.Sum256(body)
		ctype, known := contentTypes[path.Ext(p)]
		if !known {
			ctype = "application/octet-stream"
		}
		h.assets[strings.TrimPrefix(p, "dist/")] = &asset{body: body, contentType: ctype, etag: hex.EncodeToString(sum[:16])}
		return nil
	})
	if err != nil {
		// An embedded file system is in memory: reading it cannot fail.
		panic(fmt.Sprintf("console assets: %v", err))
	}
	return h
}

// Patterns are the net/http ServeMux patterns the console answers: the
// page at exactly "/" and its files under AssetPrefix. Mount the handler at
// each.
func (h *Handler) Patterns() []string {
	return []string{"GET /{$}", "GET " + AssetPrefix}
}

// ServeHTTP answers GET and HEAD for the page and its files; any other
// path is 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := "index.html"
	if r.URL.Path != "/" {
		rest, ok := strings.CutPrefix(r.URL.Path, AssetPrefix)
		if !ok || rest == "index.html" {
			http.NotFound(w, r)
			return
		}
		name = rest
	}
	a, ok := h.assets[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", ContentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	// Revalidate every time: the ETag makes that a 304 when nothing
	// changed, and a new binary never serves a stale console.
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("Content-Type", a.contentType)
	hdr.Add("Vary", "Accept-Encoding")
	body, etag := a.body, a.etag
	if acceptsGzip(r) {
		if z := a.compressed(); z != nil {
			// Another representation, so another strong ETag.
			body, etag = z, etag+"-gzip"
			hdr.Set("Content-Encoding", "gzip")
		}
	}
	hdr.Set("ETag", `"`+etag+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}
