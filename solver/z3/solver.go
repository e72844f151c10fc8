package z3

/*
#include <stdlib.h>
#include <z3.h>
*/
import "C"

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Result is the answer of a check.
type Result int

// The answers of a check. Unknown always comes with an error saying why.
const (
	Unknown Result = iota
	Sat
	Unsat
)

func (r Result) String() string {
	switch r {
	case Sat:
		return "sat"
	case Unsat:
		return "unsat"
	}
	return "unknown"
}

// Solver decides satisfiability of the formulas asserted into it, with
// backtracking (Push/Pop) and checks under assumptions. It belongs to its
// Context and follows the same one-goroutine rule. Close it when done.
type Solver struct {
	// owned holds the solver's reference and its context.
	owned
	// s is the Z3 solver.
	s C.Z3_solver
	// timeout bounds every check (at least 1 ms; DefaultTimeout when
	// NewSolver got none).
	timeout time.Duration
}

// NewSolver makes a solver whose every check is bounded by timeout
// (DefaultTimeout when zero or negative).
func (c *Context) NewSolver(timeout time.Duration) (*Solver, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	zs := C.Z3_mk_solver(c.c)
	if err := c.lastError("NewSolver"); err != nil {
		return nil, err
	}
	C.Z3_solver_inc_ref(c.c, zs)
	s := &Solver{s: zs, timeout: effectiveTimeout(timeout)}
	s.owned = own(c, s, release{kind: releaseSolver, ptr: unsafe.Pointer(zs)})
	err := c.withTimeout(timeout, func(p C.Z3_params) { C.Z3_solver_set_params(c.c, zs, p) })
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("new solver: %w", err)
	}
	return s, nil
}

// effectiveTimeout is the bound a check runs under when asked for timeout.
func effectiveTimeout(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		return DefaultTimeout
	}
	return max(timeout, time.Millisecond)
}

// withTimeout builds the parameter set {timeout: ms} and hands it to apply.
func (c *Context) withTimeout(timeout time.Duration, apply func(C.Z3_params)) error {
	ms := effectiveTimeout(timeout).Milliseconds()
	p := C.Z3_mk_params(c.c)
	C.Z3_params_inc_ref(c.c, p)
	defer C.Z3_params_dec_ref(c.c, p)
	C.Z3_params_set_uint(c.c, p, c.symbol("timeout"), C.uint(min(ms, int64(^uint32(0)))))
	apply(p)
	return c.lastError("set timeout")
}

// assert adds a Boolean term with add, reporting the sticky error first.
func (o *owned) assert(op string, e *Expr, add func(C.Z3_ast)) error {
	if err := o.usable(); err != nil {
		return err
	}
	a, ok := o.ctx.args(op, []*Expr{e})
	if !ok {
		return o.ctx.err
	}
	add(a[0])
	if err := o.ctx.lastError(op); err != nil {
		return err
	}
	return nil
}

// Assert adds the Boolean term e to the solver. It returns the context's
// sticky error if any term of the context failed to build.
func (s *Solver) Assert(e *Expr) error {
	return s.assert("Assert", e, func(a C.Z3_ast) { C.Z3_solver_assert(s.ctx.c, s.s, a) })
}

// Push opens a backtracking point: assertions made after it are removed by
// the matching Pop.
func (s *Solver) Push() error {
	if err := s.usable(); err != nil {
		return err
	}
	C.Z3_solver_push(s.ctx.c, s.s)
	return s.ctx.lastError("Push")
}

// Pop removes the assertions of the last n Push scopes.
func (s *Solver) Pop(n uint) error {
	if err := s.usable(); err != nil {
		return err
	}
	C.Z3_solver_pop(s.ctx.c, s.s, C.uint(n))
	return s.ctx.lastError("Pop")
}

// Reset removes every assertion and scope, keeping the timeout.
func (s *Solver) Reset() error {
	if err := s.usable(); err != nil {
		return err
	}
	C.Z3_solver_reset(s.ctx.c, s.s)
	return s.ctx.lastError("Reset")
}

// Check decides the assertions. See CheckAssumptions for the results.
func (s *Solver) Check(ctx context.Context) (Result, error) {
	return s.CheckAssumptions(ctx)
}

