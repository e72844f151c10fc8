package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/eligo/eligo/engine/value"
)

// The direct reader binds field_values in one pass over the bytes, without
// building a map: it takes exactly the shape answers have, one object of
// keys to null, true, false, numbers and strings, and for a list field an
// array of such objects, one per member. It gives up (and Convert decodes
// with encoding/json instead) on anything else: an escape in a key or a
// string, a key sent twice in one object, any other nesting, a control
// character or invalid UTF-8 in a string, a number JSON does not allow,
// or anything after the object but white space. What it does take it
// binds exactly as ConvertMap binds the decoded object, keys in sorted
// order, with the same values, field errors and counts; an error's value
// is decoded with encoding/json so that it is re-encoded the same way.
// docs/performance.md ("Households") gives its cost.

// directKind is the kind of one value the direct reader took.
type directKind uint8

const (
	directNull directKind = iota
	directFalse
	directTrue
	directNumber
	directString
	directList
)

// directEntry is one key of an object and its value, as spans of the
// request's bytes (offsets, so that entries hold no pointers for the
// garbage collector to scan).
type directEntry struct {
	// key is the key between its quotes (it holds no escape).
	key span
	// raw is the value as sent; text is a string's content between its
	// quotes, or a number's text.
	raw, text span
	kind      directKind
	// members, for a list, are its objects: members[first:first+count]
	// of the reader.
	first, count int32
}

// span is the bytes data[start:end] of a request.
type span struct{ start, end int32 }

// of returns the bytes of s in data.
func (s span) of(data []byte) []byte { return data[s.start:s.end] }

// directMember is one object of a list, the keys of its own entries:
// sub[first:first+count] of the reader.
type directMember struct {
	first, count int32
}

// directReader is the state of one direct read.
type directReader struct {
	data []byte
	pos  int
	// top are the keys of the request's object; sub those of every
	// member object, each object's keys together; members are the
	// objects of every list in turn.
	top, sub []directEntry
	members  []directMember
	// keys is at least the number of keys in data.
	keys int
}

// convertDirect is Convert by the direct reader for raw, which starts
// with '{'; it reports false when the reader does not take raw.
func (r *Ruleset) convertDirect(raw []byte) (*Inputs, bool) {
	if len(raw) > math.MaxInt32 {
		return nil, false
	}
	// Every key is followed by a colon, so their count bounds the
	// entries an object or a list of them can hold: one allocation each.
	rd := directReader{data: raw, keys: bytes.Count(raw, []byte{':'})}
	rd.top = make([]directEntry, 0, rd.keys)
	if !rd.readObject(true) || !rd.atEnd() {
		return nil, false
	}
	if !sortEntries(raw, rd.top) {
		return nil, false
	}
	for _, m := range rd.members {
		if !sortEntries(raw, rd.sub[m.first:m.first+m.count]) {
			return nil, false
		}
	}
	in := &Inputs{Values: make([]value.Value, len(r.Fields))}
	var ids []string
	unknown := 0
	for i := range rd.top {
		e := &rd.top[i]
		if e.kind != directNull {
			in.Provided++
		}
		key := e.key.of(raw)
		slot, ok := r.index[string(key)]
		if !ok {
			in.FieldErrors = append(in.FieldErrors, r.unknownFieldError(string(key), decodeRaw(e.raw.of(raw)), &unknown, &ids))
			continue
		}
		f := &r.Fields[slot]
		if f.Member != nil {
			in.FieldErrors = append(in.FieldErrors, memberAtTopError(f, string(key), decodeRaw(e.raw.of(raw))))
			continue
		}
		if e.kind == directNull {
			continue
		}
		if f.List != nil {
			r.bindDirectList(in, slot, &rd, e, &unknown)
			continue
		}
		in.bindDirect(f, slot, f.ID, raw, e)
	}
	r.noteUnused(in)
	return in, true
}

