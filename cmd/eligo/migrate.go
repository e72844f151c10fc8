package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/clock"
)

// runMigrate applies River's and Eligo's migrations to DATABASE_URL (or
// --database-url) and reports what changed.
func runMigrate(ctx context.Context, _ clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pool, res, err := openMigrated(ctx, *dbURL)
	if err != nil {
		return err
	}
	pool.Close()
	for _, v := range res.RiverVersions {
		fmt.Fprintf(stdout, "applied river migration %d\n", v)
	}
	for _, name := range res.Applied {
		fmt.Fprintf(stdout, "applied %s\n", name)
	}
	if len(res.Applied) == 0 && len(res.RiverVersions) == 0 {
		fmt.Fprintln(stdout, "schema is up to date")
	}
	return nil
}
