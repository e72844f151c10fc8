package impact

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// lineReader hands out a stream's lines one at a time, holding at most one
// line (MaxLineBytes) in memory, and counts the lines and bytes it has read
// so that rows can be reported by line number and progress by bytes.
type lineReader struct {
	// ctx is looked at while a row takes many lines or one very long
	// line, so that a cancel stops a run inside a row as well as between
	// rows.
	ctx   context.Context
	br    *bufio.Reader
	max   int
	line  int64 // the number of the line last returned, from 1
	bytes int64 // bytes read so far, line breaks included
}

// newLineReader reads r in lines of at most max bytes (their line break
// aside).
func newLineReader(ctx context.Context, r io.Reader, max int) *lineReader {
	// Room for the longest line allowed and its "\r\n": a longer one fills
	// the buffer and is recognised as too long.
	return &lineReader{ctx: ctx, br: bufio.NewReaderSize(r, max+2), max: max}
}

// next returns the next line without its line break ("\n" or "\r\n"). The
// slice is valid until the following call. long is true, and the line nil,
// when the line is longer than max: its bytes have been read and dropped.
// At the end of the stream it returns io.EOF; a final line without a line
// break is still a line.
func (l *lineReader) next() (line []byte, long bool, err error) {
	if l.line%checkEvery == 0 {
		if err := l.ctx.Err(); err != nil {
			return nil, false, err
		}
	}
	b, err := l.br.ReadSlice('\n')
	l.bytes += int64(len(b))
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			if err := l.ctx.Err(); err != nil {
				return nil, false, err
			}
			b, err = l.br.ReadSlice('\n')
			l.bytes += int64(len(b))
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, fmt.Errorf("read line %d: %w", l.line+1, err)
		}
		l.line++
		return nil, true, nil
	}
	switch {
	case errors.Is(err, io.EOF) && len(b) == 0:
		return nil, false, io.EOF
	case err != nil && !errors.Is(err, io.EOF):
		return nil, false, fmt.Errorf("read line %d: %w", l.line+1, err)
	}
	l.line++
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) > l.max {
		return nil, true, nil
	}
	return b, false, nil
}
