package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/rulebook"
)

// rulebookUsage is rulebook's usage text.
const rulebookUsage = `usage: eligo rulebook check FOLDER|FILE
       eligo rulebook eval FOLDER|FILE --values JSON|@VALUES.json [--date YYYY-MM-DD] [--explain-failure EXPECTED]
       eligo rulebook publish FOLDER|FILE --tenant T [--slug S] [--public]

  FOLDER is a rulebook folder (rulebook.json and cases.json, see
  casebank/README.md); FILE is a lone rulebook file. Flags may come before
  or after FOLDER|FILE.

  check   load and compose the rulebook; print its sections, fields,
          criteria, groups, composed content digest and warnings
  eval    evaluate field values against the composed rulebook as
          "eligo eval" does a ruleset, plus each section's own decision
          (section_results); --values takes the JSON object itself or
          @ and the path of a file holding it
  publish create (or edit) the tenant's rulebook over its published
          rulesets of the sections' section ids, floating, and activate it:
          a release, reused when the content is unchanged`

// runRulebook dispatches `eligo rulebook check|eval`: the offline tools
// for a rulebook kept as files, which compose it exactly as publication
// does (rulebook.Compose) and evaluate it with the ruleset tools'
// code, so a rulebook can be tried before it is published.
func runRulebook(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(rulebookUsage)
	}
	fs := flag.NewFlagSet("rulebook "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, rulebookUsage) }
	var values, date, explain string
	switch args[0] {
	case "publish":
		return runRulebookPublish(ctx, clk, args[1:], stdout, stderr)
	case "check":
	case "eval":
		fs.StringVar(&values, "values", "", "the field_values JSON object, or @FILE")
		fs.StringVar(&date, "date", "", "the decision date, YYYY-MM-DD (default: today)")
		fs.StringVar(&explain, "explain-failure", "", "print the minimal failure core for this expected outcome instead")
	default:
		return fmt.Errorf("unknown subcommand %q\n%s", args[0], rulebookUsage)
	}
	positional, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return errSilentFailure // the flag package has said why
	}
	if len(positional) != 1 {
		return errors.New(rulebookUsage)
	}
	if args[0] == "check" {
		return rulebookCheck(ctx, positional[0], stdout, stderr)
	}
	if values == "" {
		return fmt.Errorf("--values is required\n%s", rulebookUsage)
	}
	day := value.DateOf(clk.Now())
	if date != "" {
		d, ok := value.ParseDate(date)
		if !ok {
			return fmt.Errorf("--date %q is not a YYYY-MM-DD date", date)
		}
		day = d
	}
	raw, name := []byte(values), "--values"
	if path, ok := strings.CutPrefix(values, "@"); ok {
		if raw, err = os.ReadFile(path); err != nil {
			return fmt.Errorf("read values: %w", err)
		}
		name = path
	}
	b, err := loadRulebook(ctx, positional[0], stderr)
	if err != nil {
		return err
	}
	return rulebookEval(ctx, b, raw, name, day, explain, stdout)
}

// loadRulebook reads a rulebook folder, or a lone rulebook file, and
// prints its warnings. A rulebook whose content is wrong has its problems
// printed, one a line, and gives errSilentFailure.
func loadRulebook(ctx context.Context, path string, stderr io.Writer) (*folder.RulebookFolder, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read rulebook: %w", err)
	}
	var b *folder.RulebookFolder
	if st.IsDir() {
		b, err = folder.LoadRulebook(ctx, path)
	} else {
		b, err = folder.LoadRulebookFile(ctx, path)
	}
	var bad *folder.RulebookError
	if errors.As(err, &bad) {
		fmt.Fprintln(stderr, bad)
		return nil, errSilentFailure
	}
	if err != nil {
		return nil, err
	}
	for _, w := range b.Warnings {
		fmt.Fprintf(stderr, "%s: %s (warning)\n", b.Path, w)
	}
	return b, nil
}

// rulebookCheck loads and composes the rulebook at path and prints what it
// is made of: the sections by letter with their ids and digests, the
// outcome tree, the fields (and which are shared), the criteria and
// groups, and the composed ruleset's content digest.
func rulebookCheck(ctx context.Context, path string, stdout, stderr io.Writer) error {
	b, err := loadRulebook(ctx, path, stderr)
	if err != nil {
		return err
	}
	c := b.Composed
	fmt.Fprintf(stdout, "%s: ok\n", b.Path)
	fmt.Fprintf(stdout, "rulebook %s: %s\n", c.Rules.Slug, c.Rules.Name)
	fmt.Fprintln(stdout, "sections:")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for i, s := range c.Sections {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", s.Letter, s.SectionID, s.RulesetID, s.ContentDigest, b.Sections[i].RulesPath)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print sections: %w", err)
	}
	fmt.Fprintf(stdout, "outcome: %s\n", c.Outcome)
	for _, f := range c.Facts {
		fmt.Fprintf(stdout, "section fact: %s is section %s's outcome (not asked)\n", f.Field, f.Section)
	}
	fmt.Fprintf(stdout, "fields: %d, shared: %d%s\n", len(c.Rules.Fields), c.SharedFields(), sharedFields(c))
	fmt.Fprintf(stdout, "criteria: %d, groups: %d\n", c.Rules.NumCriteria(), len(c.Rules.Groups))
	fmt.Fprintf(stdout, "content digest: %s\n", c.Rules.ContentDigest())
	return nil
}

// sharedFields lists the shared fields with the letters of the sections
// declaring them, " (person.date_of_birth: A, B)", or "" when none is.
func sharedFields(c *rulebook.Composed) string {
	letter := make(map[string]string, len(c.Sections))
	for _, s := range c.Sections {
		letter[s.SectionID] = s.Letter
	}
	var parts []string
	for id, sections := range c.FieldSections {
		if len(sections) < 2 {
			continue
		}
		letters := make([]string, len(sections))
		for i, s := range sections {
			letters[i] = letter[s]
		}
		parts = append(parts, id+": "+strings.Join(letters, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return " (" + strings.Join(parts, "; ") + ")"
}

// rulebookEval evaluates raw (field_values, from name) against the
// composed rulebook as eval does a ruleset, and prints the decision with
// each section's own decision in section_results; the choice context
// names each field's and OR-group's own section, as /decide does for a
// rulebook. With explain set it prints the minimal failure core for that
// expected outcome instead.
func rulebookEval(ctx context.Context, b *folder.RulebookFolder, raw []byte, name string, date int64, explain string, stdout io.Writer) error {
	c := b.Composed
	in, hash, err := convertValues(c.Rules, raw, name)
	if err != nil {
		return err
	}
	if explain != "" {
		return printFailureCore(ctx, stdout, c.Rules, in, explain, date)
	}
	d, res, err := evaluate(ctx, c.Rules, in, hash, date)
	if err != nil {
		return err
	}
	d.ChoiceContext = d.ChoiceContext.InSections(c.FieldSections, c.GroupSectionID)
	out := struct {
		decision
		SectionResults []rulebook.SectionResult `json:"section_results"`
	}{d, c.SectionResults(res)}
	if err := writeJSON(stdout, out, ""); err != nil {
		return fmt.Errorf("encode decision: %w", err)
	}
	return nil
}
