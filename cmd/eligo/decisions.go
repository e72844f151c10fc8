package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/decisionlog/spool"
	"github.com/eligo/eligo/store"
)

// runDecisions dispatches `eligo decisions ship`: drain the decision spool
// a serve process left (a replica that will not come back) into the
// decisions table. It takes the spool's lock, so it refuses a spool that a
// running process holds; it ships every segment, and exits non-zero when
// records remain (the database went away, or the command was
// interrupted), which a later run ships.
func runDecisions(ctx context.Context, _ clock.Clock, args []string, stdout, stderr io.Writer) error {
	usage := errors.New("usage: eligo decisions ship --spool DIR [--database-url URL]")
	if len(args) == 0 || args[0] != "ship" {
		if len(args) > 0 && wantsHelp(args[:1]) {
			fmt.Fprintln(stdout, usage)
			return nil
		}
		return usage
	}
	fs := flag.NewFlagSet("decisions ship", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	dir := fs.String("spool", "", "the spool directory to drain (a serve process's --decision-spool)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		return usage
	}
	// A mistyped directory must not be created and reported drained.
	if info, err := os.Stat(*dir); err != nil || !info.IsDir() {
		return fmt.Errorf("spool %s: not a directory (%v)", *dir, err)
	}
	pool, err := store.Open(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	r, err := decisionlog.Open(store.New(pool), decisionlog.Config{Spool: decisionlog.SpoolConfig{Dir: *dir}, Logger: logger})
	if err != nil {
		return err
	}
	// Close ships everything left, retrying while the database is down,
	// until every segment is shipped or ctx ends (SIGINT, SIGTERM).
	if err := r.Close(ctx); err != nil {
		return err
	}
	st := r.Status()
	fmt.Fprintf(stdout, "shipped %d decision records from %s\n", st.Spool.Shipped, *dir)
	if quarantined, _ := filepath.Glob(filepath.Join(*dir, spool.QuarantineDir, "*.seg")); len(quarantined) > 0 {
		fmt.Fprintf(stderr, "%d files in %s hold records that were not shipped (damaged, or refused by the database); see the log above\n",
			len(quarantined), filepath.Join(*dir, spool.QuarantineDir))
	}
	if st.Spool.Bytes > 0 {
		return fmt.Errorf("%d bytes in %d segments are still spooled; run again once the database is reachable", st.Spool.Bytes, st.Spool.Segments)
	}
	return nil
}
