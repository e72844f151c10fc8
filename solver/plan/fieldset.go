package plan

import (
	"encoding/binary"
	"math/bits"
)

// inlineWords is how many words of 64 field slots a fieldSet holds in
// place: 256 fields, about twice the 130 of full SNAP with members
// (casebank us-snap-household, its list unrolled), so the sets of a
// ruleset that size never allocate. A ruleset may declare up to syntax.MaxFields (its
// lists unrolled; docs/language.md#households) and a rulebook's composed
// ruleset more again; their words beyond lo spill into fieldSet.hi. Eight
// words in place (every field syntax.MaxFields allows) made the search's
// sets 80 bytes and the cold plans of BenchmarkPlanHousehold up to 1.8
// times slower; four keep them at 48 bytes (docs/performance.md).
const inlineWords = 4

// fieldSet is a set of field slots. It is a value: copying it copies the
// set, and == compares the sets, so it can key maps. Slots below
// inlineWords*64 live in lo; higher ones in hi, which is "" for every set
// that holds none of them.
type fieldSet struct {
	// lo holds slots 0 to inlineWords*64-1, one bit each.
	lo [inlineWords]uint64
	// hi holds the words after lo, little-endian, eight bytes each,
	// without trailing zero words (so that equal sets compare equal). A
	// string is immutable, so sets that share one never see each other's
	// changes; a set operation reaching into hi allocates its result.
	hi string
}

