package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// nodeConds are the conditions of criteria holding exactly total
// expression nodes together: mins of up to MaxCallArgs arguments (n+3
// nodes each).
func nodeConds(total int) []string {
	var conds []string
	unit := syntax.MaxCallArgs + 3
	for total >= unit+5 {
		conds = append(conds, minCond(syntax.MaxCallArgs)(0))
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
		{"size", genRules{size: syntax.MaxRulesBytes}, genRules{size: syntax.MaxRulesBytes + 1},
			"1:1: the ruleset text is 1048577 bytes long, over the limit of 1048576 bytes per ruleset text"},
		{"sources", genRules{sources: syntax.MaxSources}, genRules{sources: syntax.MaxSources + 1},
			"this is source number 201, over the limit of 200 sources per ruleset"},
		{"fields", genRules{fields: syntax.MaxFields}, genRules{fields: syntax.MaxFields + 1},
			"this is field number 501, over the limit of 500 fields per ruleset"},
		{"enum values", genRules{enum: syntax.MaxEnumValues}, genRules{enum: syntax.MaxEnumValues + 1},
			"enum field a.e lists more values, over the limit of 1000 values per enum field"},
		{"groups", genRules{groups: syntax.MaxGroups}, genRules{groups: syntax.MaxGroups + 1},
			"this is group number 101, over the limit of 100 groups per ruleset"},
		{"criteria", genRules{criteria: syntax.MaxCriteria}, genRules{criteria: syntax.MaxCriteria + 1},
			"this is criterion number 1001, over the limit of 1000 criteria per ruleset"},
		{"citations", genRules{cites: syntax.MaxCitations}, genRules{cites: syntax.MaxCitations + 1},
			"this is cite line number 2001, over the limit of 2000 cite lines per ruleset"},
		{"nodes", nodes(syntax.MaxExprNodes), nodes(syntax.MaxExprNodes + 1),
			"the expressions hold more nodes, over the limit of 20000 expression nodes"},
		{"depth", genRules{cond: chainCond(syntax.MaxExprDepth - 1)}, genRules{cond: chainCond(syntax.MaxExprDepth)},
			"this expression nests too deeply, over the limit of 200 levels"},
		{"chain", genRules{cond: andCond(syntax.MaxChainOperands)}, genRules{cond: andCond(syntax.MaxChainOperands + 1)},
			"this chain of and has more operands, over the limit of 256 operands per chain"},
		{"call arguments", genRules{cond: minCond(syntax.MaxCallArgs)}, genRules{cond: minCond(syntax.MaxCallArgs + 1)},
			"this call to min has more arguments, over the limit of 64 arguments per call"},
		{"list values", genRules{cond: listCond(syntax.MaxListValues)}, genRules{cond: listCond(syntax.MaxListValues + 1)},
			"this list has more values, over the limit of 1000 values per list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, _, err := Compile("at.rules", tt.at.text()); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			_, _, err := Compile("over.rules", tt.over.text())
			list, ok := err.(syntax.ErrorList)
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
				list, ok := err.(syntax.ErrorList)
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
	f, errs := syntax.Parse("deep.rules", genRules{}.text())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	x := &syntax.Node{Pos: syntax.Pos{Line: 6, Col: 5}, Kind: syntax.NodeField, Name: "a.x"}
	for range 6000 {
		x = &syntax.Node{Pos: syntax.Pos{Line: 6, Col: 5}, Kind: syntax.NodeBinary, Op: "*", Args: []*syntax.Node{{Pos: syntax.Pos{Line: 6, Col: 5}, Kind: syntax.NodeNumber, Num: value.IntValue(2), Lit: "2"}, x}}
	}
	f.Groups[0].Criteria[0].Expr = &syntax.Node{Pos: syntax.Pos{Line: 6, Col: 5}, Kind: syntax.NodeBinary, Op: ">", Args: []*syntax.Node{x, {Pos: syntax.Pos{Line: 6, Col: 5}, Kind: syntax.NodeNumber, Num: value.IntValue(1), Lit: "1"}}}
	_, _, err := compileFile("deep.rules", f)
	if err == nil {
		t.Fatal("compiled an expression 6000 levels deep")
	}
	if msg := err.Error(); strings.Contains(msg, "json") || !strings.Contains(msg, "nests too deeply (the limit is 200 levels)") {
		t.Errorf("error %q: want the nesting limit, not the encoder's words", msg)
	}
}
