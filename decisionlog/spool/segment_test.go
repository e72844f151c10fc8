package spool_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/eligo/eligo/decisionlog/spool"
)

// segment builds a segment holding records.
func segment(records ...string) []byte {
	buf := spool.AppendHeader(nil, time.Unix(1767225600, 0))
	for _, r := range records {
		buf = spool.AppendFrame(buf, []byte(r))
	}
	return buf
}

// TestDecode: what ends a segment decides whether it is intact, torn (a
// write cut off at the end: truncate) or corrupt (damage that more data
// follows: quarantine).
func TestDecode(t *testing.T) {
	t.Parallel()
	whole := segment("alpha", "bravo", "charlie")
	two := len(segment("alpha", "bravo"))
	flip := func(data []byte, at int) []byte {
		out := bytes.Clone(data)
		out[at] ^= 1
		return out
	}
	cases := []struct {
		name    string
		data    []byte
		records int
		end     int
		damage  spool.Damage
	}{
		{"empty file", nil, 0, 0, spool.Torn},
		{"part of a header", []byte("ELGS"), 0, 0, spool.Torn},
		{"header only", segment(), 0, spool.HeaderSize, spool.Intact},
		{"intact", whole, 3, len(whole), spool.Intact},
		{"wrong magic", flip(whole, 0), 0, 0, spool.Corrupt},
		{"short garbage", []byte("nope"), 0, 0, spool.Corrupt},
		{"cut in the last frame's header", whole[:two+3], 2, two, spool.Torn},
		{"cut in the last frame's payload", whole[:len(whole)-2], 2, two, spool.Torn},
		{"last payload damaged", flip(whole, len(whole)-1), 2, two, spool.Torn},
		{"zeros after the records", append(bytes.Clone(whole), make([]byte, 64)...), 3, len(whole), spool.Torn},
		{"middle payload damaged", flip(whole, spool.HeaderSize+spool.FrameOverhead+1), 0, spool.HeaderSize, spool.Corrupt},
		{"middle checksum damaged", flip(whole, spool.HeaderSize+5), 0, spool.HeaderSize, spool.Corrupt},
		{"middle length damaged", flip(whole, spool.HeaderSize), 0, spool.HeaderSize, spool.Corrupt},
		{"garbage after the records", append(bytes.Clone(whole), "garbage!garbage!"...), 3, len(whole), spool.Corrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := spool.Decode(tc.data)
			if len(d.Records) != tc.records || d.End != tc.end || d.Damage != tc.damage {
				t.Errorf("Decode: %d records, end %d, %s; want %d, %d, %s", len(d.Records), d.End, d.Damage, tc.records, tc.end, tc.damage)
			}
		})
	}
	if d := spool.Decode(whole); string(d.Records[1]) != "bravo" || !d.Created.Equal(time.Unix(1767225600, 0)) {
		t.Errorf("Decode read %q created %v", d.Records[1], d.Created)
	}
}

// FuzzDecode: Decode never panics, its valid prefix re-encodes to the
// same bytes, and an intact segment's records are all of it.
func FuzzDecode(f *testing.F) {
	f.Add(segment("alpha", "bravo", "charlie"))
	f.Add(segment())
	f.Add(segment("")[:spool.HeaderSize+5])
	f.Add([]byte("ELGSPOL1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := spool.Decode(data)
		if d.End > len(data) || (d.Damage == spool.Intact && d.End != len(data)) {
			t.Fatalf("end %d of %d bytes, damage %s", d.End, len(data), d.Damage)
		}
		if d.End < spool.HeaderSize {
			if len(d.Records) > 0 || d.Damage == spool.Intact {
				t.Fatalf("records or intact without a header: %+v", d)
			}
			return
		}
		again := data[:spool.HeaderSize:spool.HeaderSize]
		for _, r := range d.Records {
			again = spool.AppendFrame(again, r)
		}
		if !bytes.Equal(again, data[:d.End]) {
			t.Fatal("the valid prefix does not re-encode to itself")
		}
	})
}
