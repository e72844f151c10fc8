package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/solver/verify"
)

// Where each diagnostic comes from, as an editor shows it.
const (
	sourceCompile  = "eligo check"
	sourceCases    = "eligo test"
	sourceAnalysis = "eligo check (solver)"
)

// compiled is what one version of a document compiles to, with what the
// editor's requests read of it.
type compiled struct {
	// path is the document's file, "" when it is not a saved file.
	path  string
	text  *text
	file  *syntax.File
	names *names
	// ruleset is nil when the text does not compile.
	ruleset *engine.Ruleset
	// errs are the compile errors, warnings the warnings.
	errs, warnings syntax.ErrorList
}

// compile parses and compiles one version of a document. The file name
// errors carry is the document's path, so messages read as `eligo
// check`'s do.
func compile(path, src string) *compiled {
	c := &compiled{path: path, text: newText(src), names: namesOf(syntax.Tokens([]byte(src)))}
	name := path
	if name == "" {
		name = "untitled.rules"
	}
	c.file, _ = syntax.Parse(name, []byte(src))
	r, warnings, err := engine.Compile(name, []byte(src))
	c.ruleset, c.warnings = r, warnings
	var list syntax.ErrorList
	if errors.As(err, &list) {
		c.errs = list
	}
	return c
}

// errorRange is the range of a compile error: the lexeme it is at (a
// misspelt field, an unclosed string to the end of its line, the second
// operator of a chained comparison), a declaration's keyword and id when
// it is at the keyword (a field no criterion reads), or the rest of the
// line when it is at none.
func (c *compiled) errorRange(p syntax.Pos) Range {
	for i, t := range c.names.code {
		if t.Start != p {
			continue
		}
		// A problem with a declaration is placed at its keyword; its
		// range runs on to the id it declares.
		if o, ok := c.names.at(c.names.code[min(i+1, len(c.names.code)-1)].Start); ok && o.decl && o.extentStart == p {
			return c.text.span(t.Start, o.end)
		}
		return c.text.span(t.Start, t.End)
	}
	if i := c.names.tokenAt(p); i >= 0 {
		t := c.names.code[i]
		return c.text.span(t.Start, t.End)
	}
	start := c.text.toLSP(p)
	end := Position{Line: start.Line, Character: utf16Width(c.text.line(start.Line))}
	if !before(start, end) {
		end.Character = start.Character + 1
	}
	return Range{Start: start, End: end}
}

// compileDiagnostics are the compile errors and warnings, `eligo check`'s
// words without the file:line:col the range already says.
func (c *compiled) compileDiagnostics() []Diagnostic {
	var out []Diagnostic
	for _, list := range []struct {
		errs     syntax.ErrorList
		severity int
	}{{c.errs, SeverityError}, {c.warnings, SeverityWarning}} {
		for _, e := range list.errs {
			out = append(out, Diagnostic{Range: c.errorRange(e.Pos), Severity: list.severity, Source: sourceCompile, Message: e.Msg})
		}
	}
	return out
}

// declRange is the range of the id of the declaration of name, or of the
// first line when it has none (a finding about the outcome, say).
func (c *compiled) declRange(kind syntax.DeclKind, name string) Range {
	if o, ok := c.names.decl(kind, name); ok {
		return c.text.span(o.start, o.end)
	}
	return Range{End: Position{Character: utf16Width(c.text.line(0))}}
}

// outcomeRange is the range of the outcome keyword, or the first line.
func (c *compiled) outcomeRange() Range {
	if c.file != nil && c.file.Outcome != nil {
		p := c.file.Outcome.Pos
		return c.text.span(p, syntax.Pos{Line: p.Line, Col: p.Col + len("outcome")})
	}
	return Range{End: Position{Character: utf16Width(c.text.line(0))}}
}

// folderDiagnostics are what the files beside the document say about it,
// for a document saved in a ruleset folder: the failing cases of a
// cases.json there (on the criteria that fail them) and the quotes the
// folder's source text does not verify. (Effective periods, which compile
// the folders beside it, come later with the analysis.)
func (c *compiled) folderDiagnostics(path string) []Diagnostic {
	if path == "" || c.ruleset == nil {
		return nil
	}
	dir := filepath.Dir(path)
	var out []Diagnostic
	if raw, err := os.ReadFile(filepath.Join(dir, "cases.json")); err == nil {
		out = append(out, c.caseDiagnostics(raw)...)
	}
	if _, src := readSource(dir); src != nil {
		out = append(out, c.citeDiagnostics(src)...)
	}
	return out
}

// caseDiagnostics runs the cases of a cases.json: each failing case is
// an error on every criterion it fails, or on the outcome when it names
// none; a cases.json that does not parse is one error on the first line.
func (c *compiled) caseDiagnostics(raw []byte) []Diagnostic {
	cases, err := folder.ParseCases(raw)
	if err != nil {
		return []Diagnostic{{Range: Range{End: Position{Character: utf16Width(c.text.line(0))}}, Severity: SeverityError, Source: sourceCases,
			Message: fmt.Sprintf("cases.json beside this file: %v", err)}}
	}
	var out []Diagnostic
	for _, tc := range cases {
		res := c.ruleset.RunCase(tc)
		if res.Pass {
			continue
		}
		msg := fmt.Sprintf("case %q fails: %s", res.Name, strings.Join(res.Mismatches, "; "))
		if len(res.FailingCriteria) == 0 {
			out = append(out, Diagnostic{Range: c.outcomeRange(), Severity: SeverityError, Code: "case", Source: sourceCases, Message: msg})
			continue
		}
		for _, id := range res.FailingCriteria {
			out = append(out, Diagnostic{Range: c.declRange(syntax.DeclCriterion, id), Severity: SeverityError, Code: "case", Source: sourceCases,
				Message: fmt.Sprintf("%s (criterion %s fails it)", msg, id)})
		}
	}
	return out
}

