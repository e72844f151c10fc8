package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/engine/value"
)

// graphResponse is the graph response (docs/api.md#the-graph) as far as it is known offline:
// the ruleset_id exists only once the API has stored the ruleset.
type graphResponse struct {
	Slug    string         `json:"slug"`
	Name    string         `json:"name"`
	Graph   *present.Graph `json:"graph"`
	Mermaid string         `json:"mermaid"`
}

// graphUsage is graph's usage.
const graphUsage = "usage: eligo graph FILE [--mermaid] [--values VALUES.json] [--date YYYY-MM-DD]"

// runGraph prints a ruleset's graph: the JSON body GET /rulesets/{id}/graph
// serves, or with --mermaid only the flowchart text, ready to paste into a
// Mermaid renderer. --values colours it with the decision on those answers
// (the overlay /decide returns), evaluated as of --date when given.
func runGraph(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	var file, valuesPath string
	var mermaidOnly bool
	date := value.DateOf(clk.Now())
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--mermaid", "-mermaid":
			mermaidOnly = true
		case "--values", "-values", "--date", "-date":
			if i+1 >= len(args) {
				return fmt.Errorf("%s needs a value\n%s", a, graphUsage)
			}
			i++
			if a == "--values" || a == "-values" {
				valuesPath = args[i]
				continue
			}
			d, ok := value.ParseDate(args[i])
			if !ok {
				return fmt.Errorf("--date %q is not a YYYY-MM-DD date", args[i])
			}
			date = d
		default:
			if file != "" {
				return errors.New(graphUsage)
			}
			file = a
		}
	}
	if file == "" {
		return errors.New(graphUsage)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := compileFile(file, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return errSilentFailure
	}
	var in *engine.Inputs
	var res *engine.Result
	if valuesPath != "" {
		raw, err := os.ReadFile(valuesPath)
		if err != nil {
			return fmt.Errorf("read values: %w", err)
		}
		if in, err = r.Convert(raw); err != nil {
			return fmt.Errorf("%s: %w", valuesPath, err)
		}
		res = r.Evaluate(in, engine.Options{DecisionDate: date, Explanation: true})
	}
	g := present.NewGraph(r, "", in, res)
	if mermaidOnly {
		_, err := io.WriteString(stdout, g.Mermaid())
		return err
	}
	slug := r.Slug
	if err := writeJSON(stdout, graphResponse{Slug: slug, Name: r.Name, Graph: g, Mermaid: g.Mermaid()}, ""); err != nil {
		return fmt.Errorf("encode graph: %w", err)
	}
	return nil
}
