// Command eligo is the Eligo rules service and its tools in one binary.
//
// Each subcommand lives in its own file of this package and is listed once in
// the commands table below, so `eligo help` and the dispatcher cannot drift.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"syscall"

	"github.com/eligo/eligo/clock"
)

// command is one subcommand: a one-line summary for `eligo help` and the
// function that runs it. run returns an error to print and exit non-zero;
// errSilentFailure exits non-zero without printing (the command already
// reported what went wrong). clk is the one clock the command reads
// "today" and "now" from (see todayEnv).
type command struct {
	summary string
	// usage is what `eligo CMD --help` prints above the summary, for a
	// command that reads its arguments itself; empty for one that parses
	// them with a flag.FlagSet, which prints its own flags on -h.
	usage string
	run   func(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) error
}

// todayEnv names the environment variable that sets every command's
// clock: empty for the system clock, or a YYYY-MM-DD day the clock starts
// at (clock.Parse). Tests, example recording and demos set it so that
// decisions "as of today" do not change as the calendar moves.
const todayEnv = "ELIGO_TODAY"

// errSilentFailure makes main exit with status 1 without printing anything
// more: the command has already written its own report (for example failing
// test cases).
var errSilentFailure = errors.New("failed")

// commands lists every subcommand. Add a new one here and in its own file.
func commands() map[string]command {
	return map[string]command{
		"check":      {summary: "compile .rules files and report errors, warnings and the solver's findings", usage: checkUsage, run: runCheck},
		"fmt":        {summary: "print .rules files canonically (-w rewrites them)", usage: fmtUsage, run: runFmt},
		"test":       {summary: "run test cases: FILE CASES.json, or a casebank DIR; --suggest prints the cases a suite is missing and its mutation score", usage: testUsage, run: runTest},
		"eval":       {summary: "evaluate FILE against VALUES.json and print the decision", usage: evalUsage, run: runEval},
		"diff":       {summary: "say whom a new version affects: OLD NEW (files or published rulesets), with a witness per change", usage: diffUsage, run: runDiff},
		"impact":     {summary: "say how many cases a rule change moves: decide a caseload (JSON Lines or CSV) on --baseline and --candidate rules and count the changes", usage: impactUsage, run: runImpact},
		"serve":      {summary: "migrate the database, then serve the HTTP API", run: runServe},
		"worker":     {summary: "run background jobs (serve runs them too unless --worker=false)", run: runWorker},
		"migrate":    {summary: "apply database migrations (Eligo's and River's)", run: runMigrate},
		"keys":       {summary: "create, list or revoke API keys", run: runKeys},
		"namespaces": {summary: "list slug namespaces, or release, transfer or verify one (operator)", run: runNamespaces},
		"decisions":  {summary: "ship --spool DIR: drain a decision spool left by a serve process that will not come back", run: runDecisions},
		"publish":    {summary: "publish a .rules FILE for a tenant after its test cases pass", run: runPublish},
		"graph":      {summary: "print a ruleset's graph as JSON, or --mermaid flowchart text", usage: graphUsage, run: runGraph},
		"rulebook":   {summary: "check a rulebook FOLDER|FILE, or eval answers against it with section results", usage: rulebookUsage, run: runRulebook},
		"lsp":        {summary: "serve the Language Server Protocol on stdin and stdout for editors: diagnostics, quick fixes, formatting, hover, navigation, completion", usage: lspUsage, run: runLSP},
		"openapi":    {summary: "print the OpenAPI document (--version 3.1|3.0) built from the code; no database needed", run: runOpenAPI},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches args to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout, cmds)
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "eligo: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	clk, err := clock.Parse(os.Getenv(todayEnv))
	if err != nil {
		fmt.Fprintf(stderr, "eligo: %s: %v\n", todayEnv, err)
		return 2
	}
	if cmd.usage != "" && wantsHelp(args[1:]) {
		fmt.Fprintf(stdout, "%s\n\n%s\n", cmd.usage, cmd.summary)
		return 0
	}
	if err := cmd.run(ctx, clk, args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // the command's flag set printed its usage
		}
		if !errors.Is(err, errSilentFailure) {
			fmt.Fprintf(stderr, "eligo %s: %v\n", args[0], err)
		}
		return 1
	}
	return 0
}

// wantsHelp says whether args ask for help: -h, -help or --help among
// them.
func wantsHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: eligo <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, cmds[name].summary)
	}
}
