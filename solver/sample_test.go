package solver

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/eligo/eligo/casebank"
	"github.com/eligo/eligo/engine"
)

// long turns the sampled tests from quick to thorough: go test -long.
var long = flag.Bool("long", false, "run the sampled solver tests with many more samples")

// differentialSamples, when set, is the number of random answer sets the
// differential test draws per ruleset, overriding the default and -long;
// `make test` runs it at 2,000 outside the race detector.
var differentialSamples = flag.Int("differential-samples", 0, "random answer sets per ruleset in the differential test (0: 400, or 5,000 with -long)")

// casebankRuleset is one compiled casebank ruleset and its cases.
type casebankRuleset struct {
	name  string
	rules *engine.Ruleset
	cases []engine.Case
}

// loadCasebank compiles every folder under casebank/.
func loadCasebank(tb testing.TB) []casebankRuleset {
	tb.Helper()
	dirs, err := casebank.Discover(filepath.Join("..", "casebank"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []casebankRuleset
	for _, d := range dirs {
		f, err := casebank.Load(context.Background(), d)
		if err != nil {
			tb.Fatal(err)
		}
		r, _, err := engine.Compile(f.RulesPath, f.Rules)
		if err != nil {
			tb.Fatalf("%s: %v", f.Name, err)
		}
		out = append(out, casebankRuleset{name: f.Name, rules: r, cases: f.Cases})
	}
	return out
}

// loadTestdata compiles solver/testdata/*.rules: small rulesets that use
// what the casebank does not (every operator, presence operators).
func loadTestdata(tb testing.TB) []casebankRuleset {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.rules"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []casebankRuleset
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		r, _, err := engine.Compile(p, src)
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		out = append(out, casebankRuleset{name: "testdata/" + filepath.Base(p), rules: r})
	}
	return out
}

// compileRules compiles an inline test ruleset.
func compileRules(tb testing.TB, src string) *engine.Ruleset {
	tb.Helper()
	r, _, err := engine.Compile("test.rules", []byte(src))
	if err != nil {
		tb.Fatalf("compile: %v", err)
	}
	return r
}

// sampler draws random partial answer sets for one ruleset, biased toward
// the values where decisions flip: each constant the ruleset compares a
// field with (or defaults it to), one unit either side of it, and for dates
// the decision date moved back by each whole number of years or months the
// rules count, a day either side.
type sampler struct {
	r   *engine.Ruleset
	rnd *rand.Rand
	// near[slot] are boundary values of the field.
	near [][]engine.Value
	// counts are the int constants that stand alone (ages, month counts).
	counts []int64
	// dates are the date constants of the ruleset.
	dates []int64
}

func newSampler(r *engine.Ruleset, seed uint64) *sampler {
	s := &sampler{r: r, rnd: rand.New(rand.NewPCG(seed, 0x5eed)), near: make([][]engine.Value, len(r.Fields))}
	var walk func(x *engine.Expr)
	walk = func(x *engine.Expr) {
		if x == nil {
			return
		}
		if x.Kind == engine.ExprConst {
			switch {
			case x.Sort == engine.SortDate:
				s.dates = append(s.dates, x.Const.Num)
			case x.FieldContext != "":
				if i := r.FieldIndex(x.FieldContext); i >= 0 {
					s.near[i] = append(s.near[i], x.Const)
				}
			case x.Sort == engine.SortInt:
				s.counts = append(s.counts, x.Const.Num)
			}
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	for i := 0; i < r.NumCriteria(); i++ {
		c, _ := r.CriterionAt(i)
		walk(c.Expr)
	}
	return s
}

// decisionDate draws a decision date between 1990 and 2060.
func (s *sampler) decisionDate() int64 {
	return engine.DateOrdinal(1990+s.rnd.IntN(70), 1+s.rnd.IntN(12), 1+s.rnd.IntN(28))
}

// inputs draws one answer set: each field answered with probability
// answered.
func (s *sampler) inputs(answered float64, decision int64) *engine.Inputs {
	in := &engine.Inputs{Values: make([]engine.Value, len(s.r.Fields))}
	for i := range s.r.Fields {
		if s.rnd.Float64() >= answered {
			continue
		}
		in.Values[i] = s.value(i, decision)
		in.Provided++
	}
	return in
}

// value draws one answer for field slot.
func (s *sampler) value(slot int, decision int64) engine.Value {
	f := &s.r.Fields[slot]
	switch f.Type {
	case engine.SortBool:
		return engine.BoolValue(s.rnd.IntN(2) == 1)
	case engine.SortEnum:
		return engine.Value{Num: int64(s.rnd.IntN(len(f.EnumValues))), Known: true}
	case engine.SortDate:
		return engine.Value{Num: s.date(decision), Known: true}
	}
	scale := uint8(0)
	if f.Type == engine.SortDecimal {
		scale = uint8(s.rnd.IntN(3))
	}
	if near := s.near[slot]; len(near) > 0 && s.rnd.IntN(4) != 0 {
		k := near[s.rnd.IntN(len(near))]
		// Bring the constant to the drawn scale (or the drawn scale up to
		// the constant's), then step -1, 0 or +1 unit of that scale.
		if k.Scale > scale {
			scale = k.Scale
		}
		num := k.Num
		for sc := k.Scale; sc < scale; sc++ {
			num *= 10
		}
		return engine.Value{Num: num + int64(s.rnd.IntN(3)-1), Scale: scale, Known: true}
	}
	mag := []int64{10, 1000, 100000}[s.rnd.IntN(3)]
	num := s.rnd.Int64N(2*mag+1) - mag/10
	for sc := uint8(0); sc < scale; sc++ {
		num *= 10
	}
	if f.Type == engine.SortInt {
		scale = 0
	}
	return engine.Value{Num: num, Scale: scale, Known: true}
}

// date draws a date: near a date constant, near the decision date less a
// counted number of years or months, around 29 February, or anywhere from
// 1900 to 2060.
func (s *sampler) date(decision int64) int64 {
	jitter := int64(s.rnd.IntN(3) - 1)
	switch s.rnd.IntN(5) {
	case 0:
		if len(s.dates) > 0 {
			return s.dates[s.rnd.IntN(len(s.dates))] + jitter
		}
	case 1, 2:
		if len(s.counts) > 0 {
			n := int(s.counts[s.rnd.IntN(len(s.counts))])
			y, m, d := engine.Civil(decision)
			if s.rnd.IntN(2) == 0 {
				y -= n
			} else {
				m -= n % 12
				y -= n / 12
				for m < 1 {
					m += 12
					y--
				}
			}
			if y >= 1 {
				if d > 28 {
					d = 28
				}
				return engine.DateOrdinal(y, m, d) + jitter
			}
		}
	case 3:
		y := 1940 + 4*s.rnd.IntN(25)
		return engine.DateOrdinal(y, 2, 29) + jitter
	}
	return engine.DateOrdinal(1900+s.rnd.IntN(160), 1+s.rnd.IntN(12), 1+s.rnd.IntN(28))
}
