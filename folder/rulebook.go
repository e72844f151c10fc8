package folder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/rulebook"
)

// RulebookFile is the file that makes a folder a rulebook folder. Its
// format is in docs/folders.md#rulebook-folders: the rulebook's name, slug and
// description, its sections as paths to .rules files relative to the file,
// and optionally its outcome_logic tree, section_facts, field vocabulary
// overlay (fields) and robot_hints, as the API's Rulebook resource has them.
const RulebookFile = "rulebook.json"

// rulebookMembers are the members a rulebook file may have, in the order
// messages list them.
var rulebookMembers = []string{"name", "slug", "description", "sections", "outcome_logic", "section_facts", "fields", "robot_hints"}

// sectionMembers are the members of one entry of sections.
var sectionMembers = []string{"rules"}

// overlayMembers are the members of one entry of fields, those of
// rulebook.FieldOverlay.
var overlayMembers = []string{"question", "description", "weight", "notes"}

// slugPattern is the slug pattern of docs/api.md#rulesets, which publication enforces; the
// rulebook file is checked against it so that `eligo rulebook check` finds
// a slug the API would refuse.
var slugPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$`)

// RulebookFolder is a rulebook read from disk and composed: a rulebook
// folder (RulebookFile plus cases.json) or a lone rulebook file. Composing
// it on load, rather than when it runs, means every way of using it (the
// casebank tests, `eligo test`, `eligo rulebook check` and `eval`) sees the
// same refusals, reported the same way.
type RulebookFolder struct {
	// Name is the folder's base name, or a lone file's base name without
	// its extension.
	Name string
	// Dir is the folder's path as given to LoadRulebook, or the lone
	// file's directory; section paths are relative to it.
	Dir string
	// Path is the rulebook file; messages carry it.
	Path string
	// Sections say where each section came from, in letter order, beside
	// Composed.Sections.
	Sections []RulebookSection
	// Composed is the composition: one engine.Ruleset (Composed.Rules)
	// that is evaluated like any ruleset, and the members.
	Composed *rulebook.Composed
	// Hints are the robot hints by beat; nil when the file has none.
	Hints map[string]*string
	// Overlay is the field vocabulary overlay (the file's "fields").
	Overlay map[string]rulebook.FieldOverlay
	// Warnings say what is allowed but probably unintended, one sentence
	// each: the sections' compiler warnings ("section B: ..."), a section
	// the outcome tree never reads, a reserved robot hint beat.
	Warnings []string
	// Cases are the folder's cases.json, in file order; nil for a lone
	// file.
	Cases []engine.Case
}

// RulebookSection is where one section of a rulebook was read from: what
// its citations are verified against and where its warnings point.
type RulebookSection struct {
	// Letter is the section's letter, A for the first entry of sections.
	Letter string
	// RulesPath is the section's .rules file, resolved against the
	// rulebook file's directory.
	RulesPath string
	// SourcePath is the source text beside RulesPath (source.txt,
	// source.md or source.html); empty when there is none.
	SourcePath string
	// Source is the content of SourcePath; nil when there is none.
	Source []byte
	// Warnings are the section's compiler warnings.
	Warnings syntax.ErrorList
}

// RulebookError is every problem found in a rulebook file: unknown or
// malformed members, sections that cannot be read or do not compile, an
// outcome tree or robot hints the API would refuse, a composition
// rulebook.Compose refuses. It lists them all, as syntax.ErrorList does
// for a ruleset, so an author fixes the file in one pass.
type RulebookError struct {
	// Path is the rulebook file.
	Path string
	// Problems say what is wrong, one sentence each, located by member
	// ("sections[1].rules: ...") or by section ("section B: file:line:col:
	// ...").
	Problems []string
	// errs are the underlying errors that have a type worth matching
	// (a *rulebook.FieldConflictError, an syntax.ErrorList).
	errs []error
}

// Error prints one problem a line, each prefixed with the file's path.
func (e *RulebookError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.Path + ": " + p
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives errors.As the typed errors behind the problems, such as a
// *rulebook.FieldConflictError.
func (e *RulebookError) Unwrap() []error { return e.errs }

// LoadRulebook reads the rulebook folder dir: its RulebookFile, every
// section's .rules file (compiled) and source text, and its cases.json,
// and composes the rulebook. A rulebook whose content is wrong gives a
// *RulebookError listing every problem; a folder without RulebookFile
// gives an error wrapping ErrNotFolder.
func LoadRulebook(ctx context.Context, dir string) (*RulebookFolder, error) {
	path := filepath.Join(dir, RulebookFile)
	if !exists(path) {
		name := filepath.Base(filepath.Clean(dir))
		if exists(filepath.Join(dir, name+".rules")) {
			return nil, fmt.Errorf("%s: %w (no %s): it is a ruleset folder, which Load reads", dir, ErrNotFolder, RulebookFile)
		}
		return nil, fmt.Errorf("%s: %w (no %s)", dir, ErrNotFolder, RulebookFile)
	}
	b, err := LoadRulebookFile(ctx, path)
	if err != nil {
		return nil, err
	}
	b.Name, b.Dir = filepath.Base(filepath.Clean(dir)), dir
	if b.Cases, err = readCases(dir); err != nil {
		return nil, err
	}
	return b, nil
}

// LoadRulebookFile reads and composes a lone rulebook file, whatever its
// name, as LoadRulebook does a folder's but without cases: what `eligo
// rulebook check` and `eval` read when given a file rather than a folder.
func LoadRulebookFile(ctx context.Context, path string) (*RulebookFolder, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read rulebook: %w", err)
	}
	base := filepath.Base(path)
	b := &RulebookFolder{Name: strings.TrimSuffix(base, filepath.Ext(base)), Dir: filepath.Dir(path), Path: path}
	r := &rulebookReader{b: b}
	r.read(raw)
	if len(r.problems) > 0 {
		return nil, &RulebookError{Path: path, Problems: r.problems, errs: r.errs}
	}
	return b, nil
}

