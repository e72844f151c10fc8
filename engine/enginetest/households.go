package enginetest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
)

// householdHead declares the fields every HouseholdRules ruleset reads: a
// list of up to three members with numbers of every kind of range (both
// ends, one end spanning zero, none), a yes/no member field, household
// numbers likewise, and a field read only under ?? (household.opt).
const householdHead = `section households
source law "Household Act" url "https://example.org/households" licence "public-domain"

list member "People in the household" up to 3
  question "How many people live in the household?"
field member.a int weight 2
  question "What is this person's a?"
  range -3..4
field member.b decimal weight 3
  question "What is this person's b?"
  range -1.5..2.5
field member.c int weight 4
  question "What is this person's c?"
field member.d decimal weight 5
  question "What is this person's d?"
  range 0..
field member.f bool weight 6
  question "Is this person f?"
field household.x int weight 7
  question "What is the household's x?"
  range -5..5
field household.y decimal weight 8
  question "What is the household's y?"
  range 0..
field household.z int weight 9
  question "What is the household's z?"
field household.w decimal weight 10
  question "What is the household's w?"
  range ..0.5
field household.opt int weight 11
  question "What is the household's opt?"
  range 0..3
`

// HouseholdRules writes a random ruleset over a household (the fields of
// householdHead) whose criteria compare numbers built from every operator
// ranges pass through (engine/bounds.go): counts, sums, the least and the
// greatest of members' figures, +, -, negation, constant factors of either
// sign, if, min, max, abs, floor, ceil, round and ??, through named values
// too. The ranges are what decide such a comparison before every answer
// is in, so the property tests of the evaluator (every completion of the
// answers agrees with a decided comparison) and of the solver's encoding
// (the differential test) draw their rules from here. The same rnd state
// gives the same text; criteria is how many criteria it has.
func HouseholdRules(rnd *rand.Rand, criteria int) string {
	g := &ruleGen{rnd: rnd}
	var b strings.Builder
	b.WriteString(householdHead)
	for i := range 2 {
		fmt.Fprintf(&b, "\nvalue v%d decimal \"Value %d\" {\n  %s\n  cite law \"Household Act\"\n}\n", i, i, g.number(2))
		g.values++
	}
	b.WriteString("\ngroup tests any \"Tests\" {\n")
	for i := range criteria {
		ops := []string{"<", "<=", ">", ">=", "==", "!="}
		fmt.Fprintf(&b, "  criterion c%d \"Criterion %d\" {\n    %s %s %s\n    cite law \"Household Act\"\n  }\n",
			i, i, g.number(3), ops[rnd.IntN(len(ops))], g.number(2))
	}
	b.WriteString("}\n\noutcome tests\n")
	return b.String()
}

// ruleGen draws the expressions of HouseholdRules.
type ruleGen struct {
	rnd *rand.Rand
	// values is how many named values are declared so far, which a
	// later expression may read.
	values int
}

// constant is a small number, negative, zero or fractional at times.
func (g *ruleGen) constant() string {
	return []string{"0", "1", "2", "3", "-1", "-2", "0.5", "-1.5", "2.5", "10"}[g.rnd.IntN(10)]
}

// memberNumber is a member's number field.
func (g *ruleGen) memberNumber() string {
	return []string{"member.a", "member.b", "member.c", "member.d"}[g.rnd.IntN(4)]
}

// memberCondition is a test of one member.
func (g *ruleGen) memberCondition() string {
	ops := []string{"<", "<=", ">", ">=", "==", "!="}
	switch g.rnd.IntN(4) {
	case 0:
		return "member.f"
	case 1:
		return "not member.f"
	}
	return g.memberNumber() + " " + ops[g.rnd.IntN(len(ops))] + " " + g.constant()
}

