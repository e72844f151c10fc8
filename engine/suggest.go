package engine

import "strings"

// This file is the one "did you mean" of the project: the compiler's
// messages about unknown fields, sources and groups, the field errors of
// field_values naming an unknown field, and a rulebook's unknown section
// all propose a name with Nearest, so they agree on what is close.

// maxSuggestions bounds how many unknown names one compile or one
// conversion proposes a name for: each proposal costs an edit distance to
// every candidate, and an input can name thousands of unknown names.
const maxSuggestions = 10

// maxSuggestLen is the longest name Nearest compares; longer ones are
// never close (and would cost a quadratic edit distance).
const maxSuggestLen = 64

// Nearest returns the name among names closest to name, when it is close
// enough to be what was meant, else "". Callers pass only the names the
// input itself declares (a ruleset's fields, sources or groups, a
// rulebook's sections), so a suggestion is always something that exists
// there.
//
// Closeness is an edit distance in which a change of case costs 1 and any
// other insertion, deletion or substitution 2; a name is close when its
// cost is at most a third of the two lengths together (plus one) and at
// most three other edits, the rule Python's "did you mean" uses, capped.
// So a case slip or one wrong letter is close in any name ("a.nn" for
// "a.n", "Applicant.age" for "applicant.age"), while a short name is not
// close to every other short name ("b" is not close to "a"). On a tie the
// first of names wins, so the answer does not depend on map order.
func Nearest(name string, names []string) string {
	if len(name) > maxSuggestLen {
		return ""
	}
	best, bestCost := "", 0
	for _, n := range names {
		if n == name || len(n) > maxSuggestLen {
			continue
		}
		limit := min(6, (len(name)+len(n)+3)*2/6)
		if c := editCost(name, n); c <= limit && (best == "" || c < bestCost) {
			best, bestCost = n, c
		}
	}
	return best
}

// editCost is the edit distance from a to b, case changes costing 1 and
// other edits 2.
func editCost(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = 2 * j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = 2 * i
		for j := 1; j <= len(b); j++ {
			sub := 0
			switch {
			case a[i-1] == b[j-1]:
			case strings.EqualFold(a[i-1:i], b[j-1:j]):
				sub = 1
			default:
				sub = 2
			}
			cur[j] = min(prev[j]+2, cur[j-1]+2, prev[j-1]+sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
