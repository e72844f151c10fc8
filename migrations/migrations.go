// Package migrations holds Eligo's schema as plain numbered SQL files,
// embedded into the binary so that `eligo migrate` and `eligo serve` need
// nothing beside the executable.
//
// A file is named NNNN_description.sql; the number is its version, applied in
// ascending order, once, inside one transaction. Never edit a file that has
// been committed: add a new one. The runner lives in package store, with the
// rest of the SQL.
package migrations

import "embed"

// FS holds every migration file at its root.
//
//go:embed *.sql
var FS embed.FS
