package present

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/value"
)

// Every reader of rules takes a ruleset with values: its sentences name a
// value by its title and say how a figure is rounded, and the graph and
// its overlay are built.
func TestValuesReadByEveryPresentation(t *testing.T) {
	t.Parallel()
	r, _, err := engine.Compile("values.rules", []byte(testfiles.ValueRules))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.CriterionAt(0)
	if got := CriterionSentence(r, c); !strings.Contains(got, "net monthly income") || !strings.Contains(got, "net income limit") {
		t.Errorf("sentence %q", got)
	}
	byID := map[string]*engine.Expr{}
	for i := range r.Values {
		byID[r.Values[i].ID] = r.Values[i].Expr
	}
	for _, tt := range []struct{ id, want string }{
		{"earned_deduction", "rounded to the nearest multiple of 0.01"},
		{"per_person", "net monthly income divided by household size, rounded down to a multiple of 0.01"},
		{"standard_deduction", "204 if household size is at most 3, otherwise 217"},
	} {
		if got := Sentence(r, byID[tt.id]); !strings.Contains(got, tt.want) {
			t.Errorf("%s reads %q, want it to contain %q", tt.id, got, tt.want)
		}
	}
	in, _ := r.Convert([]byte(`{"income.earned": 1000, "income.unearned": 150.50, "household.size": 2, "household.elderly": false}`))
	res := r.Evaluate(in, engine.Options{DecisionDate: value.DateOrdinal(2026, 1, 5), Explanation: true, Trace: true})
	g := NewGraph(r, "demo/net-income", in, res)
	if g == nil || len(g.Nodes) == 0 {
		t.Fatal("no graph")
	}
	if _, err := json.Marshal(g); err != nil {
		t.Fatal(err)
	}
}
