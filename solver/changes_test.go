package solver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/solvertest"
)

// group is a group of kind with one criterion per expression, named
// <id>_1, <id>_2, ... in order.
func group(id, kind string, exprs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "group %s %s %q {\n", id, kind, id)
	for i, e := range exprs {
		fmt.Fprintf(&b, "  criterion %s_%d \"%s %d\" {\n    %s\n    cite law \"x\"\n  }\n", id, i+1, id, i+1, e)
	}
	return b.String() + "}\n"
}

// TestExplainFailureChangesNeeded counts the fewest criteria to change on
// rulesets whose count is worked out by hand, with all and any groups
// nested through the outcome's and/or: a failed `any` group needs one
// change (its cheapest alternative), however many of its alternatives
// fail, while the reasons (the minimal core) list them all; a pending
// criterion is open, not a change. Each answer's count and change set are
// checked against brute force too.
func TestExplainFailureChangesNeeded(t *testing.T) {
	const answers = `{"a.x": 0, "a.y": 0, "a.b": false}`
	tests := []struct {
		name     string
		groups   string
		outcome  string
		expected engine.Outcome
		want     int
		// changes, when set, is the only smallest change there is.
		changes []string
		// answers, when set, replaces the answers of every case.
		answers string
	}{
		{"any group, two alternatives fail",
			group("g", "any", "a.x > 10", "a.y > 10"), "g", engine.Eligible, 1, nil, ""},
		{"any group, three alternatives fail",
			group("g", "any", "a.x > 10", "a.y > 10", "a.b"), "g", engine.Eligible, 1, nil, ""},
		{"all group, three members fail",
			group("g", "all", "a.x > 10", "a.y > 10", "a.b"), "g", engine.Eligible, 3, []string{"g_1", "g_2", "g_3"}, ""},
		{"all group, one of two fails",
			group("g", "all", "a.x > 10", "a.y >= 0"), "g", engine.Eligible, 1, []string{"g_1"}, ""},
		{"all of two failed any groups",
			group("g", "any", "a.x > 10", "a.y > 10") + group("h", "any", "a.b", "a.x > 20"), "g and h", engine.Eligible, 2, nil, ""},
		{"any of two failed all groups: the cheaper side",
			group("g", "all", "a.x > 10", "a.y > 10") + group("h", "all", "a.b", "a.y >= 0"), "g or h", engine.Eligible, 1, []string{"h_1"}, ""},
		{"an any group already satisfied costs nothing",
			group("g", "any", "a.x > 10", "a.y >= 0") + group("h", "all", "a.x > 10"), "g and h", engine.Eligible, 1, []string{"h_1"}, ""},
		{"(any and all) or all",
			group("g", "any", "a.x > 10", "a.y > 10") + group("h", "all", "a.b", "a.x > 5") + group("k", "all", "a.x > 1", "a.y > 1", "a.b", "a.x > 2"),
			"(g and h) or k", engine.Eligible, 3, nil, ""},
		{"not over an any group: every satisfied alternative must fail",
			group("g", "any", "a.x >= 0", "a.y >= 0", "a.b"), "not g", engine.Eligible, 2, []string{"g_1", "g_2"}, ""},
		{"not eligible expected: an all group needs one member to fail",
			group("g", "all", "a.x >= 0", "a.y >= 0"), "g", engine.NotEligible, 1, nil, ""},
		{"not eligible expected: an any group needs every satisfied alternative to fail",
			group("g", "any", "a.x >= 0", "a.y >= 0", "a.b"), "g", engine.NotEligible, 2, []string{"g_1", "g_2"}, ""},
		{"an open alternative: nothing answered stands in the way",
			group("g", "any", "a.x > 10", "a.y > 10"), "g", engine.Eligible, 0, []string{}, `{"a.y": 0}`},
		{"an all group with a failed member and an open one: the failed one",
			group("g", "all", "a.x > 10", "a.y > 10"), "g", engine.Eligible, 1, []string{"g_1"}, `{"a.x": 0}`},
		{"an open all group or a failed any group: nothing answered stands in the way",
			group("g", "all", "a.y > 10") + group("h", "any", "a.x > 10", "a.b"), "g or h", engine.Eligible, 0, []string{}, `{"a.x": 0, "a.b": false}`},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := solvertest.Compile(t, polarityRules(tc.groups, tc.outcome))
			values := answers
			if tc.answers != "" {
				values = tc.answers
			}
			in, err := r.Convert([]byte(values))
			if err != nil {
				t.Fatal(err)
			}
			ex, err := ExplainFailure(ctx, r, in, tc.expected, ExplainOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ex.ChangesNeeded != tc.want || len(ex.Changes) != tc.want {
				t.Errorf("changes needed %d %v, want %d (reasons %v)", ex.ChangesNeeded, ex.Changes, tc.want, reasonIDs(ex))
			}
			if tc.changes != nil && !slices.Equal(ex.Changes, tc.changes) {
				t.Errorf("changes %v, want %v", ex.Changes, tc.changes)
			}
			res := r.Evaluate(in, engine.Options{})
			checkFewestChanges(t, r, res.Criteria, tc.expected, ex, tc.name)
		})
	}
}

// checkFewestChanges verifies ex's count and change set by enumerating
// criterion statuses: the changes are settled criteria (not pending), and
// freeing them with the pending ones reaches want, while no smaller set
// of settled criteria does.
func checkFewestChanges(t *testing.T, r *engine.Ruleset, actual []engine.Status, want engine.Outcome, ex Explanation, label string) {
	t.Helper()
	if ex.ChangesNeeded != len(ex.Changes) || (len(ex.Reasons) == 0 && ex.ChangesNeeded != 0) {
		t.Fatalf("%s: %d changes needed, changes %v, %d reasons", label, ex.ChangesNeeded, ex.Changes, len(ex.Reasons))
	}
	// fixed holds the settled criteria: all of them but the changes.
	fixed := make([]bool, len(actual))
	var settled []int
	for i, st := range actual {
		if st != engine.Pending {
			fixed[i] = true
			settled = append(settled, i)
		}
	}
	for _, id := range ex.Changes {
		i := solvertest.CriterionIndex(r, id)
		if !fixed[i] {
			t.Fatalf("%s: change %s is pending or listed twice", label, id)
		}
		fixed[i] = false
	}
	if len(ex.Reasons) > 0 {
		if _, ok := reachable(r, actual, fixed, want); !ok {
			t.Errorf("%s: changing %v does not reach %s", label, ex.Changes, want)
		}
	}
	for _, i := range settled {
		fixed[i] = true
	}
	// No set of one settled criterion fewer reaches it (releasing more
	// only helps, so sets of exactly that size are enough to try).
	var smaller func(from, left int) bool
	smaller = func(from, left int) bool {
		if left == 0 {
			_, ok := reachable(r, actual, fixed, want)
			return ok
		}
		for j := from; j < len(settled); j++ {
			fixed[settled[j]] = false
			found := smaller(j+1, left-1)
			fixed[settled[j]] = true
			if found {
				return true
			}
		}
		return false
	}
	if ex.ChangesNeeded > 0 && smaller(0, ex.ChangesNeeded-1) {
		t.Errorf("%s: fewer than %d changes %v reach %s", label, ex.ChangesNeeded, ex.Changes, want)
	}
}
