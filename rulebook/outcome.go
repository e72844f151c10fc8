package rulebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
)

// MaxSections is the most sections a rulebook composes: sections are named
// by one upper-case letter, A to Z.
const MaxSections = 26

// MaxOutcomeDepth is how deeply an outcome tree may nest: the root is at
// depth 1. Real outcome logic is a handful of levels; the bound keeps a
// hostile request from costing recursion, and every tree within it composes
// well inside the engine's own expression depth limit.
const MaxOutcomeDepth = 64

// MaxOutcomeArgs is the most arguments one and/or node may list. A
// rulebook has at most MaxSections sections, so an and/or naming each of
// them once needs 26; the bound leaves more than twice that for a tree
// that repeats leaves (a disjunction of conjunctions), and keeps a request
// from making one node a million wide.
const MaxOutcomeArgs = 64

// MaxOutcomeNodes is the most nodes, leaves and operators together, an
// outcome tree may hold. Every casebank rulebook has under ten and real
// outcome logic a few dozen at most; 1,024 is room for any tree a person
// writes, while the JSON of a larger one is counted, without being
// decoded, and refused before it costs memory: a million-leaf tree in a
// 16 MB body cost 2.86 GB when it was decoded first.
const MaxOutcomeNodes = 1024

// The operators of an outcome tree node: and and or take two or more
// arguments, not exactly one.
const (
	OpAnd = "and"
	OpOr  = "or"
	OpNot = "not"
)

// Node is one node of a rulebook's outcome logic, the expression tree over
// sections that the REST API requires for outcome_logic (a bare string such
// as "A AND B" is refused: a tree has no precedence to guess and no syntax
// to get wrong). A node is either a leaf naming a section by its letter,
//
//	{"section": "A"}
//
// or an operator applied to child nodes,
//
//	{"op": "and" | "or", "args": [two or more nodes]}
//	{"op": "not", "args": [exactly one node]}
//
// Its JSON is its natural encoding (the struct tags below), so a tree read
// by ParseOutcomeTree marshals back to the same canonical shape, and that
// shape is what ContentIdentity hashes.
type Node struct {
	// Section is a leaf's section letter ("A" is the first ruleset
	// reference); empty on an operator node.
	Section string `json:"section,omitempty"`
	// Op is an operator node's OpAnd, OpOr or OpNot; empty on a leaf.
	Op string `json:"op,omitempty"`
	// Args are an operator node's operands, in order; nil on a leaf.
	Args []*Node `json:"args,omitempty"`
}

// SchemaName is the name of Node's schema in the published API document,
// where the Go name would not say what it is.
func (Node) SchemaName() string { return "OutcomeNode" }

// Letter names the i-th section (from 0): "A" to "Z". It panics outside 0
// to MaxSections-1, which Compose refuses before lettering anything.
func Letter(i int) string {
	if i < 0 || i >= MaxSections {
		panic(fmt.Sprintf("rulebook.Letter(%d): sections are lettered A to Z", i))
	}
	return string(rune('A' + i))
}

// DefaultOutcome is the outcome of a rulebook whose outcome_logic is null
// or absent: every section must be eligible, the sections and-ed in order
// (a single leaf for one section, since and takes two or more). It returns
// nil for no sections.
func DefaultOutcome(letters int) *Node {
	switch {
	case letters <= 0:
		return nil
	case letters == 1:
		return &Node{Section: Letter(0)}
	}
	n := &Node{Op: OpAnd, Args: make([]*Node, letters)}
	for i := range n.Args {
		n.Args[i] = &Node{Section: Letter(i)}
	}
	return n
}