// readSource is the folder's source text (folder.SourceNames) and its
// path, nil when it has none.
func readSource(dir string) (string, []byte) {
	for _, name := range folder.SourceNames() {
		path := filepath.Join(dir, name)
		if b, err := os.ReadFile(path); err == nil {
			return path, b
		}
	}
	return "", nil
}

// quoteProblem is "" when the folder's source text verifies a cite's
// quote, else why it does not.
func quoteProblem(q folder.Quotes, source, quote string) string {
	if !q.HasSection(source) {
		return fmt.Sprintf("the source text has no \"== %s ==\" section", source)
	}
	if !q.Contains(source, quote) {
		why := fmt.Sprintf("the quote does not appear in section %s of the source text: it must match word for word", source)
		if near, ok := q.Nearest(source, quote); ok {
			why += fmt.Sprintf(". The nearest passage in the source is “%s”.", near)
		}
		return why
	}
	return ""
}

// citeDiagnostics are a warning on each cite line whose quote the
// folder's source text does not verify.
func (c *compiled) citeDiagnostics(src []byte) []Diagnostic {
	q := folder.NewQuotes(src)
	var out []Diagnostic
	for _, d := range c.file.Declarations() {
		if d.Kind != syntax.DeclCriterion {
			continue
		}
		for _, cite := range d.Criterion.Cites {
			if why := quoteProblem(q, cite.Source, cite.Quote); why != "" {
				out = append(out, Diagnostic{Range: c.lineRange(cite.Pos), Severity: SeverityWarning, Code: "citation", Source: sourceCases,
					Message: fmt.Sprintf("criterion %s: %s", d.ID, why)})
			}
		}
	}
	return out
}

// lineRange is from p to the end of its line.
func (c *compiled) lineRange(p syntax.Pos) Range {
	start := c.text.toLSP(p)
	return Range{Start: start, End: Position{Line: start.Line, Character: utf16Width(c.text.line(start.Line))}}
}

// periodDiagnostics are the problems engine.CheckPeriods finds between
// the document's effective period and those of the casebank folders
// beside its own (folder.Siblings) under the same slug, on the effective
// line (the first line when it has none).
func (c *compiled) periodDiagnostics(path string) []Diagnostic {
	if path == "" || c.ruleset == nil {
		return nil
	}
	entries := []engine.PeriodEntry{{Name: filepath.Base(path), Period: c.ruleset.Effective}}
	for _, s := range folder.Siblings(path) {
		if s.Ruleset.Slug == c.ruleset.Slug {
			entries = append(entries, engine.PeriodEntry{Name: filepath.Base(s.Path), Period: s.Ruleset.Effective})
		}
	}
	at := Range{End: Position{Character: utf16Width(c.text.line(0))}}
	if c.file.Effective != nil {
		at = c.lineRange(c.file.Effective.Pos)
	}
	var out []Diagnostic
	for _, p := range engine.CheckPeriods(entries) {
		if strings.Contains(p, filepath.Base(path)) {
			out = append(out, Diagnostic{Range: at, Severity: SeverityWarning, Code: "effective_periods", Source: sourceCompile, Message: "effective periods: " + p})
		}
	}
	return out
}

// analysisDiagnostics are the solver's static-analysis findings
// (verify.Analyze, what `eligo check` prints) as warnings on what they are
// about, within budget; an analysis cut short says so in one more
// diagnostic, as `eligo check` does. A cancelled analysis returns
// ctx's error and no diagnostics.
func (c *compiled) analysisDiagnostics(ctx context.Context, budget, checkBudget time.Duration) ([]Diagnostic, error) {
	if c.ruleset == nil {
		return nil, nil
	}
	findings, err := verify.Analyze(ctx, c.ruleset, verify.AnalyzeOptions{Timeout: budget, CheckTimeout: checkBudget})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var out []Diagnostic
	for _, f := range findings {
		at := c.outcomeRange()
		switch {
		case f.Criterion != "":
			at = c.declRange(syntax.DeclCriterion, f.Criterion)
		case f.Group != "":
			at = c.declRange(syntax.DeclGroup, f.Group)
		case f.Field != "":
			at = c.declRange(syntax.DeclField, f.Field)
		}
		out = append(out, Diagnostic{Range: at, Severity: SeverityWarning, Code: f.Kind, Source: sourceAnalysis, Message: f.Message})
	}
	if err != nil {
		out = append(out, Diagnostic{Range: Range{End: Position{Character: utf16Width(c.text.line(0))}}, Severity: SeverityInformation, Code: "analysis_incomplete",
			Source: sourceAnalysis, Message: "analysis incomplete: " + strings.ReplaceAll(err.Error(), "\n", "; ")})
	}
	return out, nil
}
