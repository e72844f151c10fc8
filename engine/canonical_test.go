package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/gowebpki/jcs"
)

// canonicalSeeds are documents on both sides of the fast path's edges:
// numbers at the limits of plain spelling, every escape, keys whose UTF-8
// and UTF-16 orders differ, nesting at and beyond the fast depth, and
// refusals. FuzzCanonicalJSON starts from them (more seeds live in
// testdata/fuzz/FuzzCanonicalJSON) and TestCanonicalJSONMatchesJCS checks
// each.
var canonicalSeeds = []struct {
	raw  string
	fast bool // whether the fast path writes it (else jcs.Transform does)
}{
	{`{"household.size": 3, "income.gross_monthly": 1696.50, "a.b": true, "a.c": null, "a.e": "red", "a.born": "2024-02-29"}`, true},
	{" {\n\t\"b\" : [ 1 , 2.0 , -0 , 0.0 ] ,\r\n \"a\" : { \"y\" : false , \"x\" : [ ] , \"w\" : { } } } ", true},
	{`{"n":[0,-0,-0.0,1.0,1.50,100,123456789012345,1234567890123456,12345678901234567890,1e21,1e20,9007199254740993]}`, true},
	{`{"n":[0.000001,0.0000001,-0.0000015,0.1,0.30000000000000004,0.12345678901234567,1.7976931348623157e308,5e-324,1e-400]}`, true},
	{`{"n":[1e0,1E+2,1e-7,-1.5e3,2.5E-3,1e+021,123e-20,0e5,-0e-5]}`, true},
	{`{"s":"\"\\\/\b\f\n\r\t\u0000\u001f\u007f\u0041\u00e9\u2028\uFFFF\ud83d\ude00 é 😀 \u00E9"}`, true},
	{`{"\u0061":1}`, false},
	{`{"é":1,"z":2,"":3,"😀":4,"\uf000":5,"ﬀ":6,"a\u0000":7}`, false},
	{"{\"é\":1,\"z\":2,\"\":3,\"😀\":4,\"\ue000\":5,\"ﬀ\":6,\"\U00010000\":7,\"\U0010FFFF\":8}", true},
	{`[1,"a",[true,[false,[null,[{}]]]]]`, true},
	{`[[[[[[[[[1]]]]]]]]]`, false},
	{`"top"`, true}, {` 42 `, true}, {`true`, true}, {`null`, true}, {`-`, false},
	{`{"a":1,"a":2}`, false},
	{`{"a":1e400}`, false},
	{`{"a":"\ud800"}`, false}, {`{"a":"\udc00\ud800"}`, false}, {`{"a":"\ud83d\u0041"}`, false},
	{"{\"a\":\"\xff\"}", false}, {"{\"a\":\"\xed\xa0\x80\"}", false}, {"{\"a\":\"\x01\"}", false},
	{`{"a":01}`, false}, {`{"a":1.}`, false}, {`{"a":.5}`, false}, {`{"a":+1}`, false}, {`{"a":1e}`, false},
	{`{"a":truex}`, false}, {`{"a":1 2}`, false}, {`{"a":1,}`, false}, {`[1,]`, false}, {`{"a" 1}`, false},
	{`{"a":1}x`, false}, {`{"a":1`, false}, {``, false}, {"\ufeff{}", false}, {`{"a":"\x"}`, false},
}

func TestCanonicalJSONMatchesJCS(t *testing.T) {
	t.Parallel()
	for _, seed := range canonicalSeeds {
		checkCanonical(t, []byte(seed.raw))
		if _, ok := fastCanonical([]byte(seed.raw)); ok != seed.fast {
			t.Errorf("fast path on %q: %v, want %v", seed.raw, ok, seed.fast)
		}
	}
}

// TestCanonicalFastPathCasebank: every case's field_values in the casebank
// (the shape of real requests) is written by the fast path, and the bytes
// are jcs.Transform's.
func TestCanonicalFastPathCasebank(t *testing.T) {
	t.Parallel()
	values := casebankFieldValues(t)
	for _, raw := range values {
		checkCanonical(t, raw)
		if _, ok := fastCanonical(raw); !ok {
			t.Errorf("the fast path declines a casebank case's field_values %s", raw)
		}
	}
}

