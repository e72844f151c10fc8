package source

import (
	"encoding/binary"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// NearDuplicateThreshold is the Resemblance at or above which two sources
// are treated as near-duplicates: the same statute with a few sentences
// changed scores well above it, different statutes far below.
const NearDuplicateThreshold = 0.8

// shingleWords is the number of words in a shingle.
const shingleWords = 5

// SignatureSize is the length of Signature.Bytes.
const SignatureSize = len(Signature{}) * 8

// Signature is a MinHash sketch of a text's word 5-grams: slot i holds the
// least value of hash function i over the text's shingles, so the fraction
// of equal slots of two signatures estimates the Jaccard similarity of
// their shingle sets. It lets an upload be compared with every stored
// source without their texts. Signatures are stored, so Sign's definition
// (words, shingles, hash functions) must never change.
//
// A slot never holds zero from Sign; zero marks an empty slot, and the
// zero Signature is that of a text without words. Empty slots match
// nothing, so an empty signature resembles nothing, itself included.
type Signature [64]uint64

// Sign returns the MinHash signature of text. Words are maximal runs of
// letters and digits, lower-cased (Go's Unicode tables), so punctuation,
// white space and case do not matter; shingles are the sequences of 5
// consecutive words, or the whole word sequence of a shorter text. Slot i
// (0 to 63) is the least over the shingles of mix(h ^ mix((i+1) *
// 0x9e3779b97f4a7c15)), 0 counted as 1, where h is the 64-bit FNV-1a hash
// of the shingle's words joined by single spaces and mix is the splitmix64
// finaliser: 64 fixed hash functions, the same on every machine and in
// every version.
//
// It reads the text once, word by word, holding only the last five words,
// so signing a large source costs no memory in proportion to it.
func Sign(text string) Signature {
	var seeds [len(Signature{})]uint64
	for i := range seeds {
		seeds[i] = mix(uint64(i+1) * 0x9e3779b97f4a7c15)
	}
	var sig Signature
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	// shingle folds the hash of the words of ring from the oldest into
	// every slot.
	var ring [shingleWords][]byte
	shingle := func(words, oldest int) {
		base := uint64(fnvOffset)
		for j := range words {
			if j > 0 {
				base = fnv1a(base, " ")
			}
			base = fnv1a(base, ring[(oldest+j)%shingleWords])
		}
		for i, seed := range seeds {
			v := mix(base ^ seed)
			if v == 0 {
				v = 1 // zero marks an empty slot
			}
			sig[i] = min(sig[i], v)
		}
	}
	words := 0
	var word []byte // the word being read, lower-cased
	end := func() {
		if len(word) == 0 {
			return
		}
		slot := words % shingleWords
		ring[slot] = append(ring[slot][:0], word...)
		word = word[:0]
		if words++; words >= shingleWords {
			shingle(shingleWords, words%shingleWords)
		}
	}
	for _, r := range text {
		// The text is lower-cased first and then split, as
		// strings.ToLower and FieldsFunc would, rune by rune.
		if r = unicode.ToLower(r); unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = utf8.AppendRune(word, r)
		} else {
			end()
		}
	}
	end()
	switch {
	case words == 0:
		return Signature{}
	case words < shingleWords:
		shingle(words, 0) // a short text is one shingle of all its words
	}
	return sig
}

// mix is the splitmix64 finaliser: a bijective multiply-xorshift mix.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// The 64-bit FNV-1a parameters (the same as hash/fnv's New64a).
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a continues a 64-bit FNV-1a hash h over the bytes of s.
func fnv1a[T string | []byte](h uint64, s T) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// Resemblance returns the fraction of slots, 0 to 1, in which s and o hold
// the same value, an estimate of the Jaccard similarity of the two texts'
// shingle sets (standard error about 0.06). Empty slots never match.
// Compare it with NearDuplicateThreshold.
func (s Signature) Resemblance(o Signature) float64 {
	same := 0
	for i := range s {
		if s[i] != 0 && s[i] == o[i] {
			same++
		}
	}
	return float64(same) / float64(len(s))
}

// Bytes returns the signature's storage form: its 64 slots as big-endian
// uint64s, SignatureSize bytes. ParseSignature reads it back.
func (s Signature) Bytes() []byte {
	b := make([]byte, 0, SignatureSize)
	for _, v := range s {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

// ParseSignature reads a signature stored with Bytes. Any other length is
// an error, since a truncated signature would silently compare wrong.
func ParseSignature(b []byte) (Signature, error) {
	var s Signature
	if len(b) != SignatureSize {
		return s, fmt.Errorf("parse signature: %d bytes, want %d", len(b), SignatureSize)
	}
	for i := range s {
		s[i] = binary.BigEndian.Uint64(b[i*8:])
	}
	return s, nil
}
