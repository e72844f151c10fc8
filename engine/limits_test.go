package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/value"
)

// textSize is what the limits count in one ruleset text, measured as the
// parser reads it.
type textSize struct {
	bytes, sources, fields, enum, groups, criteria, cites int
	nodes, depth, chain, args, list                       int
}

// measure parses src and counts what the limits cap.
func measure(t *testing.T, path string, src []byte) textSize {
	t.Helper()
	var errs ErrorList
	p := newParser(path, src, &errs)
	f := p.parseFile()
	if len(errs) > 0 {
		t.Fatalf("%s: %v", path, errs)
	}
	s := textSize{bytes: len(src), sources: len(f.Sources), fields: len(f.Fields), groups: len(f.Groups),
		criteria: p.criteria, cites: p.cites, nodes: p.nodes, depth: p.deepest}
	for _, fd := range f.Fields {
		s.enum = max(s.enum, len(fd.Enum))
	}
	var walk func(n *Node)
	walk = func(n *Node) {
		switch {
		case n.Kind == NodeCall:
			s.args = max(s.args, len(n.Args))
		case n.Kind == NodeIn:
			s.list = max(s.list, len(n.Args)-1)
		case n.Kind == NodeBinary && (n.Op == "and" || n.Op == "or"):
			operands := 1
			for m := n; m.Kind == NodeBinary && m.Op == n.Op; m = m.Args[0] {
				operands++
			}
			s.chain = max(s.chain, operands)
		}
		for _, a := range n.Args {
			walk(a)
		}
	}
	for _, g := range f.Groups {
		for _, c := range g.Criteria {
			if c.Expr != nil {
				walk(c.Expr)
			}
		}
	}
	if f.Outcome != nil {
		walk(f.Outcome.Expr)
	}
	return s
}

// TestLimitsFitCasebank checks that every limit leaves ten times room over
// the largest casebank ruleset, so that no real ruleset comes near one.
func TestLimitsFitCasebank(t *testing.T) {
	t.Parallel()
	var most textSize
	for _, path := range casebankFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := measure(t, path, src)
		most = textSize{max(most.bytes, s.bytes), max(most.sources, s.sources), max(most.fields, s.fields),
			max(most.enum, s.enum), max(most.groups, s.groups), max(most.criteria, s.criteria), max(most.cites, s.cites),
			max(most.nodes, s.nodes), max(most.depth, s.depth), max(most.chain, s.chain), max(most.args, s.args), max(most.list, s.list)}
	}
	for _, l := range []struct {
		name         string
		largest, max int
	}{
		{"MaxRulesBytes", most.bytes, MaxRulesBytes}, {"MaxSources", most.sources, MaxSources},
		{"MaxFields", most.fields, MaxFields}, {"MaxEnumValues", most.enum, MaxEnumValues},
		{"MaxGroups", most.groups, MaxGroups}, {"MaxCriteria", most.criteria, MaxCriteria},
		{"MaxCitations", most.cites, MaxCitations}, {"MaxExprNodes", most.nodes, MaxExprNodes},
		{"MaxExprDepth", most.depth, MaxExprDepth}, {"MaxChainOperands", most.chain, MaxChainOperands},
		{"MaxCallArgs", most.args, MaxCallArgs}, {"MaxListValues", most.list, MaxListValues},
	} {
		if l.largest == 0 {
			t.Errorf("%s: the casebank measured 0, so the measure is broken", l.name)
		}
		if 10*l.largest > l.max {
			t.Errorf("%s = %d leaves less than ten times room over the casebank's largest, %d", l.name, l.max, l.largest)
		}
		t.Logf("%s = %d, casebank's largest %d", l.name, l.max, l.largest)
	}
}

// nodeConds are the conditions of criteria holding exactly total
// expression nodes together: mins of up to MaxCallArgs arguments (n+3
// nodes each).
func nodeConds(total int) []string {
	var conds []string
	unit := MaxCallArgs + 3
	for total >= unit+5 {
		conds = append(conds, minCond(MaxCallArgs)(0))
		total -= unit
	}
	if total > unit {
		conds = append(conds, minCond(total/2-3)(0))
		total -= total / 2
	}
	return append(conds, minCond(total-3)(0))
}

// andCond is `a.x > 0 and a.x > 1 and ...` with n operands.
func andCond(n int) func(int) string {
	return func(int) string {
		ops := make([]string, n)
		for i := range ops {
			ops[i] = fmt.Sprintf("a.x > %d", i)
		}
		return strings.Join(ops, " and ")
	}
}

// listCond is `a.x in [0, 1, ...]` with n values.
func listCond(n int) func(int) string {
	return func(int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprint(i)
		}
		return "a.x in [" + strings.Join(vs, ", ") + "]"
	}
}

