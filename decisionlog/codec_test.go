package decisionlog

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
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
		case int, int64:
			f.SetInt(int64(7 + i))
		case json.RawMessage:
			f.Set(reflect.ValueOf(json.RawMessage(`{"household.size":2,"income.gross_monthly":"[masked]"}`)))
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

// spooledV1 is the record of TestRecordCodecKeepsVersionOne as a process
// before answer logging spooled it (codec version 1), in hex.
const spooledV1 = "01146465635f303132333435363738396162636465660874656e5f61636d651f616c6c5f74797065733a323032363031" +
	"30312d3030303030303030303030300e61636d652f616c6c2d7479706573027631477368613235363a30303030303030" +
	"303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030" +
	"30303030303030303111656c69676f2d636f726540302e33312e3008656c696769626c65477368613235363a30303030" +
	"303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030303030" +
	"3030303030303030303030320572626b5f312437643563326239652d303030302d343030302d383030302d3030303030" +
	"3030303030303102086e6f5f636163686501060201e887de84d2c1d1ec3190c204018080f086ccbfadec310101056f72" +
	"646572036f2d31"

// oldSpooled is spooledV1's bytes.
func oldSpooled(t *testing.T) []byte {
	t.Helper()
	b, err := hex.DecodeString(spooledV1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecordCodecKeepsVersionOne: a record without answers (answer
// logging off, the default) is encoded exactly as before answer logging,
// version 1 and the same bytes, so its spooled size is unchanged; a
// record spooled by an older process decodes; a record with answers is
// version 2.
func TestRecordCodecKeepsVersionOne(t *testing.T) {
	t.Parallel()
	rec := store.DecisionRecord{DecisionID: "dec_0123456789abcdef", TenantID: "ten_acme", RulesetID: "all_types:20260101-000000000000",
		Slug: "acme/all-types", RulesetVersion: "v1", ContentDigest: "sha256:" + strings.Repeat("0", 63) + "1",
		EngineVersion: "eligo-core@0.31.0", Outcome: "eligible", InputsHash: "sha256:" + strings.Repeat("0", 63) + "2",
		Flags: []string{"no_cache"}, CacheHit: true, FieldsProvided: 3, FieldErrors: 1,
		DecidedAt: time.Date(2026, 11, 29, 22, 0, 0, 500, time.UTC), Duration: 37 * time.Microsecond,
		DecisionDate: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), CallerRef: map[string]string{"order": "o-1"},
		RulebookID: "rbk_1", ReleaseID: "7d5c2b9e-0000-4000-8000-000000000001"}
	old := oldSpooled(t)
	got, err := decodeRecord(old)
	if err != nil {
		t.Fatalf("a version 1 record does not decode: %v", err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Errorf("version 1 record:\n got %#v\nwant %#v", got, rec)
	}
	if enc := appendRecord(nil, &rec); !bytes.Equal(enc, old) {
		t.Errorf("a record without answers encodes as %d bytes %x, want version 1's %d bytes %x", len(enc), enc, len(old), old)
	}
	with := rec
	with.Answers, with.AnswerSetting, with.AnswerRetentionDays = json.RawMessage(`{"a.b":1}`), 12, 30
	enc := appendRecord(nil, &with)
	if enc[0] != recordCodecVersionAnswers || !bytes.HasPrefix(enc[1:], old[1:]) {
		t.Errorf("a record with answers is not version 1's fields after version byte 2: %x", enc)
	}
	if got, err := decodeRecord(enc); err != nil || !reflect.DeepEqual(got, with) {
		t.Errorf("a record with answers round trips as %#v, %v", got, err)
	}
}
