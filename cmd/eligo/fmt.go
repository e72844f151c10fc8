package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/engine"
)

// runFmt prints each file in canonical form, or with -w rewrites the files
// that are not. A file with syntax errors is left alone and reported.
func runFmt(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	write := false
	if len(args) > 0 && args[0] == "-w" {
		write, args = true, args[1:]
	}
	if len(args) == 0 {
		return errors.New("usage: eligo fmt [-w] FILE [FILE ...]")
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
		f, errs := engine.Parse(path, src)
		if len(errs) > 0 {
			fmt.Fprintln(stderr, errs)
			failed = true
			continue
		}
		out := engine.Print(f)
		if !write {
			if _, err := stdout.Write(out); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			continue
		}
		if bytes.Equal(out, src) {
			continue
		}
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("stat %s: %w", path, err)
		}
		if err := os.WriteFile(path, out, info.Mode().Perm()); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		fmt.Fprintln(stdout, path)
	}
	if failed {
		return errSilentFailure
	}
	return nil
}
