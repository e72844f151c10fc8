// Package folder reads the folder format: a ruleset folder <name>/
// holding <name>.rules, its test cases (cases.json) and the text of the
// law it cites (source.txt, source.md or source.html), or a rulebook
// folder holding rulebook.json, whose sections are .rules files of their
// own, and its cases. It runs a folder's cases against its compiled rules
// and checks that every quote the rules cite appears in the cited source's
// section of that text. The format is in docs/folders.md#ruleset-folders.
//
// The CLI (`eligo test`, `eligo publish`, `eligo rulebook`) reads users'
// folders through this package, and the tests, benchmarks and load
// generator read the casebank's folders the same way, so the casebank is
// data only. The engine and the rulebook package do no I/O; this package
// is where the files are read.
package folder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/eligo/eligo/authoring/source"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// Folder is one ruleset folder, read from disk.
type Folder struct {
	// Name is the folder's base name; the rules file is <Name>.rules.
	Name string
	// Dir is the folder's path as given to Load.
	Dir string
	// RulesPath is Dir/<Name>.rules; compile errors carry it.
	RulesPath string
	// Rules is the rules file's content.
	Rules []byte
	// SourcePath is source.txt, source.md or source.html, whichever exists.
	SourcePath string
	// Source is the content of SourcePath, which citations are verified
	// against; nil when the folder has no source file.
	Source []byte
	// Cases are the test cases of cases.json, in file order.
	Cases []engine.Case
}

// SourceNames are the accepted names of a folder's source text, in the
// order they are looked for. `eligo publish` looks for the same names
// beside a lone .rules file, so that the format is named in one place; a
// new slice each call, so no caller can change another's.
func SourceNames() []string { return []string{"source.txt", "source.md", "source.html"} }

// ErrNotFolder is returned when a directory is neither a ruleset folder
// (no <name>.rules file) nor a rulebook folder (no rulebook.json). Its
// message says "casebank folder", as the CLI has always printed it.
var ErrNotFolder = errors.New("not a casebank folder")

// ErrRulebookFolder is returned when a function that reads ruleset folders
// (Load, Discover) is pointed at a rulebook folder, so that the caller is
// told to use LoadRulebook rather than that the folder is missing a file.
var ErrRulebookFolder = errors.New("a rulebook folder, not a ruleset folder")

// Kind says what a folder holds. The two kinds are run alike
// (their cases against one compiled ruleset) but read differently.
type Kind int

const (
	// KindRuleset is a folder <name>/ holding <name>.rules, read by Load.
	KindRuleset Kind = iota + 1
	// KindRulebook is a folder holding RulebookFile, read by LoadRulebook.
	KindRulebook
)

// String names the kind for messages.
func (k Kind) String() string {
	switch k {
	case KindRuleset:
		return "ruleset"
	case KindRulebook:
		return "rulebook"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// KindOf tells a ruleset folder from a rulebook folder by the files it
// holds. A folder with neither file is ErrNotFolder; one with both is an
// error too, since nothing could say which of the two its cases.json tests.
func KindOf(dir string) (Kind, error) {
	name := filepath.Base(filepath.Clean(dir))
	ruleset := exists(filepath.Join(dir, name+".rules"))
	book := exists(filepath.Join(dir, RulebookFile))
	switch {
	case ruleset && book:
		return 0, fmt.Errorf("%s: holds both %s.rules and %s: a casebank folder is a ruleset or a rulebook, so its cases.json tests one thing", dir, name, RulebookFile)
	case ruleset:
		return KindRuleset, nil
	case book:
		return KindRulebook, nil
	}
	return 0, fmt.Errorf("%s: %w (no %s.rules and no %s)", dir, ErrNotFolder, name, RulebookFile)
}

// exists reports whether path names an existing regular file.
func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// Load reads the ruleset folder dir. Pointed at a rulebook folder, it
// returns an error wrapping ErrRulebookFolder.
func Load(ctx context.Context, dir string) (*Folder, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Clean(dir))
	f := &Folder{Name: name, Dir: dir, RulesPath: filepath.Join(dir, name+".rules")}
	var err error
	if f.Rules, err = os.ReadFile(f.RulesPath); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if exists(filepath.Join(dir, RulebookFile)) {
				return nil, fmt.Errorf("%s: %w: it holds %s, not %s.rules; read it with LoadRulebook", dir, ErrRulebookFolder, RulebookFile, name)
			}
			return nil, fmt.Errorf("%s: %w (no %s.rules)", dir, ErrNotFolder, name)
		}
		return nil, fmt.Errorf("read rules: %w", err)
	}
	f.SourcePath, f.Source = readSource(dir)
	if f.Cases, err = readCases(dir); err != nil {
		return nil, err
	}
	return f, nil
}

