// Package apitest gives the HTTP interface's tests a real server over real
// HTTP on a private, migrated PostgreSQL database, with the services the
// resources call, and the small helpers every resource's tests share:
// requests, keys, publishing and waiting for decision records.
//
// It imports no resource package, so a resource's own internal tests can
// use it: the caller mounts what it tests (Mount).
package apitest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest/call"
	"github.com/eligo/eligo/api/openapi"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/clock/clocktest"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// BackendTimeout replaces the meter's 2 s bound on each counter query in
// tests: on a loaded CI machine a query can wait that long for a
// connection, and a 503 there would be the machine's, not the code's. An
// outage (a closed pool) still fails at once.
const BackendTimeout = 30 * time.Second

// Services are what Mount gets to register resources with.
type Services struct {
	// Store is the test's database.
	Store *store.Store
	// Catalog resolves references; the fixture closes it.
	Catalog *catalog.Catalog
	// Publisher writes published content.
	Publisher *publish.Publisher
	// Authoring is the authoring workspace's jobs.
	Authoring authoring.Workspace
	// Clock is the one clock the services read: the fixture's
	// api.Config.Clock, else the run's (clocktest.FromEnv). Hand it to
	// every resource registered.
	Clock clock.Clock
	// Decisions is /decide's record writer; the fixture flushes and
	// closes it.
	Decisions *decisionlog.Recorder
	// Gate is the solver gate the publisher and the authoring workspace
	// run under, for Mount to hand to the resources too; nil (admit
	// everything) unless the fixture was made with NewGated.
	Gate *bound.Gate
}

// Mount registers the operations a test needs on s.
type Mount func(s *api.Server, sv Services)

// Fixture is one server on its own listener.
type Fixture struct {
	// URL is the API root: the listener's address plus api.RootPath.
	URL string
	// Server is the API server; the fixture closes it at cleanup.
	Server *api.Server
	// HTTP is the listener.
	HTTP *httptest.Server
	// Pool is the test's database.
	Pool *pgxpool.Pool
	Services
	// CloseErrorExpected lets the server's Close at cleanup fail: set it
	// in a test that takes the database away on purpose, whose last usage
	// counts cannot be written.
	CloseErrorExpected bool
}

// New serves cfg and what mount registers on a fresh database. A nil
// Logger discards the logs; a zero metering BackendTimeout becomes
// BackendTimeout; a nil Clock is the run's (clocktest.FromEnv).
func New(t testing.TB, cfg api.Config, mount Mount) *Fixture {
	t.Helper()
	return NewOn(t, storetest.New(t), cfg, mount)
}

// NewOn is New on an existing database, for several servers sharing one,
// as replicas do.
func NewOn(t testing.TB, pool *pgxpool.Pool, cfg api.Config, mount Mount) *Fixture {
	t.Helper()
	return newOn(t, pool, cfg, nil, mount)
}

// NewGated is New with every solver run under gate, as the binary runs
// them under its --solver-slots, for a test of what a held or full gate
// makes an operation answer.
func NewGated(t testing.TB, cfg api.Config, gate *bound.Gate, mount Mount) *Fixture {
	t.Helper()
	return newOn(t, storetest.New(t), cfg, gate, mount)
}

func newOn(t testing.TB, pool *pgxpool.Pool, cfg api.Config, gate *bound.Gate, mount Mount) *Fixture {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Metering.BackendTimeout == 0 {
		cfg.Metering.BackendTimeout = BackendTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = clocktest.FromEnv(t)
	}
	st := store.New(pool)
	cat := catalog.New(st, catalog.Config{})
	pub := publish.New(st, cat, publish.Config{Clock: cfg.Clock, Gate: gate})
	work, err := authoring.New(st, pub, authoring.Config{Clock: cfg.Clock, Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	// The test's composition root, as routes.NewServices is the binary's.
	parts := api.Parts{Auth: auth.NewAuthenticator(st, cfg.Clock.Now, cfg.KeyCacheTTL)}
	if !cfg.Unmetered {
		meter := cfg.Metering
		meter.Logger = cfg.Logger
		parts.Meter = metering.New(meter, st)
	}
	sv := Services{Store: st, Catalog: cat, Publisher: pub, Authoring: work, Clock: cfg.Clock,
		Decisions: decisionlog.New(st, decisionlog.Config{Logger: cfg.Logger}), Gate: gate}
	if cfg.SchemaNamer == nil {
		cfg.SchemaNamer = openapi.SchemaName
	}
	s := api.New(cfg, st, parts)
	if mount != nil {
		mount(s, sv)
	}
	openapi.Mount(s)
	s.OnClose(func(ctx context.Context) error {
		defer cat.Close()
		return sv.Decisions.Close(ctx)
	})
	srv := httptest.NewServer(s.Handler())
	f := &Fixture{URL: srv.URL + api.RootPath, Server: s, HTTP: srv, Pool: pool, Services: sv}
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil && !f.CloseErrorExpected {
			t.Errorf("close server: %v", err)
		}
	})
	return f
}

