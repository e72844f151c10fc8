package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/impact"
)

// impactUsage is impact's usage.
const impactUsage = `usage: eligo impact --baseline OLD --candidate NEW [--date YYYY-MM-DD] [--examples K] [--format jsonl|csv] CASELOAD
OLD and NEW are .rules files or ruleset folders; CASELOAD is a JSON Lines or CSV
file of applicants' answers (docs/impact.md). Decides every case on both and
prints the report as JSON on stdout, and a short summary on stderr.

  --date D       the decision date of a case that gives none (default today)
  --examples K   references kept per outcome transition, 0 to 100 (default 5)
  --format F     jsonl or csv (default: csv for a .csv file, jsonl otherwise)`

// runImpact runs a caseload against a baseline and a candidate ruleset
// (impact.Run) and prints the report.
func runImpact(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("impact", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, impactUsage) }
	baseline := fs.String("baseline", "", "the rules in force: a .rules file or a ruleset folder")
	candidate := fs.String("candidate", "", "the rules proposed: a .rules file or a ruleset folder")
	dateFlag := fs.String("date", "", "the decision date of a case that gives none (default today)")
	examples := fs.Int("examples", 5, "references kept per outcome transition")
	format := fs.String("format", "", "jsonl or csv (default by the file's extension)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 || *baseline == "" || *candidate == "" {
		return errors.New(impactUsage)
	}
	opts := impact.Options{DefaultDate: value.DateOf(clk.Now()), Examples: *examples, Format: impact.FormatOf(files[0])}
	if *dateFlag != "" {
		d, ok := value.ParseDate(*dateFlag)
		if !ok {
			return fmt.Errorf("--date %q is not a YYYY-MM-DD date", *dateFlag)
		}
		opts.DefaultDate = d
	}
	if *format != "" {
		if opts.Format, err = impact.ParseFormat(*format); err != nil {
			return err
		}
	}
	for _, side := range []struct {
		path string
		dst  **engine.Ruleset
	}{{*baseline, &opts.Baseline}, {*candidate, &opts.Candidate}} {
		r, err := loadRuleset(ctx, side.path, stderr)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return errSilentFailure
		}
		*side.dst = r
	}
	f, err := os.Open(files[0])
	if err != nil {
		return fmt.Errorf("open caseload: %w", err)
	}
	defer f.Close()
	rep, err := impact.Run(ctx, f, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	if err := writeJSON(stdout, rep, ""); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	printImpactSummary(stderr, rep)
	return nil
}

// loadRuleset compiles a .rules file, or the rules of a ruleset folder
// (docs/folders.md#ruleset-folders), printing warnings to stderr.
func loadRuleset(ctx context.Context, path string, stderr io.Writer) (*engine.Ruleset, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		f, err := folder.Load(ctx, path)
		if err != nil {
			return nil, err
		}
		path = f.RulesPath
	}
	return compileFile(path, stderr)
}

// printImpactSummary writes the report's gist for a reader: the counts,
// the transitions that changed an outcome, and what changed most often.
func printImpactSummary(w io.Writer, rep *impact.Report) {
	var bad int64
	for _, b := range rep.BadRows {
		bad += b.Count
	}
	fmt.Fprintf(w, "%d cases, %d with a different outcome, %d bad rows\n", rep.Cases, rep.Changed, bad)
	for _, t := range rep.Transitions {
		if t.From != t.To {
			fmt.Fprintf(w, "  %s -> %s: %d\n", t.From, t.To, t.Count)
		}
	}
	const most = 5
	list := func(label string, n int, item func(i int) string) {
		if n == 0 {
			return
		}
		items := make([]string, 0, most)
		for i := range min(n, most) {
			items = append(items, item(i))
		}
		fmt.Fprintf(w, "%s: %s\n", label, strings.Join(items, ", "))
	}
	list("criteria changed most often", len(rep.Criteria), func(i int) string {
		return fmt.Sprintf("%s (%d)", rep.Criteria[i].ID, rep.Criteria[i].Count)
	})
	list("values changed most often", len(rep.Values), func(i int) string {
		return fmt.Sprintf("%s (%d)", rep.Values[i].ID, rep.Values[i].Count)
	})
	for _, group := range []struct {
		label   string
		reasons []impact.Reason
	}{{"bad rows", rep.BadRows}, {"unread answers", rep.UnreadAnswers}, {"undecided", rep.Undecided}} {
		list(group.label, len(group.reasons), func(i int) string {
			return fmt.Sprintf("%s (%d)", group.reasons[i].Reason, group.reasons[i].Count)
		})
	}
}
