package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/verify"
	"github.com/eligo/eligo/store"
)

const diffUsage = `usage: eligo diff [--json] [--date YYYY-MM-DD] [--database-url URL] OLD NEW
OLD and NEW are .rules files, or published rulesets (a ruleset_id or a slug)
read from --database-url (default DATABASE_URL). Prints whether any applicant gets a different
outcome and, for each kind of change, an applicant it happens to`

// runDiff compares two rulesets semantically (verify.Diff).
func runDiff(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error {
	var positional []string
	asJSON := false
	dbURL := os.Getenv("DATABASE_URL")
	opts := verify.DiffOptions{DecisionDate: value.DateOf(clk.Now())}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--json", "-json":
			asJSON = true
		case "--database-url", "-database-url":
			if i+1 >= len(args) {
				return errors.New("--database-url needs a URL")
			}
			i++
			dbURL = args[i]
		case "--date", "-date":
			d, err := dateArg(args, &i)
			if err != nil {
				return err
			}
			opts.DecisionDate = d
		default:
			positional = append(positional, a)
		}
	}
	if len(positional) != 2 {
		return errors.New(diffUsage)
	}
	var rules [2]*engine.Ruleset
	for i, ref := range positional {
		r, err := loadForDiff(ctx, ref, dbURL)
		if err != nil {
			return err
		}
		rules[i] = r
	}
	d, err := verify.Diff(ctx, rules[0], rules[1], opts)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	printDiff(stdout, d)
	return nil
}

// loadForDiff compiles a .rules file, or loads a published ruleset's
// stored content by id or slug.
func loadForDiff(ctx context.Context, ref, dbURL string) (*engine.Ruleset, error) {
	if src, err := os.ReadFile(ref); err == nil {
		r, _, err := engine.Compile(ref, src)
		return r, err
	} else if strings.HasSuffix(ref, ".rules") {
		return nil, err
	}
	pool, _, err := openMigrated(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("%s is not a file, and published rulesets cannot be read: %w", ref, err)
	}
	defer pool.Close()
	st := store.New(pool)
	cut, err := st.RulesetByRef(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("ruleset %s: %w", ref, err)
	}
	content, err := st.RulesetContent(ctx, cut.ID)
	if err != nil {
		return nil, err
	}
	return engine.LoadIR(content.IRVersion, content.IR)
}

// printDiff writes the diff for a reader.
func printDiff(w io.Writer, d verify.SemanticDiff) {
	for _, f := range d.Fields {
		fmt.Fprintf(w, "field %s %s: %s -> %s\n", f.Field, f.Kind, orDash(f.Old), orDash(f.New))
	}
	for _, t := range d.Thresholds {
		fmt.Fprintln(w, t.Message)
	}
	for _, f := range d.Figures {
		fmt.Fprintln(w, f.Message)
	}
	if d.PeriodsSetAside {
		fmt.Fprintln(w, "the versions hold for different periods: each is judged as its own law on the decision date")
	}
	if d.Equivalent {
		fmt.Fprintln(w, "equivalent: every applicant gets the same outcome")
		return
	}
	for _, c := range d.Changes {
		fmt.Fprintf(w, "%s -> %s, for example:\n", c.From, c.To)
		keys := make([]string, 0, len(c.Witness))
		for k := range c.Witness {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, _ := json.Marshal(c.Witness[k])
			fmt.Fprintf(w, "  %s = %s\n", k, v)
		}
		for _, cr := range c.Criteria {
			fmt.Fprintf(w, "  criterion %s: %s -> %s", cr.CriterionID, orDash(cr.Old), orDash(cr.New))
			if len(cr.NewQuotes) > 0 {
				fmt.Fprintf(w, " (%q)", cr.NewQuotes[0])
			} else if len(cr.OldQuotes) > 0 {
				fmt.Fprintf(w, " (%q)", cr.OldQuotes[0])
			}
			fmt.Fprintln(w)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
