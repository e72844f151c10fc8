package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/eligo/eligo/engine"
)

// parseInterspersed parses args with fs, letting flags come before, between
// or after the positional arguments (the flag package alone stops at the
// first positional one), and returns the positional arguments in order.
// After "--" every argument is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// dateArg reads the YYYY-MM-DD value of a --date flag at args[*i+1] and
// moves *i past it, for the commands that scan their arguments by hand.
func dateArg(args []string, i *int) (int64, error) {
	if *i+1 >= len(args) {
		return 0, errors.New("--date needs a YYYY-MM-DD value")
	}
	*i++
	d, ok := engine.ParseDate(args[*i])
	if !ok {
		return 0, fmt.Errorf("--date %q is not a YYYY-MM-DD date", args[*i])
	}
	return d, nil
}
