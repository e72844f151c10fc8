package engine

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// canonicalize returns the RFC 8785 (JCS) canonical form of the JSON text
// raw: byte for byte what jcs.Transform returns, with the same refusals.
//
// jcs.Transform builds a tree of the whole document, a string per scalar,
// checks every number against a regular expression and sorts object
// members through reflection, which made it the largest single cost of an
// uncached /decide (inputs_hash is computed on every call). The shapes
// field_values takes in practice (an object of plain keys whose values are
// strings, numbers, booleans, null and small arrays or objects) are written
// here in one pass into one buffer, without a tree; anything this pass does
// not handle, or that is not valid I-JSON, is handed to jcs.Transform
// whole, so the result and the refusals stay exactly the library's.
// FuzzCanonicalJSON checks the two against each other.
func canonicalize(raw []byte) ([]byte, error) {
	if out, ok := fastCanonical(raw); ok {
		return out, nil
	}
	return jcs.Transform(raw)
}

// fastCanonical writes the canonical form of raw when raw has the common
// shape canonicalWriter handles; ok is false for anything else (including
// every input jcs.Transform refuses), and then out is meaningless.
func fastCanonical(raw []byte) (out []byte, ok bool) {
	// One allocation holds the output and the top object's member values
	// (canonical text is rarely longer than the text sent), and one the
	// members: a document has no more members than colons, though colons
	// inside strings count too, so the first guess is capped.
	n := len(raw) + 16
	buf := make([]byte, 0, 2*n)
	w := canonicalWriter{in: raw, members: make([]canonicalMember, 0, min(bytes.Count(raw, []byte{':'}), maxMemberGuess))}
	w.levels[0] = buf[n : n : 2*n]
	out, ok = w.value(buf[0:0:n], 0)
	if !ok {
		return nil, false
	}
	w.skipSpace()
	return out, w.pos == len(w.in)
}

// maxFastDepth is the deepest nesting of arrays and objects the fast path
// handles; a deeper document goes to jcs.Transform. Each object level
// copies its members' canonical bytes once more, so the bound also bounds
// the copying.
const maxFastDepth = 8

// maxMemberGuess caps the members fastCanonical makes room for at first:
// enough for field_values of the largest rulesets at once, and never
// memory out of proportion with a document whose strings are full of
// colons (a member takes 40 bytes, a colon one).
const maxMemberGuess = 256

// maxPlainDigits is the most significant digits a number may have to be
// copied in its own spelling: any decimal of at most 15 significant digits
// is the shortest spelling of the double nearest to it (float64 tells all
// 15-digit decimals apart), which is the spelling RFC 8785 prescribes when
// the number is at least 1e-6 and below 1e21.
const maxPlainDigits = 15

// canonicalWriter is one pass of the fast path over in.
type canonicalWriter struct {
	in  []byte
	pos int
	// levels[d] holds the canonical bytes of the member values of the
	// object open at depth d, in document order, until the object is
	// written out sorted. At most one object is open per depth.
	levels [maxFastDepth][]byte
	// members is a stack of the members of the open objects: an object's
	// members are those from the length it found on entry.
	members []canonicalMember
}

// canonicalMember is one object member while its object is open.
type canonicalMember struct {
	key        []byte // the key as sent, which holds no escape
	start, end int    // its value's canonical bytes in levels[depth]
}

func (w *canonicalWriter) skipSpace() { w.pos = spaceEnd(w.in, w.pos) }

