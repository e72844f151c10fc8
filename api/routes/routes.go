// Package routes is the one list of the HTTP interface's resources: it
// mounts every resource on the core server that api/wiring builds over
// the services it builds. The binary serves what New returns; the OpenAPI
// documents and generated clients come from it too.
package routes

import (
	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/answerlogging"
	"github.com/eligo/eligo/api/decide"
	"github.com/eligo/eligo/api/projects"
	"github.com/eligo/eligo/api/rulebooks"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/signin"
	"github.com/eligo/eligo/api/usage"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/web"
)

// Config is the whole interface's configuration: the services' and the
// core's (wiring.Config, whose members it promotes), and /decide's cache.
type Config struct {
	wiring.Config
	// Decide tunes /decide's cache.
	Decide decide.Config
}

// Mount registers every resource on s, and the web console.
func Mount(s *api.Server, sv wiring.Services, cfg Config) {
	rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
	rulebooks.Register(s, rulebooks.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
	answerlogging.Register(s, answerlogging.Deps{Catalog: sv.Catalog, Store: sv.Store})
	decide.Register(s, decide.Deps{Catalog: sv.Catalog, Decisions: sv.Decisions, Clock: sv.Clock, Metrics: sv.Metrics}, cfg.Decide)
	projects.Register(s, projects.Deps{Authoring: sv.Authoring, Generator: sv.Generator, Catalog: sv.Catalog, Gate: sv.Gate, Clock: sv.Clock,
		Store: sv.Store, Impact: sv.Impact})
	usage.Register(s)
	// The web console at "/": a page, not an operation, and its sign-in.
	signin.ServeSessions(s)
	pages := web.New()
	for _, pattern := range pages.Patterns() {
		s.Page(pattern, pages)
	}
}

// New builds the whole interface over st: the services (wiring.NewServices),
// the core and every resource. Closing the server also closes the services.
func New(cfg Config, st *store.Store) (*api.Server, error) {
	sv, err := wiring.NewServices(st, cfg.Config)
	if err != nil {
		return nil, err
	}
	return NewWith(cfg, sv), nil
}

// NewWith builds the interface over services already built (the binary
// first attaches the generator to its River client). Closing the server
// also closes the services.
func NewWith(cfg Config, sv wiring.Services) *api.Server {
	return wiring.NewServer(cfg.API, sv, func(s *api.Server) { Mount(s, sv, cfg) })
}