// TestLimitsBoundaries checks each limit at its value and one past it: at
// the limit the text compiles, and one more is refused with exactly one
// error that names the limit and its value, at a position.
func TestLimitsBoundaries(t *testing.T) {
	t.Parallel()
	nodes := func(total int) genRules {
		conds := nodeConds(total)
		return genRules{criteria: len(conds), cond: func(i int) string { return conds[i] }}
	}
	tests := []struct {
		name     string
		at, over genRules
		want     string
	}{
		{"size", genRules{size: MaxRulesBytes}, genRules{size: MaxRulesBytes + 1},
			"1:1: the ruleset text is 1048577 bytes long, over the limit of 1048576 bytes per ruleset text"},
		{"sources", genRules{sources: MaxSources}, genRules{sources: MaxSources + 1},
			"this is source number 101, over the limit of 100 sources per ruleset"},
		{"fields", genRules{fields: MaxFields}, genRules{fields: MaxFields + 1},
			"this is field number 501, over the limit of 500 fields per ruleset"},
		{"enum values", genRules{enum: MaxEnumValues}, genRules{enum: MaxEnumValues + 1},
			"enum field a.e lists more values, over the limit of 1000 values per enum field"},
		{"groups", genRules{groups: MaxGroups}, genRules{groups: MaxGroups + 1},
			"this is group number 101, over the limit of 100 groups per ruleset"},
		{"criteria", genRules{criteria: MaxCriteria}, genRules{criteria: MaxCriteria + 1},
			"this is criterion number 1001, over the limit of 1000 criteria per ruleset"},
		{"citations", genRules{cites: MaxCitations}, genRules{cites: MaxCitations + 1},
			"this is cite line number 2001, over the limit of 2000 cite lines per ruleset"},
		{"nodes", nodes(MaxExprNodes), nodes(MaxExprNodes + 1),
			"the expressions hold more nodes, over the limit of 20000 expression nodes"},
		{"depth", genRules{cond: chainCond(MaxExprDepth - 1)}, genRules{cond: chainCond(MaxExprDepth)},
			"this expression nests too deeply, over the limit of 200 levels"},
		{"chain", genRules{cond: andCond(MaxChainOperands)}, genRules{cond: andCond(MaxChainOperands + 1)},
			"this chain of and has more operands, over the limit of 256 operands per chain"},
		{"call arguments", genRules{cond: minCond(MaxCallArgs)}, genRules{cond: minCond(MaxCallArgs + 1)},
			"this call to min has more arguments, over the limit of 64 arguments per call"},
		{"list values", genRules{cond: listCond(MaxListValues)}, genRules{cond: listCond(MaxListValues + 1)},
			"this list has more values, over the limit of 1000 values per list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := Compile("at.rules", tt.at.text()); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			_, _, err := Compile("over.rules", tt.over.text())
			list, ok := err.(ErrorList)
			if !ok || len(list) != 1 {
				t.Fatalf("one past the limit: want one error, got %v", err)
			}
			if !strings.Contains(list[0].Error(), tt.want) || list[0].Pos.Line < 1 || list[0].Pos.Col < 1 {
				t.Errorf("one past the limit: error %q, want it to contain %q at a position", list[0], tt.want)
			}
		})
	}
}

// TestLimitAttacks runs the probes of issue 22: the texts at the limits
// compile, the probe's own texts are refused with one error naming the
// limit, and no error speaks of JSON (the 400 KB chain once answered with
// encoding/json's "exceeded max depth").
func TestLimitAttacks(t *testing.T) {
	t.Parallel()
	for _, a := range limitAttacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			r, _, err := Compile("attack.rules", a.rules.text())
			if !a.compiles {
				list, ok := err.(ErrorList)
				if !ok || len(list) != 1 || !strings.Contains(list[0].Msg, "over the limit of") {
					t.Fatalf("want one error naming a limit, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.ContentDigest() == "" {
				t.Error("compiled without a digest")
			}
		})
	}
}

// TestCompileFileDeepExpression hands the checker a tree deeper than JSON
// may nest, which no text can express now that Parse refuses it: the error
// must say what is wrong in the language's terms, not encoding/json's.
func TestCompileFileDeepExpression(t *testing.T) {
	t.Parallel()
	f, errs := Parse("deep.rules", genRules{}.text())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	x := &Node{Pos: Pos{6, 5}, Kind: NodeField, Name: "a.x"}
	for range 6000 {
		x = &Node{Pos: Pos{6, 5}, Kind: NodeBinary, Op: "*", Args: []*Node{{Pos: Pos{6, 5}, Kind: NodeNumber, Num: value.IntValue(2), Lit: "2"}, x}}
	}
	f.Groups[0].Criteria[0].Expr = &Node{Pos: Pos{6, 5}, Kind: NodeBinary, Op: ">", Args: []*Node{x, {Pos: Pos{6, 5}, Kind: NodeNumber, Num: value.IntValue(1), Lit: "1"}}}
	_, _, err := CompileFile("deep.rules", f)
	if err == nil {
		t.Fatal("compiled an expression 6000 levels deep")
	}
	if msg := err.Error(); strings.Contains(msg, "json") || !strings.Contains(msg, "nests too deeply (the limit is 200 levels)") {
		t.Errorf("error %q: want the nesting limit, not the encoder's words", msg)
	}
}
