package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine/syntax"
)

// fmtUsage is fmt's usage.
const fmtUsage = "usage: eligo fmt [-w] FILE [FILE ...]"

// runFmt prints each file in canonical form, or with -w rewrites the files
// that are not. A file with syntax errors is left alone and reported.
func runFmt(ctx context.Context, _ clock.Clock, args []string, stdout, stderr io.Writer) error {
	write := false
	if len(args) > 0 && args[0] == "-w" {
		write, args = true, args[1:]
	}
	if len(args) == 0 {
		return errors.New(fmtUsage)
	}
	return eachFile(ctx, args, func(path string, src []byte) (bool, error) {
		f, errs := syntax.Parse(path, src)
		if len(errs) > 0 {
			fmt.Fprintln(stderr, errs)
			return false, nil
		}
		out := syntax.Print(f)
		if !write {
			if _, err := stdout.Write(out); err != nil {
				return false, fmt.Errorf("write: %w", err)
			}
			return true, nil
		}
		if bytes.Equal(out, src) {
			return true, nil
		}
		info, err := os.Stat(path)
		if err != nil {
			return false, fmt.Errorf("stat %s: %w", path, err)
		}
		if err := os.WriteFile(path, out, info.Mode().Perm()); err != nil {
			return false, fmt.Errorf("write %s: %w", path, err)
		}
		fmt.Fprintln(stdout, path)
		return true, nil
	})
}
