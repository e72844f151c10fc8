package casebank

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
)

// TestPublishedContentKeepsItsDigest holds the engine to its promise that
// published content never changes: every published casebank ruleset
// compiles today to the very digest it had when IR version 2 (named values)
// was added, is written in IR version 1 (it uses nothing newer), and loads
// back from that version with the same digest. testdata/published-digests.json
// was recorded from the compiler before that change and is never
// regenerated; its keys are paths under casebank/.
//
// A folder may take a new version of its ruleset (the same slug, new
// content). Its published text then moves, byte for byte, to
// testdata/published/<file>.rules and its key follows it, digest
// unchanged: the published version must still compile to what it was
// published as, while the folder holds the law as it now reads. Such a
// text must be the earlier version of a live folder's ruleset, so the test
// also checks that <folder>/<file>.rules declares the same slug.
func TestPublishedContentKeepsItsDigest(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "published-digests.json"))
	if err != nil {
		t.Fatal(err)
	}
	var published map[string]string
	if err := json.Unmarshal(raw, &published); err != nil {
		t.Fatal(err)
	}
	if len(published) < 30 {
		t.Fatalf("only %d recorded digests", len(published))
	}
	for file, digest := range published {
		src, err := os.ReadFile(filepath.FromSlash(file))
		if err != nil {
			t.Errorf("%s: %v (a published ruleset's file may not go away)", file, err)
			continue
		}
		r, _, err := engine.Compile(filepath.Base(file), src)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if r.ContentDigest() != digest {
			t.Errorf("%s: digest %s, published as %s", file, r.ContentDigest(), digest)
		}
		if dir, name := path.Split(file); dir == publishedDir {
			checkSuccessor(t, file, r.Slug, path.Join(strings.TrimSuffix(name, ".rules"), name))
		}
		if v := r.FormatVersion(); v != 1 {
			t.Errorf("%s: written as IR version %d, want 1", file, v)
		}
		ir, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := engine.LoadIR(1, ir)
		if err != nil || loaded.ContentDigest() != digest {
			t.Errorf("%s: loaded as version 1: %v, digest %v", file, err, loaded)
		}
	}
}

// publishedDir holds, under casebank/, the published text of a ruleset
// whose folder has since taken a new version (see
// TestPublishedContentKeepsItsDigest).
const publishedDir = "testdata/published/"

// checkSuccessor fails t unless successor, the live folder's file for a
// published text kept in publishedDir, compiles and declares slug: the
// kept text is an earlier version of that ruleset, not an orphan.
func checkSuccessor(t *testing.T, published, slug, successor string) {
	t.Helper()
	src, err := os.ReadFile(filepath.FromSlash(successor))
	if err != nil {
		t.Errorf("%s: its folder's ruleset %s: %v", published, successor, err)
		return
	}
	r, _, err := engine.Compile(path.Base(successor), src)
	if err != nil {
		t.Errorf("%s: %v", successor, err)
		return
	}
	if slug == "" || r.Slug != slug {
		t.Errorf("%s publishes slug %q, but its folder's %s declares %q: a kept published text must be an earlier version of the same ruleset", published, slug, successor, r.Slug)
	}
}
