package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/llm/llmtest"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// The benchmark's harness, run against the scripted model: for each
// folder the model answers with the folder's own rules, so every test
// passes in the first round with every quote verified, and the table
// says so. (The real benchmark replaces the scripted model by a
// provider's.)
func TestHarnessWithScriptedModel(t *testing.T) {
	t.Parallel()
	all, err := folder.Discover("../../casebank")
	if err != nil {
		t.Fatal(err)
	}
	var folders []string
	for _, d := range all {
		if name := filepath.Base(d); name == "us-fmla-employee" || name == "uk-child-benefit" {
			folders = append(folders, d)
		}
	}
	server := llmtest.NewServer(t)
	for _, d := range folders {
		rules, err := os.ReadFile(filepath.Join(d, filepath.Base(d)+".rules"))
		if err != nil {
			t.Fatal(err)
		}
		server.Append(llmtest.Turn{Reply: "```rules\n" + string(rules) + "```"})
	}
	st := store.New(storetest.New(t))
	info, _ := llm.DefaultModels().Lookup(llm.DefaultModels().Default().Name)
	var out bytes.Buffer
	if err := evaluate(context.Background(), st, wiring.Generation{BaseURL: server.URL()}, llm.NewKey("sk-scripted"), info, folders, &out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"us-fmla-employee", "uk-child-benefit"} {
		var row string
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "| "+name+" |") {
				row = line
			}
		}
		cells := strings.Split(row, "|")
		if len(cells) < 8 || strings.TrimSpace(cells[3]) != "100%" || strings.TrimSpace(cells[5]) != "1" {
			t.Fatalf("%s: row %q in\n%s", name, row, out.String())
		}
		if q := strings.Split(strings.TrimSpace(cells[4]), "/"); len(q) != 2 || q[0] != q[1] || q[0] == "0" {
			t.Fatalf("%s: quotes %q", name, cells[4])
		}
	}
}

// Without a provider key the benchmark says how to run it and succeeds.
func TestSkippedWithoutKey(t *testing.T) {
	t.Setenv("ELIGO_EVAL_PROVIDER_KEY", "")
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil || !strings.Contains(out.String(), "skipped: set ELIGO_EVAL_PROVIDER_KEY") {
		t.Fatalf("%v: %q", err, out.String())
	}
}
