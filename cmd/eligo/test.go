package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/solver/verify"
)

// testUsage is test's usage, and suggestUsage that of its --suggest form.
const (
	suggestUsage = "usage: eligo test --suggest FILE [CASES.json] [--date YYYY-MM-DD] | eligo test --suggest DIR [--date YYYY-MM-DD]"
	testUsage    = "usage: eligo test [--trace] FILE CASES.json | eligo test [--trace] DIR\n" + suggestUsage
)

// runTest runs test cases: `eligo test FILE CASES.json` runs one file's
// cases, `eligo test DIR` a folder (package folder) or every folder under DIR
// (verifying citations too), a rulebook folder's cases running against
// its composed ruleset. It prints each case's verdict, what failed (the
// answers the rules could not take first, then the outcome and the
// failing criteria; with --trace the evaluation trace too), and a final
// "N passed, N failed".
// With --suggest it judges the cases instead (see runSuggest).
func runTest(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	if slices.ContainsFunc(args, func(a string) bool {
		return strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-") == "suggest" && strings.HasPrefix(a, "-")
	}) {
		return runSuggest(ctx, clk, args, stdout, stderr)
	}
	trace := slices.Contains(args, "--trace")
	args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--trace" })
	var results []*folder.Result
	switch len(args) {
	case 1:
		entries, err := folder.DiscoverAll(args[0])
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
		cases, err := folder.ParseCases(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", args[1], err)
		}
		f := &folder.Folder{Name: args[0], RulesPath: args[0], Rules: src, Cases: cases, Source: []byte{}}
		res, err := f.Run(ctx)
		if err != nil {
			return err
		}
		res.CitationProblems = nil // no source text given: nothing to verify
		results = append(results, res)
	default:
		return errors.New(testUsage)
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
			if trace && c.Result != nil && c.Result.Trace != nil {
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

// runSuggest is `eligo test --suggest FILE [CASES.json] [--date
// YYYY-MM-DD]`, or `--suggest DIR` for a ruleset folder and its
// cases.json. It prints to stdout, as a JSON array ready to paste into
// cases.json, the cases the solver suggests for what the given cases leave
// untested (verify.SuggestCases; each case named after its goal, dated
// --date, default today, when the rules read the decision date), and to
// stderr the goals no answer set reaches and those the solver could not
// decide, then the mutation score of the
// given cases with one line per surviving mutant, and the score the suite
// would have with the suggestions added.
func runSuggest(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("suggest", true, "")
	date := fs.String("date", value.FormatDate(value.DateOf(clk.Now())), "")
	pos, err := parseInterspersed(fs, args)
	if err != nil || len(pos) == 0 || len(pos) > 2 {
		return errors.New(suggestUsage)
	}
	rulesPath, cases := pos[0], []engine.Case(nil)
	if st, err := os.Stat(rulesPath); err == nil && st.IsDir() && len(pos) == 1 {
		f, err := folder.Load(ctx, rulesPath)
		if err != nil {
			return err
		}
		rulesPath, cases = f.RulesPath, f.Cases
	} else if len(pos) == 2 {
		raw, err := os.ReadFile(pos[1])
		if err != nil {
			return fmt.Errorf("read cases: %w", err)
		}
		if cases, err = folder.ParseCases(raw); err != nil {
			return fmt.Errorf("%s: %w", pos[1], err)
		}
	}
	r, err := compileFile(rulesPath, stderr)
	if err != nil {
		return err
	}
	found, err := verify.SuggestCasesReport(ctx, r, cases, verify.SuggestOptions{DecisionDate: *date})
	if err != nil {
		return err
	}
	suggestions := found.Suggestions
	if found.Incomplete != nil {
		fmt.Fprintf(stderr, "suggestions stopped early: %s; these are the %d goals decided\n", found.Incomplete.Detail, found.Done)
	}
	suggested := []engine.Case{}
	for _, s := range suggestions {
		switch {
		case s.Reachable:
			suggested = append(suggested, s.Case)
		case s.Undecided:
			fmt.Fprintf(stderr, "undecided: %s\n", s.Goal)
		default:
			fmt.Fprintf(stderr, "unreachable: %s\n", s.Goal)
		}
	}
	if err := writeJSON(stdout, suggested, ""); err != nil {
		return fmt.Errorf("encode cases: %w", err)
	}
	rep, err := verify.MutationScore(ctx, r, cases)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mutation score: %s; survivors:", scoreText(rep))
	if len(rep.Survivors) == 0 {
		fmt.Fprint(stderr, " none")
	}
	fmt.Fprintln(stderr)
	for _, m := range rep.Survivors {
		fmt.Fprintf(stderr, "  %s: %s\n", m.ID, m.Description)
	}
	if len(suggested) > 0 {
		grown, err := verify.MutationScore(ctx, r, append(slices.Clip(cases), suggested...))
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "with the suggested cases: %s\n", scoreText(grown))
	}
	if err := ctx.Err(); err != nil {
		// SIGTERM or SIGINT: what was decided is printed; say it stopped.
		return fmt.Errorf("stopped before the end: %w", err)
	}
	return nil
}

// scoreText is "41/47 (87%)"; the percentage is rounded down, so that 100%
// means no survivor. A run that stopped early has no score: it says how
// far it got and why.
func scoreText(rep verify.MutationReport) string {
	if rep.Incomplete != nil {
		return fmt.Sprintf("not finished (%s): %d killed of %d decided", rep.Incomplete.Detail, rep.Killed, rep.Total)
	}
	text := fmt.Sprintf("%d/%d (%.0f%%)", rep.Killed, rep.Total, math.Floor(100*rep.Score))
	if rep.Sampled {
		text += fmt.Sprintf(", a sample of %d of %d mutants", rep.Planned, rep.Candidates)
	}
	return text
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
