package decisionlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/eligo/eligo/store"
)

// A spooled record is a version byte followed by the fields of
// store.DecisionRecord in a fixed order: strings and lists length-prefixed
// (uvarint), integers as varints, times as Unix nanoseconds (a zero time
// as a marker byte, so that it decodes as the zero time), the caller_ref
// map as a count and sorted key, value pairs (nil and empty kept apart).
// It is the spool's payload: written on every /decide and read once by the
// shipper, so it is built by appending, without reflection. A field added
// to store.DecisionRecord must be added here (TestRecordCodecRoundTrip
// fills every field by reflection and fails until it is).
//
// Version 2 is version 1 followed by a record's logged answers (Answers,
// AnswerSetting, AnswerRetentionDays). It is written only for a record
// that carries answers: a record without them is written as version 1,
// byte for byte as before answer logging existed, so the default record
// costs the spool nothing more, and a spool left by an older process
// (version 1 only) reads as it did.
const (
	recordCodecVersion        = 1
	recordCodecVersionAnswers = 2
)

// errRecordEncoding is the error of a payload that is not a record.
var errRecordEncoding = errors.New("not a spooled decision record")

// appendRecord appends rec's encoding to dst.
func appendRecord(dst []byte, rec *store.DecisionRecord) []byte {
	if rec.Answers == nil {
		return appendRecordV1(append(dst, recordCodecVersion), rec)
	}
	dst = appendRecordV1(append(dst, recordCodecVersionAnswers), rec)
	dst = appendString(dst, string(rec.Answers))
	dst = binary.AppendVarint(dst, rec.AnswerSetting)
	return binary.AppendVarint(dst, int64(rec.AnswerRetentionDays))
}

// appendRecordV1 appends the fields of version 1, after the version byte.
func appendRecordV1(dst []byte, rec *store.DecisionRecord) []byte {
	for _, s := range [...]string{rec.DecisionID, rec.TenantID, rec.RulesetID, rec.Slug, rec.RulesetVersion,
		rec.ContentDigest, rec.EngineVersion, rec.Outcome, rec.InputsHash, rec.RulebookID, rec.ReleaseID} {
		dst = appendString(dst, s)
	}
	dst = appendStrings(dst, rec.Flags)
	dst = append(dst, boolByte(rec.CacheHit))
	dst = binary.AppendVarint(dst, int64(rec.FieldsProvided))
	dst = binary.AppendVarint(dst, int64(rec.FieldErrors))
	dst = appendTime(dst, rec.DecidedAt)
	dst = binary.AppendVarint(dst, int64(rec.Duration))
	dst = appendTime(dst, rec.DecisionDate)
	if rec.CallerRef == nil {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	keys := slices.Sorted(maps.Keys(rec.CallerRef))
	dst = binary.AppendUvarint(dst, uint64(len(keys)))
	for _, k := range keys {
		dst = appendString(dst, k)
		dst = appendString(dst, rec.CallerRef[k])
	}
	return dst
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendStrings keeps nil and empty apart: 0 is nil, n+1 is n strings.
func appendStrings(dst []byte, list []string) []byte {
	if list == nil {
		return append(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(list))+1)
	for _, s := range list {
		dst = appendString(dst, s)
	}
	return dst
}

// appendTime writes 0 for the zero time, else 1 and the Unix nanoseconds
// (the instant; records' times are UTC).
func appendTime(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	return binary.AppendVarint(dst, t.UnixNano())
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// recordReader reads an encoding, remembering the first failure.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) fail() {
	if r.err == nil {
		r.err = errRecordEncoding
	}
	r.b = nil
}

func (r *recordReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recordReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *recordReader) strings() []string {
	n := r.uvarint()
	if n == 0 || r.err != nil {
		return nil
	}
	if n-1 > uint64(len(r.b)) { // each string takes at least a byte
		r.fail()
		return nil
	}
	list := make([]string, 0, n-1)
	for range n - 1 {
		list = append(list, r.string())
	}
	return list
}

func (r *recordReader) time() time.Time {
	switch r.byte() {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(0, r.varint()).UTC()
	default:
		r.fail()
		return time.Time{}
	}
}

func (r *recordReader) bool() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	default:
		r.fail()
		return false
	}
}

// decodeRecord reads a record appendRecord wrote.
func decodeRecord(b []byte) (store.DecisionRecord, error) {
	r := recordReader{b: b}
	version := r.byte()
	if version != recordCodecVersion && version != recordCodecVersionAnswers {
		return store.DecisionRecord{}, fmt.Errorf("%w: version %d", errRecordEncoding, version)
	}
	var rec store.DecisionRecord
	for _, s := range [...]*string{&rec.DecisionID, &rec.TenantID, &rec.RulesetID, &rec.Slug, &rec.RulesetVersion,
		&rec.ContentDigest, &rec.EngineVersion, &rec.Outcome, &rec.InputsHash, &rec.RulebookID, &rec.ReleaseID} {
		*s = r.string()
	}
	rec.Flags = r.strings()
	rec.CacheHit = r.bool()
	rec.FieldsProvided = int(r.varint())
	rec.FieldErrors = int(r.varint())
	rec.DecidedAt = r.time()
	rec.Duration = time.Duration(r.varint())
	rec.DecisionDate = r.time()
	if r.bool() {
		n := r.uvarint()
		if n > uint64(len(r.b)) {
			r.fail()
		} else {
			rec.CallerRef = make(map[string]string, n)
			for range n {
				k := r.string()
				rec.CallerRef[k] = r.string()
			}
		}
	}
	if version == recordCodecVersionAnswers {
		rec.Answers = []byte(r.string())
		rec.AnswerSetting = r.varint()
		rec.AnswerRetentionDays = int(r.varint())
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail()
	}
	if r.err != nil {
		return store.DecisionRecord{}, r.err
	}
	return rec, nil
}
