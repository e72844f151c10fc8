package rulesets

import (
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/decide"
)

// newFixture serves the rulesets operations, and /decide, which the tests
// compare explain-failure with, on a fresh database.
func newFixture(t testing.TB, cfg api.Config) *apitest.Fixture {
	t.Helper()
	return apitest.New(t, cfg, func(s *api.Server, sv apitest.Services) {
		Register(s, Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
		decide.Register(s, decide.Deps{Catalog: sv.Catalog, Decisions: sv.Decisions, Clock: sv.Clock, Metrics: sv.Metrics}, decide.Config{})
	})
}
