package syntax

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a 1-based line and column (in characters) in a .rules file.
type Pos struct {
	// Line counts from 1; 0 means no position.
	Line int
	// Col counts characters (runes, not bytes) from 1.
	Col int
}

// String prints "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Error is one compile error or warning, printed "file:line:col: message".
type Error struct {
	// File is the name the caller passed to Compile, used only in the
	// printed form.
	File string
	// Pos is where the problem is; 1:1 for errors not tied to a place.
	Pos Pos
	// Msg says what is wrong and, where it can, how to fix it.
	Msg string
	// wholeFile marks an error about the file as a whole (a section line
	// it lacks, say), which Pos places at 1:1 without being about line 1.
	wholeFile bool
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// ErrorList is every error found in one compile, sorted by position. A
// compile reports as many independent errors as it can find instead of
// stopping at the first, so an analyst can fix a file in one pass.
type ErrorList []*Error

// maxErrors bounds an ErrorList so that a garbage input cannot produce an
// unbounded report.
const maxErrors = 100

func (l *ErrorList) Add(file string, pos Pos, msg string) {
	if len(*l) < maxErrors {
		*l = append(*l, &Error{File: file, Pos: pos, Msg: msg})
	}
}

// addWholeFile adds an error about the file as a whole (something it
// lacks), placed at 1:1 but about no line in particular.
func (l *ErrorList) AddWholeFile(file, msg string) {
	if len(*l) < maxErrors {
		*l = append(*l, &Error{File: file, Pos: Pos{1, 1}, Msg: msg, wholeFile: true})
	}
}

// Error implements error: one line per entry.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// sort orders the list by position and drops exact duplicates (the same
// message at the same place, which recovery can produce).
func (l *ErrorList) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Pos.Line != s[j].Pos.Line {
			return s[i].Pos.Line < s[j].Pos.Line
		}
		return s[i].Pos.Col < s[j].Pos.Col
	})
	out := s[:0]
	for i, e := range s {
		if i > 0 && *e == *s[i-1] {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// addFirst adds a syntax error unless the list already holds one on the
// same line: once a line has gone wrong, what the parser makes of the rest
// of it is most often a consequence of the first mistake, and the first
// error is the one to fix (go/parser keeps one error per line likewise).
func (l *ErrorList) addFirst(file string, pos Pos, msg string) {
	for _, e := range *l {
		if e.Pos.Line == pos.Line {
			return
		}
	}
	l.Add(file, pos, msg)
}

// notOnLinesOf returns the errors of l on no line that some error of
// syntax is on: a check of what the parser made of a line it could not
// read reports consequences, not causes.
func (l ErrorList) NotOnLinesOf(syntax ErrorList) ErrorList {
	lines := make(map[int]bool, len(syntax))
	for _, e := range syntax {
		lines[e.Pos.Line] = true
	}
	var out ErrorList
	for _, e := range l {
		if e.wholeFile || !lines[e.Pos.Line] {
			out = append(out, e)
		}
	}
	return out
}
