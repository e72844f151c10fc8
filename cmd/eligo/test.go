package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/eligo/eligo/casebank"
	"github.com/eligo/eligo/engine"
)

// runTest runs test cases: `eligo test FILE CASES.json` runs one file's
// cases, `eligo test DIR` a casebank folder or every folder under DIR
// (verifying citations too), a rulebook folder's cases running against
// its composed ruleset. It prints each case's verdict, the failing
// criteria and trace of each failure, and a final "N passed, N failed".
func runTest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var results []*casebank.Result
	switch len(args) {
	case 1:
		entries, err := casebank.DiscoverAll(args[0])
		if err != nil {
			return err
		}
		for _, e := range entries {
			res, err := e.Run(ctx)
			if err != nil {
				return err
			}
			results = append(results, res)
		}
	case 2:
		src, err := os.ReadFile(args[0])
		if err != nil {
			return fmt.Errorf("read rules: %w", err)
		}
		raw, err := os.ReadFile(args[1])
		if err != nil {
			return fmt.Errorf("read cases: %w", err)
		}
		cases, err := casebank.ParseCases(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", args[1], err)
		}
		folder := &casebank.Folder{Name: args[0], RulesPath: args[0], Rules: src, Cases: cases, Source: []byte{}}
		res, err := folder.Run(ctx)
		if err != nil {
			return err
		}
		res.CitationProblems = nil // no source text given: nothing to verify
		results = append(results, res)
	default:
		return errors.New("usage: eligo test FILE CASES.json | eligo test DIR")
	}
	passed, failed := 0, 0
	for _, res := range results {
		name := res.Name()
		if res.CompileErrors != nil {
			fmt.Fprintf(stdout, "FAIL %s: does not compile\n%v\n", name, res.CompileErrors)
			failed += max(1, res.CaseCount())
			continue
		}
		for _, p := range res.CitationProblems {
			fmt.Fprintf(stdout, "FAIL %s: citation: %s\n", name, p)
			failed++
		}
		for _, c := range res.Cases {
			if c.Pass {
				fmt.Fprintf(stdout, "PASS %s: %s\n", name, c.Name)
				passed++
				continue
			}
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %s\n", name, c.Name)
			for _, m := range c.Mismatches {
				fmt.Fprintf(stdout, "    %s\n", m)
			}
			if len(c.FailingCriteria) > 0 {
				fmt.Fprintf(stdout, "    failing criteria: %s\n", strings.Join(c.FailingCriteria, ", "))
			}
			if c.Result != nil && c.Result.Trace != nil {
				fmt.Fprint(stdout, "    trace: ")
				if err := writeJSON(stdout, c.Result.Trace, "    "); err != nil {
					return fmt.Errorf("encode trace: %w", err)
				}
			}
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return errSilentFailure
	}
	return nil
}

// writeJSON prints v as indented JSON, leaving <, > and & readable (the
// output is for people, not for an HTML page).
func writeJSON(w io.Writer, v any, prefix string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc.Encode(v)
}

// compileFile reads and compiles one .rules file, printing warnings.
func compileFile(path string, stderr io.Writer) (*engine.Ruleset, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	r, warnings, err := engine.Compile(path, src)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "%s (warning)\n", w)
	}
	return r, err
}