// ParseOutcomeTree reads the JSON of a rulebook's outcome_logic member for a
// rulebook of letters sections, strictly, and reports every problem it
// finds, each located from "outcome_logic": a bare string or an {"expr":
// ...} wrapper (an expression tree is required), a non-object node, an
// unknown member, a leaf naming no section of the rulebook or not one
// upper-case letter, a node with both section and op or with neither, an
// operator other than and, or, not, the wrong number of arguments, and
// nesting deeper than MaxOutcomeDepth.
//
// A tree of more than MaxOutcomeNodes nodes, or with a list of more than
// MaxOutcomeArgs items, is refused with that one problem ("too_long")
// before anything is decoded, so the cost of a refusal is a scan of the
// bytes, whatever their size.
//
// JSON null (or no bytes at all) is no tree: ParseOutcomeTree returns nil and
// no problems, and the caller composes with DefaultOutcome (a nil
// Spec.Outcome means exactly that). The tree is returned only when there
// are no problems.
func ParseOutcomeTree(raw []byte, letters int) (*Node, []Problem) {
	root := []any{"outcome_logic"}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if prob, ok := measureOutcome(raw); !ok {
		prob.Loc = root
		return nil, []Problem{prob}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	err := dec.Decode(&doc)
	if err == nil {
		if _, more := dec.Token(); !errors.Is(more, io.EOF) {
			err = errors.New("more data after the outcome tree")
		}
	}
	if err != nil {
		return nil, []Problem{{Type: "json_invalid", Loc: root, Msg: "Invalid JSON: " + err.Error()}}
	}
	p := &outcomeParser{letters: letters}
	n := p.node(doc, root, 1)
	if len(p.problems) > 0 {
		return nil, p.problems
	}
	return n, nil
}

// outcomeParser collects the problems of one ParseOutcomeTree.
type outcomeParser struct {
	// letters is the number of sections of the rulebook.
	letters int
	// problems are the refusals found so far, in document order.
	problems []Problem
}

func (p *outcomeParser) add(loc []any, typ, msg string, input any) {
	p.problems = append(p.problems, Problem{Type: typ, Loc: loc, Msg: msg, Input: input})
}

// treeRequired is the message for a bare string expression.
const treeRequired = `an expression tree is required: a bare string expression such as "A AND B" is not accepted; ` +
	`write {"op": "and", "args": [{"section": "A"}, {"section": "B"}]}`

// node reads one node at loc and depth; it returns nil when it found a
// problem in it (the problems say why).
func (p *outcomeParser) node(v any, loc []any, depth int) *Node {
	if depth > MaxOutcomeDepth {
		p.add(loc, "value_error", fmt.Sprintf("the outcome tree nests deeper than %d levels", MaxOutcomeDepth), nil)
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		if s, isString := v.(string); isString {
			p.add(loc, "value_error", treeRequired, s)
		} else {
			p.add(loc, "model_type", `Input should be an object: a section leaf {"section": "A"} or an operator node {"op": "and", "args": [...]}`, v)
		}
		return nil
	}
	if _, wrapped := m["expr"]; wrapped {
		p.add(loc, "value_error", treeRequired, v)
		return nil
	}
	before := len(p.problems)
	for _, k := range sortedKeys(m) {
		if k != "section" && k != "op" && k != "args" {
			p.add(at(loc, k), "extra_forbidden", fmt.Sprintf("Extra inputs are not permitted: a node has section, or op and args, not %q", k), m[k])
		}
	}
	section, isLeaf := m["section"]
	op, isOp := m["op"]
	args, hasArgs := m["args"]
	var n *Node
	switch {
	case isLeaf && isOp:
		p.add(loc, "value_error", "a node is either a section leaf or an operator node, not both", v)
	case isLeaf:
		if hasArgs {
			p.add(at(loc, "args"), "extra_forbidden", "Extra inputs are not permitted: a section leaf has no args", args)
		}
		n = p.leaf(section, at(loc, "section"))
	case isOp:
		n = p.op(op, args, hasArgs, loc, depth)
	case hasArgs:
		p.add(at(loc, "op"), "missing", `Field required: a node with args needs an op ("and", "or" or "not")`, v)
	default:
		p.add(at(loc, "section"), "missing", `Field required: a node is a section leaf {"section": "A"} or an operator node {"op": ..., "args": [...]}`, v)
	}
	if len(p.problems) > before {
		return nil
	}
	return n
}

// leaf reads a leaf's section letter.
func (p *outcomeParser) leaf(v any, loc []any) *Node {
	s, ok := v.(string)
	if !ok {
		p.add(loc, "string_type", "Input should be a valid string: a section letter such as \"A\"", v)
		return nil
	}
	if msg := letterProblem(s, p.letters); msg != "" {
		p.add(loc, "value_error", msg, s)
		return nil
	}
	return &Node{Section: s}
}

// op reads an operator node: its op, then each argument one level deeper.
func (p *outcomeParser) op(op, args any, hasArgs bool, loc []any, depth int) *Node {
	name, ok := op.(string)
	switch {
	case !ok:
		p.add(at(loc, "op"), "string_type", `Input should be a valid string: "and", "or" or "not"`, op)
	case name != OpAnd && name != OpOr && name != OpNot:
		p.add(at(loc, "op"), "enum", `Input should be "and", "or" or "not"`, name)
		ok = false
	}
	aloc := at(loc, "args")
	if !hasArgs {
		p.add(aloc, "missing", "Field required: an operator node lists its operands in args", nil)
		return nil
	}
	list, isList := args.([]any)
	if !isList {
		p.add(aloc, "list_type", "Input should be a valid list of nodes", args)
		return nil
	}
	if ok {
		if typ, msg := arityProblem(name, len(list)); msg != "" {
			p.add(aloc, typ, msg, args)
		}
	}
	n := &Node{Op: name, Args: make([]*Node, len(list))}
	for i, a := range list {
		n.Args[i] = p.node(a, at(aloc, i), depth+1)
	}
	return n
}

// letterProblem says what is wrong with s as a section letter of a
// rulebook of letters sections, or "" when nothing is.
func letterProblem(s string, letters int) string {
	if len(s) != 1 || s[0] < 'A' || s[0] > 'Z' {
		msg := fmt.Sprintf("%q is not a section letter: sections are named by one upper-case letter, A for the first ruleset reference, B for the second, and so on", s)
		if near := engine.Nearest(s, sectionLetters(letters)); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return msg
	}
	if i := int(s[0] - 'A'); i >= letters {
		switch letters {
		case 0:
			return fmt.Sprintf("there is no section %s: this rulebook has no sections", s)
		case 1:
			return fmt.Sprintf("there is no section %s: this rulebook has one section, A", s)
		}
		return fmt.Sprintf("there is no section %s: this rulebook has %d sections, A to %s", s, letters, Letter(letters-1))
	}
	return ""
}

// sectionLetters are the letters of a rulebook of letters sections, the
// names a misspelt section may be meant as.
func sectionLetters(letters int) []string {
	out := make([]string, 0, max(0, min(letters, MaxSections)))
	for i := 0; i < letters && i < MaxSections; i++ {
		out = append(out, Letter(i))
	}
	return out
}

// arityProblem gives the type and message for op applied to n arguments,
// or "" when the count is right.
func arityProblem(op string, n int) (typ, msg string) {
	switch {
	case op == OpNot && n < 1:
		return "too_short", "not takes exactly one argument, not 0"
	case op == OpNot && n > 1:
		return "too_long", fmt.Sprintf("not takes exactly one argument, not %d", n)
	case op != OpNot && n < 2:
		return "too_short", fmt.Sprintf("%s takes two or more arguments, not %d", op, n)
	}
	return "", ""
}

// Validate checks a tree built in code (rather than read by ParseOutcomeTree)
// by the same rules, for a rulebook of letters sections, so that Compose
// and ContentIdentity never work on a tree the API would have refused. The
// error names the node by its path, e.g. "outcome_logic.args[1].section".
func (n *Node) Validate(letters int) error {
	if count := n.count(MaxOutcomeNodes + 1); count > MaxOutcomeNodes {
		return fmt.Errorf("outcome_logic: %s", tooMany)
	}
	return n.validate("outcome_logic", letters, 1)
}

// count returns the number of nodes of the tree, counting no further than
// limit, so a cyclic or huge tree built in code costs at most limit steps.
func (n *Node) count(limit int) int {
	seen := 0
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil || seen >= limit {
			return
		}
		seen++
		for _, a := range n.Args {
			walk(a)
		}
	}
	walk(n)
	return seen
}

