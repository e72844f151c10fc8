// Package casebank loads the real-world rulesets under casebank/: each
// folder's .rules file, its cases and its source text, and checks that
// every quote the rules cite appears in the cited source's section of that
// text. The engine does no I/O; this package is where the files are read.
package casebank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/eligo/eligo/engine"
)

// Folder is one casebank folder, read from disk.
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

// sourceNames are the accepted names of a folder's source text, in the
// order they are looked for.
var sourceNames = []string{"source.txt", "source.md", "source.html"}

// ErrNotFolder is returned when a directory holds no <name>.rules file.
var ErrNotFolder = errors.New("not a casebank folder")

// Load reads the folder dir.
func Load(ctx context.Context, dir string) (*Folder, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Clean(dir))
	f := &Folder{Name: name, Dir: dir, RulesPath: filepath.Join(dir, name+".rules")}
	var err error
	if f.Rules, err = os.ReadFile(f.RulesPath); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w (no %s.rules)", dir, ErrNotFolder, name)
		}
		return nil, fmt.Errorf("read rules: %w", err)
	}
	for _, s := range sourceNames {
		p := filepath.Join(dir, s)
		if b, err := os.ReadFile(p); err == nil {
			f.SourcePath, f.Source = p, b
			break
		}
	}
	casesPath := filepath.Join(dir, "cases.json")
	raw, err := os.ReadFile(casesPath)
	if err != nil {
		return nil, fmt.Errorf("read cases: %w", err)
	}
	if f.Cases, err = ParseCases(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", casesPath, err)
	}
	return f, nil
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

// Discover returns the casebank folders at or under root: root itself when
// it holds <base>.rules, otherwise each direct subdirectory that does,
// sorted by name.
func Discover(root string) ([]string, error) {
	base := filepath.Base(filepath.Clean(root))
	if _, err := os.Stat(filepath.Join(root, base+".rules")); err == nil {
		return []string{root}, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("list casebank: %w", err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(d, e.Name()+".rules")); err == nil {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s: %w, and no subfolder is one", root, ErrNotFolder)
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

// normalise collapses every run of white space to one space.
func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }

// VerifyCitations checks that every cited quote of r appears, white space
// normalised, in the cited source's section of text. It returns one
// sentence per problem.
func VerifyCitations(r *engine.Ruleset, text []byte) []string {
	sections := SourceSections(text)
	norm := map[string]string{}
	for id, s := range sections {
		norm[id] = normalise(s)
	}
	var problems []string
	for _, s := range r.Sources {
		if _, ok := sections[s.ID]; !ok {
			problems = append(problems, fmt.Sprintf("source %s has no \"== %s ==\" section in the source text", s.ID, s.ID))
		}
	}
	for gi := range r.Groups {
		for _, c := range r.Groups[gi].Criteria {
			for _, ci := range c.Citations {
				body, ok := norm[ci.Source]
				if !ok {
					continue
				}
				if !strings.Contains(body, normalise(ci.Quote)) {
					problems = append(problems, fmt.Sprintf("criterion %s: quote %q does not appear in section %s of the source text", c.ID, ci.Quote, ci.Source))
				}
			}
		}
	}
	return problems
}

// Result is the outcome of running one folder.
type Result struct {
	// Folder is the folder that was run.
	Folder *Folder
	// CompileErrors is set when the rules do not compile; no case runs.
	CompileErrors error
	// Warnings are the compiler's warnings, reported even when the rules
	// do not compile.
	Warnings engine.ErrorList
	// CitationProblems lists quotes missing from the source text.
	CitationProblems []string
	// Cases are the verdicts on Folder.Cases, in the same order; nil when
	// the rules do not compile.
	Cases []engine.CaseResult
	// Ruleset is the compiled ruleset; nil when the rules do not compile.
	Ruleset *engine.Ruleset
}

// Passed reports whether the folder compiled, its quotes verified and
// every case passed.
func (r *Result) Passed() bool {
	if r.CompileErrors != nil || len(r.CitationProblems) > 0 {
		return false
	}
	for _, c := range r.Cases {
		if !c.Pass {
			return false
		}
	}
	return true
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
	if f.Source == nil {
		res.CitationProblems = append(res.CitationProblems, "no source.txt, source.md or source.html in "+f.Dir)
	} else {
		res.CitationProblems = VerifyCitations(rs, f.Source)
	}
	for _, c := range f.Cases {
		res.Cases = append(res.Cases, rs.RunCase(c))
	}
	return res, nil
}
