package docs_test

import (
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

// docRef is a mention of a manual page, with an optional anchor, in any
// file of the repository: a Go comment citing docs/api.md#errors, a
// script pointing at docs/development.md.
var docRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:docs/[a-z0-9_-]+|README)\.md)(?:#([A-Za-z0-9_-]+))?`)

// TestCitationsOfTheManualResolve checks the other direction: every file
// the repository tracks (code comments, scripts, the Makefile, other
// Markdown) that names a page of the manual names one that exists, and an
// anchor it gives is a heading there. A README's anchor cited from a
// folder with a README of its own (casebank/) is that README's.
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
			strings.HasPrefix(rel, "clients/"), strings.HasSuffix(rel, ".json"), strings.HasSuffix(rel, ".pdf"):
			continue // generated, vendored or data
		}
		raw, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			continue // listed but absent from the work tree
		}
		for i, line := range strings.Split(string(raw), "\n") {
			for _, m := range docRef.FindAllStringSubmatch(line, -1) {
				page, anchor := m[1], m[2]
				if page == "README.md" {
					if anchor == "" {
						continue // the README as a whole, or a folder's own
					}
					if dir := path.Dir(rel); dir != "." {
						if _, err := os.Stat(filepath.Join(root, dir, "README.md")); err == nil {
							page = path.Join(dir, "README.md")
						}
					}
				}
				checked++
				d, ok := docs[page]
				if !ok {
					if _, err := os.Stat(filepath.Join(root, page)); err != nil {
						t.Errorf("%s:%d: cites %s, which does not exist", rel, i+1, page)
						continue
					}
					d = readDoc(t, page)
					docs[page] = d
				}
				if anchor != "" && !d.anchors[anchor] {
					t.Errorf("%s:%d: cites %s#%s, but %s has no such heading", rel, i+1, page, anchor, page)
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("found only %d citations of the manual: the test is not reading the tree", checked)
	}
}