// GenerousMetering gives every tier and class a budget no test reaches,
// for fixtures whose tests are about something else.
func GenerousMetering() metering.Config {
	return metering.Config{Budgets: metering.UniformBudgets(1 << 40), BackendTimeout: BackendTimeout}
}

// Response is one answer, decoded (see package call).
type Response = call.Response

// Do sends one request to the fixture's API; body, when not nil, is sent as
// JSON.
func (f *Fixture) Do(t testing.TB, method, path string, headers map[string]string, body io.Reader) Response {
	t.Helper()
	return call.Do(t, method, f.URL+path, headers, body)
}

// Decide posts body to /decide with key (none when empty).
func (f *Fixture) Decide(t testing.TB, key, body string) Response {
	t.Helper()
	headers := map[string]string{}
	if key != "" {
		headers["x-api-key"] = key
	}
	return f.Do(t, http.MethodPost, "/decide", headers, strings.NewReader(body))
}

// Key issues a free-tier key for tenant with scopes; expires, when
// non-zero, is its expiry.
func (f *Fixture) Key(t testing.TB, tenant string, scopes []auth.Scope, expires time.Time) string {
	t.Helper()
	req := auth.KeyRequest{TenantID: tenant, Scopes: scopes, Tier: auth.TierFree}
	if !expires.IsZero() {
		req.ExpiresAt = &expires
	}
	text, _, _, err := auth.IssueKey(context.Background(), f.Store, req)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// Publish publishes source for tenant under slug through the one publish
// path and returns the result.
func (f *Fixture) Publish(t testing.TB, tenant, slug string, source []byte, public bool) publish.RulesetResult {
	t.Helper()
	res, err := f.Publisher.Ruleset(context.Background(), publish.RulesetRequest{
		TenantID: tenant, Filename: slug + ".rules", Source: source, Slug: slug, Visibility: publish.VisibilityOf(public), Actor: "test",
	})
	if err != nil {
		t.Fatalf("publish %s: %v", slug, err)
	}
	return res
}

// PublishCasebank publishes one casebank folder with its cases.
func (f *Fixture) PublishCasebank(t testing.TB, tenant, name, slug string, public bool) (publish.RulesetResult, *folder.Folder) {
	t.Helper()
	cb := Casebank(t, name)
	res, err := f.Publisher.Ruleset(context.Background(), publish.RulesetRequest{
		TenantID: tenant, Filename: name + ".rules", Source: cb.Rules, Slug: slug, Visibility: publish.VisibilityOf(public),
		Cases: cb.Cases, Actor: "test",
	})
	if err != nil {
		t.Fatalf("publish %s: %v", name, err)
	}
	return res, cb
}

// Casebank loads one folder of the repository's casebank.
func Casebank(t testing.TB, name string) *folder.Folder {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cb, err := folder.Load(context.Background(), filepath.Join(filepath.Dir(file), "..", "..", "casebank", name))
	if err != nil {
		t.Fatal(err)
	}
	return cb
}

// RecordOf returns decision id's record, failing the test when there is
// none: a decision is answered only once its record is written, so the
// record of any decision a test was shown is already in the table.
func (f *Fixture) RecordOf(t testing.TB, id string) store.DecisionRecord {
	t.Helper()
	rec, err := f.Store.DecisionByID(context.Background(), id)
	if err != nil {
		t.Fatalf("decision %s was answered but has no record: %v", id, err)
	}
	return rec
}

// JSONValue decodes s, for comparing whole bodies.
func JSONValue(t testing.TB, s string) any {
	t.Helper()
	return call.JSONValue(t, s)
}
