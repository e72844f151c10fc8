package source

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the nearest-passage search: whatever the sources and the
// quotes, one search costs at most a scan of MaxNearestScan bytes of text
// and a few word alignments of a MaxNearestQuoteWords-word quote.
const (
	// MaxNearestScan is how much of a source's text is searched (2 MiB,
	// some 300,000 words: a statute of about 1,000 pages). A passage
	// beyond it is never suggested.
	MaxNearestScan = 2 << 20
	// MaxNearestQuoteWords is the longest quote, in words, a passage is
	// sought for; a longer quote gets no suggestion.
	MaxNearestQuoteWords = 100
	// MinNearestSimilarity is the least similarity (see Passage) a passage
	// needs to be suggested: below it the passage shares too little with
	// the quote to be what the author meant.
	MinNearestSimilarity = 0.6
	// nearestCandidates bounds the windows aligned word by word.
	nearestCandidates = 8
	// maxTypoRunes is the longest word read for a typo: two longer words
	// that differ cost a whole word, so no pair of words costs more than
	// an edit distance of this many runes.
	maxTypoRunes = 40
)

// Passage is the passage of a text nearest a quote.
type Passage struct {
	// Start and End are the byte offsets in the text of the passage's
	// first character and past its last.
	Start, End int
	// Similarity is 1 less the cost of aligning the quote's words with
	// the passage's, per word of the quote: a word left out or added costs
	// 1, a word replaced its edit distance over its length (a typo costs
	// little), and case and punctuation are ignored. 1 is the same words.
	Similarity float64
}

// Words is a text's words prepared for Nearest, which then costs a scan
// of them per quote: build it once per source. It is read-only after
// NewWords and safe for concurrent use.
type Words struct {
	text  string
	words []word
	// ids numbers each distinct word (lower-cased) and vocab is the reverse.
	ids   map[string]int32
	vocab []string
}

// word is one word of the text: its id and byte span.
type word struct {
	id         int32
	start, end int
}

// NewWords splits the first MaxNearestScan bytes of text into words: runs
// of letters and digits, lower-cased, with their offsets.
func NewWords(text string) *Words {
	w := &Words{text: text, ids: map[string]int32{}}
	scan := text[:min(len(text), MaxNearestScan)]
	for _, s := range spans(scan) {
		key := strings.ToLower(scan[s[0]:s[1]])
		id, ok := w.ids[key]
		if !ok {
			id = int32(len(w.vocab))
			w.ids[key] = id
			w.vocab = append(w.vocab, key)
		}
		w.words = append(w.words, word{id: id, start: s[0], end: s[1]})
	}
	return w
}

// spans are the byte spans of the words of s.
func spans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		inWord := (unicode.IsLetter(r) || unicode.IsDigit(r)) && !(r == utf8.RuneError && size == 1)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
		i += size
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// Nearest is the passage of the text nearest quote, for a quote that is
// not in it as written: the run of words whose alignment with the quote's
// words costs least (see Passage.Similarity), when its similarity is at
// least MinNearestSimilarity; ok is false when no passage is that close,
// the quote has no word or more than MaxNearestQuoteWords.
//
// The search has two steps, so that it costs one scan of the text: the
// windows of as many words as the quote sharing most words with it
// (counted with repetition) are the candidates, at most nearestCandidates
// of them, each at least a quote's length from the one before; each
// candidate, widened by half the quote's length on either side, is then
// aligned with the quote word by word, the passage's ends free. The best
// alignment wins, the earliest on a tie.
func (w *Words) Nearest(quote string) (p Passage, ok bool) {
	qs := spans(quote)
	n := len(qs)
	if n == 0 || n > MaxNearestQuoteWords || len(w.words) == 0 {
		return Passage{}, false
	}
	q := make([]string, n)
	for i, s := range qs {
		q[i] = strings.ToLower(quote[s[0]:s[1]])
	}
	best := Passage{Similarity: -1}
	for _, start := range w.candidates(q) {
		lo, hi := max(0, start-n/2), min(len(w.words), start+n+n/2)
		cost, from, to := w.align(q, lo, hi)
		sim := 1 - cost/float64(n)
		if sim > best.Similarity && to > from {
			best = Passage{Start: w.words[from].start, End: w.words[to-1].end, Similarity: sim}
		}
	}
	if best.Similarity < MinNearestSimilarity {
		return Passage{}, false
	}
	return best, true
}

