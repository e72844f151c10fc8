package decide

import (
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/usage"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/decisionlog"
)

// newFixture serves /decide, with the default Config, the rulesets reads
// its tests compare against and GET /usage, on a fresh database.
func newFixture(t testing.TB, cfg api.Config) *apitest.Fixture {
	t.Helper()
	return newFixtureWith(t, cfg, Config{}, nil)
}

// newFixtureWith is newFixture with /decide's own configuration, and,
// when log is not nil, decisions recorded without a spool, as log says,
// instead of spooled as the binary's default is.
func newFixtureWith(t testing.TB, cfg api.Config, dcfg Config, log *decisionlog.Config) *apitest.Fixture {
	t.Helper()
	opts := apitest.Options{Config: wiring.Config{API: cfg}}
	if log != nil {
		opts.Config.DecisionLog, opts.NoSpool = *log, true
	}
	return apitest.Start(t, opts, func(s *api.Server, sv apitest.Services) {
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
		register(s, Deps{Catalog: sv.Catalog, Decisions: sv.Decisions, Clock: sv.Clock, Metrics: sv.Metrics}, dcfg)
		usage.Register(s)
	})
}