// readSource reads the first of SourceNames that exists in dir, giving
// its path and content, or "" and nil when there is none.
func readSource(dir string) (path string, text []byte) {
	for _, s := range SourceNames() {
		p := filepath.Join(dir, s)
		if b, err := os.ReadFile(p); err == nil {
			return p, b
		}
	}
	return "", nil
}

// readCases reads and parses dir/cases.json, which every folder has,
// whatever its kind.
func readCases(dir string) ([]engine.Case, error) {
	casesPath := filepath.Join(dir, "cases.json")
	raw, err := os.ReadFile(casesPath)
	if err != nil {
		return nil, fmt.Errorf("read cases: %w", err)
	}
	cases, err := ParseCases(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", casesPath, err)
	}
	return cases, nil
}

// ParseCases reads a cases.json array, rejecting unknown members so a
// misspelt expectation cannot pass silently.
func ParseCases(raw []byte) ([]engine.Case, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var cases []engine.Case
	if err := dec.Decode(&cases); err != nil {
		return nil, fmt.Errorf("parse cases: %w", err)
	}
	for i, c := range cases {
		if _, ok := engine.ParseOutcome(c.ExpectedOutcome); !ok {
			return nil, fmt.Errorf("case %d (%s): expected_outcome %q is not eligible, not_eligible or undetermined", i, c.Name, c.ExpectedOutcome)
		}
	}
	return cases, nil
}

// Entry is one folder found by DiscoverAll: where it is and what
// it holds.
type Entry struct {
	// Dir is the folder's path.
	Dir string
	// Kind says whether it is a ruleset or a rulebook folder.
	Kind Kind
}

// Run loads the folder by its kind and runs it: Load and Folder.Run for a
// ruleset folder, LoadRulebook and RulebookFolder.Run for a rulebook
// folder. A rulebook whose content is wrong (a *RulebookError: a section
// that does not compile, a bad outcome tree, a refused composition) is
// reported the way a ruleset that does not compile is, in the result's
// CompileErrors, so that a run over many folders reports every bad
// folder instead of stopping at the first; files that cannot be read and
// a bad cases.json are errors, as for Load.
func (e Entry) Run(ctx context.Context) (*Result, error) {
	if e.Kind == KindRuleset {
		f, err := Load(ctx, e.Dir)
		if err != nil {
			return nil, err
		}
		return f.Run(ctx)
	}
	b, err := LoadRulebook(ctx, e.Dir)
	var bad *RulebookError
	if errors.As(err, &bad) {
		return &Result{Rulebook: &RulebookFolder{Name: filepath.Base(filepath.Clean(e.Dir)), Dir: e.Dir, Path: bad.Path},
			CompileErrors: err}, nil
	}
	if err != nil {
		return nil, err
	}
	return b.Run(ctx)
}

// DiscoverAll returns the folders of either kind at or under
// root: root itself when it is a ruleset or rulebook folder, otherwise
// each direct subdirectory that is one, sorted by path. Subdirectories
// that are neither are skipped; one holding both files is an error.
func DiscoverAll(root string) ([]Entry, error) {
	if k, err := KindOf(root); err == nil {
		return []Entry{{Dir: root, Kind: k}}, nil
	} else if !errors.Is(err, ErrNotFolder) {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("list casebank: %w", err)
	}
	var out []Entry
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(root, e.Name())
		k, err := KindOf(d)
		if errors.Is(err, ErrNotFolder) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{Dir: d, Kind: k})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w, and no subfolder is one", root, ErrNotFolder)
	}
	return out, nil
}

