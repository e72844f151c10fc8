package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/casebank"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// runPublish is `eligo publish FILE --tenant T [--cases C.json] [--public]
// [--slug S]`: the operator's way onto the one publish path
// (authoring.Publish). Flags may come before or after FILE.
func runPublish(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	tenant := fs.String("tenant", "", "tenant that owns the ruleset; created if new")
	casesPath := fs.String("cases", "", "test cases (a cases.json array); every case must pass")
	public := fs.Bool("public", false, "make the ruleset public (anonymous callers can use it)")
	slug := fs.String("slug", "", "slug to publish under (default: the file's ruleset header)")
	name := fs.String("name", "", "ruleset name (default: the file's name header)")
	force := fs.Bool("force-unsafe", false, "publish despite failing cases; records a publish_force_bypass audit event")
	reserved := fs.String("reserved-namespace", authoring.DefaultReservedNamespace, "slug prefix no tenant may publish under")
	usage := errors.New("usage: eligo publish FILE --tenant T [--cases C.json] [--public] [--slug S]")

	var file string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		if file != "" {
			return usage
		}
		file, rest = fs.Arg(0), fs.Args()[1:]
	}
	if file == "" || *tenant == "" {
		return usage
	}
	if !tenantID.MatchString(*tenant) {
		return fmt.Errorf("--tenant %q: use 1-63 lower-case letters, digits, - or _", *tenant)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var cases []engine.Case
	if *casesPath != "" {
		raw, err := os.ReadFile(*casesPath)
		if err != nil {
			return err
		}
		if cases, err = casebank.ParseCases(raw); err != nil {
			return fmt.Errorf("%s: %w", *casesPath, err)
		}
	}

	pool, err := store.Open(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := authoring.Publish(ctx, store.New(pool), authoring.PublishRequest{
		TenantID: *tenant, Filename: file, Source: src, Slug: *slug, Name: *name, Public: *public,
		Cases: cases, ForceUnsafe: *force, ReservedNamespace: *reserved, Actor: "cli",
	})
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	for _, f := range res.Failures {
		fmt.Fprintf(stderr, "FAIL %s\n", f.Name)
		for _, m := range f.Mismatches {
			fmt.Fprintf(stderr, "    %s\n", m)
		}
	}
	if err != nil {
		return err
	}
	state := "published"
	if res.Reused {
		state = "unchanged content; reused"
	}
	fmt.Fprintf(stdout, "%s %s %s as %s (%s, %s; tests %d/%d)\n", state, res.RulesetID, res.Version,
		res.Slug, res.Visibility, res.ContentDigest, res.TestsPassing, res.TestsTotal)
	return nil
}