// spaceEnd returns the index after the JSON white space at i of b.
func spaceEnd(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value appends the canonical form of the value at w.pos, which sits at
// depth arrays or objects down, to dst.
func (w *canonicalWriter) value(dst []byte, depth int) ([]byte, bool) {
	w.skipSpace()
	if w.pos >= len(w.in) {
		return dst, false
	}
	switch c := w.in[w.pos]; {
	case c == '{':
		return w.object(dst, depth)
	case c == '[':
		return w.array(dst, depth)
	case c == '"':
		return w.string(dst)
	case c == '-' || c >= '0' && c <= '9':
		return w.number(dst)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(w.in[w.pos:], []byte(lit)) {
			w.pos += len(lit)
			return append(dst, lit...), w.atValueEnd()
		}
	}
	return dst, false
}

// atValueEnd reports whether a literal or number just read ends where
// jcs.Transform ends it: at white space, a comma, a closing bracket or
// the end of the input (it reads "truex" or "1a" as one bad token).
func (w *canonicalWriter) atValueEnd() bool {
	if w.pos == len(w.in) {
		return true
	}
	switch w.in[w.pos] {
	case ' ', '\t', '\n', '\r', ',', ']', '}':
		return true
	}
	return false
}

func (w *canonicalWriter) array(dst []byte, depth int) ([]byte, bool) {
	if depth >= maxFastDepth {
		return dst, false
	}
	w.pos++ // [
	dst = append(dst, '[')
	w.skipSpace()
	if w.pos < len(w.in) && w.in[w.pos] == ']' {
		w.pos++
		return append(dst, ']'), true
	}
	for {
		var ok bool
		if dst, ok = w.value(dst, depth+1); !ok {
			return dst, false
		}
		w.skipSpace()
		if w.pos >= len(w.in) {
			return dst, false
		}
		switch w.in[w.pos] {
		case ',':
			w.pos++
			dst = append(dst, ',')
		case ']':
			w.pos++
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

// object gathers the members' values in levels[depth], then appends the
// members to dst sorted by key as RFC 8785 sorts them.
func (w *canonicalWriter) object(dst []byte, depth int) ([]byte, bool) {
	if depth >= maxFastDepth {
		return dst, false
	}
	w.pos++ // {
	base := len(w.members)
	defer func() { w.members = w.members[:base] }()
	vals := w.levels[depth][:0]
	w.skipSpace()
	if w.pos < len(w.in) && w.in[w.pos] == '}' {
		w.pos++
		return append(dst, '{', '}'), true
	}
	for {
		w.skipSpace()
		key, ok := w.key()
		if !ok {
			return dst, false
		}
		w.skipSpace()
		if w.pos >= len(w.in) || w.in[w.pos] != ':' {
			return dst, false
		}
		w.pos++
		start := len(vals)
		if vals, ok = w.value(vals, depth+1); !ok {
			return dst, false
		}
		w.members = append(w.members, canonicalMember{key: key, start: start, end: len(vals)})
		w.skipSpace()
		if w.pos >= len(w.in) {
			return dst, false
		}
		if c := w.in[w.pos]; c == ',' {
			w.pos++
			continue
		} else if c != '}' {
			return dst, false
		}
		w.pos++
		break
	}
	w.levels[depth] = vals // keep the grown buffer for the next object at this depth
	members := w.members[base:]
	slices.SortFunc(members, func(a, b canonicalMember) int { return compareUTF16(a.key, b.key) })
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			if bytes.Equal(members[i-1].key, m.key) {
				return dst, false // a duplicate key, which RFC 8785 refuses
			}
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, m.key...)
		dst = append(dst, '"', ':')
		dst = append(dst, vals[m.start:m.end]...)
	}
	return append(dst, '}'), true
}

// key reads an object key that holds no escape, the only kind the fast
// path sorts (its bytes as sent are then its value), and returns it
// without the quotes.
func (w *canonicalWriter) key() ([]byte, bool) {
	if w.pos >= len(w.in) || w.in[w.pos] != '"' {
		return nil, false
	}
	start := w.pos + 1
	for i := start; i < len(w.in); {
		c := w.in[i]
		switch {
		case c == '"':
			w.pos = i + 1
			return w.in[start:i], true
		case c == '\\' || c < 0x20:
			return nil, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(w.in[i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, false
			}
			i += size
		}
	}
	return nil, false
}

// compareUTF16 orders two valid UTF-8 strings by their UTF-16 code units,
// as RFC 8785 sorts keys. UTF-8 byte order is code point order, which is
// UTF-16 order except between a character from U+E000 to U+FFFF (lead
// byte 0xEE or 0xEF) and one above U+FFFF (lead byte 0xF0 to 0xF4, a
// surrogate pair from 0xD800 in UTF-16): those two compare the other way
// round. Where two valid strings first differ, both bytes lead a
// character or both continue one begun alike.
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmp.Compare(len(a), len(b))
	}
	x, y := a[i], b[i]
	if x >= 0xEE && y >= 0xEE && (x >= 0xF0) != (y >= 0xF0) {
		return cmp.Compare(y, x)
	}
	return cmp.Compare(x, y)
}

// string appends the canonical form of the string at w.pos: its escapes
// decoded, then written again as RFC 8785 writes them (the two-character
// escapes for quote, backslash, \b, \f, \n, \r and \t, \u00xx in lower
// case for the other control characters, every other character as UTF-8).
func (w *canonicalWriter) string(dst []byte) ([]byte, bool) {
	w.pos++ // "
	dst = append(dst, '"')
	run := w.pos // start of the bytes not yet copied
	for w.pos < len(w.in) {
		c := w.in[w.pos]
		switch {
		case c == '"':
			dst = append(dst, w.in[run:w.pos]...)
			w.pos++
			return append(dst, '"'), true
		case c == '\\':
			dst = append(dst, w.in[run:w.pos]...)
			r, ok := w.escape()
			if !ok {
				return dst, false
			}
			dst = appendCanonicalRune(dst, r)
			run = w.pos
		case c < 0x20:
			return dst, false
		case c < utf8.RuneSelf:
			w.pos++
		default:
			r, size := utf8.DecodeRune(w.in[w.pos:])
			if r == utf8.RuneError && size <= 1 {
				return dst, false
			}
			w.pos += size
		}
	}
	return dst, false
}

// escape reads the escape sequence at w.pos (a backslash) and returns the
// character it stands for; a \u escape of a surrogate must be the high
// half of a pair whose low half follows as a \u escape.
func (w *canonicalWriter) escape() (rune, bool) {
	if w.pos+1 >= len(w.in) {
		return 0, false
	}
	c := w.in[w.pos+1]
	w.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
	default:
		return 0, false
	}
	r, ok := w.hex4()
	if !ok || !utf16.IsSurrogate(r) {
		return r, ok
	}
	if r >= 0xDC00 || w.pos+1 >= len(w.in) || w.in[w.pos] != '\\' || w.in[w.pos+1] != 'u' {
		return 0, false
	}
	w.pos += 2
	low, ok := w.hex4()
	if !ok || low < 0xDC00 || low > 0xDFFF {
		return 0, false
	}
	return utf16.DecodeRune(r, low), true
}

