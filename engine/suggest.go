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
// Two field ids of the same group are compared by their names alone, so
// that the shared group does not make unrelated names look alike
// (person.age is not close to person.sex). So a case slip or a letter
// too many or too few is close ("a.nn" for "a.n", "Applicant.age" for
// "applicant.age"), while a short name is not close to every other short
// name ("b" is not close to "a"). On a tie the first of names wins, so the
// answer does not depend on map order.
func Nearest(name string, names []string) string {
	if len(name) > maxSuggestLen {
		return ""
	}
	best, bestCost := "", 0
	for _, n := range names {
		if n == name || len(n) > maxSuggestLen {
			continue
		}
		a, b := trimSharedGroup(name, n)
		limit := min(6, (len(a)+len(b)+3)*2/6)
		if c := editCost(a, b); c <= limit && (best == "" || c < bestCost) {
			best, bestCost = n, c
		}
	}
	return best
}

// trimSharedGroup drops from a and b the longest prefix they share that
// ends in a dot: the group of two field ids of one group.
func trimSharedGroup(a, b string) (string, string) {
	dot := -1
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '.' {
			dot = i
		}
	}
	return a[dot+1:], b[dot+1:]
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

// fieldIDs, sourceIDs and groupIDs list the ruleset's field, source and
// group ids in declaration order (so far, while the checker builds it):
// the candidates of a suggestion.
func (r *Ruleset) fieldIDs() []string {
	ids := make([]string, len(r.Fields))
	for i := range r.Fields {
		ids[i] = r.Fields[i].ID
	}
	return ids
}

func (r *Ruleset) sourceIDs() []string {
	ids := make([]string, len(r.Sources))
	for i := range r.Sources {
		ids[i] = r.Sources[i].ID
	}
	return ids
}

func (r *Ruleset) valueIDs() []string {
	ids := make([]string, len(r.Values))
	for i := range r.Values {
		ids[i] = r.Values[i].ID
	}
	return ids
}

func (r *Ruleset) groupIDs() []string {
	ids := make([]string, len(r.Groups))
	for i := range r.Groups {
		ids[i] = r.Groups[i].ID
	}
	return ids
}
