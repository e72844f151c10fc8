package z3_test

import (
	"context"
	"fmt"
	"time"

	"github.com/eligo/eligo/solver/z3"
)

// Example proves that x + y = 10, x > y, y > 2 has a solution and prints it.
func Example() {
	c, err := z3.NewContext()
	if err != nil {
		panic(err)
	}
	defer c.Close()
	x, y := c.IntConst("x"), c.IntConst("y")
	s, err := c.NewSolver(time.Second)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for _, f := range []*z3.Expr{
		c.Eq(c.Add(x, y), c.Int(10)),
		c.Gt(x, y),
		c.Gt(y, c.Int(2)),
	} {
		if err := s.Assert(f); err != nil {
			panic(err)
		}
	}
	r, err := s.Check(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(r)
	m, err := s.Model()
	if err != nil {
		panic(err)
	}
	defer m.Close()
	xv, _ := m.Int64(x)
	yv, _ := m.Int64(y)
	fmt.Println("x + y =", xv+yv, "x > y:", xv > yv, "y > 2:", yv > 2)
	// Output:
	// sat
	// x + y = 10 x > y: true y > 2: true
}