// CheckAssumptions decides the assertions together with the assumptions,
// Boolean constants (or their negations) that hold for this check only.
// After Unsat, UnsatCore names a subset of the assumptions that is
// already contradictory; after Sat, Model gives a satisfying assignment.
// Unknown comes with an error: one matching ErrTimeout when the solver's
// timeout ran out, ctx's error when ctx was cancelled (the check is
// interrupted), or one matching ErrUnknown with Z3's reason.
func (s *Solver) CheckAssumptions(ctx context.Context, assumptions ...*Expr) (Result, error) {
	if err := s.usable(); err != nil {
		return Unknown, err
	}
	return s.ctx.check(ctx, "Check", s.timeout, assumptions,
		func(n C.uint, a *C.Z3_ast) C.Z3_lbool { return C.Z3_solver_check_assumptions(s.ctx.c, s.s, n, a) },
		func() *C.char { return C.Z3_solver_get_reason_unknown(s.ctx.c, s.s) })
}

// check runs one check bounded by timeout with the assumptions, interrupting
// Z3 when ctx is cancelled, and maps the outcome to a Result and error.
func (c *Context) check(ctx context.Context, op string, timeout time.Duration, assumptions []*Expr,
	run func(C.uint, *C.Z3_ast) C.Z3_lbool, reason func() *C.char) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Unknown, fmt.Errorf("z3: %s: %w", op, err)
	}
	a, ok := c.args(op, assumptions)
	if !ok {
		return Unknown, c.err
	}
	var p *C.Z3_ast
	if len(a) > 0 {
		p = &a[0]
	}
	stop := c.interruptOnDone(ctx)
	started := time.Now()
	r := run(C.uint(len(a)), p)
	elapsed := time.Since(started)
	stop()
	if err := c.lastError(op); err != nil {
		return Unknown, err
	}
	if err := ctx.Err(); err != nil {
		// ctx ended as the check did: the interrupt may have reached Z3
		// after its answer, and taken the model with it.
		return Unknown, fmt.Errorf("z3: %s interrupted: %w", op, err)
	}
	switch r {
	case C.Z3_L_TRUE:
		return Sat, nil
	case C.Z3_L_FALSE:
		return Unsat, nil
	}
	if err := ctx.Err(); err != nil {
		return Unknown, fmt.Errorf("z3: %s interrupted: %w", op, err)
	}
	why := C.GoString(reason())
	// Z3 implements timeouts by cancelling its resource limit, so a timeout
	// can also be reported as "canceled", and Optimize sometimes gives no
	// reason at all; without a cancelled ctx, a check that gave up after its
	// whole time budget timed out.
	if strings.Contains(why, "timeout") || strings.Contains(why, "cancel") || elapsed >= timeout {
		return Unknown, fmt.Errorf("z3: %s: %w (%s)", op, ErrTimeout, why)
	}
	return Unknown, fmt.Errorf("z3: %s: %w: %s", op, ErrUnknown, strconv.Quote(why))
}

// interruptOnDone calls Z3_interrupt, the one call Z3 allows from another
// thread, if ctx is cancelled before the returned stop is called. stop
// waits for the watcher to finish, so no interrupt outlives the check.
func (c *Context) interruptOnDone(ctx context.Context) (stop func()) {
	if ctx.Done() == nil {
		return func() {}
	}
	zc := c.c
	finished := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-ctx.Done():
			C.Z3_interrupt(zc)
		case <-finished:
		}
	}()
	return func() {
		close(finished)
		<-exited
	}
}

// astVector copies a Z3 AST vector into Exprs and releases the vector.
func (c *Context) astVector(op string, v C.Z3_ast_vector) ([]*Expr, error) {
	if err := c.lastError(op); err != nil {
		return nil, err
	}
	C.Z3_ast_vector_inc_ref(c.c, v)
	defer C.Z3_ast_vector_dec_ref(c.c, v)
	n := int(C.Z3_ast_vector_size(c.c, v))
	out := make([]*Expr, n)
	for i := range n {
		if out[i] = c.wrap(op, C.Z3_ast_vector_get(c.c, v, C.uint(i))); out[i] == nil {
			return nil, c.err
		}
	}
	return out, nil
}

// UnsatCore returns, after CheckAssumptions answered Unsat, a subset of the
// assumptions that is contradictory with the assertions. Z3 does not
// guarantee a minimal core; shrink it by re-checking when minimality
// matters. Match the returned terms to the assumptions by ID.
func (s *Solver) UnsatCore() ([]*Expr, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.ctx.astVector("UnsatCore", C.Z3_solver_get_unsat_core(s.ctx.c, s.s))
}

