// Package storetest gives tests a private, migrated PostgreSQL database.
//
// Each call to New creates a fresh database by copying a template that holds
// the current schema (CREATE DATABASE ... TEMPLATE), so test packages running
// in parallel processes and parallel tests inside one package never see each
// other's rows. The template is built once per schema: its name carries a hash
// of the migration files, and an advisory lock makes concurrent test processes
// wait for the first one to finish building it. Every database a test gets is
// dropped at the test's cleanup.
//
// The server comes from DATABASE_URL, or, when that is unset, from the
// project-local cluster that `scripts/devdb.sh url` starts, so a plain
// `go test ./...` works on a fresh checkout. No database means a failed test,
// never a skipped one.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/eligo/eligo/migrations"
	"github.com/eligo/eligo/store"
)

// New returns a pool on a fresh database holding the full current schema
// (Eligo's and River's). The database is dropped when the test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	base := DatabaseURL(t)
	admin := connect(t, base)
	defer admin.Close(ctx)

	template, err := ensureTemplate(ctx, admin, base)
	if err != nil {
		t.Fatalf("storetest: build template database: %v", err)
	}
	return createDatabase(t, admin, base, template)
}

// NewEmpty returns a pool on a fresh database with no schema at all, for
// tests of the migrations themselves. It is dropped when the test ends.
func NewEmpty(t testing.TB) *pgxpool.Pool {
	t.Helper()
	base := DatabaseURL(t)
	admin := connect(t, base)
	defer admin.Close(context.Background())
	return createDatabase(t, admin, base, "template0")
}

// NewUpTo returns a pool on a fresh database migrated up to and including
// migration last and no further, for tests and benchmarks of a later
// migration or of the schema before it. It is dropped when the test ends.
func NewUpTo(t testing.TB, last int) *pgxpool.Pool {
	t.Helper()
	pool := NewEmpty(t)
	ms, err := store.LoadMigrations(migrations.FS)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	upTo := fstest.MapFS{}
	for _, m := range ms {
		if m.Version <= last {
			upTo[m.Name] = &fstest.MapFile{Data: []byte(m.SQL)}
		}
	}
	if _, err := store.Migrate(context.Background(), pool, upTo); err != nil {
		t.Fatalf("storetest: migrate up to %04d: %v", last, err)
	}
	return pool
}

// DatabaseURL returns the server URL tests use: DATABASE_URL when set,
// otherwise the URL printed by `scripts/devdb.sh url`, which starts the
// project-local cluster when needed. It fails the test when neither works.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("storetest: DATABASE_URL is unset and the repository root was not found: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "scripts", "devdb.sh"), "url")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("storetest: DATABASE_URL is unset and scripts/devdb.sh url failed: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	u := strings.TrimSpace(lines[len(lines)-1])
	if u == "" {
		t.Fatalf("storetest: scripts/devdb.sh url printed no URL\n%s", stderr.String())
	}
	return u
}

// repoRoot walks up from the working directory (a package directory under
// `go test`) to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func connect(t testing.TB, base string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("storetest: connect to %s: %v", redact(base), err)
	}
	return conn
}

// createDatabase copies template into a new uniquely named database and
// returns a pool on it; cleanup closes the pool and drops the database.
func createDatabase(t testing.TB, admin *pgx.Conn, base, template string) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	name := "eligo_test_" + randomHex(t, 8)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+pgx.Identifier{template}.Sanitize()); err != nil {
		t.Fatalf("storetest: create database %s from %s: %v", name, template, err)
	}
	t.Cleanup(func() { dropDatabase(t, base, name) })

	dbURL, err := withDatabase(base, name)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	pool, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func dropDatabase(t testing.TB, base, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Errorf("storetest: drop database %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Errorf("storetest: drop database %s: %v", name, err)
	}
}

// templateLockKey serialises template builds across test processes.
const templateLockKey = 0x656c69676f74 // "eligot"

// ensureTemplate returns the name of a template database holding the current
// schema, building it first if no complete one exists. A template counts as
// complete once it is flagged IS_TEMPLATE, which happens only after its
// migrations succeeded, so a build interrupted half-way is rebuilt.
func ensureTemplate(ctx context.Context, admin *pgx.Conn, base string) (string, error) {
	digest, err := schemaDigest()
	if err != nil {
		return "", err
	}
	name := "eligo_template_" + digest
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	defer func() {
		_, _ = admin.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", templateLockKey)
	}()

	var exists, complete bool
	err = admin.QueryRow(ctx, "SELECT count(*) > 0, COALESCE(bool_and(datistemplate), false) FROM pg_database WHERE datname = $1", name).Scan(&exists, &complete)
	if err != nil {
		return "", fmt.Errorf("look up %s: %w", name, err)
	}
	if complete {
		return name, nil
	}
	ident := pgx.Identifier{name}.Sanitize()
	if exists {
		if _, err := admin.Exec(ctx, "DROP DATABASE "+ident+" WITH (FORCE)"); err != nil {
			return "", fmt.Errorf("drop incomplete %s: %w", name, err)
		}
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident+" TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("create %s: %w", name, err)
	}
	dbURL, err := withDatabase(base, name)
	if err != nil {
		return "", err
	}
	if err := migrateDatabase(ctx, dbURL); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+ident+" IS_TEMPLATE true"); err != nil {
		return "", fmt.Errorf("flag %s as template: %w", name, err)
	}
	return name, nil
}

func migrateDatabase(ctx context.Context, dbURL string) error {
	pool, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := store.Migrate(ctx, pool, migrations.FS); err != nil {
		return err
	}
	return nil
}

// schemaDigest hashes every Eligo migration file and every River migration
// this build knows, so a changed schema gets a new template.
func schemaDigest() (string, error) {
	h := sha256.New()
	ms, err := store.LoadMigrations(migrations.FS)
	if err != nil {
		return "", err
	}
	for _, m := range ms {
		fmt.Fprintf(h, "%d\x00%s\x00%s\x00", m.Version, m.Name, m.SQL)
	}
	migrator, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return "", fmt.Errorf("list river migrations: %w", err)
	}
	for _, m := range migrator.AllVersions() {
		fmt.Fprintf(h, "river\x00%d\x00%s\x00", m.Version, m.SQLUp)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// withDatabase returns base with its database name replaced.
func withDatabase(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("DATABASE_URL must be a postgres:// URL, got %s", redact(base))
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// redact hides a password in a URL before it reaches a test log.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("storetest: random name: %v", err)
	}
	return hex.EncodeToString(b)
}
