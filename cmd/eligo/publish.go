package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/publish"
)

// runPublish is `eligo publish FILE --tenant T [--cases C.json]
// [--public|--private] [--slug S]`: the operator's way onto the one publish path
// (publish.Publisher.Ruleset). Flags may come before or after FILE.
func runPublish(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	tenant := fs.String("tenant", "", "tenant that owns the ruleset; created if new")
	casesPath := fs.String("cases", "", "test cases (a cases.json array); every case must pass")
	sourcesPath := fs.String("sources", "", "cited texts with one `== <source id> ==` section per source, to verify every quote against\n(default: source.txt, source.md or source.html beside FILE; \"none\" publishes unverified)")
	public := fs.Bool("public", false, "make the ruleset public (anonymous callers can use it)")
	private := fs.Bool("private", false, "make the ruleset private (only the tenant can use it)\n(default: the visibility of the cut the slug points at now; private for a new slug)")
	slug := fs.String("slug", "", "slug to publish under (default: the file's ruleset header)")
	name := fs.String("name", "", "ruleset name (default: the file's name header)")
	force := fs.Bool("force-unsafe", false, "publish despite failing cases; records a publish_force_bypass audit event")
	reserved := fs.String("reserved-namespace", publish.DefaultReservedNamespace, "the service's own slug prefix, which no tenant may publish under")
	nsFlags := addNamespaceFlags(fs)
	usage := errors.New("usage: eligo publish FILE --tenant T [--cases C.json] [--public|--private] [--slug S]")

	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 || *tenant == "" || (*public && *private) {
		return usage
	}
	file := files[0]
	visibility := publish.VisibilityKeep
	if *public || *private {
		visibility = publish.VisibilityOf(*public)
	}
	if err := checkTenant(*tenant); err != nil {
		return err
	}
	cfg := publish.Config{ReservedNamespace: *reserved}
	if err := nsFlags.apply(&cfg); err != nil {
		return err
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
		if cases, err = folder.ParseCases(raw); err != nil {
			return fmt.Errorf("%s: %w", *casesPath, err)
		}
	}

	sources, err := readSources(file, *sourcesPath)
	if err != nil {
		return err
	}

	// Nothing wrong with publishing unchecked rules, but say so: a folder
	// whose cases.json or source.txt was not found would otherwise
	// publish silently with neither checked.
	if len(cases) == 0 {
		fmt.Fprintln(stderr, "warning: no test cases (cases.json beside the file, or --cases): nothing tests these rules before they are published")
	}
	if len(sources) == 0 {
		fmt.Fprintln(stderr, "warning: no source text (source.txt beside the file, or --sources): the quotes the rules cite are not verified")
	}
	sv, closeDB, err := openServices(ctx, *dbURL, wiring.Config{Publish: cfg, Clock: clk})
	if err != nil {
		return err
	}
	defer closeDB()
	res, err := sv.Publisher.Ruleset(ctx, publish.RulesetRequest{
		TenantID: *tenant, Filename: file, Source: src, Slug: *slug, Name: *name, Visibility: visibility,
		Sources: sources, Cases: cases, ForceUnsafe: *force, Actor: "cli",
	})
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(stderr, "warning: %s: %s\n", f.Kind, f.Message)
	}
	for _, n := range res.PeriodNotices {
		fmt.Fprintf(stderr, "warning: %s: %s\n", n.Code, n.Message)
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
	noun := "sources"
	if res.VerifiedSources == 1 {
		noun = "source"
	}
	fmt.Fprintf(stdout, "%s %s %s as %s (%s, %s; tests %d/%d; %d %s verified)\n", state, res.RulesetID, res.Version,
		res.Slug, res.Visibility, res.ContentDigest, res.TestsPassing, res.TestsTotal, res.VerifiedSources, noun)
	if d := res.DiffAgainstPrevious; d != nil {
		fmt.Fprintf(stdout, "against %s, the cut the slug pointed at before:\n", res.PreviousID)
		printDiff(stdout, *d)
	}
	return nil
}

// readSources reads the sectioned source text (docs/folders.md#sourcetxt) and
// splits it by source id. path "" looks beside rulesFile for the names a
// folder's source text has (folder.SourceNames); "none", or no file found
// there, means no verification.
func readSources(rulesFile, path string) (map[string][]byte, error) {
	if path == "none" {
		return nil, nil
	}
	if path == "" {
		for _, name := range folder.SourceNames() {
			candidate := filepath.Join(filepath.Dir(rulesFile), name)
			if _, err := os.Stat(candidate); err == nil {
				path = candidate
				break
			}
		}
		if path == "" {
			return nil, nil
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sections := folder.SourceSections(text)
	if len(sections) == 0 {
		return nil, fmt.Errorf("%s: no \"== <source id> ==\" sections", path)
	}
	out := make(map[string][]byte, len(sections))
	for id, body := range sections {
		out[id] = []byte(body)
	}
	return out, nil
}
