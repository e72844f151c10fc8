// Package spool is an append-only record log on local disk: the point at
// which a decision record is durable before it reaches PostgreSQL. Records
// are opaque byte strings, each framed with its length and a CRC-32C
// checksum (see Decode) in numbered segment files in one directory.
//
// One writer goroutine appends: Append hands it a framed record and waits;
// the writer takes every record already waiting and writes them all with
// one write call (a group write), optionally followed by fsync, then wakes
// each caller. A record whose Append returned nil is in the file, so it
// survives a kill of the process; with Fsync it is on the disk, so it also
// survives a machine crash or power loss.
//
// A reader ships records elsewhere segment by segment: Seal closes the
// segment being written so that it can be read, Segments lists the sealed
// ones oldest first, Read returns a segment's records, and Remove deletes
// it once they are stored.
//
// Open recovers what an earlier process left: a torn final record (a write
// cut off by a crash) is detected by its checksum and truncated, with a log
// line; a segment damaged anywhere else is moved to the quarantine
// directory and logged at ERROR, never skipped silently. The directory is
// locked (flock on its LOCK file) for as long as the spool is open, so two
// processes can never share one. The spool is bounded: an Append that
// would take it past MaxBytes fails with ErrFull.
package spool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// ErrFull is returned by Append when the record would take the spool past
// its MaxBytes: the records already spooled must be shipped first.
var ErrFull = errors.New("spool full")

// ErrLocked is returned by Open when another process (or another Spool in
// this one) holds the directory.
var ErrLocked = errors.New("spool directory is locked by another process")

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("spool closed")

// ErrQuarantined is returned by Read when the segment turned out damaged:
// it has been moved to the quarantine directory.
var ErrQuarantined = errors.New("spool segment damaged and quarantined")

// QuarantineDir is the subdirectory damaged segments (and records a reader
// set aside with Quarantine) are moved to, for an operator to inspect.
const QuarantineDir = "quarantine"

// lockName is the file in the spool directory that Open locks.
const lockName = "LOCK"

// Config tunes a Spool. Zero members take the defaults.
type Config struct {
	// MaxBytes bounds the bytes of the spool's segments on disk; an
	// Append that would pass it fails with ErrFull. Default 1 GiB.
	MaxBytes int64
	// SegmentBytes is the size past which the writer starts a new
	// segment, so that shipped records free their disk space in steps of
	// this size. Default 16 MiB.
	SegmentBytes int64
	// Fsync makes every group write wait for fsync before Append returns:
	// the records then survive a machine crash or power loss, not only a
	// kill of the process, at the price of a disk flush per group.
	Fsync bool
	// QueueSize bounds the appends waiting for the writer; default 4096.
	QueueSize int
	// Logger receives recovery and quarantine lines; slog.Default() when
	// nil.
	Logger *slog.Logger
}

// maxGroupBytes bounds what one group write gathers, so that a burst is
// written in a few large writes rather than one unbounded one.
const maxGroupBytes = 4 << 20

// Segment is one sealed segment file.
type Segment struct {
	// Seq is its sequence number: segments are written in Seq order.
	Seq uint64
	// Path is its file.
	Path string
	// Size is its length in bytes.
	Size int64
	// Created is when its first record was written.
	Created time.Time
}

// Stats is what a spool holds, for readiness reports.
type Stats struct {
	// Bytes is the size of every segment, sealed or being written.
	Bytes int64
	// Segments counts the segments holding records, sealed or being
	// written.
	Segments int
	// Oldest is when the oldest record still spooled was written; zero
	// when the spool is empty.
	Oldest time.Time
}

// Spool is an open spool directory. Build it with Open; it is safe for
// concurrent use.
type Spool struct {
	dir  string
	cfg  Config
	lock *os.File
	pool sync.Pool // *request

	// closing guards appends against a send after Close: Append holds it
	// for reading while it sends, Close for writing to close.
	closing sync.RWMutex
	closed  bool
	appends chan *request
	done    chan struct{} // closed when the writer has returned

	// wmu serialises the writer and Seal on the active segment.
	wmu        sync.Mutex
	activeFile *os.File // nil when no segment is being written
	buf        []byte   // the group being written

	// mu guards the accounting below, which Stats and the reader read.
	mu      sync.Mutex
	active  Segment // valid when activeFile != nil
	sealed  []Segment
	bytes   int64
	nextSeq uint64
}

// request is one Append waiting for the writer.
type request struct {
	frame []byte
	done  chan error
}

