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
	return apitest.New(t, cfg, mountAll)
}

// mountAll mounts every resource over the fixture's services, as the
// binary does (apitest.New, or apitest.NewOn for replicas sharing a
// database).
func mountAll(s *api.Server, sv apitest.Services) {
	Mount(s, sv, Config{})
}
