package syntax

import (
	"os"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
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
	for _, path := range testfiles.Casebank(t) {
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