// TestCanonicalMemory: the fast path allocates in proportion to the
// document, however many colons its strings hold, and no more than
// jcs.Transform does.
func TestCanonicalMemory(t *testing.T) {
	raw := []byte(`{"a":"` + strings.Repeat(":", 1<<20) + `","b":[` + strings.Repeat(`{"c":1},`, 1<<14) + `0]}`)
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	var ok bool
	fast := allocated(func() { _, ok = fastCanonical(raw) })
	if !ok {
		t.Fatal("the fast path declines the document")
	}
	lib := allocated(func() { _, _ = jcs.Transform(raw) })
	if fast > 4*uint64(len(raw)) || fast > lib {
		t.Errorf("fast path allocated %d bytes for a %d-byte document (jcs.Transform: %d)", fast, len(raw), lib)
	}
}

// TestCompareUTF16 orders keys as RFC 8785's own example does (its
// section 3.2.3 sorts "\r", "1", "</script>", "ö", "€", "😀", "דּ"): by
// UTF-16 code units, which puts U+10000 and above before U+E000 to
// U+FFFF.
func TestCompareUTF16(t *testing.T) {
	t.Parallel()
	keys := []string{"\uFB33", "\U0001F600", "\u20AC", "\u00F6", "</script>", "1", "\r", "\uE000", "\U00010000", "", "a", "ab", "\uFFFF"}
	got := slices.Clone(keys)
	slices.SortFunc(got, func(a, b string) int { return compareUTF16([]byte(a), []byte(b)) })
	want := slices.Clone(keys)
	slices.SortFunc(want, func(a, b string) int { return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))) })
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q, want %q", got, want)
	}
	if got[0] != "" || got[len(got)-1] != "\uFFFF" || slices.Index(got, "\U0001F600") > slices.Index(got, "\uE000") {
		t.Errorf("sorted %q: U+10000 and above must come before U+E000", got)
	}
}

// FuzzCanonicalJSON checks canonicalize against jcs.Transform, the
// library inputs_hash was defined with: the same bytes for every input
// jcs.Transform accepts, a refusal for every input it refuses, and the
// fast path never writes anything for an input jcs.Transform refuses.
func FuzzCanonicalJSON(f *testing.F) {
	for _, seed := range canonicalSeeds {
		f.Add([]byte(seed.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkCanonical(t, raw)
	})
}

// checkCanonical compares canonicalize and the fast path on raw with
// jcs.Transform.
func checkCanonical(t *testing.T, raw []byte) {
	t.Helper()
	want, wantErr := jcs.Transform(raw)
	got, err := canonicalize(raw)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("canonicalize(%q): error %v, jcs.Transform: error %v", raw, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("canonicalize(%q) = %q, jcs.Transform = %q", raw, got, want)
	}
	if fast, ok := fastCanonical(raw); ok && (wantErr != nil || !bytes.Equal(fast, want)) {
		t.Fatalf("fast path on %q wrote %q, jcs.Transform: %q, %v", raw, fast, want, wantErr)
	}
}

// casebankFieldValues returns the field_values of every casebank case.
func casebankFieldValues(t testing.TB) [][]byte {
	t.Helper()
	var values [][]byte
	for _, list := range testfiles.CaseAnswers(t) {
		for _, raw := range list {
			values = append(values, raw)
		}
	}
	return values
}

// BenchmarkInputsHash hashes the field_values of every snap-income case
// (the ruleset `make bench` loads) in turn: "jcs" as inputs_hash was
// computed before the fast path (jcs.Transform, then SHA-256), "fast" as
// InputsHash computes it now.
func BenchmarkInputsHash(b *testing.B) {
	data, err := os.ReadFile("../casebank/snap-income/cases.json")
	if err != nil {
		b.Fatal(err)
	}
	var cases []struct {
		FieldValues json.RawMessage `json:"field_values"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		b.Fatal(err)
	}
	bodies := make([][]byte, len(cases))
	size := 0
	for i, c := range cases {
		// Spelt as a client sends it: one line, a space after each colon.
		bodies[i] = []byte(strings.ReplaceAll(string(mustCompact(b, c.FieldValues)), `":`, `": `))
		size += len(bodies[i])
	}
	for _, bc := range []struct {
		name string
		hash func([]byte) (string, error)
	}{
		{"jcs", func(raw []byte) (string, error) {
			canon, err := jcs.Transform(raw)
			return inputsDigest(canon), err
		}},
		{"fast", InputsHash},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(size / len(bodies)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := bc.hash(bodies[i%len(bodies)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func mustCompact(t testing.TB, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