// Model returns, after a check answered Sat, the satisfying assignment.
// Close the model when done with it.
func (s *Solver) Model() (*Model, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.ctx.model(C.Z3_solver_get_model(s.ctx.c, s.s))
}

// Optimize finds a model that satisfies the hard assertions and is best for
// the soft constraints and objectives (used for "the cheapest set of
// fields to ask"). It belongs to its Context; Close it when done.
type Optimize struct {
	// owned holds the optimizer's reference and its context.
	owned
	// o is the Z3 optimizer.
	o C.Z3_optimize
	// timeout bounds every check (at least 1 ms; DefaultTimeout when
	// NewOptimize got none).
	timeout time.Duration
}

// NewOptimize makes an optimizer whose every check is bounded by timeout
// (DefaultTimeout when zero or negative).
func (c *Context) NewOptimize(timeout time.Duration) (*Optimize, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	zo := C.Z3_mk_optimize(c.c)
	if err := c.lastError("NewOptimize"); err != nil {
		return nil, err
	}
	C.Z3_optimize_inc_ref(c.c, zo)
	o := &Optimize{o: zo, timeout: effectiveTimeout(timeout)}
	o.owned = own(c, o, release{kind: releaseOptimize, ptr: unsafe.Pointer(zo)})
	err := c.withTimeout(timeout, func(p C.Z3_params) { C.Z3_optimize_set_params(c.c, zo, p) })
	if err != nil {
		o.Close()
		return nil, fmt.Errorf("new optimize: %w", err)
	}
	return o, nil
}

// Assert adds the hard constraint e, which every answer must satisfy.
func (o *Optimize) Assert(e *Expr) error {
	return o.assert("Assert", e, func(a C.Z3_ast) { C.Z3_optimize_assert(o.ctx.c, o.o, a) })
}

// AssertSoft adds the soft constraint e: the optimizer minimises the total
// weight of the violated soft constraints of each group, groups being
// independent objectives in the order they were first named. Weights are
// non-negative; an empty group name means the group "default".
func (o *Optimize) AssertSoft(e *Expr, weight int64, group string) error {
	if weight < 0 {
		return fmt.Errorf("z3: AssertSoft: negative weight %d", weight)
	}
	if group == "" {
		group = "default"
	}
	w := C.CString(strconv.FormatInt(weight, 10))
	defer C.free(unsafe.Pointer(w))
	return o.assert("AssertSoft", e, func(a C.Z3_ast) {
		C.Z3_optimize_assert_soft(o.ctx.c, o.o, a, w, o.ctx.symbol(group))
	})
}

// Minimize adds the objective "make the Int or Real term e as small as
// possible", after the objectives added before it.
func (o *Optimize) Minimize(e *Expr) error {
	return o.assert("Minimize", e, func(a C.Z3_ast) { C.Z3_optimize_minimize(o.ctx.c, o.o, a) })
}

// Push opens a backtracking point for the assertions and soft constraints.
func (o *Optimize) Push() error {
	if err := o.usable(); err != nil {
		return err
	}
	C.Z3_optimize_push(o.ctx.c, o.o)
	return o.ctx.lastError("Push")
}

// Pop removes what was added since the matching Push.
func (o *Optimize) Pop() error {
	if err := o.usable(); err != nil {
		return err
	}
	C.Z3_optimize_pop(o.ctx.c, o.o)
	return o.ctx.lastError("Pop")
}

// Check finds an optimal model under the assumptions (which hold for this
// check only). Results and errors are those of Solver.CheckAssumptions;
// after Sat, Model returns the optimum.
func (o *Optimize) Check(ctx context.Context, assumptions ...*Expr) (Result, error) {
	if err := o.usable(); err != nil {
		return Unknown, err
	}
	return o.ctx.check(ctx, "Optimize.Check", o.timeout, assumptions,
		func(n C.uint, a *C.Z3_ast) C.Z3_lbool { return C.Z3_optimize_check(o.ctx.c, o.o, n, a) },
		func() *C.char { return C.Z3_optimize_get_reason_unknown(o.ctx.c, o.o) })
}

// Model returns the optimal model found by the last Sat check.
func (o *Optimize) Model() (*Model, error) {
	if err := o.usable(); err != nil {
		return nil, err
	}
	return o.ctx.model(C.Z3_optimize_get_model(o.ctx.c, o.o))
}
