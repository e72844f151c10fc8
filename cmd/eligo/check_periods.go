package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/folder"
)

// slugPeriods collects, by slug, the effective periods of the rulesets
// `eligo check` compiled, to warn when cuts meant for one slug overlap or
// leave a gap.
type slugPeriods struct {
	// bySlug holds the entries of each slug, named by file.
	bySlug map[string][]engine.PeriodEntry
	// seen holds the absolute paths already collected.
	seen map[string]bool
}

func newSlugPeriods() *slugPeriods {
	return &slugPeriods{bySlug: map[string][]engine.PeriodEntry{}, seen: map[string]bool{}}
}

// add records the ruleset of path, once.
func (s *slugPeriods) add(path string, r *engine.Ruleset) {
	abs, err := filepath.Abs(path)
	if err != nil || s.seen[abs] || r.Slug == "" {
		return
	}
	s.seen[abs] = true
	s.bySlug[r.Slug] = append(s.bySlug[r.Slug], engine.PeriodEntry{Name: path, Period: r.Effective})
}

// addSiblings records the rulesets of the casebank folders beside the
// folder of each checked file (casebank/<name>/<name>.rules): a new period
// is checked against the ones already there even when only its own file
// is named. Siblings that do not compile are left to their own check.
func (s *slugPeriods) addSiblings(paths []string) {
	for _, path := range paths {
		for _, sib := range folder.Siblings(path) {
			s.add(sib.Path, sib.Ruleset)
		}
	}
}

// warn prints one warning line per problem, slugs in order, for the slugs
// of the files checked.
func (s *slugPeriods) warn(checked map[string]bool, stderr io.Writer) {
	slugs := make([]string, 0, len(s.bySlug))
	for slug := range s.bySlug {
		if checked[slug] {
			slugs = append(slugs, slug)
		}
	}
	sort.Strings(slugs)
	for _, slug := range slugs {
		for _, p := range engine.CheckPeriods(s.bySlug[slug]) {
			fmt.Fprintf(stderr, "%s: warning: effective periods: %s\n", slug, p)
		}
	}
}
