package rulebook

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestCheckHints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		hints map[string]*string
		bad   []string
	}{
		{"nil", nil, nil},
		{"empty", map[string]*string{}, nil},
		{"every active beat", map[string]*string{"general_context": ptr("a"), "preamble": ptr("b"), "session_start": ptr("c"),
			"postamble": ptr("d"), "session_end": ptr("e"), "stuck": ptr("f")}, nil},
		{"reserved beats", map[string]*string{"persona": ptr("a"), "conversational_style": nil, "section_transition": ptr("")}, nil},
		{"null text", map[string]*string{"stuck": nil}, nil},
		{"unknown", map[string]*string{"preamle": ptr("Hello")}, []string{"preamle"}},
		{"case matters", map[string]*string{"Preamble": ptr("Hello")}, []string{"Preamble"}},
		{"several, sorted", map[string]*string{"zeta": nil, "stuck": ptr("x"), "alpha": ptr("y"), "": ptr("z")}, []string{"", "alpha", "zeta"}},
	} {
		problems := CheckHints(tc.hints)
		var bad []string
		for _, p := range problems {
			bad = append(bad, p.Loc[1].(string))
			if p.Type != "extra_forbidden" || len(p.Loc) != 2 || p.Loc[0] != "robot_hints" {
				t.Errorf("%s: problem %+v", tc.name, p)
			}
			for _, beat := range append(ActiveBeats(), ReservedBeats()...) {
				if !strings.Contains(p.Msg, beat) {
					t.Errorf("%s: message %q does not list %s", tc.name, p.Msg, beat)
				}
			}
			if text := tc.hints[p.Loc[1].(string)]; text != nil && p.Input != *text {
				t.Errorf("%s: input %v", tc.name, p.Input)
			}
		}
		if !reflect.DeepEqual(bad, tc.bad) {
			t.Errorf("%s: refused %q, want %q", tc.name, bad, tc.bad)
		}
	}
	if len(ActiveBeats()) != 6 || len(ReservedBeats()) != 3 || !IsBeat("persona") || IsBeat("outcome") {
		t.Error("the beats are not the ones docs/api.md documents")
	}
	ActiveBeats()[0] = "changed"
	if ActiveBeats()[0] != "general_context" {
		t.Error("ActiveBeats shares its slice")
	}
	if got := (Problem{Type: "value_error", Loc: []any{"outcome_logic", "args", 1, "section"}, Msg: "m"}).String(); got != "outcome_logic.args[1].section: m (value_error)" {
		t.Errorf("Problem.String = %q", got)
	}
}

// ActiveBeats returns the robot hint beats clients act on, in the order of
// docs/api.md#rulebooks: general_context, preamble, session_start, postamble, session_end,
// stuck. The slice is the caller's.
func ActiveBeats() []string { return slices.Clone(activeBeats[:]) }
