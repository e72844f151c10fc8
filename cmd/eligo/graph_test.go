package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestGraphCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := writeFile(t, dir, "demo.rules", cliRules)
	values := writeFile(t, dir, "values.json", `{"a.n": 13, "a.born": "2000-01-01"}`)

	code, out, errs := runCLI("graph", rules)
	if code != 0 {
		t.Fatalf("graph: exit %d, stderr %q", code, errs)
	}
	var body struct {
		Name  string `json:"name"`
		Graph struct {
			Nodes []struct {
				ID      string          `json:"id"`
				Type    string          `json:"type"`
				Overlay json.RawMessage `json:"overlay"`
			} `json:"nodes"`
			Sections []string `json:"sections"`
		} `json:"graph"`
		Mermaid string `json:"mermaid"`
	}
	if err := json.Unmarshal([]byte(out), &body); err != nil {
		t.Fatalf("graph output is not JSON: %v\n%s", err, out)
	}
	if body.Name != "Demo" || len(body.Graph.Sections) != 1 || body.Graph.Sections[0] != "demo" ||
		!strings.HasPrefix(body.Mermaid, "flowchart LR\n") {
		t.Errorf("graph body: name %q sections %v mermaid %.40q", body.Name, body.Graph.Sections, body.Mermaid)
	}
	// fields a.n and a.born, criteria c and adult, group g, the outcome
	if len(body.Graph.Nodes) != 6 {
		t.Errorf("%d nodes, want 6", len(body.Graph.Nodes))
	}
	for _, n := range body.Graph.Nodes {
		if string(n.Overlay) != "null" {
			t.Errorf("node %s overlay %s without --values", n.ID, n.Overlay)
		}
	}

	code, out, errs = runCLI("graph", rules, "--mermaid", "--values", values, "--date", "2026-01-15")
	if code != 0 {
		t.Fatalf("graph --mermaid --values: exit %d, stderr %q", code, errs)
	}
	if !strings.HasPrefix(out, "flowchart LR\n") || !strings.Contains(out, ",outcome satisfied\n") {
		t.Errorf("mermaid with values lacks the satisfied outcome:\n%s", out)
	}

	for _, args := range [][]string{{"graph"}, {"graph", rules, rules}, {"graph", rules, "--date", "soon"}, {"graph", rules, "--values"}} {
		if code, _, _ := runCLI(args...); code == 0 {
			t.Errorf("%v exited 0", args)
		}
	}
}
