package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/verify"
)

// checkUsage is check's usage.
const checkUsage = "usage: eligo check FILE [FILE ...]"

// runCheck compiles each file and prints its errors and warnings, then the
// findings of the solver's static analysis (a criterion no answer
// satisfies, a question that never matters, ...) as more warnings, and last
// the effective periods that overlap or leave a gap among the rulesets
// that share a slug (the files checked and, in the casebank layout, the
// folders beside theirs). It fails when any file has an error; warnings and
// findings never fail it, since the law itself can make a criterion
// redundant.
func runCheck(ctx context.Context, _ clock.Clock, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(checkUsage)
	}
	periods, checked := newSlugPeriods(), map[string]bool{}
	defer func() {
		periods.addSiblings(args)
		periods.warn(checked, stderr)
	}()
	return eachFile(ctx, args, func(path string, src []byte) (bool, error) {
		r, warnings, err := engine.Compile(path, src)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "%s (warning)\n", w)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return false, nil
		}
		periods.add(path, r)
		checked[r.Slug] = true
		findings, err := verify.Analyze(ctx, r, verify.AnalyzeOptions{})
		for _, f := range findings {
			fmt.Fprintln(stderr, findingLine(path, f))
		}
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			// A check the solver could not decide in time costs a
			// finding, not the file: say so and go on.
			fmt.Fprintf(stderr, "%s: warning: analysis incomplete: %s\n", path, strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		fmt.Fprintf(stdout, "%s: ok\n", path)
		return true, nil
	})
}

// findingLine is one analysis finding as a warning line, "FILE: warning:
// KIND SUBJECT: MESSAGE", the subject being the criterion, group or field
// (none for an outcome finding), followed by the witness as JSON when the
// finding has one.
func findingLine(path string, f verify.Finding) string {
	head := f.Kind
	for _, subject := range []string{f.Criterion, f.Group, f.Field} {
		if subject != "" {
			head += " " + subject
			break
		}
	}
	line := fmt.Sprintf("%s: warning: %s: %s", path, head, f.Message)
	if len(f.Witness) > 0 {
		if b, err := json.Marshal(f.Witness); err == nil {
			line += " witness: " + string(b)
		}
	}
	return line
}
