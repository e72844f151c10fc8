// Package store is Eligo's only door to PostgreSQL. Every query lives here,
// one named function per query with its SQL as a named constant beside it, so
// that the rest of the code base speaks in Go types and never in SQL.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned by lookups that match no row. Callers branch on it
// with errors.Is to answer 404 or "unknown key".
var ErrNotFound = errors.New("not found")

// Store runs Eligo's queries over a connection pool. It is safe for
// concurrent use; the zero value is not usable, build one with New.
type Store struct {
	// pool runs every query; the Store does not own it (see New).
	pool *pgxpool.Pool
}

// New wraps an open pool. The caller keeps ownership of the pool and closes
// it after the last use of the Store.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
}

// DefaultMaxConns is the pool size Open uses unless the URL sets
// pool_max_conns. pgx's own default (the larger of 4 and the CPU count) is
// too small for one process that serves requests, writes decision records
// and usage counters in the background and runs River, which keeps a
// connection for LISTEN: on two cores those four connections starved the
// background writers.
const DefaultMaxConns = 20

// Open connects a pool to databaseURL and checks that the server answers, so
// a wrong URL fails at start rather than at the first request. The pool
// holds DefaultMaxConns connections at most unless the URL's
// pool_max_conns says otherwise.
func Open(ctx context.Context, databaseURL string) (*pgxpool.Pool, error) {
	if databaseURL == "" {
		return nil, errors.New("open database: DATABASE_URL is empty")
	}
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return pool, nil
}

// Pool returns the underlying pool, for packages such as River that need the
// driver itself rather than a query.
func (s *Store) Pool() *pgxpool.Pool {
	return s.pool
}

// Ping reports whether the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// inTx runs fn inside one transaction, committing when fn returns nil and
// rolling back otherwise.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation on
// the named constraint.
func isUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == constraint
}

// isForeignKeyViolation reports whether err is PostgreSQL's
// foreign_key_violation: a row names another that is gone (or, on a
// delete, is still named).
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// Unavailable reports whether err says the database could not be reached
// or did not answer in time (a refused or lost connection, a timeout), as
// opposed to a statement it answered with an error: the caller's answer is
// then a transient 503 to retry, not a 500.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, ErrNotFound) {
		return false
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connect) || errors.As(err, &netErr) || pgconn.Timeout(err) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}
