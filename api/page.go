package api

import (
	"fmt"
	"net/http"
	"strings"
)

// Page serves h at pattern, a net/http ServeMux pattern such as "GET /{$}"
// outside RootPath: a page for people's browsers (the console), not an
// operation of the interface. A page is not in the OpenAPI document, is not
// metered, asks for no key and gets no CORS grant; the request id, the
// request log line and panic recovery still apply. It panics on a pattern
// under RootPath, where only declared operations belong.
func (s *Server) Page(pattern string, h http.Handler) {
	_, p, _ := strings.Cut(pattern, " ")
	if p == "" {
		p = pattern
	}
	if strings.HasPrefix(p, RootPath) {
		panic(fmt.Sprintf("page %q: paths under %s are operations; use Register", pattern, RootPath))
	}
	s.mux.Handle(pattern, h)
}

// Published serves h at pattern, a GET pattern under RootPath: the
// interface's own description (the OpenAPI documents and the reference
// page, package openapi), not an operation. Like a page it is not in the
// document, not metered and asks for no key.
func (s *Server) Published(pattern string, h http.Handler) {
	if !strings.HasPrefix(pattern, "GET "+RootPath+"/") {
		panic(fmt.Sprintf("published %q: a description is a GET under %s", pattern, RootPath))
	}
	s.mux.Handle(pattern, h)
}
