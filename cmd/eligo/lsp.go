package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/lsp"
)

// lspUsage is lsp's usage.
const lspUsage = `usage: eligo lsp [--stdio] [--analysis-budget DURATION]

Speaks the Language Server Protocol on standard input and output, for an
editor to start: the compiler's errors and warnings with quick fixes, the
failing cases of a cases.json and the unverified quotes of a source.txt
beside the file, the solver's findings (within --analysis-budget, default
5s, in the background), formatting as eligo fmt, hover, go to definition,
references, the outline and completion. No network. docs/editors.md says
how to set up VS Code, Neovim and Emacs. --stdio is accepted and ignored
(standard input and output are the only transport).`

// runLSP is `eligo lsp`: a language server on the process's standard
// input and output until the editor sends exit or closes them.
func runLSP(ctx context.Context, _ clock.Clock, args []string, _, stderr io.Writer) error {
	fs := flag.NewFlagSet("lsp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("stdio", true, "use standard input and output (the only transport)")
	budget := fs.Duration("analysis-budget", lsp.DefaultAnalysisBudget, "the longest the solver's analysis of one version of a document may run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q\n%s", fs.Arg(0), lspUsage)
	}
	return lsp.Serve(ctx, os.Stdin, os.Stdout, lsp.Options{AnalysisBudget: *budget})
}
