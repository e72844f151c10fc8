package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/store"
)

// runRulebookPublish is `eligo rulebook publish FOLDER|FILE --tenant T
// [--slug S] [--public]`: the operator's way to publish a rulebook kept as
// files, through the same publish path as the API. The tenant's rulebook
// of that slug is created, or edited when it exists, with one floating
// reference per section (by the section's section id, so the sections
// must be published for the tenant first), the file's outcome tree, field
// overlay and robot hints; then it is activated, which publishes a release
// or reuses the one with the same content.
func runRulebookPublish(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rulebook publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	tenant := fs.String("tenant", "", "tenant that owns the rulebook and its sections")
	slug := fs.String("slug", "", "slug to publish under (default: the file's slug)")
	public := fs.Bool("public", false, "make the rulebook public (listed in the anonymous catalogue)")
	nsFlags := addNamespaceFlags(fs)
	usage := errors.New("usage: eligo rulebook publish FOLDER|FILE --tenant T [--slug S] [--public]")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(paths) != 1 || *tenant == "" {
		return usage
	}
	if err := checkTenant(*tenant); err != nil {
		return err
	}
	cfg := publish.Config{}
	if err := nsFlags.apply(&cfg); err != nil {
		return err
	}
	book, err := loadRulebook(ctx, paths[0], stderr)
	if err != nil {
		return err
	}
	sv, closeDB, err := openServices(ctx, *dbURL, wiring.Config{Publish: cfg, Clock: clk})
	if err != nil {
		return err
	}
	defer closeDB()
	publisher, cat := sv.Publisher, sv.Catalog

	rules := book.Composed.Rules
	if *slug == "" {
		*slug = rules.Slug
	}
	refs := make([]publish.RefRequest, len(book.Composed.Sections))
	for i, s := range book.Composed.Sections {
		refs[i] = publish.RefRequest{SectionID: s.SectionID, PinMode: store.PinLatestActive}
	}
	draft := publish.RulebookDraft{Slug: *slug, Name: &rules.Name, Description: &rules.Description, Refs: &refs,
		Outcome: book.Composed.Outcome, SetOutcome: true, Hints: book.Hints, SetHints: true, Overlay: book.Overlay,
		Facts: book.Composed.Facts, SetFacts: true, Actor: "cli"}
	if draft.Overlay == nil {
		draft.Overlay = map[string]rulebook.FieldOverlay{}
	}
	rb, err := cat.OwnedRulebook(ctx, *tenant, *slug)
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		if rb, err = publisher.CreateRulebook(ctx, *tenant, draft); err != nil {
			return fmt.Errorf("create rulebook %s: %w", *slug, err)
		}
	case err != nil:
		return err
	default:
		if _, err := publisher.UpdateRulebook(ctx, *tenant, rb.ID, draft); err != nil {
			return fmt.Errorf("edit rulebook %s: %w", *slug, err)
		}
	}
	res, err := publisher.Activate(ctx, *tenant, rb.ID, "cli")
	if err != nil {
		return fmt.Errorf("activate rulebook %s: %w", *slug, err)
	}
	visibility := store.VisibilityPrivate
	if *public {
		visibility = store.VisibilityPublic
	}
	if _, err := publisher.SetRulebookVisibility(ctx, *tenant, rb.ID, visibility, "cli"); err != nil {
		return fmt.Errorf("set visibility of %s: %w", *slug, err)
	}
	fmt.Fprintf(stdout, "published rulebook %s as %s (%s): release v%d %s %s\n", *slug, rb.ID, visibility,
		res.Release.Version, res.Release.Label, res.Release.ContentIdentity)
	return nil
}
