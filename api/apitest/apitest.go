// Package apitest gives the HTTP interface's tests a real server over real
// HTTP on a private, migrated PostgreSQL database, with the services the
// binary serves with (api/wiring builds both), and the small helpers every
// resource's tests share: requests, keys, publishing and waiting for
// decision records.
//
// It imports no resource package, so a resource's own internal tests can
// use it: the caller mounts what it tests (Mount).
package apitest

import (
	"context"
	"errors"
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
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/clock/clocktest"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/metering"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// BackendTimeout replaces the meter's 2 s bound on each counter query in
// tests: on a loaded CI machine a query can wait that long for a
// connection, and a 503 there would be the machine's, not the code's. An
// outage (a closed pool) still fails at once.
const BackendTimeout = 30 * time.Second

// Services are what a fixture serves with and Mount registers resources
// with: the binary's, built by wiring.NewServices. The fixture closes
// them with its server.
type Services = wiring.Services

// Mount registers the operations a test needs on s.
type Mount func(s *api.Server, sv Services)

// Options are what a fixture changes of the binary's wiring.
type Options struct {
	// Config configures the services and the core as `eligo serve`
	// does, with what a test needs set. The fixture fills in what the
	// binary leaves to its operator: a nil API.Logger discards the logs;
	// a zero API.Metering.BackendTimeout is BackendTimeout; a nil Clock
	// is API.Clock, else the run's (clocktest.FromEnv); and decision
	// records are spooled, as serve's default is, in a directory of the
	// test's own unless DecisionLog.Spool.Dir names one or NoSpool is set.
	Config wiring.Config
	// NoSpool records decisions without a spool, in the mode
	// Config.DecisionLog gives (database mode, or buffered when
	// Buffered): for a test of those modes' own guarantees.
	NoSpool bool
	// Pool is the database; nil means a fresh one. Fixtures sharing a
	// pool are replicas.
	Pool *pgxpool.Pool
}

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

// New serves cfg and what mount registers on a fresh database, with the
// binary's services (Options).
func New(t testing.TB, cfg api.Config, mount Mount) *Fixture {
	t.Helper()
	return Start(t, Options{Config: wiring.Config{API: cfg}}, mount)
}

// NewOn is New on an existing database, for several servers sharing one,
// as replicas do.
func NewOn(t testing.TB, pool *pgxpool.Pool, cfg api.Config, mount Mount) *Fixture {
	t.Helper()
	return Start(t, Options{Config: wiring.Config{API: cfg}, Pool: pool}, mount)
}

// Start serves what mount registers over the services wiring.NewServices
// builds from opts, on the server wiring.NewServer builds over them, as
// the binary does.
func Start(t testing.TB, opts Options, mount Mount) *Fixture {
	t.Helper()
	cfg := opts.Config
	if cfg.API.Logger == nil {
		cfg.API.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.API.Metering.BackendTimeout == 0 {
		cfg.API.Metering.BackendTimeout = BackendTimeout
	}
	if cfg.Clock == nil {
		cfg.Clock = cfg.API.Clock
	}
	if cfg.Clock == nil {
		cfg.Clock = clocktest.FromEnv(t)
	}
	cfg.API.Clock = cfg.Clock
	if cfg.DecisionLog.Spool.Dir == "" && !opts.NoSpool {
		cfg.DecisionLog.Spool.Dir = t.TempDir()
	}
	pool := opts.Pool
	if pool == nil {
		pool = storetest.New(t)
	}
	sv, err := wiring.NewServices(store.New(pool), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := wiring.NewServer(cfg.API, sv, func(s *api.Server) {
		if mount != nil {
			mount(s, sv)
		}
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

// recordWait bounds how long RecordOf waits for a record to reach the
// table: a spooled record is shipped within the spool's ship interval
// (200 ms) once the database answers.
const recordWait = 10 * time.Second

// RecordOf returns decision id's record, failing the test when there is
// none: a decision is answered only once its record is written, in the
// spool (from which the shipper copies it to the table within its ship
// interval) or in the table, so the record of any decision a test was
// shown reaches the table within recordWait.
func (f *Fixture) RecordOf(t testing.TB, id string) store.DecisionRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	for {
		rec, err := f.Store.DecisionByID(ctx, id)
		if err == nil {
			return rec
		}
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("read decision %s's record: %v", id, err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("decision %s was answered but its record did not reach the table within %s", id, recordWait)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// JSONValue decodes s, for comparing whole bodies.
func JSONValue(t testing.TB, s string) any {
	t.Helper()
	return call.JSONValue(t, s)
}