// Open opens (creating it if need be) the spool in dir, locks it, and
// recovers the segments an earlier process left (see the package comment):
// they are sealed at once, ready to be read. It fails with ErrLocked when
// another process holds dir.
func Open(dir string, cfg Config) (*Spool, error) {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 1 << 30
	}
	if cfg.SegmentBytes <= 0 {
		cfg.SegmentBytes = 16 << 20
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 4096
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("open spool: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open spool %s: %w", dir, err)
	}
	if err := flock(lock); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open spool %s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("lock spool %s: %w", dir, err)
	}
	s := &Spool{dir: dir, cfg: cfg, lock: lock, appends: make(chan *request, cfg.QueueSize), done: make(chan struct{})}
	s.pool.New = func() any { return &request{done: make(chan error, 1)} }
	if err := s.recover(); err != nil {
		s.unlock()
		return nil, err
	}
	go s.run()
	return s, nil
}

// flock takes f's exclusive lock without waiting for another holder, but
// tries a few times over a quarter of a second: a child this process forks
// holds a copy of every descriptor, and so of a lock just released, until
// it execs, which must not look like another process holding the spool.
func flock(f *os.File) error {
	var err error
	for attempt := range 6 {
		if attempt > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
	}
	return err
}

// Dir is the spool's directory.
func (s *Spool) Dir() string { return s.dir }

// recover reads the segments found in the directory, oldest first: intact
// ones are sealed as they are, a torn last one is truncated to its valid
// prefix, any other damaged one is quarantined, and empty ones are
// removed.
func (s *Spool) recover() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("read spool %s: %w", s.dir, err)
	}
	var seqs []uint64
	for _, e := range entries {
		if seq, ok := parseSegmentName(e.Name()); ok && e.Type().IsRegular() {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	for i, seq := range seqs {
		s.nextSeq = seq + 1
		path := filepath.Join(s.dir, segmentName(seq))
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("recover spool segment %s: %w", path, err)
		}
		d := Decode(data)
		seg := Segment{Seq: seq, Path: path, Size: int64(d.End), Created: d.Created}
		switch {
		case d.Damage == Corrupt || (d.Damage == Torn && i < len(seqs)-1):
			if err := s.quarantine(seg, d, int64(len(data))); err != nil {
				return err
			}
			continue
		case d.Damage == Torn:
			s.cfg.Logger.Warn("spool: torn final record truncated (a write was cut off by a crash)",
				"segment", path, "offset", d.End, "bytes_dropped", len(data)-d.End, "records_kept", len(d.Records))
			if len(d.Records) > 0 {
				if err := os.Truncate(path, int64(d.End)); err != nil {
					return fmt.Errorf("truncate torn spool segment %s: %w", path, err)
				}
			}
		}
		if len(d.Records) == 0 {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("remove empty spool segment: %w", err)
			}
			continue
		}
		s.sealed = append(s.sealed, seg)
		s.bytes += seg.Size
	}
	if len(s.sealed) > 0 {
		s.cfg.Logger.Info("spool: records left by an earlier process", "dir", s.dir, "segments", len(s.sealed), "bytes", s.bytes)
	}
	return nil
}

// quarantine moves a damaged segment aside and logs it at ERROR: its
// records cannot all be read, and an operator must decide what to do.
// size is its length on disk.
func (s *Spool) quarantine(seg Segment, d Decoded, size int64) error {
	qdir := filepath.Join(s.dir, QuarantineDir)
	if err := os.MkdirAll(qdir, 0o750); err != nil {
		return fmt.Errorf("quarantine spool segment: %w", err)
	}
	dest := filepath.Join(qdir, fmt.Sprintf("%020d-%d.seg", seg.Seq, time.Now().UnixNano()))
	if err := os.Rename(seg.Path, dest); err != nil {
		return fmt.Errorf("quarantine spool segment %s: %w", seg.Path, err)
	}
	s.cfg.Logger.Error("spool: damaged segment quarantined; its records were not shipped",
		"segment", seg.Path, "moved_to", dest, "damage", d.Damage.String(), "bytes", size,
		"damaged_at_offset", d.End, "records_before_damage", len(d.Records))
	return nil
}

// Append writes payload as one record and returns once the write that
// carries it returned (and, with Fsync, once it is on the disk). It fails
// with ErrFull when the spool is full, ErrClosed after Close, ctx's error
// when ctx ends first (the record may still be written), or the write's
// error.
func (s *Spool) Append(ctx context.Context, payload []byte) error {
	if len(payload) > MaxRecordBytes {
		return fmt.Errorf("spool: a record of %d bytes exceeds the limit of %d", len(payload), MaxRecordBytes)
	}
	req := s.pool.Get().(*request)
	req.frame = AppendFrame(req.frame[:0], payload)
	if err := s.enqueue(ctx, req); err != nil {
		s.pool.Put(req)
		return err
	}
	select {
	case err := <-req.done:
		s.pool.Put(req) // only now: the writer is done with it
		return err
	case <-ctx.Done():
		return fmt.Errorf("spool append: %w", ctx.Err())
	}
}

