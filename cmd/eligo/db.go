package main

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/migrations"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// openMigrated connects to dbURL and brings the schema (River's and Eligo's)
// up to date, as every command that serves or works does first. The caller
// closes the pool.
func openMigrated(ctx context.Context, dbURL string) (*pgxpool.Pool, store.MigrateResult, error) {
	pool, err := store.Open(ctx, dbURL)
	if err != nil {
		return nil, store.MigrateResult{}, err
	}
	res, err := store.Migrate(ctx, pool, migrations.FS)
	if err != nil {
		pool.Close()
		return nil, store.MigrateResult{}, err
	}
	return pool, res, nil
}

// openPublisher connects to dbURL and builds the publish path over it, as
// the publishing commands do; close releases the connections and the
// catalog's solver state.
func openPublisher(ctx context.Context, dbURL string, cfg publish.Config) (*publish.Publisher, *catalog.Catalog, func(), error) {
	pool, err := store.Open(ctx, dbURL)
	if err != nil {
		return nil, nil, nil, err
	}
	st := store.New(pool)
	cat := catalog.New(st, catalog.Config{})
	return publish.New(st, cat, cfg), cat, func() { cat.Close(); pool.Close() }, nil
}
