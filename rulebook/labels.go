package rulebook

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Release labels are the permanent two-word names of rulebook releases
// ("amber-falcon"): easier to say, type and remember than a UUID, and
// accepted wherever a release id is (release_id on /decide). A label is
// allocated once, when a release is published, and never reused.

// ErrNoLabel is returned by AllocateLabel when every label is taken;
// publication reports it as 422 release_label_allocation_failed.
var ErrNoLabel = errors.New("no release label is free")

//go:embed words.txt
var wordsFile string

// wordLists are the two lists of words.txt, parsed once.
type wordLists struct {
	// adjectives and nouns are the lists in file order.
	adjectives, nouns []string
	// adjective and noun map each word to its position.
	adjective, noun map[string]int
}

// words parses the embedded list on first use. The file is part of the
// program, so a malformed one is a build defect: it panics, and the
// package's tests run it.
var words = sync.OnceValue(func() *wordLists {
	w, err := parseWords(wordsFile)
	if err != nil {
		panic(fmt.Sprintf("rulebook: embedded words.txt: %v", err))
	}
	return w
})

// parseWords reads the word file's two lists and checks every word: lower
// case ASCII letters only, none twice in the file, both lists non-empty.
func parseWords(text string) (*wordLists, error) {
	w := &wordLists{adjective: map[string]int{}, noun: map[string]int{}}
	var list *[]string
	seen := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "[adjectives]":
			list = &w.adjectives
			continue
		case line == "[nouns]":
			list = &w.nouns
			continue
		case list == nil:
			return nil, fmt.Errorf("line %d: word %q before [adjectives] or [nouns]", i+1, line)
		case !lowerWord(line):
			return nil, fmt.Errorf("line %d: %q is not lower-case ASCII letters only", i+1, line)
		case seen[line]:
			return nil, fmt.Errorf("line %d: %q appears twice", i+1, line)
		}
		seen[line] = true
		*list = append(*list, line)
	}
	if len(w.adjectives) == 0 || len(w.nouns) == 0 {
		return nil, errors.New("an [adjectives] and a [nouns] list, neither empty, are required")
	}
	for i, a := range w.adjectives {
		w.adjective[a] = i
	}
	for i, n := range w.nouns {
		w.noun[n] = i
	}
	return w, nil
}

func lowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// LabelCount is the number of distinct labels: adjectives times nouns.
func LabelCount() uint64 {
	w := words()
	return uint64(len(w.adjectives)) * uint64(len(w.nouns))
}

// Label names number n (taken modulo LabelCount) as "<adjective>-<noun>":
// the adjective at n / nouns and the noun at n % nouns. Over 0 to
// LabelCount()-1 it is a bijection onto the labels, so a number is a
// compact, reversible form of a label (see LabelNumber).
func Label(n uint64) string {
	w := words()
	n %= LabelCount()
	nn := uint64(len(w.nouns))
	return w.adjectives[n/nn] + "-" + w.nouns[n%nn]
}

// LabelNumber is Label's inverse: the number that Label maps to s, or ok
// false when s is not a label (see ValidLabel).
func LabelNumber(s string) (n uint64, ok bool) {
	w := words()
	adj, noun, found := strings.Cut(s, "-")
	if !found {
		return 0, false
	}
	a, okA := w.adjective[adj]
	b, okB := w.noun[noun]
	if !okA || !okB {
		return 0, false
	}
	return uint64(a)*uint64(len(w.nouns)) + uint64(b), true
}

// ValidLabel reports whether s has the shape of a release label: an
// adjective of the list, one hyphen, a noun of the list, lower case. The
// API uses it to tell a label from a release UUID in release_id.
func ValidLabel(s string) bool {
	_, ok := LabelNumber(s)
	return ok
}

// AllocateLabel returns the first label, in a pseudo-random order fixed
// by seed, for which taken returns false (a nil taken takes nothing). The
// order visits every label exactly once, so a label is found while any is
// free; when all are taken it returns ErrNoLabel, after LabelCount calls
// of taken. The same seed and the same taken labels give the same label,
// so an allocation is reproducible (seed it, for example, from the
// release's content identity); different seeds start in different places,
// so releases of one rulebook do not walk the same crowded run.
//
// The order is the affine walk n -> (n + step) mod LabelCount from a
// start, with start and step derived from seed and step coprime to
// LabelCount, which is what makes it a permutation.
func AllocateLabel(seed uint64, taken func(string) bool) (string, error) {
	total := LabelCount()
	x := splitmix64(seed)
	n := x % total
	step := coprimeStep(splitmix64(x), total)
	for range total {
		l := Label(n)
		if taken == nil || !taken(l) {
			return l, nil
		}
		n = (n + step) % total
	}
	return "", fmt.Errorf("allocate release label: all %d labels are taken: %w", total, ErrNoLabel)
}

// coprimeStep picks a step from 1 to total-1 that is coprime to total,
// starting from x; 1 when total is 1 or 2.
func coprimeStep(x, total uint64) uint64 {
	if total <= 2 {
		return 1
	}
	step := 1 + x%(total-1)
	for gcd(step, total) != 1 {
		step = 1 + step%(total-1)
	}
	return step
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// splitmix64 scrambles x (Steele, Lea and Flood's SplitMix64 finaliser),
// so that neighbouring seeds give unrelated starts and steps.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
