// Package z3 is Eligo's small cgo binding to the system Z3 SMT solver
// (Debian libz3-dev, linked with -lz3). It covers what the solver package
// needs and nothing more: Bool, Int and Real terms, linear arithmetic,
// comparisons and connectives, a solver with push/pop, checks under
// assumptions with unsat cores, model evaluation, and Optimize with soft
// constraints and objectives.
//
// # Ownership
//
// A [Context] owns every object made from it: terms ([Expr]), solvers,
// optimizers and models. Z3's reference-counted API is used throughout:
// each Go wrapper holds one reference. [Solver], [Optimize] and [Model] have
// a Close method that drops their reference at once; terms are released by
// the garbage collector (a cleanup queues the release, and the context
// performs it on its own goroutine at its next call, so Z3 is never touched
// from the collector's goroutine). Cleanups are only a backstop:
// [Context.Close] frees everything the context made, in one step, and
// invalidates all of it. Using any object after its context is closed yields
// [ErrClosed].
//
// # Concurrency
//
// A Context, and everything made from it, must be used by one goroutine at
// a time. Separate contexts are fully independent, so concurrent work gives
// each goroutine its own Context. The only call made from another goroutine
// is Z3_interrupt, which Z3 documents as safe, used to honour the
// cancellation of a context.Context during a check.
//
// # Errors
//
// Z3's default error handler exits the process. Each context installs a C
// handler that does nothing, so Z3 only records the error code in the
// context; the binding reads it after every call that can fail and turns it
// into an [*Error]. Term constructors return a single *Expr, not an error,
// so that an encoding reads like the formula it builds: the first failure
// is kept as the context's sticky error (see [Context.Err]), every later
// constructor returns nil, and Assert and Check report it. The package has
// no global mutable state.
//
// # Bounded queries
//
// Every check is bounded: a solver or optimizer is made with a timeout, and
// a check that runs out of time returns an error matching [ErrTimeout].
// A check that ends with "unknown" for another reason returns an error
// matching [ErrUnknown]; a cancelled context.Context interrupts the check
// and its error is returned.
package z3

