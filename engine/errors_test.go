package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// TestErrorFixtures compiles every testdata/errors/*.rules file and checks
// that exactly the errors marked in it are reported, each on its line, in
// the manner of go/parser's testdata. A marker is a comment:
//
//	field a.x int weight x   # ERROR "whole number"
//	# ^ ERROR "not closed"
//
// `# ERROR "<regexp>"` expects an error on the line the comment is on,
// whose message matches the regular expression (a comment may hold several
// markers, for several errors on one line). `# ^ ERROR "<regexp>"`, on a
// line of its own, expects it on the line above: for a line that cannot
// end in a comment, such as one with a string that is not closed. An error
// not marked fails the test, and so does a marker no error matches; errors
// about the whole file are reported at 1:1 and marked on line 1. Every
// error must carry a line and a column.
//
// The fixtures are the mistakes a newcomer to the language makes, each
// written so that the first error is the cause and no consequence of it
// is reported.
func TestErrorFixtures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/errors/*.rules")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("%d fixtures under testdata/errors, want the common mistakes covered", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := errorMarkers(t, string(src))
			_, _, cerr := Compile(filepath.Base(path), src)
			var got syntax.ErrorList
			if cerr != nil {
				list, ok := cerr.(syntax.ErrorList)
				if !ok {
					t.Fatalf("error %T is not an ErrorList: %v", cerr, cerr)
				}
				got = list
			}
			for i, e := range got {
				if e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Errorf("error without a line and column: %v", e)
				}
				if i > 0 && (e.Pos.Line < got[i-1].Pos.Line || e.Pos.Line == got[i-1].Pos.Line && e.Pos.Col < got[i-1].Pos.Col) {
					t.Errorf("errors out of order: %v after %v", e, got[i-1])
				}
			}
			matched := make([]bool, len(want))
		errors:
			for _, e := range got {
				for i, m := range want {
					if !matched[i] && m.line == e.Pos.Line && m.re.MatchString(e.Msg) {
						matched[i] = true
						continue errors
					}
				}
				t.Errorf("unexpected error %v", e)
			}
			for i, m := range want {
				if !matched[i] {
					t.Errorf("line %d: no error matching %q; got:\n%v", m.line, m.re, got)
				}
			}
		})
	}
}

// marker is one expected error of a fixture.
type marker struct {
	// line is the line the error must be on.
	line int
	// re matches its message.
	re *regexp.Regexp
}

var (
	markerComment = regexp.MustCompile(`#\s*(\^\s*)?ERROR\s.*$`)
	markerQuoted  = regexp.MustCompile(`ERROR\s+"((?:[^"\\]|\\.)*)"`)
)

// errorMarkers reads the markers of a fixture (see TestErrorFixtures).
func errorMarkers(t *testing.T, src string) []marker {
	t.Helper()
	var out []marker
	for i, text := range strings.Split(src, "\n") {
		loc := markerComment.FindStringSubmatchIndex(text)
		if loc == nil {
			continue
		}
		line := i + 1
		if loc[2] >= 0 {
			if strings.TrimSpace(text[:loc[0]]) != "" {
				t.Fatalf("line %d: a # ^ ERROR marker stands on a line of its own", line)
			}
			line--
		}
		quoted := markerQuoted.FindAllStringSubmatch(text[loc[0]:], -1)
		if len(quoted) == 0 {
			t.Fatalf("line %d: ERROR marker without a quoted regexp", i+1)
		}
		for _, q := range quoted {
			re, err := regexp.Compile(strings.ReplaceAll(q[1], `\"`, `"`))
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			out = append(out, marker{line: line, re: re})
		}
	}
	return out
}