// hex4 reads the four hexadecimal digits of a \u escape.
func (w *canonicalWriter) hex4() (rune, bool) {
	if w.pos+4 > len(w.in) {
		return 0, false
	}
	var r rune
	for _, c := range w.in[w.pos : w.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	w.pos += 4
	return r, true
}

// appendCanonicalRune appends r as RFC 8785 writes it inside a string.
func appendCanonicalRune(dst []byte, r rune) []byte {
	switch r {
	case '"', '\\':
		return append(dst, '\\', byte(r))
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	if r < 0x20 {
		const digits = "0123456789abcdef"
		return append(dst, '\\', 'u', '0', '0', digits[r>>4], digits[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// number appends the canonical form of the number at w.pos: the ECMAScript
// spelling of the nearest double. An integer or a plain decimal of at most
// maxPlainDigits significant digits (from 1e-6 up) is that spelling once
// trailing fraction zeros are dropped; any other number is parsed and
// written by jcs.NumberToJSON, as jcs.Transform writes it.
func (w *canonicalWriter) number(dst []byte) ([]byte, bool) {
	start := w.pos
	neg := w.in[w.pos] == '-'
	if neg {
		w.pos++
	}
	intStart := w.pos
	if !w.digits() || w.in[intStart] == '0' && w.pos-intStart > 1 {
		return dst, false
	}
	intPart := w.in[intStart:w.pos]
	var frac []byte
	if w.pos < len(w.in) && w.in[w.pos] == '.' {
		w.pos++
		fracStart := w.pos
		if !w.digits() {
			return dst, false
		}
		frac = w.in[fracStart:w.pos]
	}
	exponent := w.pos < len(w.in) && (w.in[w.pos] == 'e' || w.in[w.pos] == 'E')
	if exponent {
		w.pos++
		if w.pos < len(w.in) && (w.in[w.pos] == '+' || w.in[w.pos] == '-') {
			w.pos++
		}
		if !w.digits() {
			return dst, false
		}
	}
	if !w.atValueEnd() {
		return dst, false
	}
	if !exponent {
		frac = bytes.TrimRight(frac, "0")
		lead := 0 // zeros after the point before the first significant digit
		if intPart[0] == '0' {
			lead = len(frac) - len(bytes.TrimLeft(frac, "0"))
		}
		switch {
		case intPart[0] == '0' && len(frac) == 0:
			return append(dst, '0'), true // 0, -0, 0.000 and -0.0 alike
		case intPart[0] == '0' && lead < 6 && len(frac)-lead <= maxPlainDigits,
			intPart[0] != '0' && len(intPart)+len(frac) <= maxPlainDigits:
			if neg {
				dst = append(dst, '-')
			}
			dst = append(dst, intPart...)
			if len(frac) > 0 {
				dst = append(append(dst, '.'), frac...)
			}
			return dst, true
		}
	}
	f, err := strconv.ParseFloat(string(w.in[start:w.pos]), 64)
	if err != nil {
		return dst, false // beyond float64, which jcs.Transform refuses
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return dst, false
	}
	return append(dst, s...), true
}

// digits skips one or more decimal digits and reports whether there was one.
func (w *canonicalWriter) digits() bool {
	start := w.pos
	for w.pos < len(w.in) && w.in[w.pos] >= '0' && w.in[w.pos] <= '9' {
		w.pos++
	}
	return w.pos > start
}