/*
#cgo LDFLAGS: -lz3
#include <stdlib.h>
#include <z3.h>

// eligo_z3_ignore_error replaces Z3's default handler, which calls exit().
// Z3 has already stored the code in the context when it calls the handler;
// the Go side reads it with Z3_get_error_code after each call.
static void eligo_z3_ignore_error(Z3_context c, Z3_error_code e) {
	(void)c;
	(void)e;
}

static void eligo_z3_install_handler(Z3_context c) {
	Z3_set_error_handler(c, eligo_z3_ignore_error);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// ErrClosed is returned when a context, or an object made from it, is used
// after Close.
var ErrClosed = errors.New("z3: use of closed context or object")

// ErrTimeout is matched (errors.Is) by the error of a check that ran out
// of the time given to its solver or optimizer. The answer is unknown; the
// caller decides whether that is a failure or a fallback.
var ErrTimeout = errors.New("z3: timeout")

// ErrUnknown is matched by the error of a check that ended with "unknown"
// for a reason other than a timeout or cancellation (for example an
// incomplete theory). The error text carries Z3's reason.
var ErrUnknown = errors.New("z3: result unknown")

// DefaultTimeout bounds a solver or optimizer made with a zero or negative
// timeout, so that no query is unbounded by accident.
const DefaultTimeout = 10 * time.Second

// Error is a failure reported by Z3 itself, such as a sort mismatch in a
// term or an ill-formed numeral.
type Error struct {
	// Op names the binding operation that failed, e.g. "Add".
	Op string
	// Code is Z3's numeric error code (Z3_error_code).
	Code int
	// Msg is Z3's description of the code.
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("z3: %s: %s", e.Op, e.Msg) }

// Context is one Z3 context: the owner of all terms, solvers, optimizers
// and models made from it. Make one per goroutine with NewContext and Close
// it when done; it is not safe for concurrent use.
type Context struct {
	// c is the Z3 context handle; nil after Close.
	c C.Z3_context
	// pending holds the references the collector dropped, released on the
	// owning goroutine at the next call.
	pending *releaseQueue
	// cleanup is the collector's backstop that deletes c; Close stops it.
	cleanup runtime.Cleanup
	// err is the sticky error: the first failure of a term constructor,
	// or ErrClosed after Close.
	err error
	// closed is set by Close.
	closed bool

	// boolSort, intSort and realSort are made once per context and held
	// (reference counted) until it is closed.
	boolSort, intSort, realSort C.Z3_sort
}

// NewContext makes a reference-counted Z3 context whose errors are reported
// as Go errors instead of terminating the process.
func NewContext() (*Context, error) {
	cfg := C.Z3_mk_config()
	if cfg == nil {
		return nil, errors.New("z3: cannot make config")
	}
	zc := C.Z3_mk_context_rc(cfg)
	C.Z3_del_config(cfg)
	if zc == nil {
		return nil, errors.New("z3: cannot make context")
	}
	C.eligo_z3_install_handler(zc)
	c := &Context{c: zc, pending: &releaseQueue{}}
	c.boolSort = c.keepSort(C.Z3_mk_bool_sort(zc))
	c.intSort = c.keepSort(C.Z3_mk_int_sort(zc))
	c.realSort = c.keepSort(C.Z3_mk_real_sort(zc))
	// Backstop only: a context dropped without Close is deleted by the
	// collector. Nothing else can be running on it by then, because every
	// object made from it keeps it reachable.
	c.cleanup = runtime.AddCleanup(c, func(zc C.Z3_context) { C.Z3_del_context(zc) }, zc)
	return c, nil
}

func (c *Context) keepSort(s C.Z3_sort) C.Z3_sort {
	C.Z3_inc_ref(c.c, C.Z3_sort_to_ast(c.c, s))
	return s
}

// Close frees the context and everything made from it. Terms, solvers,
// optimizers and models of the context must not be used afterwards; they
// report ErrClosed. Close is idempotent.
func (c *Context) Close() {
	if c.closed {
		return
	}
	c.closed = true
	c.cleanup.Stop()
	c.pending.close()
	C.Z3_del_context(c.c)
	c.c = nil
	c.err = ErrClosed
}

// Err returns the first error met by a term constructor of this context
// (the sticky error), ErrClosed after Close, or nil.
func (c *Context) Err() error { return c.err }

// ready reports whether the context can take a call, releasing the objects
// the collector has queued since the previous call.
func (c *Context) ready() bool {
	if c.closed || c.err != nil {
		return false
	}
	c.pending.drain(c.c)
	return true
}

// usable is ready as an error, for the methods that return one.
func (c *Context) usable() error {
	if c.ready() {
		return nil
	}
	return c.err
}

// lastError turns the error code Z3 recorded for the previous call, if any,
// into an *Error.
func (c *Context) lastError(op string) error {
	code := C.Z3_get_error_code(c.c)
	if code == C.Z3_OK {
		return nil
	}
	return &Error{Op: op, Code: int(code), Msg: C.GoString(C.Z3_get_error_msg(c.c, code))}
}

// fail records err as the sticky error unless one is already kept.
func (c *Context) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// symbol makes a Z3 string symbol; symbols are not reference counted.
func (c *Context) symbol(name string) C.Z3_symbol {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.Z3_mk_string_symbol(c.c, cs)
}

// releaseKind says which Z3 dec_ref function frees a queued object.
type releaseKind int

const (
	releaseAST releaseKind = iota
	releaseSolver
	releaseOptimize
	releaseModel
)

// release is one Z3 reference to drop.
type release struct {
	// kind selects the dec_ref function.
	kind releaseKind
	// ptr is the Z3 object.
	ptr unsafe.Pointer
}

// releaseQueue carries references dropped by the garbage collector back to
// the goroutine that owns the context; Z3 is called only from there.
type releaseQueue struct {
	// mu guards closed and items: the collector pushes from its own
	// goroutine.
	mu sync.Mutex
	// closed is set when the context is closed; pushes are then dropped,
	// as the context freed everything.
	closed bool
	// items are the references waiting to be dropped.
	items []release
}

func (q *releaseQueue) push(r release) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.items = append(q.items, r)
	}
}

func (q *releaseQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.items = nil
}

func (q *releaseQueue) drain(zc C.Z3_context) {
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.mu.Unlock()
	for _, r := range items {
		decRef(zc, r)
	}
}

func decRef(zc C.Z3_context, r release) {
	switch r.kind {
	case releaseAST:
		C.Z3_dec_ref(zc, C.Z3_ast(r.ptr))
	case releaseSolver:
		C.Z3_solver_dec_ref(zc, C.Z3_solver(r.ptr))
	case releaseOptimize:
		C.Z3_optimize_dec_ref(zc, C.Z3_optimize(r.ptr))
	case releaseModel:
		C.Z3_model_dec_ref(zc, C.Z3_model(r.ptr))
	}
}

// owned is the part shared by Solver, Optimize and Model: one Z3 reference
// dropped by Close, or by the collector as a backstop.
type owned struct {
	// ctx is the context the object belongs to.
	ctx *Context
	// rel is the reference the object holds.
	rel release
	// cleanup is the collector's backstop that queues rel; Close stops it.
	cleanup runtime.Cleanup
	// closed is set by Close.
	closed bool
}

// own registers the backstop cleanup of holder, which holds the reference r.
func own[T any](ctx *Context, holder *T, r release) owned {
	q := ctx.pending
	return owned{ctx: ctx, rel: r, cleanup: runtime.AddCleanup(holder, q.push, r)}
}

// ready reports whether the object and its context can take a call.
func (o *owned) usable() error {
	if o.closed || o.ctx.closed {
		return ErrClosed
	}
	return o.ctx.usable()
}

// Close drops the object's reference now. It is idempotent and does nothing
// once the context is closed (the context freed it already).
func (o *owned) Close() {
	if o.closed {
		return
	}
	o.closed = true
	o.cleanup.Stop()
	if !o.ctx.closed {
		decRef(o.ctx.c, o.rel)
	}
}
