package main

import (
	"context"
	"fmt"
	"os"
)

// eachFile reads every path in turn and hands its bytes to fn, stopping when
// ctx ends or a file cannot be read. fn reports whether the file was good;
// eachFile returns errSilentFailure when any was not (fn has already said
// why), so commands over many files report every bad one, then fail once.
func eachFile(ctx context.Context, paths []string, fn func(path string, src []byte) (ok bool, err error)) error {
	failed := false
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		ok, err := fn(path, src)
		if err != nil {
			return err
		}
		failed = failed || !ok
	}
	if failed {
		return errSilentFailure
	}
	return nil
}