// hiWord is word j of hi (0 past its end).
func hiWord(hi string, j int) uint64 {
	if 8*j+8 > len(hi) {
		return 0
	}
	b := hi[8*j : 8*j+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// numWords is how many words the set spans, lo and hi together.
func (s *fieldSet) numWords() int { return inlineWords + len(s.hi)/8 }

// word is word w of the set (0 past its end). It inlines; words beyond lo
// are read by highWord.
func (s *fieldSet) word(w int) uint64 {
	if w < inlineWords {
		return s.lo[w]
	}
	return s.highWord(w)
}

// highWord is word w, which lies beyond lo. Kept out of line so that word
// and has stay small enough to inline.
//
//go:noinline
func (s *fieldSet) highWord(w int) uint64 { return hiWord(s.hi, w-inlineWords) }

// wordOp is how spill combines two words.
type wordOp uint8

const (
	opOr     wordOp = iota // x | y
	opAnd                  // x & y
	opAndNot               // x &^ y
)

// spill combines the hi words of a and b word by word with op, trimming
// trailing zero words. Only sets holding a slot beyond lo come here; it is
// kept out of line so that the set operations stay small enough to
// inline.
//
//go:noinline
func spill(a, b string, op wordOp) string {
	switch {
	case op == opOr && a == "":
		return b
	case op == opOr && b == "", op == opAndNot && b == "":
		return a
	case op == opAnd && (a == "" || b == ""):
		return ""
	}
	n := max(len(a), len(b)) / 8
	out := make([]byte, 0, 8*n)
	for j := range n {
		x, y := hiWord(a, j), hiWord(b, j)
		switch op {
		case opOr:
			x |= y
		case opAnd:
			x &= y
		default:
			x &^= y
		}
		out = binary.LittleEndian.AppendUint64(out, x)
	}
	for len(out) >= 8 && binary.LittleEndian.Uint64(out[len(out)-8:]) == 0 {
		out = out[:len(out)-8]
	}
	return string(out)
}

// combine sets s's hi words to spill(s.hi, t.hi, op): one out-of-line
// call with few arguments keeps the set operations inlinable.
//
//go:noinline
func (s *fieldSet) combine(t *fieldSet, op wordOp) { s.hi = spill(s.hi, t.hi, op) }

// highSubset reports whether every slot of s's hi words is in t's.
//
//go:noinline
func (s *fieldSet) highSubset(t *fieldSet) bool {
	for j := range len(s.hi) / 8 {
		if hiWord(s.hi, j)&^hiWord(t.hi, j) != 0 {
			return false
		}
	}
	return true
}

// highDisjoint reports whether s's and t's hi words share no slot.
//
//go:noinline
func (s *fieldSet) highDisjoint(t *fieldSet) bool {
	for j := range min(len(s.hi), len(t.hi)) / 8 {
		if hiWord(s.hi, j)&hiWord(t.hi, j) != 0 {
			return false
		}
	}
	return true
}

func (s fieldSet) has(i int) bool {
	if i < inlineWords*64 {
		return s.lo[i>>6]>>(uint(i)&63)&1 != 0
	}
	j := (i - inlineWords*64) >> 3 // hi is little-endian: byte j, bit i&7
	return j < len(s.hi) && s.hi[j]>>(uint(i)&7)&1 != 0
}

func (s *fieldSet) add(i int) {
	if i >= inlineWords*64 {
		s.setHigh(i, true)
		return
	}
	s.lo[i>>6] |= 1 << (uint(i) & 63)
}

func (s fieldSet) with(i int) fieldSet { s.add(i); return s }

func (s *fieldSet) remove(i int) {
	if i >= inlineWords*64 {
		s.setHigh(i, false)
		return
	}
	s.lo[i>>6] &^= 1 << (uint(i) & 63)
}

// setHigh adds (in) or removes slot i, which lies beyond lo. Kept out of
// line so that add and remove stay small enough to inline.
//
//go:noinline
func (s *fieldSet) setHigh(i int, in bool) {
	j := i>>6 - inlineWords
	one := make([]byte, 8*j+8)
	one[8*j+int(uint(i)&63)/8] = 1 << (uint(i) & 7)
	if in {
		s.hi = spill(s.hi, string(one), opOr)
	} else {
		s.hi = spill(s.hi, string(one), opAndNot)
	}
}

func (s fieldSet) union(t fieldSet) fieldSet {
	for i := range s.lo {
		s.lo[i] |= t.lo[i]
	}
	if t.hi != "" {
		s.combine(&t, opOr)
	}
	return s
}

func (s fieldSet) intersect(t fieldSet) fieldSet {
	for i := range s.lo {
		s.lo[i] &= t.lo[i]
	}
	if s.hi != "" {
		s.combine(&t, opAnd)
	}
	return s
}

func (s fieldSet) minus(t fieldSet) fieldSet {
	for i := range s.lo {
		s.lo[i] &^= t.lo[i]
	}
	if s.hi != "" && t.hi != "" {
		s.combine(&t, opAndNot)
	}
	return s
}

func (s fieldSet) subsetOf(t fieldSet) bool {
	for i := range s.lo {
		if s.lo[i]&^t.lo[i] != 0 {
			return false
		}
	}
	return s.hi == "" || s.highSubset(&t)
}

// disjoint reports whether s and t share no slot (s.intersect(t).empty()
// without building the intersection).
func (s fieldSet) disjoint(t fieldSet) bool {
	for i := range s.lo {
		if s.lo[i]&t.lo[i] != 0 {
			return false
		}
	}
	return s.hi == "" || s.highDisjoint(&t)
}

func (s fieldSet) empty() bool { return s == fieldSet{} }

func (s fieldSet) count() int {
	n := 0
	for w := range s.numWords() {
		n += bits.OnesCount64(s.word(w))
	}
	return n
}

// slots lists the members in increasing order.
func (s fieldSet) slots() []int {
	var out []int
	for wi := range s.numWords() {
		for w := s.word(wi); w != 0; w &= w - 1 {
			out = append(out, wi*64+bits.TrailingZeros64(w))
		}
	}
	return out
}

// weigh is the total of weights[i] over the members.
func (s fieldSet) weigh(weights []int64) int64 {
	var total int64
	for wi := range s.numWords() {
		for w := s.word(wi); w != 0; w &= w - 1 {
			total += weights[wi*64+bits.TrailingZeros64(w)]
		}
	}
	return total
}

// firstDiffers reports whether the earliest slot in which s and t differ
// is in s (false when they are equal): of two sets, the one whose earliest
// differing field is declared first.
func (s fieldSet) firstDiffers(t fieldSet) bool {
	for w := range max(s.numWords(), t.numWords()) {
		if x, y := s.word(w), t.word(w); x != y {
			d := x ^ y
			return x&(d&-d) != 0
		}
	}
	return false
}

// seed folds the set into a PCG seed, for guesses that depend on the set
// alone.
func (s fieldSet) seed() (uint64, uint64) {
	var b uint64
	for w := 1; w < s.numWords(); w++ {
		b ^= s.word(w) << uint((w-1)&63)
	}
	return s.lo[0], b
}

// appendWords appends the set's first n words to b, little-endian, for a
// cache key: n words span every slot of a ruleset, so equal sets of its
// fields give equal bytes, as few as the ruleset needs.
func (s fieldSet) appendWords(b []byte, n int) []byte {
	for w := range n {
		b = binary.LittleEndian.AppendUint64(b, s.word(w))
	}
	return b
}