// rulebookReader reads one rulebook file into b, collecting every problem
// instead of stopping at the first.
type rulebookReader struct {
	// b is the rulebook being read.
	b *RulebookFolder
	// problems are the problems found so far, in file order.
	problems []string
	// errs are the typed errors behind some of the problems.
	errs []error
}

func (r *rulebookReader) problem(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// read reads the whole file and, when nothing is wrong, composes it.
func (r *rulebookReader) read(raw []byte) {
	top, ok := r.object(raw, "", "a rulebook file", rulebookMembers)
	if !ok {
		return
	}
	spec := rulebook.Spec{
		Name:        r.text(top, "name", true),
		Slug:        r.text(top, "slug", true),
		Description: r.text(top, "description", false),
	}
	if spec.Slug != "" && !slugPattern.MatchString(spec.Slug) {
		r.problem("slug %q must look like namespace/name: lower-case letters, digits and -, parts joined by /", spec.Slug)
	}
	spec.Sections = r.sections(top["sections"])
	n := len(r.b.Sections) // the number of sections, even those that failed
	if raw, ok := top["outcome_logic"]; ok && n > 0 {
		tree, problems := rulebook.ParseOutcomeTree(raw, n)
		for _, p := range problems {
			r.problem("%s", p)
		}
		spec.Outcome = tree
	}
	if raw, ok := top["section_facts"]; ok {
		spec.Facts = r.facts(raw, n)
	}
	spec.Overlay = r.overlay(top["fields"])
	r.b.Overlay = spec.Overlay
	r.hints(top["robot_hints"])
	if len(r.problems) > 0 {
		return
	}
	c, err := rulebook.Compose(spec)
	if err != nil {
		r.problem("%v", err)
		r.errs = append(r.errs, err)
		return
	}
	r.b.Composed = c
	r.unusedSections(c)
}

// object decodes raw as a JSON object at loc (a member path, "" for the
// file itself; what names it in messages) and reports each member not in
// allowed, unless allowed is nil (any key). ok is false when raw is not an
// object.
func (r *rulebookReader) object(raw []byte, loc, what string, allowed []string) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		r.problem("%s%s is not a JSON object: %s", at(loc), what, jsonMessage(err, raw))
		return nil, false
	}
	var unknown []string
	for k := range m {
		if allowed != nil && !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		r.problem("%sunknown member %q: %s takes %s", at(loc), k, what, strings.Join(allowed, ", "))
	}
	return m, true
}

