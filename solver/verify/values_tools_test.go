package verify

import (
	"context"
	"testing"

	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/solvertest"
)

// TestToolsTakeComputingRules runs every verification tool over the
// rulesets that compute (named values, if, division, rounding, tables):
// none may fail on them.
func TestToolsTakeComputingRules(t *testing.T) {
	for _, cb := range solvertest.ValuesTestdata(t) {
		ctx := context.Background()
		if _, err := Analyze(ctx, cb.Rules, AnalyzeOptions{}); err != nil {
			t.Errorf("%s: analyze: %v", cb.Name, err)
		}
		if _, err := SuggestCases(ctx, cb.Rules, nil, SuggestOptions{DecisionDate: "2025-06-01"}); err != nil {
			t.Errorf("%s: suggest: %v", cb.Name, err)
		}
		if _, err := MutationScore(ctx, cb.Rules, cb.Cases); err != nil {
			t.Errorf("%s: mutation: %v", cb.Name, err)
		}
		if _, err := Diff(ctx, cb.Rules, cb.Rules, DiffOptions{DecisionDate: value.DateOrdinal(2025, 6, 1)}); err != nil {
			t.Errorf("%s: diff: %v", cb.Name, err)
		}
	}
}
