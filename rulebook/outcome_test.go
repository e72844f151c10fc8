package rulebook

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/gowebpki/jcs"
)

// refusal is one problem a test expects: where and what kind.
type refusal struct {
	loc []any
	typ string
}

func TestParseOutcomeRefusals(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"op":"not","args":[`, MaxOutcomeDepth) + `{"section":"A"}` + strings.Repeat(`]}`, MaxOutcomeDepth)
	root := "outcome_logic"
	for _, tc := range []struct {
		name string
		raw  string
		want []refusal
		// msg is a fragment the first problem's message must contain.
		msg string
	}{
		{"bare string", `"A AND B"`, []refusal{{[]any{root}, "value_error"}}, "expression tree is required"},
		{"expr wrapper", `{"expr": "A AND B"}`, []refusal{{[]any{root}, "value_error"}}, "expression tree is required"},
		{"string inside", `{"op":"and","args":[{"section":"A"},"B"]}`, []refusal{{[]any{root, "args", 1}, "value_error"}}, "expression tree is required"},
		{"number", `7`, []refusal{{[]any{root}, "model_type"}}, "object"},
		{"array", `[{"section":"A"}]`, []refusal{{[]any{root}, "model_type"}}, "object"},
		{"null arg", `{"op":"not","args":[null]}`, []refusal{{[]any{root, "args", 0}, "model_type"}}, "object"},
		{"unknown member", `{"section":"A","weight":2}`, []refusal{{[]any{root, "weight"}, "extra_forbidden"}}, "weight"},
		{"unknown members sorted", `{"op":"not","args":[{"section":"A"}],"z":1,"b":2}`,
			[]refusal{{[]any{root, "b"}, "extra_forbidden"}, {[]any{root, "z"}, "extra_forbidden"}}, ""},
		{"no such section", `{"op":"and","args":[{"section":"A"},{"section":"D"}]}`,
			[]refusal{{[]any{root, "args", 1, "section"}, "value_error"}}, "there is no section D: this rulebook has 3 sections, A to C"},
		{"lower case", `{"section":"a"}`, []refusal{{[]any{root, "section"}, "value_error"}}, "upper-case letter"},
		{"two letters", `{"section":"AB"}`, []refusal{{[]any{root, "section"}, "value_error"}}, "upper-case letter"},
		{"empty letter", `{"section":""}`, []refusal{{[]any{root, "section"}, "value_error"}}, "upper-case letter"},
		{"section not string", `{"section":1}`, []refusal{{[]any{root, "section"}, "string_type"}}, "string"},
		{"both", `{"section":"A","op":"not","args":[{"section":"B"}]}`, []refusal{{[]any{root}, "value_error"}}, "not both"},
		{"leaf with args", `{"section":"A","args":[]}`, []refusal{{[]any{root, "args"}, "extra_forbidden"}}, "no args"},
		{"neither", `{}`, []refusal{{[]any{root, "section"}, "missing"}}, "Field required"},
		{"args without op", `{"args":[{"section":"A"},{"section":"B"}]}`, []refusal{{[]any{root, "op"}, "missing"}}, "needs an op"},
		{"unknown op", `{"op":"xor","args":[{"section":"A"},{"section":"B"}]}`, []refusal{{[]any{root, "op"}, "enum"}}, `"and", "or" or "not"`},
		{"upper-case op", `{"op":"AND","args":[{"section":"A"},{"section":"B"}]}`, []refusal{{[]any{root, "op"}, "enum"}}, ""},
		{"op not string", `{"op":true,"args":[{"section":"A"}]}`, []refusal{{[]any{root, "op"}, "string_type"}}, ""},
		{"op without args", `{"op":"and"}`, []refusal{{[]any{root, "args"}, "missing"}}, ""},
		{"args not a list", `{"op":"and","args":{"section":"A"}}`, []refusal{{[]any{root, "args"}, "list_type"}}, ""},
		{"and of one", `{"op":"and","args":[{"section":"A"}]}`, []refusal{{[]any{root, "args"}, "too_short"}}, "two or more"},
		{"or of none", `{"op":"or","args":[]}`, []refusal{{[]any{root, "args"}, "too_short"}}, "two or more"},
		{"not of none", `{"op":"not","args":[]}`, []refusal{{[]any{root, "args"}, "too_short"}}, "exactly one"},
		{"not of two", `{"op":"not","args":[{"section":"A"},{"section":"B"}]}`, []refusal{{[]any{root, "args"}, "too_long"}}, "exactly one"},
		{"too deep", deep, []refusal{{append([]any{root}, repeat([]any{"args", 0}, MaxOutcomeDepth)...), "value_error"}}, "deeper than 64"},
		{"every problem reported", `{"op":"or","args":[{"section":"E"},{"op":"not","args":[]},{"section":"B","x":1}]}`, []refusal{
			{[]any{root, "args", 0, "section"}, "value_error"},
			{[]any{root, "args", 1, "args"}, "too_short"},
			{[]any{root, "args", 2, "x"}, "extra_forbidden"},
		}, ""},
		{"malformed JSON", `{"op":`, []refusal{{[]any{root}, "json_invalid"}}, "Invalid JSON"},
		{"trailing data", `{"section":"A"} {}`, []refusal{{[]any{root}, "json_invalid"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, problems := ParseOutcomeTree([]byte(tc.raw), 3)
			if n != nil {
				t.Errorf("returned a tree %s with problems", n)
			}
			var got []refusal
			for _, p := range problems {
				got = append(got, refusal{p.Loc, p.Type})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("problems %v, want %v", problems, tc.want)
			}
			if !strings.Contains(problems[0].Msg, tc.msg) {
				t.Errorf("message %q does not say %q", problems[0].Msg, tc.msg)
			}
			if _, err := json.Marshal(problems); err != nil {
				t.Errorf("problems do not encode: %v", err)
			}
		})
	}
}

func repeat(step []any, n int) []any {
	var out []any
	for range n {
		out = append(out, step...)
	}
	return out
}

func TestParseOutcomeAccepts(t *testing.T) {
	t.Parallel()
	deepest := strings.Repeat(`{"op":"not","args":[`, MaxOutcomeDepth-1) + `{"section":"A"}` + strings.Repeat(`]}`, MaxOutcomeDepth-1)
	for _, tc := range []struct {
		raw, text string
	}{
		{`{"section":"A"}`, "A"},
		{` { "section" : "C" } `, "C"},
		{`{"op":"and","args":[{"section":"A"},{"section":"B"}]}`, "A and B"},
		{`{"args":[{"section":"A"},{"section":"B"},{"section":"C"}],"op":"or"}`, "A or B or C"},
		{`{"op":"not","args":[{"section":"B"}]}`, "not B"},
		{`{"op":"and","args":[{"section":"A"},{"op":"or","args":[{"section":"B"},{"op":"not","args":[{"section":"C"}]}]}]}`, "A and (B or not C)"},
		{`{"op":"not","args":[{"op":"and","args":[{"section":"A"},{"section":"A"}]}]}`, "not (A and A)"},
		{deepest, strings.Repeat("not ", MaxOutcomeDepth-1) + "A"},
	} {
		n := mustTree(t, tc.raw, 3)
		if got := n.String(); got != tc.text {
			t.Errorf("%s reads %q, want %q", tc.raw, got, tc.text)
		}
		if err := n.Validate(3); err != nil {
			t.Errorf("%s: Validate: %v", tc.text, err)
		}
		// Round trip: the tree marshals to the canonical form of what was
		// read, and reads back to the same tree.
		out, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		canonIn, err := jcs.Transform([]byte(tc.raw))
		if err != nil {
			t.Fatal(err)
		}
		canonOut, err := jcs.Transform(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(canonIn) != string(canonOut) {
			t.Errorf("%s re-encodes as %s", canonIn, canonOut)
		}
		if again := mustTree(t, string(out), 3); !reflect.DeepEqual(again, n) {
			t.Errorf("%s: reading the encoding back gives %s", tc.text, again)
		}
	}
	for _, raw := range []string{"", "null", "  null\n"} {
		if n, problems := ParseOutcomeTree([]byte(raw), 3); n != nil || problems != nil {
			t.Errorf("ParseOutcomeTree(%q) = %v, %v; want no tree and no problems (the caller's default)", raw, n, problems)
		}
	}
}

func TestDefaultOutcomeAndLetters(t *testing.T) {
	t.Parallel()
	if DefaultOutcome(0) != nil {
		t.Error("DefaultOutcome(0) is not nil")
	}
	for letters, want := range map[int]string{1: "A", 2: "A and B", 4: "A and B and C and D"} {
		n := DefaultOutcome(letters)
		if n.String() != want {
			t.Errorf("DefaultOutcome(%d) = %s, want %s", letters, n, want)
		}
		if err := n.Validate(letters); err != nil {
			t.Errorf("DefaultOutcome(%d): %v", letters, err)
		}
	}
	if Letter(0) != "A" || Letter(25) != "Z" {
		t.Errorf("letters: %s %s", Letter(0), Letter(25))
	}
	defer func() {
		if recover() == nil {
			t.Error("Letter(26) did not panic")
		}
	}()
	Letter(MaxSections)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	a, b := &Node{Section: "A"}, &Node{Section: "B"}
	for _, tc := range []struct {
		n    *Node
		want string
	}{
		{nil, "outcome_logic: missing node"},
		{&Node{}, "outcome_logic: a node is a section leaf or an operator node, and this one is neither"},
		{&Node{Section: "C"}, "outcome_logic.section: there is no section C: this rulebook has 2 sections, A to B"},
		{&Node{Section: "A", Op: OpNot}, "not both"},
		{&Node{Op: "xor", Args: []*Node{a, b}}, `outcome_logic.op: "xor" is not an operator`},
		{&Node{Op: OpAnd, Args: []*Node{a}}, "outcome_logic.args: and takes two or more arguments, not 1"},
		{&Node{Op: OpOr, Args: []*Node{a, nil}}, "outcome_logic.args[1]: missing node"},
		{&Node{Op: OpNot, Args: []*Node{a, b}}, "not takes exactly one argument, not 2"},
	} {
		err := tc.n.Validate(2)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%v) = %v, want %q", tc.n, err, tc.want)
		}
	}
}

// TestEvalKleene checks Node.Eval against Kleene's truth tables over
// every combination of three section decisions.
func TestEvalKleene(t *testing.T) {
	t.Parallel()
	outcomes := []engine.Outcome{engine.Eligible, engine.NotEligible, engine.Undetermined}
	// Kleene over true=1, false=0, unknown=1/2: and is min, or is max, not is 1-x.
	val := map[engine.Outcome]int{engine.Eligible: 2, engine.NotEligible: 0, engine.Undetermined: 1}
	back := map[int]engine.Outcome{2: engine.Eligible, 0: engine.NotEligible, 1: engine.Undetermined}
	var ref func(n *Node, d map[string]engine.Outcome) int
	ref = func(n *Node, d map[string]engine.Outcome) int {
		switch n.Op {
		case "":
			return val[d[n.Section]]
		case OpNot:
			return 2 - ref(n.Args[0], d)
		}
		acc := ref(n.Args[0], d)
		for _, a := range n.Args[1:] {
			if n.Op == OpAnd {
				acc = min(acc, ref(a, d))
			} else {
				acc = max(acc, ref(a, d))
			}
		}
		return acc
	}
	trees := []string{
		`{"section":"A"}`,
		`{"op":"and","args":[{"section":"A"},{"section":"B"},{"section":"C"}]}`,
		`{"op":"or","args":[{"section":"A"},{"section":"B"},{"section":"C"}]}`,
		`{"op":"not","args":[{"section":"A"}]}`,
		`{"op":"and","args":[{"section":"A"},{"op":"or","args":[{"section":"B"},{"op":"not","args":[{"section":"C"}]}]}]}`,
		`{"op":"or","args":[{"op":"not","args":[{"op":"or","args":[{"section":"A"},{"section":"B"}]}]},{"section":"C"}]}`,
	}
	for _, js := range trees {
		n := mustTree(t, js, 3)
		for _, x := range outcomes {
			for _, y := range outcomes {
				for _, z := range outcomes {
					d := map[string]engine.Outcome{"A": x, "B": y, "C": z}
					if got, want := n.Eval(d), back[ref(n, d)]; got != want {
						t.Errorf("%s with A=%s B=%s C=%s: %s, want %s", n, x, y, z, got, want)
					}
				}
			}
		}
	}
	if got := mustTree(t, `{"section":"B"}`, 3).Eval(nil); got != engine.Undetermined {
		t.Errorf("a missing decision evaluates to %s, want undetermined", got)
	}
	if got := mustTree(t, `{"op":"or","args":[{"section":"A"},{"section":"A"},{"op":"not","args":[{"section":"C"}]}]}`, 3).Letters(); !reflect.DeepEqual(got, []string{"A", "C"}) {
		t.Errorf("Letters = %v", got)
	}
}

// Letters returns the section letters the tree names, each once, sorted.
// A section the tree leaves out still composes (its groups are evaluated
// and reported in section results) but never decides the outcome.
func (n *Node) Letters() []string {
	var out []string
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		if n.Section != "" && !slices.Contains(out, n.Section) {
			out = append(out, n.Section)
		}
		for _, a := range n.Args {
			walk(a)
		}
	}
	walk(n)
	slices.Sort(out)
	return out
}
