package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/api/routes"
	"github.com/eligo/eligo/clock"
)

// runOpenAPI prints the published OpenAPI document, 3.1 or 3.0, built
// from the code with the default configuration: no database is needed. It
// is how api/openapi.json and api/openapi-3.0.json are written (`make
// openapi`) and how clients can be generated without a running server.
func runOpenAPI(ctx context.Context, _ clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "3.1", "OpenAPI version to write: 3.1 or 3.0")
	out := fs.String("out", "", "write to this file instead of standard output")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return errors.New("usage: eligo openapi [--version 3.1|3.0] [--out FILE]")
	}
	doc, err := routes.Document(ctx, *version)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(doc)
		return err
	}
	if err := os.WriteFile(*out, doc, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return nil
}
