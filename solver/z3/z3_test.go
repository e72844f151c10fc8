package z3_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/solver/z3"
)

// newContext returns a context closed when the test ends.
func newContext(t testing.TB) *z3.Context {
	t.Helper()
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// newSolver returns a solver with a generous timeout, closed with the test.
func newSolver(t testing.TB, c *z3.Context) *z3.Solver {
	t.Helper()
	s, err := c.NewSolver(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func assertAll(t testing.TB, s *z3.Solver, fs ...*z3.Expr) {
	t.Helper()
	for _, f := range fs {
		if err := s.Assert(f); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFormulas(t *testing.T) {
	t.Parallel()
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			panic(s)
		}
		return r
	}
	tests := []struct {
		name string
		// build returns the assertions and the terms whose model values
		// are forced, with those values (*big.Rat for numbers, bool).
		build func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any)
		want  z3.Result
	}{
		{"linear system", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			x, y := c.IntConst("x"), c.IntConst("y")
			return []*z3.Expr{c.Eq(c.Add(x, y), c.Int(10)), c.Eq(c.Sub(x, y), c.Int(4))},
				map[*z3.Expr]any{x: rat("7"), y: rat("3")}
		}, z3.Sat},
		{"decimal literal is exact", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			r := c.RealConst("r")
			return []*z3.Expr{c.Eq(c.Mul(c.Int(2), c.ToReal(c.Int(1)), r), c.Real("1250.50"))},
				map[*z3.Expr]any{r: rat("2501/4")}
		}, z3.Sat},
		{"fraction literal and big.Rat literal", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			r := c.RealConst("r")
			return []*z3.Expr{c.Eq(c.Mul(c.Real("-3/4"), r), c.RealRat(rat("1/3")))},
				map[*z3.Expr]any{r: rat("-4/9")}
		}, z3.Sat},
		{"one third times three is one", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			return []*z3.Expr{c.Not(c.Eq(c.Mul(c.Real("1/3"), c.Real("3")), c.Real("1")))}, nil
		}, z3.Unsat},
		{"unary minus", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			x := c.IntConst("x")
			return []*z3.Expr{c.Eq(c.Neg(x), c.Int(5))}, map[*z3.Expr]any{x: rat("-5")}
		}, z3.Sat},
		{"div and mod by a constant", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			x := c.IntConst("x")
			return []*z3.Expr{c.Eq(c.Div(x, c.Int(3)), c.Int(4)), c.Eq(c.Mod(x, c.Int(3)), c.Int(2))},
				map[*z3.Expr]any{x: rat("14")}
		}, z3.Sat},
		{"an integer is not two and a half", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			n := c.IntConst("n")
			return []*z3.Expr{c.Eq(c.ToReal(n), c.Real("2.5"))}, nil
		}, z3.Unsat},
		{"strict bounds leave no integer", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			x := c.IntConst("x")
			return []*z3.Expr{c.Gt(x, c.Int(3)), c.Lt(x, c.Int(4))}, nil
		}, z3.Unsat},
		{"non-strict bounds meet", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			x := c.IntConst("x")
			return []*z3.Expr{c.Ge(x, c.Int(3)), c.Le(x, c.Int(3))}, map[*z3.Expr]any{x: rat("3")}
		}, z3.Sat},
		{"strict bounds leave a real", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			r := c.RealConst("r")
			return []*z3.Expr{c.Gt(r, c.Real("3")), c.Lt(r, c.Real("3.0000001"))}, nil
		}, z3.Sat},
		{"three distinct values in two", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			x, y, z := c.IntConst("x"), c.IntConst("y"), c.IntConst("z")
			in01 := func(v *z3.Expr) *z3.Expr { return c.And(c.Ge(v, c.Int(0)), c.Le(v, c.Int(1))) }
			return []*z3.Expr{c.Distinct(x, y, z), in01(x), in01(y), in01(z)}, nil
		}, z3.Unsat},
		{"ite selects the else branch", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			b := c.BoolConst("b")
			return []*z3.Expr{c.Eq(c.Ite(b, c.Int(1), c.Int(2)), c.Int(2))}, map[*z3.Expr]any{b: false}
		}, z3.Sat},
		{"implication fires", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			a, b := c.BoolConst("a"), c.BoolConst("b")
			return []*z3.Expr{c.Implies(a, b), a}, map[*z3.Expr]any{a: true, b: true}
		}, z3.Sat},
		{"xor with true negates", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			a := c.BoolConst("a")
			return []*z3.Expr{c.Xor(a, c.Bool(true))}, map[*z3.Expr]any{a: false}
		}, z3.Sat},
		{"or of contradictions", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			a := c.BoolConst("a")
			return []*z3.Expr{c.Or(c.And(a, c.Not(a)), c.Bool(false))}, nil
		}, z3.Unsat},
		{"boolean equality is equivalence", func(c *z3.Context) ([]*z3.Expr, map[*z3.Expr]any) {
			a, b := c.BoolConst("a"), c.BoolConst("b")
			return []*z3.Expr{c.Eq(a, c.Not(b)), b}, map[*z3.Expr]any{a: false}
		}, z3.Sat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newContext(t)
			s := newSolver(t, c)
			fs, want := tt.build(c)
			assertAll(t, s, fs...)
			got, err := s.Check(context.Background())
			if err != nil || got != tt.want {
				t.Fatalf("Check = %v, %v; want %v", got, err, tt.want)
			}
			if got != z3.Sat {
				return
			}
			m, err := s.Model()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for e, v := range want {
				switch v := v.(type) {
				case bool:
					b, err := m.Bool(e)
					if err != nil || b != v {
						t.Errorf("%s = %v, %v; want %v", e, b, err, v)
					}
				case *big.Rat:
					r, err := m.Rat(e)
					if err != nil || r.Cmp(v) != 0 {
						t.Errorf("%s = %v, %v; want %v", e, r, err, v)
					}
				}
			}
			// Every asserted formula is true in the model.
			for _, f := range fs {
				if b, err := m.Bool(f); err != nil || !b {
					t.Errorf("model does not satisfy %s: %v, %v", f, b, err)
				}
			}
		})
	}
}

