// Package routes is the one list of the HTTP interface's resources: it
// builds the services they share (the catalog and the publisher) and
// mounts every resource on an api.Server. The binary serves what New
// returns; the OpenAPI documents and generated clients come from it too.
package routes

import (
	"context"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/decide"
	"github.com/eligo/eligo/api/projects"
	"github.com/eligo/eligo/api/rulebooks"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/usage"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// Config is the whole interface's configuration, by part.
type Config struct {
	// API configures the core: origins, proxies, body caps, metering,
	// logging.
	API api.Config
	// Decide tunes /decide's cache and record writer.
	Decide decide.Config
	// Catalog tunes reference resolution.
	Catalog catalog.Config
	// Publish holds the publish rules (the reserved namespace).
	Publish publish.Config
	// Authoring sets the workspace's limits.
	Authoring authoring.Config
}

// Services are what the resources call beside the store.
type Services struct {
	// Store is the database.
	Store *store.Store
	// Catalog resolves references for callers.
	Catalog *catalog.Catalog
	// Publisher writes published content.
	Publisher *publish.Publisher
	// Authoring runs the authoring workspace.
	Authoring *authoring.Service
}

// NewServices builds the services over st. The catalog holds solver
// state: close it (Catalog.Close) when done, as New arranges.
func NewServices(st *store.Store, cfg Config) (Services, error) {
	cat := catalog.New(st, cfg.Catalog)
	pub := publish.New(st, cat, cfg.Publish)
	work, err := authoring.New(st, pub, cat, cfg.Authoring)
	if err != nil {
		cat.Close()
		return Services{}, err
	}
	return Services{Store: st, Catalog: cat, Publisher: pub, Authoring: work}, nil
}

// Mount registers every resource on s.
func Mount(s *api.Server, sv Services, cfg Config) {
	rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Store: sv.Store})
	rulebooks.Register(s, rulebooks.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Store: sv.Store})
	decide.Register(s, decide.Deps{Catalog: sv.Catalog, Store: sv.Store}, cfg.Decide)
	projects.Register(s, projects.Deps{Authoring: sv.Authoring})
	usage.Register(s)
}

// New builds the whole interface over st: the core, the services and every
// resource. Closing the server also closes the services.
func New(cfg Config, st *store.Store) (*api.Server, error) {
	sv, err := NewServices(st, cfg)
	if err != nil {
		return nil, err
	}
	s := api.New(cfg.API, st)
	Mount(s, sv, cfg)
	s.OnClose(func(context.Context) error {
		sv.Catalog.Close()
		return nil
	})
	return s, nil
}