// bindDirectList is convertList for the list e sent for the list field
// at slot.
func (r *Ruleset) bindDirectList(in *Inputs, slot int, rd *directReader, e *directEntry, unknown *int) {
	f := &r.Fields[slot]
	if e.kind != directList {
		// Not a list: ConvertMap's error, from the decoded value.
		r.convertList(in, slot, decodeRaw(e.raw.of(rd.data)), unknown)
		return
	}
	if !in.bindListLength(f, slot, int(e.count)) {
		return
	}
	for i, m := range rd.members[e.first : e.first+e.count] {
		for j := range m.count {
			a := &rd.sub[m.first+j]
			key := a.key.of(rd.data)
			ms, ok := r.memberSlots[memberKey{f.ID, i, string(key)}]
			if !ok {
				in.FieldErrors = append(in.FieldErrors, r.unknownMemberError(f, i, string(key), decodeRaw(a.raw.of(rd.data)), unknown))
				continue
			}
			if a.kind == directNull {
				continue
			}
			in.Provided++
			in.bindDirect(&r.Fields[ms], ms, r.Fields[ms].ID, rd.data, a)
		}
	}
}

// bindDirect binds the non-null value e sent under key k for field f at
// slot, as bind does: the common answers are read from the bytes, and
// anything else (an error, a list) goes through bind on the decoded value
// for its message.
func (in *Inputs) bindDirect(f *Field, slot int, k string, data []byte, e *directEntry) {
	if v, ok := directValue(f, e.kind, e.text.of(data)); ok {
		in.Values[slot] = v
		return
	}
	in.bind(f, slot, k, decodeRaw(e.raw.of(data)))
}

// directValue reads the answer for field f, a value of kind with the
// text text, when it is one convertValue accepts, and reports false
// otherwise (convertValue then says why).
func directValue(f *Field, kind directKind, text []byte) (value.Value, bool) {
	switch {
	case f.Type == SortBool && (kind == directTrue || kind == directFalse):
		return value.BoolValue(kind == directTrue), true
	case f.Type == SortEnum && kind == directString:
		for i, s := range f.EnumValues {
			if s == string(text) {
				return value.Value{Num: int64(i), Known: true}, true
			}
		}
	case f.Type == SortDate && kind == directString:
		if ord, ok := value.ParseDate(string(text)); ok {
			return value.Value{Num: ord, Known: true}, true
		}
	case kind == directNumber && (f.Type == SortInt || f.Type == SortDecimal || f.Type == SortDate):
		n, err := value.ParseNumber(string(text))
		if err != nil {
			return value.Value{}, false
		}
		if f.Type == SortDate {
			return value.Value{Num: n.Num, Known: true}, n.Scale == 0 && n.Num >= 1 && n.Num <= value.MaxOrdinal
		}
		if f.Type == SortInt && n.Scale != 0 || f.Range != nil && !f.Range.Contains(n) {
			return value.Value{}, false
		}
		return n, true
	}
	return value.Value{}, false
}

// decodeRaw decodes one value the direct reader took as ConvertMap would
// have received it (numbers as json.Number), for an error's message and
// value. The reader has checked it is JSON, so decoding cannot fail.
func decodeRaw(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	_ = dec.Decode(&v)
	return v
}

// sortEntries sorts one object's entries by key, as ConvertMap sorts
// keys, and reports false when a key is sent twice (encoding/json keeps
// the last, which the direct reader leaves to it).
func sortEntries(data []byte, es []directEntry) bool {
	slices.SortFunc(es, func(a, b directEntry) int { return bytes.Compare(a.key.of(data), b.key.of(data)) })
	for i := 1; i < len(es); i++ {
		if bytes.Equal(es[i-1].key.of(data), es[i].key.of(data)) {
			return false
		}
	}
	return true
}

// space skips JSON white space.
func (rd *directReader) space() { rd.pos = spaceEnd(rd.data, rd.pos) }

// atEnd reports whether only white space is left.
func (rd *directReader) atEnd() bool {
	rd.space()
	return rd.pos == len(rd.data)
}

// readObject reads an object at pos into top (the request's object,
// whose values may be lists) or into sub as a member of a list (whose
// values may not).
func (rd *directReader) readObject(top bool) bool {
	rd.space()
	if rd.pos >= len(rd.data) || rd.data[rd.pos] != '{' {
		return false
	}
	rd.pos++
	rd.space()
	if rd.pos < len(rd.data) && rd.data[rd.pos] == '}' {
		rd.pos++
		return true
	}
	for {
		rd.space()
		key, ok := rd.readString()
		if !ok {
			return false
		}
		rd.space()
		if rd.pos >= len(rd.data) || rd.data[rd.pos] != ':' {
			return false
		}
		rd.pos++
		rd.space()
		e := directEntry{key: key}
		if !rd.readValue(&e, top) {
			return false
		}
		if top {
			rd.top = append(rd.top, e)
		} else {
			rd.sub = append(rd.sub, e)
		}
		if done, ok := rd.next('}'); done || !ok {
			return ok
		}
	}
}

