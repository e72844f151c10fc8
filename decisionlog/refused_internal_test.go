package decisionlog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRefusedData: only PostgreSQL's refusals of the data itself (classes
// 22 and 23) stop the retries; failures that are not PostgreSQL errors at
// all (the connection, the client's timeout) are retried. The server's
// transient SQLSTATEs are exercised against PostgreSQL in
// TestCloseReportsWhatItCouldNotWrite.
func TestRefusedData(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		err     error
		refused bool
	}{
		{"U+0000 in jsonb", &pgconn.PgError{Code: "22P05"}, true},
		{"CHECK violation, wrapped", fmt.Errorf("insert 2 decisions: %w", &pgconn.PgError{Code: "23514"}), true},
		{"unique violation", &pgconn.PgError{Code: "23505", ConstraintName: "decisions_pkey"}, true},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, false},
		{"no SQLSTATE", &pgconn.PgError{}, false},
		{"client timeout", fmt.Errorf("insert 2 decisions: %w", context.DeadlineExceeded), false},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, false},
	}
	for _, c := range cases {
		if got := refusedData(c.err) != nil; got != c.refused {
			t.Errorf("%s: refused = %v, want %v", c.name, got, c.refused)
		}
	}
}

// TestIsDuplicate: a second copy of a record is recognised whichever
// partition of the decisions table refused it (PostgreSQL names the
// partition's index, not the parent's), and nothing else is taken for one.
func TestIsDuplicate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code, constraint string
		duplicate        bool
	}{
		{"23505", "decisions_pkey", true},
		{"23505", "decisions_2026_11_pkey", true},
		{"23505", "decisions_default_pkey", true},
		{"23514", "decisions_2026_11_pkey", false},
		{"23514", "decisions_anonymous_without_caller_ref", false},
		{"23505", "api_keys_pkey", false},
	}
	for _, c := range cases {
		if got := isDuplicate(&pgconn.PgError{Code: c.code, ConstraintName: c.constraint}); got != c.duplicate {
			t.Errorf("%s on %s: duplicate = %v, want %v", c.code, c.constraint, got, c.duplicate)
		}
	}
}