// Discover returns the ruleset folders at or under root, as DiscoverAll
// does but leaving rulebook folders out: it serves callers that compile
// each folder's <name>.rules themselves (the solver's differential test,
// benchmarks), to which a rulebook folder is not a ruleset. Pointed at a
// rulebook folder it returns an error wrapping ErrRulebookFolder.
func Discover(root string) ([]string, error) {
	all, err := DiscoverAll(root)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range all {
		if e.Kind == KindRuleset {
			dirs = append(dirs, e.Dir)
		}
	}
	if len(dirs) == 0 {
		if len(all) == 1 && all[0].Dir == root {
			return nil, fmt.Errorf("%s: %w; LoadRulebook reads it", root, ErrRulebookFolder)
		}
		return nil, fmt.Errorf("%s: %w, and no subfolder is a ruleset folder", root, ErrNotFolder)
	}
	return dirs, nil
}

// SourceSections splits a source text into its `== <source id> ==`
// sections, keyed by source id.
func SourceSections(text []byte) map[string]string {
	sections := map[string]string{}
	current := ""
	var b strings.Builder
	flush := func() {
		if current != "" {
			sections[current] += b.String()
		}
		b.Reset()
	}
	for _, line := range strings.Split(string(text), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "== ") && strings.HasSuffix(t, " ==") && len(t) > 6 {
			flush()
			current = strings.TrimSpace(t[3 : len(t)-3])
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	flush()
	return sections
}

// Quotes verifies quotes against the sections of one source text by
// engine's one quote rule (SourceText.Contains: white space forgiven,
// nothing else): what VerifyCitations and an editor's hover and warnings
// on cite lines (`eligo lsp`) ask of a folder's source text.
type Quotes struct {
	sections map[string]*engine.SourceText
	texts    map[string]string
}

// NewQuotes reads text's `== <source id> ==` sections (SourceSections).
func NewQuotes(text []byte) Quotes {
	q := Quotes{sections: map[string]*engine.SourceText{}, texts: SourceSections(text)}
	for id, s := range q.texts {
		q.sections[id] = engine.NewSourceText(s)
	}
	return q
}

// Nearest is the passage of source's section nearest a quote that is not
// in it as written (source.Words.Nearest, the search the studio's quote
// checks use), with its white space collapsed; ok is false when the
// section is missing or no passage is close enough. It scans the section
// once per call: for the few quotes that fail, not for every cite.
func (q Quotes) Nearest(sourceID, quote string) (passage string, ok bool) {
	text, found := q.texts[sourceID]
	if !found {
		return "", false
	}
	p, ok := source.NewWords(text).Nearest(quote)
	if !ok {
		return "", false
	}
	return engine.CollapseSpace(text[p.Start:p.End]), true
}

// HasSection reports whether the text has a section for source.
func (q Quotes) HasSection(source string) bool {
	_, ok := q.sections[source]
	return ok
}

// Contains reports whether quote appears in source's section; false when
// there is no such section.
func (q Quotes) Contains(source, quote string) bool {
	body, ok := q.sections[source]
	return ok && body.Contains(quote)
}

// VerifyCitations checks that every cited quote of r appears in the cited
// source's section of text (Quotes), the rule publish and authoring use.
// It returns one sentence per problem.
func VerifyCitations(r *engine.Ruleset, text []byte) []string {
	quotes := NewQuotes(text)
	var problems []string
	for _, s := range r.Sources {
		if !quotes.HasSection(s.ID) {
			problems = append(problems, fmt.Sprintf("source %s has no \"== %s ==\" section in the source text", s.ID, s.ID))
		}
	}
	for _, ci := range r.CitedQuotes() {
		if quotes.HasSection(ci.Source) && !quotes.Contains(ci.Source, ci.Quote) {
			problems = append(problems, fmt.Sprintf("%s %s: quote %q does not appear in section %s of the source text", ci.Kind, ci.ID, ci.Quote, ci.Source))
		}
	}
	return problems
}

// Result is the outcome of running one folder of either kind.
type Result struct {
	// Folder is the ruleset folder that was run; nil for a rulebook.
	Folder *Folder
	// Rulebook is the rulebook folder that was run; nil for a ruleset.
	Rulebook *RulebookFolder
	// CompileErrors is set when the rules do not compile (for a rulebook:
	// when it cannot be composed, a *RulebookError); no case runs.
	CompileErrors error
	// Warnings are the compiler's warnings (a rulebook's: its sections'),
	// reported even when the rules do not compile.
	Warnings syntax.ErrorList
	// CitationProblems lists quotes missing from the source text.
	CitationProblems []string
	// Cases are the verdicts on the folder's cases, in the same order; nil
	// when the rules do not compile.
	Cases []engine.CaseResult
	// Ruleset is the compiled ruleset (a rulebook's composition); nil when
	// the rules do not compile.
	Ruleset *engine.Ruleset
}

// Name is the name of the folder that was run, for reports that do not
// care which kind it is.
func (r *Result) Name() string {
	if r.Rulebook != nil {
		return r.Rulebook.Name
	}
	return r.Folder.Name
}

// CaseCount is how many cases the folder has, whether or not they ran: a
// report counts each as failed when the rules do not compile.
func (r *Result) CaseCount() int {
	if r.Rulebook != nil {
		return len(r.Rulebook.Cases)
	}
	return len(r.Folder.Cases)
}

// Run compiles the folder's rules, verifies its citations and runs its
// cases.
func (f *Folder) Run(ctx context.Context) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Folder: f}
	rs, warnings, err := engine.Compile(f.RulesPath, f.Rules)
	res.Warnings = warnings
	if err != nil {
		res.CompileErrors = err
		return res, nil
	}
	res.Ruleset = rs
	res.CitationProblems = citationProblems(rs, f.Source, f.Dir)
	for _, c := range f.Cases {
		res.Cases = append(res.Cases, rs.RunCase(c))
	}
	return res, nil
}

