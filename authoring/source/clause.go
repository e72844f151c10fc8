package source

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clause is one unit of a source text that a ruleset may cite: a
// paragraph, an enumerated provision or a sentence, as byte offsets
// [Start, End) into the text it came from, with no white space at either
// end. Heading marks a heading line (see Clauses): it states no condition,
// so coverage leaves it out and the console shows it as a heading.
type Clause struct {
	Start, End int
	Heading    bool
}

// Text returns the clause's text. text must be the one Clauses was given;
// offsets outside it panic, as slicing does.
func (c Clause) Text(text string) string { return text[c.Start:c.End] }

// Clauses splits text into the clauses a statute reader recognises, so
// coverage can say which provisions no criterion cites. Paragraphs
// (separated by blank lines) are split further where a line begins with an
// enumerator — (a), (1), (iv), (A), 1., 3.—, a), 1), §, or a bullet — and at
// sentence ends: ".", ";" or ":" (and any closing quote or parenthesis)
// followed by white space and then an upper-case letter (perhaps after an
// opening quote) or an enumerator. A full stop that ends an abbreviation
// (U.S., e.g., No., s.) or an enumerator does not end a sentence. Each
// clause is trimmed of white space, and a clause without a letter or digit
// (a rule, a "[...]") is dropped. A heading line (headingLine: a short
// line without a sentence, or a numbered section title such as "§ 2611.
// Definitions" or "(A) In general") is a clause of its own, never cut
// inside, with Heading set. The result is in text order, the clauses do
// not overlap, and the same text always gives the same clauses.
func Clauses(text string) []Clause {
	var out []Clause
	for start := 0; start < len(text); {
		ps, pe := nextParagraph(text, start)
		if ps == pe {
			break
		}
		cuts, headings := paragraphCuts(text, ps, pe)
		for i, c := range cuts {
			end := pe
			if i+1 < len(cuts) {
				end = cuts[i+1]
			}
			if cl, ok := trimClause(text, c, end); ok {
				cl.Heading = slices.Contains(headings, cl.Start)
				out = append(out, cl)
			}
		}
		start = pe
	}
	return out
}

// nextParagraph returns the next run of non-blank lines at or after start;
// ps == pe when there is none.
func nextParagraph(text string, start int) (ps, pe int) {
	ps = -1
	for ls := start; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		blank := strings.TrimFunc(text[ls:le], unicode.IsSpace) == ""
		switch {
		case !blank && ps < 0:
			ps = ls
		case blank && ps >= 0:
			return ps, ls
		}
		ls = le + 1
	}
	if ps < 0 {
		return len(text), len(text)
	}
	return ps, len(text)
}

// paragraphCuts returns the sorted offsets in [ps, pe) where clauses
// start, and the offsets where heading lines start (each also a cut, as is
// the line after it; nothing inside a heading line is).
func paragraphCuts(text string, ps, pe int) (cuts, headings []int) {
	cuts = []int{ps}
	var inHeading [][2]int // heading lines, [start, end)
	for ls := ps; ls < pe; {
		le := pe
		if nl := strings.IndexByte(text[ls:pe], '\n'); nl >= 0 {
			le = ls + nl
		}
		p := ls + len(text[ls:le]) - len(strings.TrimLeft(text[ls:le], " \t"))
		if p > ps && enumLen(text[p:pe]) > 0 {
			cuts = append(cuts, p)
		}
		next := ""
		if le < pe {
			next = strings.TrimSpace(text[le+1 : pe])
		}
		if headingLine(strings.TrimSpace(text[ls:le]), next) {
			cuts = append(cuts, p)
			headings = append(headings, p)
			inHeading = append(inHeading, [2]int{p, le})
			if le < pe {
				cuts = append(cuts, le+1)
			}
		}
		if le == pe {
			break
		}
		ls = le + 1
	}
	for i := ps; i < pe; i++ {
		if c := text[i]; c != '.' && c != ';' && c != ':' {
			continue
		}
		if text[i] == '.' && (abbreviation(text[ps:i]) || enumeratorDot(text[ps:i+1])) {
			continue
		}
		if next := sentenceStart(text[:pe], i+1); next > 0 && !slices.ContainsFunc(inHeading, func(h [2]int) bool { return next > h[0] && next < h[1] }) {
			cuts = append(cuts, next)
		}
	}
	slices.Sort(cuts)
	return slices.Compact(cuts), headings
}

// MaxHeadingWords is the most words a heading line has; a longer line is
// text, however it is punctuated.
const MaxHeadingWords = 16