// The messages of the size limits, which name the limit and what to do.
var (
	tooMany = fmt.Sprintf("the outcome tree has more than %d nodes; "+
		"write the logic with fewer (each section need appear only once in an and or or)", MaxOutcomeNodes)
	tooWide = fmt.Sprintf("an operator node lists more than %d arguments; "+
		"a rulebook has at most %d sections, so name each once, or group them in nested nodes", MaxOutcomeArgs, MaxSections)
)

// measureOutcome scans the JSON text of an outcome tree, without decoding
// it, for more than MaxOutcomeNodes objects (every node is one) or a list
// of more than MaxOutcomeArgs items, and returns the problem found. It
// reads only the structure (braces, brackets and commas outside strings),
// allocates nothing but a stack as deep as the nesting, and stops at the
// first limit passed; text that is not JSON is left for the decoder to
// report.
func measureOutcome(raw []byte) (Problem, bool) {
	nodes := 0
	// items holds, per open container, the items of a list seen so far,
	// or -1 for an object.
	var items []int
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if len(items) > 0 && items[len(items)-1] == 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ']' {
			items[len(items)-1] = 1 // the list's first item starts
		}
		switch c {
		case '"':
			inString = true
		case '{':
			if nodes++; nodes > MaxOutcomeNodes {
				return Problem{Type: "too_long", Msg: tooMany}, false
			}
			items = append(items, -1)
		case '[':
			items = append(items, 0)
		case '}', ']':
			if len(items) > 0 {
				items = items[:len(items)-1]
			}
		case ',':
			if top := len(items) - 1; top >= 0 && items[top] > 0 {
				if items[top]++; items[top] > MaxOutcomeArgs {
					return Problem{Type: "too_long", Msg: tooWide}, false
				}
			}
		}
	}
	return Problem{}, true
}

