package decisionlog

import (
	"reflect"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
)

// filled returns a record with every field set to a non-zero value, by
// reflection, so that a field added to store.DecisionRecord and forgotten
// by the codec fails TestRecordCodecRoundTrip.
func filled(t testing.TB) store.DecisionRecord {
	var rec store.DecisionRecord
	v := reflect.ValueOf(&rec).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Interface().(type) {
		case string:
			f.SetString("value of " + name)
		case []string:
			f.Set(reflect.ValueOf([]string{"include_trace", "no_cache"}))
		case bool:
			f.SetBool(true)
		case int:
			f.SetInt(int64(7 + i))
		case time.Duration:
			f.SetInt(int64(37*time.Microsecond + time.Duration(i)))
		case time.Time:
			f.Set(reflect.ValueOf(time.Date(2026, 11, 27, 6, 0, i, 123456789, time.UTC)))
		case map[string]string:
			f.Set(reflect.ValueOf(map[string]string{"order": "o-1", "batch": "b-2", "": "empty key"}))
		default:
			t.Fatalf("store.DecisionRecord.%s is a %s: add it to the spool's record codec and to this test", name, f.Type())
		}
	}
	return rec
}

// TestRecordCodecRoundTrip: every field survives the spool's encoding,
// nil and empty lists and maps stay apart, zero times stay zero; a
// truncated, extended or foreign payload is refused.
func TestRecordCodecRoundTrip(t *testing.T) {
	t.Parallel()
	full := filled(t)
	emptyLists := full
	emptyLists.Flags, emptyLists.CallerRef = []string{}, map[string]string{}
	zero := store.DecisionRecord{DecisionID: "dec_0000000000000000"}
	for name, rec := range map[string]store.DecisionRecord{"every field": full, "empty lists": emptyLists, "zero values": zero} {
		t.Run(name, func(t *testing.T) {
			enc := appendRecord(nil, &rec)
			got, err := decodeRecord(enc)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, rec) {
				t.Errorf("round trip:\n got %#v\nwant %#v", got, rec)
			}
			for _, bad := range [][]byte{enc[:len(enc)-1], append(enc[:len(enc):len(enc)], 0), append([]byte{9}, enc[1:]...), nil} {
				if _, err := decodeRecord(bad); err == nil {
					t.Errorf("decoded a damaged payload of %d bytes", len(bad))
				}
			}
		})
	}
}

// FuzzDecodeRecord: decodeRecord never panics, and what it decodes
// encodes to a payload that decodes to the same record.
func FuzzDecodeRecord(f *testing.F) {
	full := filled(f)
	f.Add(appendRecord(nil, &full))
	f.Add(appendRecord(nil, &store.DecisionRecord{}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := decodeRecord(data)
		if err != nil {
			return
		}
		again, err := decodeRecord(appendRecord(nil, &rec))
		if err != nil || !reflect.DeepEqual(again, rec) {
			t.Fatalf("re-encoding changed the record: %v\n%#v\n%#v", err, again, rec)
		}
	})
}
