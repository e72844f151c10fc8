package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// genRules describes a generated ruleset for the tests and benchmarks of
// the limits: its sizes, each defaulting to one.
type genRules struct {
	// sources, fields and groups are how many to declare; the fields past
	// the first (a.x, an int) and a.e are ints no criterion reads.
	sources, fields, groups int
	// enum, when positive, declares a.e with that many values.
	enum int
	// criteria is how many criteria, spread over the groups in turn (at
	// least one per group); cond(i) is criterion i's condition, `a.x > i`
	// when nil.
	criteria int
	cond     func(i int) string
	// cites is the cite lines per criterion; quote pads each quote to
	// that many bytes.
	cites, quote int
	// size, when positive, pads the text with a comment to exactly that
	// many bytes.
	size int
}

func (g genRules) text() []byte {
	one := func(n int) int { return max(n, 1) }
	var b strings.Builder
	b.WriteString("section gen\n")
	for i := range one(g.sources) {
		fmt.Fprintf(&b, "source s%d \"Source %d\" url \"https://example.org/%d\" licence \"public-domain\"\n", i, i, i)
	}
	b.WriteString("field a.x int\n")
	ints := one(g.fields)
	if g.enum > 0 {
		ints--
	}
	for i := 1; i < ints; i++ {
		fmt.Fprintf(&b, "field a.f%d int\n", i)
	}
	if g.enum > 0 {
		b.WriteString("field a.e enum [")
		for i := range g.enum {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "\"v%d\"", i)
		}
		b.WriteString("]\n")
	}
	cond := g.cond
	if cond == nil {
		cond = func(i int) string { return fmt.Sprintf("a.x > %d", i) }
	}
	groups, criteria := one(g.groups), max(one(g.criteria), one(g.groups))
	quote := "the quoted words"
	if g.quote > len(quote) {
		quote += strings.Repeat(" and more", (g.quote-len(quote))/9)
	}
	for gi := range groups {
		fmt.Fprintf(&b, "group g%d all \"Group %d\" {\n", gi, gi)
		for i := gi; i < criteria; i += groups {
			fmt.Fprintf(&b, "  criterion c%d \"Criterion %d\" {\n    %s\n", i, i, cond(i))
			for range one(g.cites) {
				fmt.Fprintf(&b, "    cite s0 %q\n", quote)
			}
			b.WriteString("  }\n")
		}
		b.WriteString("}\n")
	}
	if pad := g.size - b.Len(); pad > 0 {
		b.WriteString("#" + strings.Repeat("-", pad-2) + "\n")
	}
	return []byte(b.String())
}

// chainCond is `2 * 2 * ... * a.x > 1` with n products: MaxExprDepth-1
// of them nest exactly MaxExprDepth levels (the expression is one).
func chainCond(n int) func(int) string {
	return func(int) string { return strings.Repeat("2 * ", n) + "a.x > 1" }
}

// minCond is `min(a.x, ..., a.x) > 1` with n arguments, n+3 nodes.
func minCond(n int) func(int) string {
	return func(int) string { return "min(" + strings.Repeat("a.x, ", n-1) + "a.x) > 1" }
}

// The attacks of issue 22 as texts, at the limits (the largest that
// compile) and as the prober sent them (refused now, before any work).
var limitAttacks = []struct {
	name  string
	rules genRules
	// compiles says whether the text is within every limit.
	compiles bool
}{
	// As many criteria with a product chain at the depth limit as the
	// node limit holds: 2·199+3 = 401 nodes each.
	{"chain_at_limit", genRules{criteria: syntax.MaxExprNodes / (2*(syntax.MaxExprDepth-1) + 3), cond: chainCond(syntax.MaxExprDepth - 1)}, true},
	// As many criteria with a min at the argument limit as the node limit
	// holds.
	{"min_at_limit", genRules{criteria: syntax.MaxExprNodes / (syntax.MaxCallArgs + 3), cond: minCond(syntax.MaxCallArgs)}, true},
	{"criteria_1000", genRules{criteria: 1000}, true},
	// Every count at its limit at once, quotes padding the text to about
	// the size limit: the largest text the limits admit.
	{"everything_at_limit", genRules{sources: syntax.MaxSources, fields: syntax.MaxFields, groups: syntax.MaxGroups, enum: syntax.MaxEnumValues,
		criteria: syntax.MaxCriteria, cites: syntax.MaxCitations / syntax.MaxCriteria, quote: 400,
		cond: func(i int) string {
			return fmt.Sprintf("a.x + 3 * a.x >= %d or min(a.x, %d, 7) > 1 and a.e in [\"v0\", \"v%d\"]", i, i, 1+i%(syntax.MaxEnumValues-1))
		}}, true},
	// The probe's chain: 400 KB of `2 * 2 * ... * a.x`.
	{"chain_400KB", genRules{cond: chainCond(100_000)}, false},
	// The probe's min: 10,000 arguments.
	{"min_10000", genRules{cond: minCond(10_000)}, false},
}

// BenchmarkCompileAttack compiles each attack text: within the limits in
// well under a second, over them refused in microseconds.
func BenchmarkCompileAttack(b *testing.B) {
	for _, a := range limitAttacks {
		src := a.rules.text()
		b.Run(a.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(src)), "text_bytes")
			for b.Loop() {
				_, _, err := Compile("attack.rules", src)
				if (err == nil) != a.compiles {
					b.Fatalf("compiles = %v, want %v: %v", err == nil, a.compiles, err)
				}
			}
		})
	}
}