func (n *Node) validate(path string, letters, depth int) error {
	switch {
	case n == nil:
		return fmt.Errorf("%s: missing node", path)
	case depth > MaxOutcomeDepth:
		return fmt.Errorf("%s: the outcome tree nests deeper than %d levels", path, MaxOutcomeDepth)
	case n.Section != "" && (n.Op != "" || n.Args != nil):
		return fmt.Errorf("%s: a node is either a section leaf or an operator node, not both", path)
	case n.Section != "":
		if msg := letterProblem(n.Section, letters); msg != "" {
			return fmt.Errorf("%s.section: %s", path, msg)
		}
		return nil
	case n.Op == "" && n.Args == nil:
		return fmt.Errorf("%s: a node is a section leaf or an operator node, and this one is neither", path)
	case n.Op != OpAnd && n.Op != OpOr && n.Op != OpNot:
		return fmt.Errorf("%s.op: %q is not an operator: and, or or not", path, n.Op)
	}
	if _, msg := arityProblem(n.Op, len(n.Args)); msg != "" {
		return fmt.Errorf("%s.args: %s", path, msg)
	}
	if len(n.Args) > MaxOutcomeArgs {
		return fmt.Errorf("%s.args: %s", path, tooWide)
	}
	for i, a := range n.Args {
		if err := a.validate(fmt.Sprintf("%s.args[%d]", path, i), letters, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// Eval decides the tree over the sections' own decisions under Kleene's
// three-valued logic, the evaluator's: eligible is true, not_eligible
// false and undetermined unknown; and with a false argument is false and
// or with a true one true whatever the others are, not swaps true and
// false and keeps unknown. A letter missing from decisions is undetermined.
// It is what a composed ruleset's outcome equals, section by section, which
// the package's differential test checks.
func (n *Node) Eval(decisions map[string]engine.Outcome) engine.Outcome {
	return n.eval(func(letter string) engine.Outcome { return decisions[letter] })
}

func (n *Node) eval(leaf func(string) engine.Outcome) engine.Outcome {
	if n.Section != "" {
		return leaf(n.Section)
	}
	switch n.Op {
	case OpNot:
		switch n.Args[0].eval(leaf) {
		case engine.Eligible:
			return engine.NotEligible
		case engine.NotEligible:
			return engine.Eligible
		}
		return engine.Undetermined
	case OpAnd, OpOr:
		decides, rest := engine.NotEligible, engine.Eligible
		if n.Op == OpOr {
			decides, rest = rest, decides
		}
		for _, a := range n.Args {
			switch a.eval(leaf) {
			case decides:
				return decides
			case engine.Undetermined:
				rest = engine.Undetermined
			}
		}
		return rest
	}
	return engine.Undetermined
}

// String writes the tree as the outcome logic reads in prose, "A and (B or
// not C)": every and/or operand that is itself and/or is parenthesised, so
// the text has one reading. It is for messages and logs; the JSON tree is
// the content.
func (n *Node) String() string {
	var b strings.Builder
	n.write(&b, false)
	return b.String()
}

func (n *Node) write(b *strings.Builder, paren bool) {
	switch {
	case n == nil:
		b.WriteString("<nil>")
	case n.Section != "":
		b.WriteString(n.Section)
	case n.Op == OpNot && len(n.Args) == 1:
		b.WriteString("not ")
		n.Args[0].write(b, true)
	default:
		if paren {
			b.WriteByte('(')
		}
		for i, a := range n.Args {
			if i > 0 {
				b.WriteString(" " + n.Op + " ")
			}
			a.write(b, true)
		}
		if paren {
			b.WriteByte(')')
		}
	}
}

// sortedKeys returns m's keys in order, so problems come out in the same
// order whatever the map's.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