// at turns a member path into a message prefix: "" for the file itself,
// "sections[1]: " for a member.
func at(loc string) string {
	if loc == "" {
		return ""
	}
	return loc + ": "
}

// jsonMessage says why raw did not decode: err without the "json: "
// prefix, or that it is null.
func jsonMessage(err error, raw []byte) string {
	if err == nil {
		return fmt.Sprintf("it is %s", bytes.TrimSpace(raw))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// text reads the string member key of m, reporting a missing required
// one and a value that is not a string.
func (r *rulebookReader) text(m map[string]json.RawMessage, key string, required bool) string {
	raw, ok := m[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		if required {
			r.problem("%s: missing: a rulebook needs a %s", key, key)
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		r.problem("%s: must be a string, not %s", key, bytes.TrimSpace(raw))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		r.problem("%s: must not be empty", key)
	}
	return s
}

// sections reads the sections member: it records every entry in
// r.b.Sections, so that letters match entries even when one fails, and
// returns the compiled members, or nil when any failed.
func (r *rulebookReader) sections(raw json.RawMessage) []rulebook.Section {
	if raw == nil {
		r.problem("sections: missing: a rulebook composes at least one section, e.g. [{\"rules\": \"../my-ruleset/my-ruleset.rules\"}]")
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		r.problem("sections: must be a list of {\"rules\": \"<path>\"} objects: %s", jsonMessage(err, raw))
		return nil
	}
	switch {
	case len(list) == 0:
		r.problem("sections: empty: a rulebook composes at least one section")
		return nil
	case len(list) > rulebook.MaxSections:
		r.problem("sections: %d sections: a rulebook composes at most %d, lettered A to Z", len(list), rulebook.MaxSections)
		return nil
	}
	out := make([]rulebook.Section, 0, len(list))
	failed := false
	for i, entry := range list {
		r.b.Sections = append(r.b.Sections, RulebookSection{Letter: rulebook.Letter(i)})
		s, ok := r.section(i, entry)
		failed = failed || !ok
		out = append(out, s)
	}
	if failed {
		return nil
	}
	return out
}

// section reads, compiles and describes entry i of sections.
func (r *rulebookReader) section(i int, entry json.RawMessage) (rulebook.Section, bool) {
	loc := fmt.Sprintf("sections[%d]", i)
	m, ok := r.object(entry, loc, "a section", sectionMembers)
	if !ok {
		return rulebook.Section{}, false
	}
	var rel string
	if err := json.Unmarshal(m["rules"], &rel); err != nil || rel == "" {
		r.problem("%s.rules: missing or not a path: a section is {\"rules\": \"<path of a .rules file, relative to %s>\"}", loc, filepath.Base(r.b.Path))
		return rulebook.Section{}, false
	}
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.b.Dir, rel)
	}
	rs := &r.b.Sections[i]
	rs.RulesPath = path
	src, err := os.ReadFile(path)
	if err != nil {
		r.problem("%s.rules: cannot read section %s: %v", loc, rs.Letter, err)
		return rulebook.Section{}, false
	}
	rules, warnings, err := engine.Compile(path, src)
	rs.Warnings = warnings
	for _, w := range warnings {
		r.b.Warnings = append(r.b.Warnings, fmt.Sprintf("section %s: %s", rs.Letter, w))
	}
	if err != nil {
		var list syntax.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				r.problem("section %s: %s", rs.Letter, e)
			}
		} else {
			r.problem("section %s: %v", rs.Letter, err)
		}
		r.errs = append(r.errs, err)
		return rulebook.Section{}, false
	}
	rs.SourcePath, rs.Source = readSource(filepath.Dir(path))
	slug := rules.Slug
	if slug == "" {
		slug = filepath.Base(filepath.Dir(path))
	}
	return rulebook.Section{Letter: rs.Letter, SectionID: rules.SectionID, Slug: slug,
		RulesetID: "local:" + filepath.Base(path), ContentDigest: rules.ContentDigest(), Rules: rules}, true
}

