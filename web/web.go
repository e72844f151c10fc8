// Package web is Eligo's console: the pages a person opens in a browser to
// find a public ruleset, answer its questions one at a time, and read the
// decision with the law behind it and the ruleset's graph. The console is
// TypeScript (web/src) compiled to plain ES modules in web/dist, which is
// committed and embedded here, so the binary serves it with no Node.js at
// run time and no request to any other host.
//
// The console talks only to the API (/api/v1/public), as any browser client
// would; this package serves its files and nothing else, and imports
// nothing of the project: api/routes mounts it, and the console's sign-in
// is api/signin.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
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

// asset is one embedded file with what its response needs. The bytes stay
// in the binary's embedded data, read through dist.Open on each request:
// building a Handler copies nothing, and the ETag and the gzip form are
// worked out once, on first demand.
type asset struct {
	// path is the file's name in dist.
	path        string
	contentType string
	etagOnce    sync.Once
	etag        string
	// gzipped is the file compressed (gzipOnce); nil when the file is too
	// small to gain from it.
	gzipOnce sync.Once
	gzipped  []byte
}

// open returns the embedded file, which reads and seeks without copying
// the whole of it.
func (a *asset) open() (io.ReadSeeker, func() error, error) {
	f, err := dist.Open(a.path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", a.path, err)
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		_ = f.Close()
		return nil, nil, fmt.Errorf("open %s: embedded file cannot seek", a.path)
	}
	return rs, f.Close, nil
}

// tag is the file's strong ETag value: the first half of its SHA-256, in
// hex.
func (a *asset) tag() string {
	a.etagOnce.Do(func() {
		sum := sha256.New()
		if rs, closeFile, err := a.open(); err == nil {
			_, _ = io.Copy(sum, rs)
			_ = closeFile()
		}
		a.etag = hex.EncodeToString(sum.Sum(nil)[:16])
	})
	return a.etag
}

// compressed returns the gzip form of the file, or nil when compressing
// saves less than a tenth (or the file is under 1 KiB). The vendored
// Mermaid drops from 3.57 MB to 0.99 MB on the wire.
func (a *asset) compressed() []byte {
	a.gzipOnce.Do(func() {
		rs, closeFile, err := a.open()
		if err != nil {
			return
		}
		defer func() { _ = closeFile() }()
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return
		}
		n, err := io.Copy(zw, rs)
		if err != nil || zw.Close() != nil || n < 1024 {
			return
		}
		if int64(buf.Len()) < n*9/10 {
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
// AssetPrefix, each with the content security policy, a strong ETag (from
// the file's SHA-256) so a browser revalidates cheaply, gzip when the
// browser takes it, and headers that keep the page out of frames and its
// addresses out of Referer headers sent to the law sites it links to.
type Handler struct {
	assets map[string]*asset
}

// New indexes the embedded console. It reads no file: each is hashed and
// compressed the first time it is asked for.
func New() *Handler {
	h := &Handler{assets: map[string]*asset{}}
	err := fs.WalkDir(dist, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, known := contentTypes[path.Ext(p)]
		if !known {
			ctype = "application/octet-stream"
		}
		h.assets[strings.TrimPrefix(p, "dist/")] = &asset{path: p, contentType: ctype}
		return nil
	})
	if err != nil {
		// An embedded file system is in memory: walking it cannot fail.
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
	if acceptsGzip(r) {
		if z := a.compressed(); z != nil {
			// Another representation, so another strong ETag.
			hdr.Set("Content-Encoding", "gzip")
			hdr.Set("ETag", `"`+a.tag()+`-gzip"`)
			http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(z))
			return
		}
	}
	rs, closeFile, err := a.open()
	if err != nil {
		http.Error(w, "console file unavailable", http.StatusInternalServerError)
		return
	}
	defer func() { _ = closeFile() }()
	hdr.Set("ETag", `"`+a.tag()+`"`)
	http.ServeContent(w, r, name, time.Time{}, rs)
}
