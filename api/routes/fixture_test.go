package routes

import (
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
)

// newFixture serves every resource, as the binary does, on a fresh
// database.
func newFixture(t testing.TB, cfg api.Config) *apitest.Fixture {
	t.Helper()
	return apitest.New(t, cfg, mountAll(cfg))
}

// mountAll mounts every resource, as the binary does, for a fixture of
// cfg (apitest.New, or apitest.NewOn for replicas sharing a database).
func mountAll(cfg api.Config) apitest.Mount {
	return func(s *api.Server, sv apitest.Services) {
		Mount(s, Services{Store: sv.Store, Catalog: sv.Catalog, Publisher: sv.Publisher, Authoring: sv.Authoring, Clock: sv.Clock, Decisions: sv.Decisions, Gate: sv.Gate}, Config{API: cfg})
	}
}