// aggregate reads the list: a count, a sum, or the least or greatest of
// a member field, over every member or those meeting a condition.
func (g *ruleGen) aggregate() string {
	where := ""
	if g.rnd.IntN(2) == 0 {
		where = " where " + g.memberCondition()
	}
	switch g.rnd.IntN(5) {
	case 0:
		if where == "" {
			return "count(member)"
		}
		return "count(member" + where + ")"
	case 1, 2:
		return "sum(" + g.memberNumber() + where + ")"
	case 3:
		return "min(" + g.memberNumber() + where + " else " + g.constant() + ")"
	}
	return "max(" + g.memberNumber() + where + " else " + g.constant() + ")"
}

// condition is a household's yes/no test, itself a comparison that
// ranges may decide at times.
func (g *ruleGen) condition(depth int) string {
	ops := []string{"<", "<=", ">", ">=", "==", "!="}
	switch g.rnd.IntN(3) {
	case 0:
		return "household.x " + ops[g.rnd.IntN(len(ops))] + " " + g.constant()
	case 1:
		return "household.z > " + g.constant()
	}
	return g.number(depth-1) + " " + ops[g.rnd.IntN(len(ops))] + " " + g.constant()
}

// leaf is a number without operators: a list's aggregate, a household
// field, a named value declared before, or a constant.
func (g *ruleGen) leaf() string {
	switch n := g.rnd.IntN(10); {
	case n < 4:
		return g.aggregate()
	case n < 7:
		return []string{"household.x", "household.y", "household.z", "household.w"}[g.rnd.IntN(4)]
	case n < 9 && g.values > 0:
		return fmt.Sprintf("v%d", g.rnd.IntN(g.values))
	}
	return g.constant()
}

// number is a numeric expression nested up to depth operators deep.
func (g *ruleGen) number(depth int) string {
	if depth <= 0 || g.rnd.IntN(4) == 0 {
		return g.leaf()
	}
	x := func() string { return g.number(depth - 1) }
	steps := []string{"1", "2", "0.5", "10"}
	switch g.rnd.IntN(13) {
	case 0:
		return "(" + x() + " + " + x() + ")"
	case 1:
		return "(" + x() + " - " + x() + ")"
	case 2:
		return "-(" + x() + ")"
	case 3:
		return g.constant() + " * (" + x() + ")"
	case 4:
		return "(" + x() + ") * " + g.constant()
	case 5:
		return "(if " + g.condition(depth) + " then " + x() + " else " + x() + ")"
	case 6:
		return "min(" + x() + ", " + x() + ")"
	case 7:
		return "max(" + x() + ", " + x() + ")"
	case 8:
		return "abs(" + x() + ")"
	case 9:
		return "floor(" + x() + ", " + steps[g.rnd.IntN(len(steps))] + ")"
	case 10:
		return "ceil(" + x() + ", " + steps[g.rnd.IntN(len(steps))] + ")"
	case 11:
		return "round(" + x() + ", " + steps[g.rnd.IntN(len(steps))] + ")"
	}
	return "(household.opt ?? (" + x() + "))"
}

// HouseholdAnswers draws answers for a HouseholdRules ruleset, each field
// answered with probability answered: the list's length first, then the
// fields of the members it holds. A number is drawn near its field's
// range: an end, zero, or a point within it (see HouseholdValue).
func HouseholdAnswers(rnd *rand.Rand, r *engine.Ruleset, answered float64) *engine.Inputs {
	in := &engine.Inputs{Values: make([]value.Value, len(r.Fields))}
	for i := range r.Fields {
		if rnd.Float64() < answered && r.InList(i, in) {
			in.Values[i] = HouseholdValue(rnd, &r.Fields[i])
			in.Provided++
		}
	}
	return in
}

