package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/engine"
)

// runCheck compiles each file and prints its errors and warnings; it fails
// when any file has an error.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: eligo check FILE [FILE ...]")
	}
	failed := false
	for _, path := range args {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		_, warnings, err := engine.Compile(path, src)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "%s (warning)\n", w)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			failed = true
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", path)
	}
	if failed {
		return errSilentFailure
	}
	return nil
}
