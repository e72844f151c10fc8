package docs_test

import (
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink is an inline Markdown link or image: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// inlineCode is a code span, inside which nothing is a link.
var inlineCode = regexp.MustCompile("`[^`]*`")

// TestLinksResolve follows every relative link of README.md and docs/*.md:
// the file or folder it names exists, and an anchor it names is a heading
// of the Markdown file it points into. A section renamed or moved fails
// here rather than leaving a link that goes nowhere.
func TestLinksResolve(t *testing.T) {
	docs := map[string]doc{}
	load := func(rel string) (doc, bool) {
		if d, ok := docs[rel]; ok {
			return d, true
		}
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			return doc{}, false
		}
		docs[rel] = readDoc(t, rel)
		return docs[rel], true
	}
	checked := 0
	for _, rel := range manual(t) {
		d, _ := load(rel)
		for i, line := range d.prose {
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				dest := rel
				if file != "" {
					dest = path.Clean(path.Join(path.Dir(rel), file))
				}
				if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", rel, i+1, target, dest)
					continue
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %q: an anchor into a file that is not Markdown", rel, i+1, target)
					continue
				}
				if to, _ := load(dest); !to.anchors[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", rel, i+1, target, dest, anchor)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d links: the test is not reading the manual", checked)
	}
}

// docRef is a mention of a Markdown document, with an optional anchor, in
// any file of the repository: a Go comment citing docs/api.md#errors, a
// script pointing at docs/development.md, a README naming ../casebank/README.md.
// A path inside a URL does not match: the character before it (a slash)
// belongs to the path, and a path must start after a character that does not.
var docRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:\.{1,2}/)*(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.md)(?:#([A-Za-z0-9_-]+))?`)

// TestCitationsOfTheManualResolve checks the other direction: every file
// the repository tracks (code comments, scripts, the Makefile, other
// Markdown) that names a Markdown document names one the repository holds
// (from its root, or from the citing file's folder), and an anchor it gives
// is a heading there. A document a reader of the repository does not have
// (a note kept outside it, a ticket) fails here, whatever its path.
// A README's anchor cited from a folder with a README of its own
// (casebank/) is that README's.
func TestCitationsOfTheManualResolve(t *testing.T) {
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a checkout)", err)
	}
	docs := map[string]doc{}
	checked := 0
	for _, rel := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case strings.HasPrefix(rel, "web/dist/"), strings.HasPrefix(rel, "api/openapi/reference/"),
			strings.HasPrefix(rel, "clients/go/"), strings.HasSuffix(rel, "schema.d.ts"),
			strings.HasSuffix(rel, ".json"), strings.HasSuffix(rel, ".pdf"),
			strings.Contains(rel, "testdata/"), strings.HasPrefix(rel, "casebank/") && !strings.HasSuffix(rel, ".md"):
			continue // generated, vendored or data (a law's text, a test's input)
		}
		raw, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			continue // listed but absent from the work tree
		}
		for i, line := range strings.Split(citingText(rel, raw), "\n") {
			for _, m := range docRef.FindAllStringSubmatch(line, -1) {
				if notDocuments[path.Base(m[1])] != "" {
					continue
				}
				page, anchor := citedPage(rel, m[1], anchor(m))
				if page == "" {
					continue // the README as a whole, or a folder's own
				}
				checked++
				d, ok := docs[page]
				if !ok {
					if _, err := os.Stat(filepath.Join(root, page)); err != nil {
						t.Errorf("%s:%d: cites %s, which is not in the repository", rel, i+1, m[1])
						continue
					}
					d = readDoc(t, page)
					docs[page] = d
				}
				if anchor != "" && !d.anchors[anchor] {
					t.Errorf("%s:%d: cites %s#%s, but %s has no such heading", rel, i+1, m[1], anchor, page)
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("found only %d citations of the manual: the test is not reading the tree", checked)
	}
}

// notDocuments are file names a comment may mention that end in .md but
// name no document of the repository, each with what it is.
var notDocuments = map[string]string{
	"source.md": "a ruleset folder's source text, beside its rules (docs/folders.md#ruleset-folders)",
}

// citingText is the part of a tracked file that can cite a document: the
// comments of a Go file (its string literals are data: a test's file
// names, an upload's name), the whole of any other file. The comments
// keep their lines, so a line number reported is the file's.
func citingText(rel string, raw []byte) string {
	if !strings.HasSuffix(rel, ".go") {
		return string(raw)
	}
	out := []byte(strings.Repeat(" ", len(raw)))
	for i, c := range raw {
		if c == '\n' {
			out[i] = '\n'
		}
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(rel, -1, len(raw)), raw, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT {
			off := fset.Position(pos).Offset
			copy(out[off:], lit)
		}
	}
	return string(out)
}

// anchor is the anchor of a docRef match, if it has one.
func anchor(m []string) string { return m[2] }

// citedPage is the document (relative to the repository root) that file
// rel means by cited: the path from the root when it exists there,
// otherwise the path from rel's folder (a Markdown link, a sibling named
// bare); cited itself when neither exists, so that the caller reports it.
// A bare README.md means the README of rel's folder when it has one; with
// no anchor it names a whole README and is not checked ("" returned).
func citedPage(rel, cited, anchor string) (string, string) {
	local := path.Join(path.Dir(rel), cited)
	if cited == "README.md" {
		if anchor == "" {
			return "", ""
		}
		if _, err := os.Stat(filepath.Join(root, local)); err == nil {
			return local, anchor
		}
		return cited, anchor
	}
	if _, err := os.Stat(filepath.Join(root, cited)); err == nil && !strings.HasPrefix(cited, ".") {
		return path.Clean(cited), anchor
	}
	if _, err := os.Stat(filepath.Join(root, local)); err == nil {
		return local, anchor
	}
	return cited, anchor
}
