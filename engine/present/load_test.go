package present

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/value"
)

// drawings are, as JSON, the graphs of r with no evaluation and with the
// evaluations of no answers and of a full answer set, and their Mermaid
// diagrams: all the API sends of a ruleset's graph.
func drawings(t testing.TB, r *engine.Ruleset) []byte {
	t.Helper()
	graphs := []*Graph{NewGraph(r, "", nil, nil)}
	for _, in := range []*engine.Inputs{r.ConvertMap(nil), r.ConvertMap(enginetest.Answers(r))} {
		res := r.Evaluate(in, engine.Options{DecisionDate: value.DateOrdinal(2025, 3, 1), Trace: true, Explanation: true})
		graphs = append(graphs, NewGraph(r, "", in, res))
	}
	var diagrams []string
	for _, g := range graphs {
		diagrams = append(diagrams, g.Mermaid())
	}
	b, err := json.Marshal(map[string]any{"graphs": graphs, "diagrams": diagrams})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reloaded is r stored as its IR and loaded back, as the API reads a
// published ruleset.
func reloaded(t testing.TB, r *engine.Ruleset) *engine.Ruleset {
	t.Helper()
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := engine.LoadIR(engine.IRVersion, js)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

// TestGraphOfLoadedIR: a ruleset loaded from its stored IR draws the same
// graphs, overlays and diagrams as the ruleset compiled from source.
func TestGraphOfLoadedIR(t *testing.T) {
	t.Parallel()
	for _, path := range append(graphRulesets(t), "testdata/golden/adversarial.rules") {
		compiled := compilePath(t, path)
		if want, got := drawings(t, compiled), drawings(t, reloaded(t, compiled)); !bytes.Equal(got, want) {
			t.Fatalf("%s: the loaded ruleset draws differently from the compiled one:\n%s\n%s", path, got, want)
		}
	}
}

// FuzzLoadIRGraph checks that whatever IR loads draws as graphs, with and
// without an overlay, and as diagrams, without panicking; the engine's
// FuzzLoadIR checks the loading itself.
func FuzzLoadIRGraph(f *testing.F) {
	for _, path := range graphRulesets(f) {
		js, err := json.Marshal(compilePath(f, path))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, err := engine.LoadIR(engine.IRVersion, data); err == nil {
			drawings(t, r)
		}
	})
}
