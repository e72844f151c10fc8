package solver

import (
	"testing"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/z3"
)

// encodedSolver gives a test r's encoding in a fresh Z3 context with a
// solver bounded by timeout; the context is closed when the test ends.
func encodedSolver(t *testing.T, r *engine.Ruleset, timeout time.Duration) (*z3.Context, *Encoding, *z3.Solver) {
	t.Helper()
	c, err := z3.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	enc, err := Encode(c, r)
	if err != nil {
		t.Fatal(err)
	}
	s, err := enc.NewSolver(timeout)
	if err != nil {
		t.Fatal(err)
	}
	return c, enc, s
}
