package decide

import (
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/usage"
	"github.com/eligo/eligo/decisionlog"
)

// newFixture serves /decide, with the default Config, the rulesets reads
// its tests compare against and GET /usage, on a fresh database.
func newFixture(t testing.TB, cfg api.Config) *apitest.Fixture {
	t.Helper()
	return newFixtureWith(t, cfg, Config{}, nil)
}

// newFixtureWith is newFixture with /decide's own configuration, and,
// when log is not nil, a decision log of that configuration instead of
// the fixture's.
func newFixtureWith(t testing.TB, cfg api.Config, dcfg Config, log *decisionlog.Config) *apitest.Fixture {
	t.Helper()
	return apitest.New(t, cfg, func(s *api.Server, sv apitest.Services) {
		decisions := sv.Decisions
		if log != nil {
			decisions = decisionlog.New(sv.Store, *log)
			s.OnClose(decisions.Close)
		}
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock})
		register(s, Deps{Catalog: sv.Catalog, Decisions: decisions, Clock: sv.Clock}, dcfg)
		usage.Register(s)
	})
}