// enqueue hands req to the writer.
func (s *Spool) enqueue(ctx context.Context, req *request) error {
	s.closing.RLock()
	defer s.closing.RUnlock()
	if s.closed {
		return ErrClosed
	}
	select {
	case s.appends <- req:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("spool append: %w", ctx.Err())
	}
}

// run is the writer: it takes the first append waiting, every other one
// already queued (up to maxGroupBytes), and writes them together, until
// Close closes the queue.
func (s *Spool) run() {
	defer close(s.done)
	var group []*request
	for {
		first, ok := <-s.appends
		if !ok {
			return
		}
		group = append(group[:0], first)
		size := len(first.frame)
	gather:
		for size < maxGroupBytes {
			select {
			case req, open := <-s.appends:
				if !open {
					break gather
				}
				group = append(group, req)
				size += len(req.frame)
			default:
				break gather
			}
		}
		s.write(group)
		clear(group)
	}
}

// write appends group's frames with one write call, after refusing those
// that do not fit under MaxBytes, and tells each caller the outcome.
func (s *Spool) write(group []*request) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	// Room is reserved for a new segment's header, which this group may
	// need.
	s.mu.Lock()
	room := s.cfg.MaxBytes - s.bytes - int64(HeaderSize)
	s.mu.Unlock()
	accepted := group[:0:0]
	s.buf = s.buf[:0]
	for _, req := range group {
		if int64(len(req.frame)) > room {
			req.done <- ErrFull
			continue
		}
		room -= int64(len(req.frame))
		s.buf = append(s.buf, req.frame...)
		accepted = append(accepted, req)
	}
	if len(accepted) == 0 {
		return
	}
	err := s.writeBuf()
	for _, req := range accepted {
		req.done <- err
	}
	if cap(s.buf) > 2*maxGroupBytes {
		s.buf = nil // one huge record should not pin its buffer
	}
}

// writeBuf writes s.buf at the end of the active segment, starting a new
// segment first when there is none or the active one is full. A failed
// write is cut back off the file, so that the segment never holds a
// partial frame followed by good ones; if even that fails the segment is
// sealed as it is (its damage is then found and quarantined when read).
func (s *Spool) writeBuf() error {
	if s.activeFile != nil && s.active.Size+int64(len(s.buf)) > s.cfg.SegmentBytes {
		if err := s.sealLocked(); err != nil {
			return err
		}
	}
	if s.activeFile == nil {
		if err := s.create(); err != nil {
			return err
		}
	}
	at := s.active.Size
	_, err := s.activeFile.WriteAt(s.buf, at)
	if err == nil && s.cfg.Fsync {
		err = s.activeFile.Sync()
	}
	if err != nil {
		if terr := s.activeFile.Truncate(at); terr != nil {
			_ = s.sealLocked()
		}
		return fmt.Errorf("spool write: %w", err)
	}
	s.mu.Lock()
	s.active.Size += int64(len(s.buf))
	s.bytes += int64(len(s.buf))
	s.mu.Unlock()
	return nil
}

// create starts the next segment with its header; with Fsync the header
// and the directory entry are flushed too, so the segment itself survives
// a machine crash.
func (s *Spool) create() error {
	s.mu.Lock()
	seq := s.nextSeq
	s.nextSeq++
	s.mu.Unlock()
	path := filepath.Join(s.dir, segmentName(seq))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("create spool segment: %w", err)
	}
	created := time.Now()
	if _, err := f.Write(AppendHeader(make([]byte, 0, HeaderSize), created)); err != nil {
		f.Close()
		_ = os.Remove(path)
		return fmt.Errorf("write spool segment header: %w", err)
	}
	if s.cfg.Fsync {
		if err := syncFileAndDir(f, s.dir); err != nil {
			f.Close()
			_ = os.Remove(path)
			return err
		}
	}
	s.activeFile = f
	s.mu.Lock()
	s.active = Segment{Seq: seq, Path: path, Size: int64(HeaderSize), Created: created.UTC()}
	s.bytes += int64(HeaderSize)
	s.mu.Unlock()
	return nil
}

