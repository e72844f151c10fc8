package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// vscodeDir is the VS Code extension that starts this server.
var vscodeDir = filepath.Join("..", "editors", "vscode")

// TestVSCodeManifest checks the extension's manifest against what it
// ships and what the server is: the .rules language with its grammar and
// configuration, a main that runs `eligo lsp`, dependencies pinned to the
// exact versions of the committed lockfile (the packaging tool among
// them), and a grammar that knows every keyword and function of the
// language. That the grammar tokenises the casebank with the real
// TextMate engine is editors/vscode/check.js's, run by `make vscodetest`.
func TestVSCodeManifest(t *testing.T) {
	var m struct {
		Name            string            `json:"name"`
		Publisher       string            `json:"publisher"`
		Main            string            `json:"main"`
		Engines         map[string]string `json:"engines"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
		Contributes     struct {
			Languages []struct {
				ID            string   `json:"id"`
				Extensions    []string `json:"extensions"`
				Configuration string   `json:"configuration"`
			} `json:"languages"`
			Grammars []struct {
				Language  string `json:"language"`
				ScopeName string `json:"scopeName"`
				Path      string `json:"path"`
			} `json:"grammars"`
			Configuration struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	decode(t, filepath.Join(vscodeDir, "package.json"), &m)
	if m.Name == "" || m.Publisher == "" || m.Engines["vscode"] == "" {
		t.Errorf("name %q, publisher %q, engines %v: vsce packages none of them missing", m.Name, m.Publisher, m.Engines)
	}
	if len(m.Contributes.Languages) != 1 || len(m.Contributes.Grammars) != 1 {
		t.Fatalf("contributes %d languages and %d grammars, want one of each", len(m.Contributes.Languages), len(m.Contributes.Grammars))
	}
	lang, grammar := m.Contributes.Languages[0], m.Contributes.Grammars[0]
	if len(lang.Extensions) != 1 || lang.Extensions[0] != ".rules" || grammar.Language != lang.ID {
		t.Errorf("language %+v, grammar %+v: want .rules files with the grammar", lang, grammar)
	}
	if _, ok := m.Contributes.Configuration.Properties["eligo.path"]; !ok {
		t.Error("no eligo.path setting for where the binary is")
	}
	for _, f := range []string{m.Main, lang.Configuration, grammar.Path} {
		if _, err := os.Stat(filepath.Join(vscodeDir, f)); err != nil {
			t.Errorf("the manifest names %s: %v", f, err)
		}
	}
	main, err := os.ReadFile(filepath.Join(vscodeDir, m.Main))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(main), "args: ['lsp']") || !strings.Contains(string(main), "vscode-languageclient/node") {
		t.Errorf("%s does not start `eligo lsp` with the language client", m.Main)
	}

	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	decode(t, filepath.Join(vscodeDir, "package-lock.json"), &lock)
	if _, ok := m.DevDependencies["@vscode/vsce"]; !ok {
		t.Error("the packaging tool @vscode/vsce is not a locked dev dependency")
	}
	exact := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	for _, deps := range []map[string]string{m.Dependencies, m.DevDependencies} {
		for name, version := range deps {
			if !exact.MatchString(version) {
				t.Errorf("%s is %q, not an exact version", name, version)
			}
			if got := lock.Packages["node_modules/"+name].Version; got != version {
				t.Errorf("%s is %s in package.json and %q in package-lock.json", name, version, got)
			}
		}
	}

	var g struct {
		ScopeName  string `json:"scopeName"`
		Repository map[string]struct {
			Match string `json:"match"`
		} `json:"repository"`
	}
	decode(t, filepath.Join(vscodeDir, grammar.Path), &g)
	if g.ScopeName != grammar.ScopeName {
		t.Errorf("the grammar's scope %q is not the manifest's %q", g.ScopeName, grammar.ScopeName)
	}
	var words []string
	for _, rule := range []string{"keyword", "type", "attribute", "operator-word", "constant"} {
		words = append(words, alternatives(g.Repository[rule].Match)...)
	}
	for _, kw := range syntax.Keywords() {
		if !slices.Contains(words, kw) {
			t.Errorf("the grammar does not highlight the keyword %s", kw)
		}
	}
	fns := alternatives(g.Repository["function"].Match)
	for _, fn := range syntax.Functions() {
		if !slices.Contains(fns, fn) {
			t.Errorf("the grammar does not highlight the function %s", fn)
		}
	}
}

// alternatives are the words of a rule `\b(?:a|b|c)...`.
func alternatives(match string) []string {
	m := regexp.MustCompile(`\(\?:([a-z_|]+)\)`).FindStringSubmatch(match)
	if m == nil {
		return nil
	}
	return strings.Split(m[1], "|")
}

func decode(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
