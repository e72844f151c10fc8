package main

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/migrations"
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

// openServices connects to dbURL and builds the services over it as
// `eligo serve` does (wiring.NewServices), for the publishing commands;
// close releases the services' solver state and the connections (they
// decide nothing, so no decision record waits to be written).
func openServices(ctx context.Context, dbURL string, cfg wiring.Config) (sv wiring.Services, closeAll func(), err error) {
	pool, err := store.Open(ctx, dbURL)
	if err != nil {
		return wiring.Services{}, nil, err
	}
	if sv, err = wiring.NewServices(store.New(pool), cfg); err != nil {
		pool.Close()
		return wiring.Services{}, nil, err
	}
	return sv, func() { _ = sv.Close(context.WithoutCancel(ctx)); pool.Close() }, nil
}