// syncFileAndDir flushes f and then dir, which holds f's entry.
func syncFileAndDir(f *os.File, dir string) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync spool segment: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync spool directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync spool directory: %w", err)
	}
	return nil
}

// Seal closes the segment being written, if it holds records, so that it
// is listed by Segments and can be read; the next Append starts a new one.
func (s *Spool) Seal() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.sealLocked()
}

// sealLocked is Seal with wmu held.
func (s *Spool) sealLocked() error {
	if s.activeFile == nil {
		return nil
	}
	err := s.activeFile.Close()
	s.activeFile = nil
	s.mu.Lock()
	s.sealed = append(s.sealed, s.active)
	s.active = Segment{}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("seal spool segment: %w", err)
	}
	return nil
}

// Segments lists the sealed segments, oldest first.
func (s *Spool) Segments() []Segment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sealed)
}

// Read returns the records of a sealed segment, in the order written. A
// segment found damaged (the disk changed it since it was written) is
// quarantined and Read fails with ErrQuarantined.
func (s *Spool) Read(seg Segment) ([][]byte, error) {
	data, err := os.ReadFile(seg.Path)
	if err != nil {
		return nil, fmt.Errorf("read spool segment: %w", err)
	}
	d := Decode(data)
	if d.Damage == Intact {
		return d.Records, nil
	}
	if err := s.quarantine(seg, d, int64(len(data))); err != nil {
		return nil, err
	}
	s.forget(seg)
	return nil, fmt.Errorf("%w: %s", ErrQuarantined, seg.Path)
}

// Remove deletes a sealed segment whose records are all stored elsewhere,
// freeing its bytes for new appends.
func (s *Spool) Remove(seg Segment) error {
	if err := os.Remove(seg.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove shipped spool segment: %w", err)
	}
	s.forget(seg)
	return nil
}

// forget drops seg from the sealed list and the byte count.
func (s *Spool) forget(seg Segment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.sealed, func(x Segment) bool { return x.Seq == seg.Seq }); i >= 0 {
		s.bytes -= s.sealed[i].Size
		s.sealed = slices.Delete(s.sealed, i, i+1)
	}
}

// Quarantine writes records that a reader could not store (the database
// refused them) to a segment file in the quarantine directory, named after
// the segment they came from, and logs it: they leave the spool, but are
// kept for an operator rather than dropped.
func (s *Spool) Quarantine(from Segment, records [][]byte) error {
	qdir := filepath.Join(s.dir, QuarantineDir)
	if err := os.MkdirAll(qdir, 0o750); err != nil {
		return fmt.Errorf("quarantine records: %w", err)
	}
	buf := AppendHeader(nil, from.Created)
	for _, r := range records {
		buf = AppendFrame(buf, r)
	}
	dest := filepath.Join(qdir, fmt.Sprintf("%020d-refused-%d.seg", from.Seq, time.Now().UnixNano()))
	f, err := os.OpenFile(dest, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("quarantine records: %w", err)
	}
	_, err = f.Write(buf)
	if err == nil {
		err = syncFileAndDir(f, qdir)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("quarantine records: %w", err)
	}
	s.cfg.Logger.Error("spool: records set aside in quarantine", "segment", from.Path, "records", len(records), "file", dest)
	return nil
}

// Stats reports what the spool holds.
func (s *Spool) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Bytes: s.bytes, Segments: len(s.sealed)}
	if len(s.sealed) > 0 {
		st.Oldest = s.sealed[0].Created
	}
	if s.active.Size > int64(HeaderSize) {
		st.Segments++
		if st.Oldest.IsZero() {
			st.Oldest = s.active.Created
		}
	}
	return st
}

// Close stops taking appends, lets the writer finish those it holds, seals
// the segment being written and releases the directory's lock. Records
// not yet removed stay on disk for the next Open.
func (s *Spool) Close() error {
	s.closing.Lock()
	if s.closed {
		s.closing.Unlock()
		return nil
	}
	s.closed = true
	close(s.appends)
	s.closing.Unlock()
	<-s.done
	err := s.Seal()
	if uerr := s.unlock(); err == nil {
		err = uerr
	}
	return err
}

// unlock releases the directory's lock.
func (s *Spool) unlock() error {
	// Closing the file releases the flock.
	if err := s.lock.Close(); err != nil {
		return fmt.Errorf("unlock spool %s: %w", s.dir, err)
	}
	return nil
}

// MaxBytes is the spool's bound on disk (Config.MaxBytes, or its default).
func (s *Spool) MaxBytes() int64 { return s.cfg.MaxBytes }