// titleLabel matches the number a section title opens with: "§ 2611.",
// "Section 4.", "PART 2 —", "142", "1.2.", "(A)", with the white space
// after it.
var titleLabel = regexp.MustCompile(`^(?:(?:§{1,2}\s*|(?i:section|sec\.|article|art\.|part|chapter|title|schedule|regulation|reg\.|rule)\s+)?[0-9]+[0-9A-Za-z.]*|\([0-9A-Za-z]{1,4}\))(?:\s*[:—–-])?\s+`)

// headingLine reports whether line (one line of a paragraph, trimmed) is a
// heading rather than text: at most MaxHeadingWords words, not followed by
// a line that continues it (next, the paragraph's following line, trimmed,
// "" for none, does not start in lower case), opening (after a title
// label, titleLabel) with a capital letter, holding no sentence end inside
// and ending without punctuation (a dash included) and not on a word that
// leads on ("of", "and", "the"...); or a numbered title ending with a full stop, when its
// words after the number are few (three at most) or the next line opens
// with an enumerator ("142 Meaning of “child”." above "(1) ..."). A bullet
// line is a list item, never a heading.
func headingLine(line, next string) bool {
	words := strings.Fields(line)
	if len(words) == 0 || len(words) > MaxHeadingWords {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(next); unicode.IsLower(r) {
		return false
	}
	if n := enumLen(line); n > 0 && strings.ContainsAny(line[:n], "-*•") {
		return false
	}
	rest, numbered := line, false
	if m := titleLabel.FindString(line); m != "" {
		rest, numbered = line[len(m):], true
	}
	if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(rest, `"'“‘`)); !unicode.IsUpper(r) {
		return false
	}
	body := strings.TrimRight(rest, `"')]”’`)
	for i := 0; i+1 < len(body); i++ {
		if strings.IndexByte(".;:?!", body[i]) >= 0 && body[i+1] == ' ' && (body[i] != '.' || !abbreviation(body[:i])) {
			return false // a sentence ends inside
		}
	}
	if strings.HasSuffix(body, "—") || strings.HasSuffix(body, "–") || strings.HasSuffix(body, "-") {
		return false // it introduces what follows
	}
	switch body[len(body)-1] {
	case ',', ';', ':', '?', '!':
		return false
	case '.':
		// A list item ("(1) ...", "2. ...") ends in a full stop too: only
		// a section's own number may stand before a title that does.
		titled := numbered && (enumLen(line) == 0 || strings.HasPrefix(line, "§"))
		return titled && (len(strings.Fields(rest)) <= 3 || enumLen(next) > 0)
	}
	last := strings.ToLower(strings.Trim(words[len(words)-1], `"'()[]“”‘’—–-`))
	return !leadsOn(last)
}

// leadsOn reports whether a line of running text may break after word
// (lower case), which a heading never ends on.
func leadsOn(word string) bool {
	switch word {
	case "a", "an", "the", "and", "or", "nor", "of", "to", "in", "on", "at", "by", "for", "with", "from", "as",
		"if", "that", "which", "who", "whom", "is", "are", "be", "not", "than", "under", "per", "any", "all",
		"such", "this", "these", "those", "its", "their", "his", "her", "where", "when", "unless":
		return true
	}
	return false
}

// sentenceStart returns the offset of the sentence that begins after the
// punctuation ending at i, or 0 when what follows does not begin one.
func sentenceStart(text string, i int) int {
	for i < len(text) {
		if strings.IndexByte(`)]"'`, text[i]) >= 0 {
			i++
		} else if strings.HasPrefix(text[i:], "”") || strings.HasPrefix(text[i:], "’") {
			i += len("”") // both are three bytes
		} else {
			break
		}
	}
	j := i + len(text[i:]) - len(strings.TrimLeftFunc(text[i:], unicode.IsSpace))
	if j == i || j == len(text) {
		return 0 // no white space, or nothing after it
	}
	if enumLen(text[j:]) > 0 {
		return j
	}
	k := j
	for _, q := range []string{"“", "‘", `"`, "'"} {
		if strings.HasPrefix(text[k:], q) {
			k += len(q)
			break
		}
	}
	if r, _ := utf8.DecodeRuneInString(text[k:]); unicode.IsUpper(r) {
		return j
	}
	return 0
}

// abbreviation reports whether the word ending before a full stop at the
// end of before is an abbreviation rather than the end of a sentence.
func abbreviation(before string) bool {
	w := before[strings.LastIndexFunc(before, func(r rune) bool { return !unicode.IsLetter(r) && r != '.' })+1:]
	if w == "" {
		return false
	}
	initials := true // U.S, e.g, J: single letters between dots
	for _, part := range strings.Split(w, ".") {
		if utf8.RuneCountInString(part) != 1 {
			initials = false
		}
	}
	if initials {
		return true
	}
	switch strings.ToLower(w) {
	case "no", "nos", "art", "arts", "sec", "secs", "ss", "para", "paras",
		"subpara", "subs", "reg", "regs", "ch", "pt", "pts", "cl", "sch",
		"vs", "cf", "etc", "al", "ibid", "mr", "mrs", "ms", "dr", "st",
		"co", "inc", "ltd", "jr", "sr", "pub", "stat", "fig", "approx",
		"dept", "govt", "max", "min", "op", "cit":
		return true
	}
	return false
}