// next reads what follows an element of an object or array: a comma
// (then done is false), or its closing byte end (done is true); ok is
// false for anything else.
func (rd *directReader) next(end byte) (done, ok bool) {
	rd.space()
	if rd.pos >= len(rd.data) {
		return false, false
	}
	switch rd.data[rd.pos] {
	case ',':
		rd.pos++
		return false, true
	case end:
		rd.pos++
		return true, true
	}
	return false, false
}

// readValue reads one value at pos into e: a scalar, or when list is
// true an array of member objects.
func (rd *directReader) readValue(e *directEntry, list bool) bool {
	start := rd.pos
	if start >= len(rd.data) {
		return false
	}
	switch c := rd.data[start]; {
	case c == '"':
		text, ok := rd.readString()
		if !ok {
			return false
		}
		e.kind, e.text = directString, text
	case c == '-' || c >= '0' && c <= '9':
		if !rd.readNumber() {
			return false
		}
		e.kind, e.text = directNumber, span{int32(start), int32(rd.pos)}
	case c == 't':
		e.kind = directTrue
		if !rd.literal("true") {
			return false
		}
	case c == 'f':
		e.kind = directFalse
		if !rd.literal("false") {
			return false
		}
	case c == 'n':
		e.kind = directNull
		if !rd.literal("null") {
			return false
		}
	case c == '[' && list:
		e.kind = directList
		if !rd.readMembers(e) {
			return false
		}
	default:
		return false
	}
	e.raw = span{int32(start), int32(rd.pos)}
	return true
}

// readMembers reads an array of member objects at pos into e.
func (rd *directReader) readMembers(e *directEntry) bool {
	rd.pos++ // '['
	if rd.members == nil {
		rd.sub = make([]directEntry, 0, rd.keys)
		rd.members = make([]directMember, 0, bytes.Count(rd.data, []byte{'{'}))
	}
	e.first = int32(len(rd.members))
	rd.space()
	if rd.pos < len(rd.data) && rd.data[rd.pos] == ']' {
		rd.pos++
		return true
	}
	for {
		first := int32(len(rd.sub))
		if !rd.readObject(false) {
			return false
		}
		rd.members = append(rd.members, directMember{first: first, count: int32(len(rd.sub)) - first})
		e.count++
		if done, ok := rd.next(']'); done || !ok {
			return ok
		}
	}
}

// literal reads the word w (true, false or null) at pos.
func (rd *directReader) literal(w string) bool {
	if !bytes.HasPrefix(rd.data[rd.pos:], []byte(w)) {
		return false
	}
	rd.pos += len(w)
	return true
}

// readString reads a string at pos and returns the span of its content;
// it reports false for a string with an escape, a control character or
// invalid UTF-8, or none at all.
func (rd *directReader) readString() (span, bool) {
	if rd.pos >= len(rd.data) || rd.data[rd.pos] != '"' {
		return span{}, false
	}
	start := rd.pos + 1
	ascii := true
	for i := start; i < len(rd.data); i++ {
		switch c := rd.data[i]; {
		case c == '"':
			if !ascii && !utf8.Valid(rd.data[start:i]) {
				return span{}, false
			}
			rd.pos = i + 1
			return span{int32(start), int32(i)}, true
		case c == '\\' || c < 0x20:
			return span{}, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return span{}, false
}

// readNumber reads a number at pos as JSON spells it: an optional minus,
// 0 or digits not starting with 0, an optional fraction and exponent.
func (rd *directReader) readNumber() bool {
	d := rd.data
	i := rd.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digitsEnd(d, i)
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		j := digitsEnd(d, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digitsEnd(d, i)
		if j == i {
			return false
		}
		i = j
	}
	rd.pos = i
	return true
}

// digitsEnd returns the index after the run of digits at i of d.
func digitsEnd(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}