func TestModelValues(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	s := newSolver(t, c)
	x, r, free := c.IntConst("x"), c.RealConst("r"), c.IntConst("free")
	assertAll(t, s, c.Eq(x, c.Int(-9_000_000_000)), c.Eq(r, c.Real("0.125")))
	if got, err := s.Check(context.Background()); got != z3.Sat || err != nil {
		t.Fatalf("Check = %v, %v", got, err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if v, err := m.Int64(x); err != nil || v != -9_000_000_000 {
		t.Errorf("x = %d, %v", v, err)
	}
	if _, err := m.Int64(r); err == nil {
		t.Error("Int64 of 1/8 succeeded")
	}
	if v, err := m.Rat(r); err != nil || v.RatString() != "1/8" {
		t.Errorf("r = %v, %v", v, err)
	}
	if _, err := m.Bool(x); err == nil {
		t.Error("Bool of an Int succeeded")
	}
	// Without completion a constant the model leaves free stays symbolic.
	v, err := m.Eval(free, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.AsInt64(); err == nil || v.String() != "free" {
		t.Errorf("Eval(free, false) = %s, AsInt64 err %v", v, err)
	}
	if _, err := m.Int64(free); err != nil {
		t.Errorf("completed free value: %v", err)
	}
}

func TestPushPopReset(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	s := newSolver(t, c)
	x := c.IntConst("x")
	ctx := context.Background()
	check := func(want z3.Result) {
		t.Helper()
		if got, err := s.Check(ctx); got != want || err != nil {
			t.Fatalf("Check = %v, %v; want %v", got, err, want)
		}
	}
	assertAll(t, s, c.Gt(x, c.Int(5)))
	check(z3.Sat)
	if err := s.Push(); err != nil {
		t.Fatal(err)
	}
	assertAll(t, s, c.Lt(x, c.Int(3)))
	check(z3.Unsat)
	if err := s.Pop(1); err != nil {
		t.Fatal(err)
	}
	check(z3.Sat)
	assertAll(t, s, c.Lt(x, c.Int(3)))
	check(z3.Unsat)
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	check(z3.Sat)
	if err := s.Pop(1); err == nil {
		t.Error("Pop with no scope succeeded")
	}
}

func TestUnsatCore(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	s := newSolver(t, c)
	x, y := c.IntConst("x"), c.IntConst("y")
	// Each tracked constraint is guarded by its own assumption literal.
	tracked := []struct {
		name string
		f    *z3.Expr
	}{
		{"x>5", c.Gt(x, c.Int(5))},
		{"y>0", c.Gt(y, c.Int(0))},
		{"x<3", c.Lt(x, c.Int(3))},
		{"y<100", c.Lt(y, c.Int(100))},
	}
	names := map[uint]string{}
	var assumptions []*z3.Expr
	for _, tr := range tracked {
		a := c.BoolConst("track:" + tr.name)
		assertAll(t, s, c.Implies(a, tr.f))
		names[a.ID()] = tr.name
		assumptions = append(assumptions, a)
	}
	ctx := context.Background()
	if got, err := s.CheckAssumptions(ctx, assumptions...); got != z3.Unsat || err != nil {
		t.Fatalf("CheckAssumptions = %v, %v", got, err)
	}
	core, err := s.UnsatCore()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range core {
		got = append(got, names[e.ID()])
	}
	if strings.Join(sortedCopy(got), ",") != "x<3,x>5" {
		t.Errorf("core = %v; want [x<3 x>5]", got)
	}
	// The assumptions hold for one check only.
	if r, err := s.CheckAssumptions(ctx, assumptions[0], assumptions[1]); r != z3.Sat || err != nil {
		t.Errorf("CheckAssumptions without x<3 = %v, %v", r, err)
	}
	if r, err := s.CheckAssumptions(ctx, assumptions[0], c.Not(assumptions[0])); r != z3.Unsat || err != nil {
		t.Errorf("contradictory assumptions = %v, %v", r, err)
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestOptimizePicksCheapest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		weights []int64
		exclude int // index of a field assumed not asked, or -1
		want    string
	}{
		{"two cheap beat one dear", []int64{1, 2, 5}, -1, "ab"},
		{"one cheap beats two dear", []int64{3, 4, 5}, -1, "c"},
		{"ties go to either, cost is what counts", []int64{2, 3, 5}, -1, "ab|c"},
		{"assumption rules out the cheapest", []int64{3, 4, 5}, 2, "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newContext(t)
			o, err := c.NewOptimize(30 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			ask := []*z3.Expr{c.BoolConst("ask_a"), c.BoolConst("ask_b"), c.BoolConst("ask_c")}
			// The outcome is reachable through a and b together, or through c.
			if err := o.Assert(c.Or(c.And(ask[0], ask[1]), ask[2])); err != nil {
				t.Fatal(err)
			}
			for i, w := range tt.weights {
				if err := o.AssertSoft(c.Not(ask[i]), w, "questions"); err != nil {
					t.Fatal(err)
				}
			}
			var assumptions []*z3.Expr
			if tt.exclude >= 0 {
				assumptions = append(assumptions, c.Not(ask[tt.exclude]))
			}
			if r, err := o.Check(context.Background(), assumptions...); r != z3.Sat || err != nil {
				t.Fatalf("Check = %v, %v", r, err)
			}
			m, err := o.Model()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			picked := ""
			for i, a := range ask {
				if b, err := m.Bool(a); err != nil {
					t.Fatal(err)
				} else if b {
					picked += string(rune('a' + i))
				}
			}
			if !strings.Contains("|"+tt.want+"|", "|"+picked+"|") {
				t.Errorf("picked %q; want %q", picked, tt.want)
			}
		})
	}
}

func TestOptimizeMinimize(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	o, err := c.NewOptimize(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	x, y := c.IntConst("x"), c.IntConst("y")
	for _, f := range []*z3.Expr{c.Ge(c.Add(x, y), c.Int(7)), c.Ge(x, c.Int(2)), c.Ge(y, c.Int(1))} {
		if err := o.Assert(f); err != nil {
			t.Fatal(err)
		}
	}
	cost := c.Add(c.Mul(c.Int(3), x), y)
	if err := o.Minimize(cost); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if r, err := o.Check(ctx); r != z3.Sat || err != nil {
		t.Fatalf("Check = %v, %v", r, err)
	}
	m, err := o.Model()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// 3x + y over x >= 2, y >= 1, x + y >= 7 is least at x = 2, y = 5.
	if v, err := m.Int64(cost); err != nil || v != 11 {
		t.Errorf("min cost = %d, %v; want 11", v, err)
	}
	if err := o.Push(); err != nil {
		t.Fatal(err)
	}
	if err := o.Assert(c.Lt(x, c.Int(2))); err != nil {
		t.Fatal(err)
	}
	if r, err := o.Check(ctx); r != z3.Unsat || err != nil {
		t.Errorf("Check after x < 2 = %v, %v; want unsat", r, err)
	}
	if err := o.Pop(); err != nil {
		t.Fatal(err)
	}
	if r, err := o.Check(ctx); r != z3.Sat || err != nil {
		t.Errorf("Check after Pop = %v, %v; want sat", r, err)
	}
}

// pigeonhole asserts that holes+1 pigeons sit in holes holes, one per hole:
// unsatisfiable, and exponentially hard for the solver's resolution.
func pigeonhole(t testing.TB, c *z3.Context, holes int, assert func(*z3.Expr) error) {
	t.Helper()
	in := make([][]*z3.Expr, holes+1)
	for p := range in {
		in[p] = make([]*z3.Expr, holes)
		for h := range in[p] {
			in[p][h] = c.BoolConst(fmt.Sprintf("p%d_h%d", p, h))
		}
		if err := assert(c.Or(in[p]...)); err != nil {
			t.Fatal(err)
		}
	}
	for h := range holes {
		for p := range in {
			for q := p + 1; q < len(in); q++ {
				if err := assert(c.Not(c.And(in[p][h], in[q][h]))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestTimeoutIsAnError(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	// The bound is well above what a trivial check takes on a loaded
	// machine and far below what pigeonhole(12) needs.
	const bound = 250 * time.Millisecond
	s, err := c.NewSolver(bound)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pigeonhole(t, c, 12, s.Assert)
	r, err := s.Check(context.Background())
	if r != z3.Unknown || !errors.Is(err, z3.ErrTimeout) {
		t.Fatalf("Check = %v, %v; want unknown, ErrTimeout", r, err)
	}
	// The solver stays usable after a timeout.
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Check(context.Background()); r != z3.Sat || err != nil {
		t.Errorf("Check after Reset = %v, %v", r, err)
	}

	o, err := c.NewOptimize(bound)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	pigeonhole(t, c, 12, o.Assert)
	if r, err := o.Check(context.Background()); r != z3.Unknown || !errors.Is(err, z3.ErrTimeout) {
		t.Errorf("Optimize.Check = %v, %v; want unknown, ErrTimeout", r, err)
	}
}

func TestCancelInterrupts(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	s, err := c.NewSolver(10 * time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Push(); err != nil {
		t.Fatal(err)
	}
	pigeonhole(t, c, 12, s.Assert)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	r, err := s.Check(ctx)
	if r != z3.Unknown || !errors.Is(err, context.Canceled) {
		t.Fatalf("Check = %v, %v; want unknown, context.Canceled", r, err)
	}
	// An already cancelled context never starts a check.
	if r, err := s.Check(ctx); r != z3.Unknown || !errors.Is(err, context.Canceled) {
		t.Errorf("Check with cancelled ctx = %v, %v", r, err)
	}
	// The interruption does not leak into the next check.
	if err := s.Pop(1); err != nil {
		t.Fatal(err)
	}
	x := c.IntConst("x")
	assertAll(t, s, c.Gt(x, c.Int(1)))
	if r, err := s.Check(context.Background()); r != z3.Sat || err != nil {
		t.Errorf("Check after cancel = %v, %v", r, err)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	t.Run("ill-sorted term", func(t *testing.T) {
		t.Parallel()
		c := newContext(t)
		s := newSolver(t, c)
		sum := c.Add(c.BoolConst("b"), c.IntConst("n"))
		if sum != nil {
			t.Fatalf("Add(Bool, Int) = %s; want nil", sum)
		}
		var zerr *z3.Error
		if !errors.As(c.Err(), &zerr) || zerr.Op != "Add" {
			t.Fatalf("Err() = %v; want a *z3.Error from Add", c.Err())
		}
		// Later terms are nil and Assert and Check report the first error.
		if e := c.Gt(sum, c.Int(1)); e != nil {
			t.Errorf("term over a failed term = %s", e)
		}
		if err := s.Assert(c.Bool(true)); !errors.As(err, &zerr) {
			t.Errorf("Assert = %v; want the sticky error", err)
		}
		if _, err := s.Check(context.Background()); !errors.As(err, &zerr) {
			t.Errorf("Check = %v; want the sticky error", err)
		}
	})
	tests := []struct {
		name  string
		build func(c, other *z3.Context) *z3.Expr
	}{
		{"ill-formed numeral", func(c, _ *z3.Context) *z3.Expr { return c.Real("12,5") }},
		{"Int compared with Bool", func(c, _ *z3.Context) *z3.Expr { return c.Lt(c.Int(1), c.Bool(true)) }},
		{"ite branches of two sorts", func(c, _ *z3.Context) *z3.Expr {
			return c.Ite(c.Bool(true), c.Int(1), c.Bool(false))
		}},
		{"not of an Int", func(c, _ *z3.Context) *z3.Expr { return c.Not(c.Int(1)) }},
		{"empty conjunction", func(c, _ *z3.Context) *z3.Expr { return c.And() }},
		{"nil operand", func(c, _ *z3.Context) *z3.Expr { return c.Or(nil) }},
		{"term of another context", func(c, other *z3.Context) *z3.Expr { return c.Not(other.Bool(true)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, other := newContext(t), newContext(t)
			if e := tt.build(c, other); e != nil || c.Err() == nil {
				t.Errorf("got %s, Err() = %v; want nil and an error", e, c.Err())
			}
			if other.Err() != nil {
				t.Errorf("the other context took the error: %v", other.Err())
			}
		})
	}
	t.Run("use after close", func(t *testing.T) {
		t.Parallel()
		c, err := z3.NewContext()
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.NewSolver(time.Second)
		if err != nil {
			t.Fatal(err)
		}
		x := c.IntConst("x")
		c.Close()
		c.Close()
		s.Close() // after the context: a no-op, not a double free
		if err := s.Assert(c.Gt(x, c.Int(1))); !errors.Is(err, z3.ErrClosed) {
			t.Errorf("Assert after Close = %v", err)
		}
		if _, err := c.NewSolver(time.Second); !errors.Is(err, z3.ErrClosed) {
			t.Errorf("NewSolver after Close = %v", err)
		}
		if _, err := x.AsInt64(); !errors.Is(err, z3.ErrClosed) {
			t.Errorf("AsInt64 after Close = %v", err)
		}
	})
	t.Run("model before a sat check", func(t *testing.T) {
		t.Parallel()
		c := newContext(t)
		s := newSolver(t, c)
		if _, err := s.Model(); err == nil {
			t.Error("Model before Check succeeded")
		}
	})
}

// TestConcurrentContexts runs queries on several goroutines, each with its
// own context, as the package documents; run it with -race.
func TestConcurrentContexts(t *testing.T) {
	t.Parallel()
	const workers, queries = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			c, err := z3.NewContext()
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for q := range queries {
				if err := linearQuery(c, int64(w*queries+q)); err != nil {
					errs <- fmt.Errorf("worker %d query %d: %w", w, q, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// linearQuery solves x + y = 2k + 10, x - y = 10 on a fresh solver of c and
// checks that the model gives x = k + 10, releasing what it made.
func linearQuery(c *z3.Context, k int64) error {
	s, err := c.NewSolver(10 * time.Second)
	if err != nil {
		return err
	}
	defer s.Close()
	x, y := c.IntConst("x"), c.IntConst("y")
	if err := s.Assert(c.Eq(c.Add(x, y), c.Int(2*k+10))); err != nil {
		return err
	}
	if err := s.Assert(c.Eq(c.Sub(x, y), c.Int(10))); err != nil {
		return err
	}
	if r, err := s.Check(context.Background()); r != z3.Sat {
		return fmt.Errorf("check: %v, %w", r, err)
	}
	m, err := s.Model()
	if err != nil {
		return err
	}
	defer m.Close()
	v, err := m.Int64(x)
	if err != nil {
		return err
	}
	if v != k+10 {
		return fmt.Errorf("x = %d; want %d", v, k+10)
	}
	return nil
}

func BenchmarkFreshSolverCheck(b *testing.B) {
	c := newContext(b)
	for i := 0; b.Loop(); i++ {
		if err := linearQuery(c, int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPushCheckPop(b *testing.B) {
	c := newContext(b)
	s := newSolver(b, c)
	x, y := c.IntConst("x"), c.IntConst("y")
	assertAll(b, s, c.Eq(c.Sub(x, y), c.Int(10)))
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if err := s.Push(); err != nil {
			b.Fatal(err)
		}
		assertAll(b, s, c.Eq(c.Add(x, y), c.Int(int64(2*i))))
		if r, err := s.Check(ctx); r != z3.Sat {
			b.Fatal(r, err)
		}
		if err := s.Pop(1); err != nil {
			b.Fatal(err)
		}
	}
}