// enumeratorDot reports whether the full stop ending upTo ends an
// enumerator at the start of its line, like the "1." of "1. The ...".
func enumeratorDot(upTo string) bool {
	ls := strings.LastIndexByte(upTo, '\n') + 1
	line := strings.TrimLeft(upTo[ls:], " \t")
	return enumLen(line) == len(line)
}

// enumLen returns the length of the enumerator s starts with, or 0.
func enumLen(s string) int {
	switch {
	case strings.HasPrefix(s, "§"):
		return len("§")
	case strings.HasPrefix(s, "• "):
		return len("•")
	case strings.HasPrefix(s, "- "), strings.HasPrefix(s, "* "):
		return 1
	case strings.HasPrefix(s, "("):
		if n := strings.IndexByte(s, ')'); n > 1 && n <= 9 && listLabel(s[1:n]) {
			return n + 1
		}
		return 0
	}
	if n := strings.IndexByte(s, ')'); n > 0 && n <= 7 && listLabel(s[:n]) && followedByBreak(s, n+1) {
		return n + 1 // a) or 1)
	}
	// 1. or 1.2. or 3.— : numbers joined by dots, ending in a dot that is
	// not followed by a letter or digit.
	i := 0
	for {
		d := 0
		for i+d < len(s) && d < 4 && s[i+d] >= '0' && s[i+d] <= '9' {
			d++
		}
		if d == 0 || d == 4 || i+d >= len(s) || s[i+d] != '.' {
			return 0
		}
		i += d + 1
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			if r, _ := utf8.DecodeRuneInString(s[i:]); i < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				return 0
			}
			return i
		}
	}
}

// followedByBreak reports whether s[i:] is empty or starts with white space.
func followedByBreak(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// listLabel reports whether s labels a list item: a number of up to three
// digits with up to two letters after it (12, 2A), one or two letters (a,
// aa, B), or a roman numeral below 40 in one case (iv, XII).
func listLabel(s string) bool {
	d := 0
	for d < len(s) && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d > 0 {
		return d <= 3 && len(s)-d <= 2 && asciiLetters(s[d:])
	}
	if len(s) <= 2 && asciiLetters(s) {
		return true
	}
	return roman(strings.ToLower(s)) && (s == strings.ToLower(s) || s == strings.ToUpper(s))
}

// asciiLetters reports whether s is all ASCII letters.
func asciiLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// roman reports whether s is a lower-case roman numeral from 1 to 39.
func roman(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s, "x"), "x"), "x")
	for _, unit := range []string{"ix", "iv", "viii", "vii", "vi", "v", "iii", "ii", "i", ""} {
		if s == unit {
			return true
		}
	}
	return false
}

// trimClause trims white space from text[start:end] and reports whether
// what is left holds a letter or digit.
func trimClause(text string, start, end int) (Clause, bool) {
	s := text[start:end]
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	start += len(s) - len(t)
	t = strings.TrimRightFunc(t, unicode.IsSpace)
	end = start + len(t)
	ok := strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
	return Clause{Start: start, End: end}, ok
}

// Coverage reports, for each clause, whether any cited span [start, end)
// of text overlaps it, so the console can show which provisions of a
// source no criterion cites. Spans are clamped to the text; empty or
// inverted spans cover nothing. clauses should be in text order and not
// overlap, as Clauses returns them; the answer is right either way, only
// faster then.
func Coverage(text string, clauses []Clause, cited [][2]int) (covered []bool) {
	covered = make([]bool, len(clauses))
	ordered := inOrder(clauses)
	for _, span := range cited {
		s, e := max(span[0], 0), min(span[1], len(text))
		if s >= e {
			continue
		}
		first := 0
		if ordered {
			first = sort.Search(len(clauses), func(i int) bool { return clauses[i].End > s })
		}
		for i := first; i < len(clauses); i++ {
			c := clauses[i]
			if ordered && c.Start >= e {
				break
			}
			if c.Start < e && s < c.End {
				covered[i] = true
			}
		}
	}
	return covered
}

// inOrder reports whether clauses are in text order without overlaps, so
// their ends are sorted too and can be searched.
func inOrder(clauses []Clause) bool {
	for i, c := range clauses {
		if c.Start > c.End || (i > 0 && clauses[i-1].End > c.Start) {
			return false
		}
	}
	return true
}
