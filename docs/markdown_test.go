package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository root, seen from this package's directory (where
// go test runs it).
const root = ".."

// block is one fenced code block of a Markdown document.
type block struct {
	lang  string   // the info string's first word: sh, json, text, go, ...
	flags []string // the info string's other words, e.g. norun
	line  int      // the line of the opening fence, counted from 1
	body  []string // the lines between the fences
	// follows is true when only blank lines stand between this block and
	// the block before it, which makes it that block's expected output.
	follows bool
}

// has reports whether the block's info string carries flag.
func (b block) has(flag string) bool {
	for _, f := range b.flags {
		if f == flag {
			return true
		}
	}
	return false
}

// doc is a Markdown document read for the tests: its fenced blocks, its
// prose lines (everything outside the blocks, with the line number of
// each) and the anchors its headings give.
type doc struct {
	path    string // relative to the repository root
	blocks  []block
	prose   []string // prose[i] is line i+1, or "" inside a block
	anchors map[string]bool
}

var fence = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*(.*)$")

// readDoc reads and splits one document.
func readDoc(t *testing.T, rel string) doc {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatalf("reading %s: %v", rel, err)
	}
	lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
	d := doc{path: rel, prose: make([]string, len(lines)), anchors: map[string]bool{}}
	var open *block
	var marker string
	afterBlock := false
	slugs := map[string]int{}
	for i, line := range lines {
		if open != nil {
			if m := fence.FindStringSubmatch(line); m != nil && strings.HasPrefix(m[1], marker) && m[2] == "" {
				d.blocks = append(d.blocks, *open)
				open, afterBlock = nil, true
				continue
			}
			open.body = append(open.body, line)
			continue
		}
		if m := fence.FindStringSubmatch(line); m != nil {
			words := strings.Fields(m[2])
			b := block{line: i + 1, follows: afterBlock}
			if len(words) > 0 {
				b.lang, b.flags = words[0], words[1:]
			}
			open, marker = &b, m[1]
			continue
		}
		d.prose[i] = line
		if strings.TrimSpace(line) != "" {
			afterBlock = false
		}
		if strings.HasPrefix(line, "#") {
			text := strings.TrimLeft(line, "#")
			if strings.HasPrefix(text, " ") {
				d.anchors[anchorOf(text, slugs)] = true
			}
		}
	}
	if open != nil {
		t.Fatalf("%s:%d: a fenced block is never closed", rel, open.line)
	}
	return d
}

// anchorOf is the anchor GitHub gives a heading: lower case, the
// characters that are not letters, digits, spaces, hyphens or
// underscores dropped, spaces made hyphens, and a repeated heading
// numbered -1, -2, ... in order.
func anchorOf(heading string, seen map[string]int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	a := b.String()
	n := seen[a]
	seen[a] = n + 1
	if n > 0 {
		a += "-" + strconv.Itoa(n)
	}
	return a
}

// manual lists README.md and every Markdown file of docs/, relative to
// the repository root.
func manual(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, f := range files {
		out = append(out, filepath.Join("docs", filepath.Base(f)))
	}
	if len(out) < 5 {
		t.Fatalf("found only %v: the test is not looking at the manual", out)
	}
	return out
}
