package store

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Migration is one numbered SQL file of the schema.
type Migration struct {
	// Version is the number the file name starts with; migrations apply in
	// ascending Version order and each Version applies once.
	Version int
	// Name is the file name, recorded beside the version for humans.
	Name string
	// SQL is the file's whole text, run as one transaction.
	SQL string
}

// MigrateResult says what a Migrate call changed.
type MigrateResult struct {
	// Applied lists the names of Eligo migrations applied by this call, in
	// order; empty when the schema was already current.
	Applied []string
	// RiverVersions lists the River schema versions applied by this call.
	RiverVersions []int
	// ArtefactExposures are the public rulebooks found composing cuts that
	// cite project artefacts (see RulebooksExposingArtefacts): leaks made
	// before publish refused them. Each is also logged at WARN, so the
	// start of every `eligo serve`, `worker` and `migrate` names them
	// until an operator makes them private.
	ArtefactExposures []ArtefactExposure
}

var migrationName = regexp.MustCompile(`^([0-9]+)_[a-z0-9_]+\.sql$`)

// LoadMigrations reads every *.sql file at the root of fsys and returns them
// sorted by version. A file whose name does not follow NNNN_name.sql, or two
// files with one version, is an error: a silent skip would leave a schema
// half-built.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	out := make([]Migration, 0, len(names))
	for _, name := range names {
		m := migrationName.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("migration %q: name must look like 0001_description.sql", name)
		}
		version, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("migration %q: %w", name, err)
		}
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %q: %w", name, err)
		}
		out = append(out, Migration{Version: version, Name: name, SQL: string(text)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %q and %q share version %d", out[i-1].Name, out[i].Name, out[i].Version)
		}
	}
	return out, nil
}

// migrateLockKey is the pg_advisory_lock key that serialises migrations, so
// that `eligo serve` on several hosts and `eligo migrate` can start together.
const migrateLockKey = 0x656c69676f // "eligo"

const (
	sqlMigrateLock   = `SELECT pg_advisory_lock($1)`
	sqlMigrateUnlock = `SELECT pg_advisory_unlock($1)`

	sqlCreateSchemaMigrations = `
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)`

	sqlMigrationApplied = `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`

	sqlRecordMigration = `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`
)

// Migrate brings the database up to date: first River's own schema (through
// rivermigrate), then every Eligo migration in fsys not yet recorded in
// schema_migrations, each in its own transaction. It is idempotent: a second
// call applies nothing. Concurrent callers are serialised by an advisory lock.
func Migrate(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS) (MigrateResult, error) {
	var result MigrateResult
	migrations, err := LoadMigrations(fsys)
	if err != nil {
		return result, err
	}

	lockConn, err := pool.Acquire(ctx)
	if err != nil {
		return result, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer lockConn.Release()
	if _, err := lockConn.Exec(ctx, sqlMigrateLock, migrateLockKey); err != nil {
		return result, fmt.Errorf("migrate: take lock: %w", err)
	}
	defer func() {
		// A failed unlock is harmless: the lock dies with the session, and
		// the pool discards a connection whose state is in doubt.
		if _, err := lockConn.Exec(context.WithoutCancel(ctx), sqlMigrateUnlock, migrateLockKey); err != nil {
			_ = lockConn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()

	riverVersions, err := migrateRiver(ctx, pool)
	if err != nil {
		return result, err
	}
	result.RiverVersions = riverVersions

	if _, err := pool.Exec(ctx, sqlCreateSchemaMigrations); err != nil {
		return result, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	for _, m := range migrations {
		applied, err := applyMigration(ctx, pool, m)
		if err != nil {
			return result, err
		}
		if applied {
			result.Applied = append(result.Applied, m.Name)
		}
	}
	result.ArtefactExposures, err = reportArtefactExposures(ctx, pool)
	return result, err
}

// sqlHasArtefactView says whether the schema has the view the artefact
// check reads (a test's own migrations may not).
const sqlHasArtefactView = `SELECT to_regclass('rulebook_artefact_members') IS NOT NULL`

// reportArtefactExposures finds the public rulebooks exposing artefact
// citations and logs each at WARN with what to do about it.
func reportArtefactExposures(ctx context.Context, pool *pgxpool.Pool) ([]ArtefactExposure, error) {
	var present bool
	if err := pool.QueryRow(ctx, sqlHasArtefactView).Scan(&present); err != nil {
		return nil, fmt.Errorf("migrate: artefact check: %w", err)
	}
	if !present {
		return nil, nil
	}
	found, err := New(pool).RulebooksExposingArtefacts(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	for _, e := range found {
		slog.WarnContext(ctx, "public rulebook composes rulesets citing project artefacts, whose quotes and ids other tenants can read; make it private (PATCH /rulebooks/{id}/visibility)",
			"rulebook_id", e.RulebookID, "tenant_id", e.TenantID, "slug", e.Slug, "ruleset_ids", e.RulesetIDs)
	}
	return found, nil
}

// applyMigration runs m in one transaction unless schema_migrations already
// records it, and reports whether it ran.
func applyMigration(ctx context.Context, pool *pgxpool.Pool, m Migration) (bool, error) {
	ran := false
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var done bool
		if err := tx.QueryRow(ctx, sqlMigrationApplied, m.Version).Scan(&done); err != nil {
			return fmt.Errorf("check: %w", err)
		}
		if done {
			return nil
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqlRecordMigration, m.Version, m.Name); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		ran = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	return ran, nil
}

// migrateRiver applies River's job-queue schema to the latest version this
// build of River knows.
func migrateRiver(ctx context.Context, pool *pgxpool.Pool) ([]int, error) {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	versions := make([]int, 0, len(res.Versions))
	for _, v := range res.Versions {
		versions = append(versions, v.Version)
	}
	return versions, nil
}
