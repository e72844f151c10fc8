package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
)

// runEval evaluates one file against a field_values JSON object and prints
// the full decision, trace and explanation included, with the next question,
// the optimal path and the choice context.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var positional []string
	var date int64
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--date" || a == "-date" {
			if i+1 >= len(args) {
				return errors.New("--date needs a YYYY-MM-DD value")
			}
			i++
			d, ok := engine.ParseDate(args[i])
			if !ok {
				return fmt.Errorf("--date %q is not a YYYY-MM-DD date", args[i])
			}
			date = d
			continue
		}
		positional = append(positional, a)
	}
	if len(positional) != 2 {
		return errors.New("usage: eligo eval FILE VALUES.json [--date YYYY-MM-DD]")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := compileFile(positional[0], stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return errSilentFailure
	}
	raw, err := os.ReadFile(positional[1])
	if err != nil {
		return fmt.Errorf("read values: %w", err)
	}
	in, err := r.Convert(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", positional[1], err)
	}
	hash, err := engine.InputsHash(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", positional[1], err)
	}
	res := r.Evaluate(in, engine.Options{DecisionDate: date, Trace: true, Explanation: true})
	planner := solver.NewPlanner(1)
	defer planner.Close()
	plan, err := planner.Plan(ctx, r, in, res, solver.InquiryContext{})
	if err != nil {
		return fmt.Errorf("plan the next questions: %w", err)
	}
	// The report, then next_question, optimal_path and choice_context.
	out := struct {
		engine.Report
		solver.Plan
	}{r.Report(res, hash), plan}
	if err := writeJSON(stdout, out, ""); err != nil {
		return fmt.Errorf("encode decision: %w", err)
	}
	return nil
}
