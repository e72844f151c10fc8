package lsp

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/eligo/eligo/engine/syntax"
)

// text is one version of a document with the conversions between the
// engine's positions (1-based lines, columns in characters) and the
// protocol's (0-based lines, columns in UTF-16 code units).
type text struct {
	src   string
	lines []string // without their line ends
	// starts holds each line's byte offset in src.
	starts []int
}

func newText(src string) *text {
	t := &text{src: src}
	start := 0
	for i := 0; i <= len(src); i++ {
		if i == len(src) || src[i] == '\n' {
			t.lines = append(t.lines, strings.TrimSuffix(src[start:i], "\r"))
			t.starts = append(t.starts, start)
			start = i + 1
		}
	}
	return t
}

// line is line n (0-based), "" past the end.
func (t *text) line(n int) string {
	if n < 0 || n >= len(t.lines) {
		return ""
	}
	return t.lines[n]
}

// toLSP converts an engine position; a position with no line (0) is the
// start of the document.
func (t *text) toLSP(p syntax.Pos) Position {
	if p.Line <= 0 {
		return Position{}
	}
	line := t.line(p.Line - 1)
	units, col := 0, 1
	for _, r := range line {
		if col >= p.Col {
			break
		}
		units += utf16Len(r)
		col++
	}
	return Position{Line: p.Line - 1, Character: units}
}

// fromLSP converts a protocol position to the engine's; a character past
// the end of its line is the line's end.
func (t *text) fromLSP(p Position) syntax.Pos {
	line := t.line(p.Line)
	units, col := 0, 1
	for _, r := range line {
		if units >= p.Character {
			break
		}
		units += utf16Len(r)
		col++
	}
	return syntax.Pos{Line: p.Line + 1, Col: col}
}

// offset is the byte offset of a protocol position in src.
func (t *text) offset(p Position) int {
	if p.Line >= len(t.lines) {
		return len(t.src)
	}
	if p.Line < 0 {
		return 0
	}
	line, units := t.lines[p.Line], 0
	for i, r := range line {
		if units >= p.Character {
			return t.starts[p.Line] + i
		}
		units += utf16Len(r)
	}
	return t.starts[p.Line] + len(line)
}

// end is the position just past the document's last character.
func (t *text) end() Position {
	last := len(t.lines) - 1
	return Position{Line: last, Character: utf16Width(t.lines[last])}
}

// span is the range of an engine span.
func (t *text) span(start, end syntax.Pos) Range {
	return Range{Start: t.toLSP(start), End: t.toLSP(end)}
}

// apply returns the text with change made.
func (t *text) apply(c ContentChange) string {
	if c.Range == nil {
		return c.Text
	}
	from, to := t.offset(c.Range.Start), t.offset(c.Range.End)
	if to < from {
		from, to = to, from
	}
	return t.src[:from] + c.Text + t.src[to:]
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

func utf16Width(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}

// pathOf is the file path of a file: URI, "" for another scheme (an
// unsaved buffer has no folder to read cases or a source text from).
func pathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// before reports whether a comes before b.
func before(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}