// overlay reads the fields member, the field vocabulary overlay; nil
// when there is none.
func (r *rulebookReader) overlay(raw json.RawMessage) map[string]rulebook.FieldOverlay {
	if raw == nil {
		return nil
	}
	// Any key: they are field ids, which Compose checks.
	entries, ok := r.object(raw, "fields", "the field vocabulary overlay", nil)
	if !ok {
		return nil
	}
	out := make(map[string]rulebook.FieldOverlay, len(entries))
	for _, id := range sortedIDs(entries) {
		loc := "fields." + id
		before := len(r.problems)
		if _, ok := r.object(entries[id], loc, "a field overlay", overlayMembers); !ok || len(r.problems) > before {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(entries[id]))
		dec.DisallowUnknownFields()
		var o rulebook.FieldOverlay
		if err := dec.Decode(&o); err != nil {
			r.problem("%s: %s", loc, jsonMessage(err, nil))
			continue
		}
		out[id] = o
	}
	return out
}

// facts reads the section_facts member for a rulebook of letters
// sections: a list of {"field": ..., "section": ...} bindings.
func (r *rulebookReader) facts(raw json.RawMessage, letters int) []rulebook.SectionFact {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var facts []rulebook.SectionFact
	if err := dec.Decode(&facts); err != nil {
		r.problem(`section_facts: must be a list of {"field": "<bool field id>", "section": "<letter>"} objects: %s`, jsonMessage(err, nil))
		return nil
	}
	for _, p := range rulebook.CheckFacts(facts, letters) {
		r.problem("%s", p)
	}
	return facts
}

// hints reads and checks the robot_hints member.
func (r *rulebookReader) hints(raw json.RawMessage) {
	if raw == nil || string(bytes.TrimSpace(raw)) == "null" {
		return
	}
	var hints map[string]*string
	if err := json.Unmarshal(raw, &hints); err != nil {
		r.problem("robot_hints: must be an object of beat to text: %s", jsonMessage(err, raw))
		return
	}
	for _, p := range rulebook.CheckHints(hints) {
		r.problem("%s", p)
	}
	for _, beat := range rulebook.ReservedBeats() {
		if _, ok := hints[beat]; ok {
			r.b.Warnings = append(r.b.Warnings, fmt.Sprintf("robot_hints.%s: a reserved beat: it is kept, but no client acts on it yet", beat))
		}
	}
	r.b.Hints = hints
}

// unusedSections warns of each section the outcome tree never reads and no
// section fact binds: its questions would be asked and its answers could
// never change the outcome.
func (r *rulebookReader) unusedSections(c *rulebook.Composed) {
	used := map[string]bool{}
	for _, f := range c.Facts {
		used[f.Section] = true
	}
	var walk func(n *rulebook.Node)
	walk = func(n *rulebook.Node) {
		if n.Section != "" {
			used[n.Section] = true
		}
		for _, a := range n.Args {
			walk(a)
		}
	}
	walk(c.Outcome)
	for _, s := range c.Sections {
		if !used[s.Letter] {
			r.b.Warnings = append(r.b.Warnings, fmt.Sprintf("section %s (%s) is not in outcome_logic: it cannot change the outcome", s.Letter, s.SectionID))
		}
	}
}

func sortedIDs(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Run verifies each section's citations against the source text beside
// its .rules file and runs the folder's cases against the composed
// ruleset, as Folder.Run does for a ruleset folder. Problems and warnings
// name their section.
func (b *RulebookFolder) Run(ctx context.Context) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Rulebook: b, Ruleset: b.Composed.Rules}
	for i, s := range b.Sections {
		res.Warnings = append(res.Warnings, s.Warnings...)
		for _, p := range citationProblems(b.Composed.Sections[i].Rules, s.Source, filepath.Dir(s.RulesPath)) {
			res.CitationProblems = append(res.CitationProblems, "section "+s.Letter+": "+p)
		}
	}
	for _, c := range b.Cases {
		res.Cases = append(res.Cases, b.Composed.Rules.RunCase(c))
	}
	return res, nil
}
