package casebank

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/eligo/eligo/engine"
)

// TestPublishedContentKeepsItsDigest holds the engine to its promise that
// published content never changes: every casebank ruleset compiles today
// to the very digest it had when IR version 2 (named values) was added,
// is written in IR version 1 (it uses nothing newer), and loads back from
// that version with the same digest. testdata/published-digests.json was
// recorded from the compiler before that change and is never regenerated.
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