// candidates are the starts of the windows of len(q) words that share the
// most words with q, earliest first: at most nearestCandidates, none
// within len(q) words of the one before, and none sharing no word.
func (w *Words) candidates(q []string) []int {
	n := len(q)
	need := map[int32]int{}
	for _, s := range q {
		if id, ok := w.ids[s]; ok {
			need[id]++
		}
	}
	if len(need) == 0 {
		return nil
	}
	have := map[int32]int{}
	shared := func(i, delta int) int {
		id := w.words[i].id
		want, ok := need[id]
		if !ok {
			return 0
		}
		before := min(have[id], want)
		have[id] += delta
		return min(have[id], want) - before
	}
	// overlap[s] is the words the window starting at s shares with q.
	windows := max(1, len(w.words)-n+1)
	overlap := make([]int, windows)
	cur := 0
	for i := range min(n, len(w.words)) {
		cur += shared(i, 1)
	}
	overlap[0] = cur
	top := cur
	for s := 1; s < windows; s++ {
		cur += shared(s-1, -1) + shared(s+n-1, 1)
		overlap[s] = cur
		top = max(top, cur)
	}
	if top == 0 {
		return nil
	}
	var out []int
	for s, o := range overlap {
		if o == top && (len(out) == 0 || s >= out[len(out)-1]+n) {
			out = append(out, s)
			if len(out) == nearestCandidates {
				break
			}
		}
	}
	return out
}

// align aligns q with the words lo to hi, the passage's ends free (a
// semi-global alignment): the least cost, and the words from to to of the
// passage it aligns with.
func (w *Words) align(q []string, lo, hi int) (cost float64, from, to int) {
	m := hi - lo
	// prev and cur are rows of the cost table over the region's words,
	// with the region word where each alignment starts.
	prev, cur := make([]float64, m+1), make([]float64, m+1)
	prevStart, curStart := make([]int, m+1), make([]int, m+1)
	for j := range prevStart {
		prevStart[j] = j
	}
	for i := 1; i <= len(q); i++ {
		cur[0], curStart[0] = float64(i), 0
		for j := 1; j <= m; j++ {
			sub := prev[j-1] + substitution(q[i-1], w.vocab[w.words[lo+j-1].id])
			cur[j], curStart[j] = sub, prevStart[j-1]
			if c := prev[j] + 1; c < cur[j] {
				cur[j], curStart[j] = c, prevStart[j]
			}
			if c := cur[j-1] + 1; c < cur[j] {
				cur[j], curStart[j] = c, curStart[j-1]
			}
		}
		prev, cur, prevStart, curStart = cur, prev, curStart, prevStart
	}
	// On a tie the later end wins: a quote word matched at the cost of a
	// passage word added covers more of the quote than the word left out.
	cost, end := prev[0], 0
	for j := 1; j <= m; j++ {
		if prev[j] <= cost {
			cost, end = prev[j], j
		}
	}
	return cost, lo + prevStart[end], lo + end
}

// substitution is the cost of reading word a as b: 0 when they are the
// same, else their edit distance over the longer's length in runes (1
// when either is over maxTypoRunes).
func substitution(a, b string) float64 {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) > maxTypoRunes || len(rb) > maxTypoRunes {
		return 1
	}
	return float64(editDistance(ra, rb)) / float64(max(len(ra), len(rb)))
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b []rune) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			up := row[j]
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(up+1, row[j-1]+1, diag+cost)
			diag = up
		}
	}
	return row[len(b)]
}
