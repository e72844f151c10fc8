package spool

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"
)

// A segment file is a header followed by frames:
//
//	header: magic "ELGSPOL1" (8 bytes) | created, Unix nanoseconds (8 bytes, little-endian)
//	frame:  length n (4 bytes, little-endian) | CRC-32C of the length's 4 bytes and the payload (4 bytes) | payload (n bytes)
//
// The checksum covers the length as well as the payload, so a damaged
// length is caught rather than trusted; the creation time is what the
// spool's lag (the age of its oldest unshipped record) is read from.
const (
	segmentMagic = "ELGSPOL1"
	// HeaderSize is the size of a segment's header.
	HeaderSize = len(segmentMagic) + 8
	// FrameOverhead is what each record costs beside its payload.
	FrameOverhead = 8
	// MaxRecordBytes bounds one record's payload. A length above it is
	// damage, not a record: it keeps a corrupt length from being read as
	// a frame running past the end of the file (a torn write).
	MaxRecordBytes = 64 << 20
)

// castagnoli is the CRC-32C table (the polynomial with hardware support on
// amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Damage says what, if anything, ends a segment before its last byte.
type Damage int

const (
	// Intact: every byte of the segment belongs to a valid frame.
	Intact Damage = iota
	// Torn: the segment ends in an incomplete or unreadable frame that
	// nothing valid follows, the trace of a write cut off by a crash. The
	// valid prefix is kept and the tail truncated.
	Torn
	// Corrupt: an unreadable frame (or header) is followed by more data,
	// so records could be lost by truncating it; the segment is moved
	// aside for an operator rather than skipped.
	Corrupt
)

// String names the damage for log lines.
func (d Damage) String() string {
	switch d {
	case Intact:
		return "intact"
	case Torn:
		return "torn"
	default:
		return "corrupt"
	}
}

// AppendHeader appends a segment header carrying created: a segment is
// one header and any number of frames (AppendFrame).
func AppendHeader(dst []byte, created time.Time) []byte {
	dst = append(dst, segmentMagic...)
	return binary.LittleEndian.AppendUint64(dst, uint64(created.UnixNano()))
}

// AppendFrame appends payload to dst as one frame: its length, its
// checksum and itself. Callers build their frames in their own goroutines,
// so the spool's writer only copies bytes.
func AppendFrame(dst, payload []byte) []byte {
	var length [4]byte
	binary.LittleEndian.PutUint32(length[:], uint32(len(payload)))
	sum := crc32.Update(crc32.Checksum(length[:], castagnoli), castagnoli, payload)
	dst = append(dst, length[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, sum)
	return append(dst, payload...)
}

// Decoded is what Decode reads from a segment's bytes.
type Decoded struct {
	// Created is the time in the header; zero when the header is damaged.
	Created time.Time
	// Records are the payloads of the valid frames before End, in order.
	// They share the decoded bytes' memory.
	Records [][]byte
	// End is the offset where the valid prefix ends (the header and the
	// valid frames): the whole length when Damage is Intact.
	End int
	// Damage says what follows End.
	Damage Damage
}

// Decode reads a segment's bytes. It never fails: it reports the valid
// prefix and what ends it (see Damage). A segment shorter than its header
// that is a prefix of a valid one is Torn (a crash between creating and
// writing it), as is a frame running past the end, or an unreadable frame
// followed only by zero bytes (a crash after the file grew but before its
// data reached the disk). Any other unreadable frame or header is Corrupt.
func Decode(data []byte) Decoded {
	if len(data) < HeaderSize {
		if isPrefix(data, segmentMagic) {
			return Decoded{Damage: Torn}
		}
		return Decoded{Damage: Corrupt}
	}
	if string(data[:len(segmentMagic)]) != segmentMagic {
		return Decoded{Damage: Corrupt}
	}
	d := Decoded{Created: time.Unix(0, int64(binary.LittleEndian.Uint64(data[len(segmentMagic):HeaderSize]))).UTC()}
	off := HeaderSize
	for off < len(data) {
		rest := data[off:]
		if len(rest) < FrameOverhead {
			d.End, d.Damage = off, Torn
			return d
		}
		n := binary.LittleEndian.Uint32(rest[:4])
		if n > MaxRecordBytes {
			d.End, d.Damage = off, tornIfZero(rest)
			return d
		}
		size := FrameOverhead + int(n)
		if size > len(rest) {
			d.End, d.Damage = off, Torn
			return d
		}
		sum := crc32.Update(crc32.Checksum(rest[:4], castagnoli), castagnoli, rest[FrameOverhead:size])
		if sum != binary.LittleEndian.Uint32(rest[4:8]) {
			d.End = off
			if size == len(rest) {
				d.Damage = Torn
			} else {
				d.Damage = tornIfZero(rest)
			}
			return d
		}
		d.Records = append(d.Records, rest[FrameOverhead:size:size])
		off += size
	}
	d.End = off
	return d
}

// isPrefix reports whether data is a prefix of s.
func isPrefix(data []byte, s string) bool {
	return len(data) <= len(s) && string(data) == s[:len(data)]
}

// tornIfZero is Torn when rest holds only zero bytes (space the file system
// allocated but a crash left unwritten), else Corrupt.
func tornIfZero(rest []byte) Damage {
	for _, b := range rest {
		if b != 0 {
			return Corrupt
		}
	}
	return Torn
}

// segmentName is the file name of segment seq: zero-padded so that names
// sort in the order written.
func segmentName(seq uint64) string { return fmt.Sprintf("%020d.seg", seq) }

// parseSegmentName returns the sequence number of a segment's file name.
func parseSegmentName(name string) (uint64, bool) {
	var seq uint64
	if len(name) != 24 {
		return 0, false
	}
	if _, err := fmt.Sscanf(name, "%020d.seg", &seq); err != nil || segmentName(seq) != name {
		return 0, false
	}
	return seq, true
}