// citationProblems verifies r's citations against the source text read
// from dir, or says that dir has none.
func citationProblems(r *engine.Ruleset, source []byte, dir string) []string {
	if source == nil {
		return []string{"no source.txt, source.md or source.html in " + dir}
	}
	return VerifyCitations(r, source)
}

// DecideBodies returns one POST /decide body per case, in file order:
// ref's decision on the case's answers as of the date the case is decided
// (engine.Ruleset.CaseDate: its decision_date, else the first day of the
// effective period), with extra appended inside the object (e.g.
// `,"no_cache":true`). Benchmarks and the load generator send them, so
// that they measure the decisions the cases describe rather than the
// out-of-period answer the same answers get once the period has ended.
func (f *Folder) DecideBodies(ref, extra string) ([][]byte, error) {
	rs, _, err := engine.Compile(f.RulesPath, f.Rules)
	if err != nil {
		return nil, err
	}
	quoted, err := json.Marshal(ref)
	if err != nil {
		return nil, err
	}
	bodies := make([][]byte, len(f.Cases))
	for i, c := range f.Cases {
		date, err := rs.CaseDate(c)
		if err != nil {
			return nil, fmt.Errorf("case %q: %w", c.Name, err)
		}
		b := append([]byte(`{"ruleset_id":`), quoted...)
		if date != 0 {
			b = append(append(append(b, `,"decision_date":"`...), value.FormatDate(date)...), '"')
		}
		b = append(append(b, `,"field_values":`...), c.FieldValues...)
		bodies[i] = append(append(b, extra...), '}')
	}
	return bodies, nil
}

// Sibling is a compiled ruleset of a casebank folder beside another's.
type Sibling struct {
	// Path is its rules file.
	Path string
	// Ruleset is what it compiles to.
	Ruleset *engine.Ruleset
}

// Siblings are the rulesets of the folders beside the folder of the rules
// file path, in the casebank layout (<dir>/<name>/<name>.rules), path's
// own excluded: a new effective period is checked against the ones
// already there (`eligo check`, an editor) even when only its own file is
// named. Siblings that cannot be read or do not compile are left to their
// own check.
func Siblings(path string) []Sibling {
	self, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	paths, err := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(path)), "*", "*.rules"))
	if err != nil {
		return nil
	}
	var out []Sibling
	for _, sib := range paths {
		if abs, err := filepath.Abs(sib); err != nil || abs == self {
			continue
		}
		src, err := os.ReadFile(sib)
		if err != nil {
			continue
		}
		if r, _, err := engine.Compile(sib, src); err == nil {
			out = append(out, Sibling{Path: sib, Ruleset: r})
		}
	}
	return out
}