// HouseholdValue draws an answer for f: a yes or no; for a number, one of
// its range's ends, zero, or a number within the range (or, where it is
// open, up to 50 beyond its other end), at one decimal place for a
// decimal. The ends are where a range's arithmetic goes wrong, if it does.
func HouseholdValue(rnd *rand.Rand, f *engine.Field) value.Value {
	if f.Type == engine.SortBool {
		return value.BoolValue(rnd.IntN(2) == 0)
	}
	lo, hi := value.IntValue(-50), value.IntValue(50)
	if f.Range != nil {
		if f.Range.Min.Known {
			lo = f.Range.Min
			if !f.Range.Max.Known {
				hi, _ = value.Add(lo, value.IntValue(50))
			}
		}
		if f.Range.Max.Known {
			hi = f.Range.Max
			if !f.Range.Min.Known {
				lo, _ = value.Add(hi, value.IntValue(-50))
			}
		}
	}
	for {
		var v value.Value
		switch rnd.IntN(4) {
		case 0:
			v = lo
		case 1:
			v = hi
		case 2:
			v = value.IntValue(0)
		default:
			// A number between the ends: tenths for a decimal.
			scale := uint8(0)
			if f.Type == engine.SortDecimal {
				scale = 1
			}
			a, b := tenths(lo, scale), tenths(hi, scale)
			v = value.Value{Num: a + rnd.Int64N(b-a+1), Scale: scale, Known: true}
		}
		if v.Scale > 0 && f.Type == engine.SortInt {
			continue // an int field between fractional ends
		}
		if f.Range == nil || f.Range.Contains(v) {
			return v.Normal()
		}
	}
}

// tenths is v's number at scale places (0 or 1), rounded toward zero.
func tenths(v value.Value, scale uint8) int64 {
	n := v.Num
	for s := v.Scale; s > scale; s-- {
		n /= 10
	}
	for s := v.Scale; s < scale; s++ {
		n *= 10
	}
	return n
}

// DeepHouseholdRules writes a household ruleset whose ranges nest depth
// levels deep two ways: criterion nested compares an if whose condition
// compares an if whose condition ... with a household's earnings, and
// criterion chain compares value v<depth>, each value twice the one
// before (read twice), v0 the earnings. With earnings of 100 known and a
// member's not yet (at least 100 in all) nested is satisfied and chain not
// satisfied at once; worked out afresh wherever read, their ranges took
// time exponential in depth. DeepHousehold compiles it with those answers.
func DeepHouseholdRules(depth int) string {
	nested := "sum(member.earned)"
	for range depth {
		nested = fmt.Sprintf("(if %s > 5 then sum(member.earned) else 1)", nested)
	}
	var b strings.Builder
	b.WriteString(`section deep
source act "Act" url "https://example.org/act" licence "public-domain"

list member "People in the household" up to 4
  question "How many people live in your household?"
field member.earned decimal
  question "What does this person earn?"
  range 0..

value v0 decimal "Earnings" {
  sum(member.earned)
  cite act "Act"
}
`)
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "value v%d decimal \"Twice v%d\" {\n  v%d + v%d\n  cite act \"Act\"\n}\n", i, i-1, i-1, i-1)
	}
	fmt.Fprintf(&b, `group tests all "Tests" {
  criterion nested "Nested conditions" {
    %s >= 50
    cite act "Act"
  }
  criterion chain "Values of values" {
    v%d <= 500
    cite act "Act"
  }
}

outcome tests
`, nested, depth)
	return b.String()
}

// DeepHousehold compiles DeepHouseholdRules(depth) and converts its
// answers: earnings of 100 known and a member's not yet, on which nested
// is satisfied and chain is not. It fails tb on any error.
func DeepHousehold(tb testing.TB, depth int) (*engine.Ruleset, *engine.Inputs) {
	tb.Helper()
	r, _, err := engine.Compile("deep.rules", []byte(DeepHouseholdRules(depth)))
	if err != nil {
		tb.Fatalf("compile: %v", err)
	}
	in, err := r.Convert([]byte(`{"member": [{"earned": 100}, {}]}`))
	if err != nil || len(in.FieldErrors) > 0 {
		tb.Fatalf("convert: %v %v", err, in.FieldErrors)
	}
	return r, in
}
