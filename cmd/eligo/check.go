package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/eligo/eligo/engine"
)

// runCheck compiles each file and prints its errors and warnings; it fails
// when any file has an error.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: eligo check FILE [FILE ...]")
	}
	return eachFile(ctx, args, func(path string, src []byte) (bool, error) {
		_, warnings, err := engine.Compile(path, src)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "%s (warning)\n", w)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return false, nil
		}
		fmt.Fprintf(stdout, "%s: ok\n", path)
		return true, nil
	})
}
