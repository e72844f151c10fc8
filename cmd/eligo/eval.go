package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/plan"
)

// evalUsage is eval's usage line.
const evalUsage = `usage: eligo eval [--date YYYY-MM-DD] [--explain-failure EXPECTED] FILE VALUES.json

  --explain-failure EXPECTED   instead of the decision, print as JSON the minimal
                               set of criteria that keeps the answers from the
                               EXPECTED outcome (eligible, not_eligible or
                               undetermined), each with its facts, source
                               references and a mechanism hint; answers that
                               cannot be applied are listed in field_errors (an
                               unconvertible answer is explained as unanswered,
                               an overflowing one leaves no reasons)`

// runEval evaluates one file against a field_values JSON object and prints
// the full decision, trace and explanation included, with the next question,
// the optimal path and the choice context. With --explain-failure it prints
// the minimal failure core for an expected outcome instead.
func runEval(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	var positional []string
	date := value.DateOf(clk.Now())
	var explainExpected string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--explain-failure" || a == "-explain-failure" {
			if i+1 >= len(args) {
				return errors.New("--explain-failure needs the expected outcome: eligible, not_eligible or undetermined")
			}
			i++
			explainExpected = args[i]
			continue
		}
		if a == "--date" || a == "-date" {
			d, err := dateArg(args, &i)
			if err != nil {
				return err
			}
			date = d
			continue
		}
		positional = append(positional, a)
	}
	if len(positional) != 2 {
		return errors.New(evalUsage)
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
	in, hash, err := convertValues(r, raw, positional[1])
	if err != nil {
		return err
	}
	if explainExpected != "" {
		return printFailureCore(ctx, stdout, r, in, explainExpected, date)
	}
	d, _, err := evaluate(ctx, r, in, hash, date)
	if err != nil {
		return err
	}
	if err := writeJSON(stdout, d, ""); err != nil {
		return fmt.Errorf("encode decision: %w", err)
	}
	return nil
}

// convertValues reads a field_values JSON object for r: the inputs and
// their inputs_hash. name says where raw came from, for errors. Shared by
// eval and rulebook eval.
func convertValues(r *engine.Ruleset, raw []byte, name string) (*engine.Inputs, string, error) {
	in, err := r.Convert(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	hash, err := engine.InputsHash(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	return in, hash, nil
}

// decision is what eval prints: the report, then next_question,
// optimal_path and choice_context.
type decision struct {
	engine.Report
	plan.Plan
}

// evaluate decides in against r as of date, with trace and explanation,
// and plans the next questions: the decision eval prints, and the core of
// what rulebook eval prints, so the two cannot drift. It returns the
// result too, for the callers that need more of it (section results).
func evaluate(ctx context.Context, r *engine.Ruleset, in *engine.Inputs, hash string, date int64) (decision, *engine.Result, error) {
	res := r.Evaluate(in, engine.Options{DecisionDate: date, Trace: true, Explanation: true})
	planner := plan.NewPlanner(1)
	defer planner.Close()
	pl, err := planner.Plan(ctx, r, in, res, plan.InquiryContext{})
	if err != nil {
		return decision{}, nil, fmt.Errorf("plan the next questions: %w", err)
	}
	return decision{r.Report(res, hash), pl}, res, nil
}

// printFailureCore prints solver.ExplainFailure's answer for the expected
// outcome named by expected. Field errors, of conversion or of overflowing
// arithmetic, are part of that answer, printed in its field_errors with
// a zero exit as eval prints them in the decision.
func printFailureCore(ctx context.Context, stdout io.Writer, r *engine.Ruleset, in *engine.Inputs, expected string, date int64) error {
	want, ok := engine.ParseOutcome(expected)
	if !ok {
		return fmt.Errorf("--explain-failure %q: the expected outcome is eligible, not_eligible or undetermined", expected)
	}
	ex, err := solver.ExplainFailure(ctx, r, in, want, solver.ExplainOptions{DecisionDate: date})
	if err != nil {
		return fmt.Errorf("explain failure: %w", err)
	}
	if err := writeJSON(stdout, failureCoreOf(ex, date), ""); err != nil {
		return fmt.Errorf("encode explanation: %w", err)
	}
	return nil
}

// failureCore is what --explain-failure prints: the members of
// explain-ruleset-failure's answer that a file (rather than a published
// cut) has, in the same shape: reasons keyed by criterion id, the fewest
// changes, field_errors always a list, the date it was explained as of, and the period warning.
type failureCore struct {
	ExpectedOutcome string                   `json:"expected_outcome"`
	ActualOutcome   string                   `json:"actual_outcome"`
	Reasons         map[string]solver.Reason `json:"reasons"`
	ChangesNeeded   int                      `json:"changes_needed"`
	Changes         []string                 `json:"changes"`
	FieldErrors     []engine.FieldError      `json:"field_errors"`
	DecisionDate    string                   `json:"decision_date,omitempty"`
	Warnings        []engine.Warning         `json:"warnings,omitempty"`
}

// failureCoreOf shapes ex, explained as of date (an ordinal; 0 when the
// rules read no date), as failureCore.
func failureCoreOf(ex solver.Explanation, date int64) failureCore {
	out := failureCore{ExpectedOutcome: ex.Expected.String(), ActualOutcome: ex.Actual.String(),
		Reasons: map[string]solver.Reason{}, ChangesNeeded: ex.ChangesNeeded, Changes: append([]string{}, ex.Changes...),
		FieldErrors: append([]engine.FieldError{}, ex.FieldErrors...)}
	for _, r := range ex.Reasons {
		out.Reasons[r.CriterionID] = r
	}
	if date > 0 {
		out.DecisionDate = value.FormatDate(date)
	}
	if ex.PeriodWarning != "" {
		out.Warnings = []engine.Warning{{Code: engine.WarningOutsidePeriod, Message: ex.PeriodWarning}}
	}
	return out
}
