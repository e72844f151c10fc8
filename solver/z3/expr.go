package z3

/*
#include <stdlib.h>
#include <z3.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"strconv"
	"unsafe"
)

// Expr is a Z3 term (a Boolean, Int or Real expression) owned by its
// Context. A nil *Expr stands for a term whose construction failed; it is
// accepted by every constructor, which then also returns nil, so that the
// first error (Context.Err) surfaces at Assert or Check.
type Expr struct {
	// ctx is the context the term belongs to.
	ctx *Context
	// ast is the term, holding one reference dropped by the collector.
	ast C.Z3_ast
}

// wrap takes one reference to ast for a new Expr, or records the error Z3
// reported for op and returns nil.
func (c *Context) wrap(op string, ast C.Z3_ast) *Expr {
	if err := c.lastError(op); err != nil {
		c.fail(err)
		return nil
	}
	if ast == nil {
		c.fail(&Error{Op: op, Msg: "no term returned"})
		return nil
	}
	C.Z3_inc_ref(c.c, ast)
	e := &Expr{ctx: c, ast: ast}
	runtime.AddCleanup(e, c.pending.push, release{kind: releaseAST, ptr: unsafe.Pointer(ast)})
	return e
}

// args checks that the context can take a call and that every operand is a
// term of this context, and returns their Z3 handles.
func (c *Context) args(op string, xs []*Expr) ([]C.Z3_ast, bool) {
	if !c.ready() {
		return nil, false
	}
	out := make([]C.Z3_ast, len(xs))
	for i, x := range xs {
		switch {
		case x == nil:
			c.fail(&Error{Op: op, Msg: fmt.Sprintf("operand %d is nil", i)})
			return nil, false
		case x.ctx != c:
			c.fail(&Error{Op: op, Msg: fmt.Sprintf("operand %d belongs to another context", i)})
			return nil, false
		}
		out[i] = x.ast
	}
	return out, true
}

// apply builds a term from operands with f, checking operands and errors.
// The slice passed to C holds only C pointers, as the cgo rules require.
func (c *Context) apply(op string, xs []*Expr, f func(n C.uint, a *C.Z3_ast) C.Z3_ast) *Expr {
	a, ok := c.args(op, xs)
	if !ok {
		return nil
	}
	var p *C.Z3_ast
	if len(a) > 0 {
		p = &a[0]
	}
	return c.wrap(op, f(C.uint(len(a)), p))
}

// at returns the i-th handle of the array f receives in apply.
func at(a *C.Z3_ast, i int) C.Z3_ast {
	return unsafe.Slice(a, i+1)[i]
}

func (c *Context) unary(op string, x *Expr, f func(C.Z3_context, C.Z3_ast) C.Z3_ast) *Expr {
	return c.apply(op, []*Expr{x}, func(_ C.uint, a *C.Z3_ast) C.Z3_ast { return f(c.c, at(a, 0)) })
}

func (c *Context) binary(op string, x, y *Expr, f func(C.Z3_context, C.Z3_ast, C.Z3_ast) C.Z3_ast) *Expr {
	return c.apply(op, []*Expr{x, y}, func(_ C.uint, a *C.Z3_ast) C.Z3_ast { return f(c.c, at(a, 0), at(a, 1)) })
}

func (c *Context) nary(op string, xs []*Expr, f func(C.Z3_context, C.uint, *C.Z3_ast) C.Z3_ast) *Expr {
	if len(xs) == 0 {
		if c.ready() {
			c.fail(&Error{Op: op, Msg: "no operands"})
		}
		return nil
	}
	return c.apply(op, xs, func(n C.uint, a *C.Z3_ast) C.Z3_ast { return f(c.c, n, a) })
}

// constant makes a named constant of sort s; the same name and sort always
// denote the same constant within a context.
func (c *Context) constant(op, name string, s C.Z3_sort) *Expr {
	if !c.ready() {
		return nil
	}
	return c.wrap(op, C.Z3_mk_const(c.c, c.symbol(name), s))
}

// BoolConst is the Boolean constant called name (a free variable).
func (c *Context) BoolConst(name string) *Expr { return c.constant("BoolConst", name, c.boolSort) }

// IntConst is the integer constant called name (a free variable).
func (c *Context) IntConst(name string) *Expr { return c.constant("IntConst", name, c.intSort) }

// RealConst is the real (exact rational) constant called name.
func (c *Context) RealConst(name string) *Expr { return c.constant("RealConst", name, c.realSort) }

// Bool is the literal true or false.
func (c *Context) Bool(v bool) *Expr {
	if !c.ready() {
		return nil
	}
	if v {
		return c.wrap("Bool", C.Z3_mk_true(c.c))
	}
	return c.wrap("Bool", C.Z3_mk_false(c.c))
}

// Int is the integer literal v.
func (c *Context) Int(v int64) *Expr {
	if !c.ready() {
		return nil
	}
	return c.wrap("Int", C.Z3_mk_int64(c.c, C.int64_t(v), c.intSort))
}

// Real is the exact real literal written in s, either as a decimal
// ("1250.50", "-0.5") or as a fraction ("-3/4"); no rounding ever happens.
// An ill-formed s is a Z3 error kept as the context's sticky error.
func (c *Context) Real(s string) *Expr {
	if !c.ready() {
		return nil
	}
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return c.wrap("Real", C.Z3_mk_numeral(c.c, cs, c.realSort))
}

// RealRat is the exact real literal r, for values already held as big.Rat
// (the engine's decimals convert to it without loss).
func (c *Context) RealRat(r *big.Rat) *Expr { return c.Real(r.RatString()) }

// Add is the sum of one or more Int or Real terms of the same sort.
func (c *Context) Add(xs ...*Expr) *Expr { return c.nary("Add", xs, mkAdd) }

// Sub is xs[0] - xs[1] - ... for one or more terms.
func (c *Context) Sub(xs ...*Expr) *Expr { return c.nary("Sub", xs, mkSub) }

// Mul is the product of one or more terms. Keep one side constant: a
// product of two unknowns is nonlinear, and Z3 may answer unknown.
func (c *Context) Mul(xs ...*Expr) *Expr { return c.nary("Mul", xs, mkMul) }

// Neg is -x.
func (c *Context) Neg(x *Expr) *Expr { return c.unary("Neg", x, mkNeg) }

// Div is x / y: integer division (rounding toward negative infinity for a
// positive divisor, SMT-LIB semantics) on Ints, exact division on Reals.
// Use a nonzero constant y; division by zero is unspecified in SMT-LIB.
func (c *Context) Div(x, y *Expr) *Expr { return c.binary("Div", x, y, mkDiv) }

// Mod is x mod y on Ints (always non-negative for a nonzero y). Use a
// nonzero constant y.
func (c *Context) Mod(x, y *Expr) *Expr { return c.binary("Mod", x, y, mkMod) }

// ToReal converts an Int term to Real so that it can meet Real terms.
func (c *Context) ToReal(x *Expr) *Expr { return c.unary("ToReal", x, mkInt2Real) }

// ToInt is the greatest integer not above the Real term x (floor): how
// the encoding rounds, which keeps rounding in linear integer-real
// arithmetic.
func (c *Context) ToInt(x *Expr) *Expr { return c.unary("ToInt", x, mkReal2Int) }

// Eq is x = y (for Booleans, equivalence).
func (c *Context) Eq(x, y *Expr) *Expr { return c.binary("Eq", x, y, mkEq) }

// Distinct holds when no two of xs are equal.
func (c *Context) Distinct(xs ...*Expr) *Expr { return c.nary("Distinct", xs, mkDistinct) }

// Lt is x < y.
func (c *Context) Lt(x, y *Expr) *Expr { return c.binary("Lt", x, y, mkLt) }

// Le is x <= y.
func (c *Context) Le(x, y *Expr) *Expr { return c.binary("Le", x, y, mkLe) }

// Gt is x > y.
func (c *Context) Gt(x, y *Expr) *Expr { return c.binary("Gt", x, y, mkGt) }

// Ge is x >= y.
func (c *Context) Ge(x, y *Expr) *Expr { return c.binary("Ge", x, y, mkGe) }

// And is the conjunction of one or more Boolean terms.
func (c *Context) And(xs ...*Expr) *Expr { return c.nary("And", xs, mkAnd) }

// Or is the disjunction of one or more Boolean terms.
func (c *Context) Or(xs ...*Expr) *Expr { return c.nary("Or", xs, mkOr) }

// Not is the negation of a Boolean term.
func (c *Context) Not(x *Expr) *Expr { return c.unary("Not", x, mkNot) }

// Implies is x => y.
func (c *Context) Implies(x, y *Expr) *Expr { return c.binary("Implies", x, y, mkImplies) }

// Xor is the exclusive or of two Boolean terms.
func (c *Context) Xor(x, y *Expr) *Expr { return c.binary("Xor", x, y, mkXor) }

// Ite is "if cond then x else y"; x and y must have the same sort.
func (c *Context) Ite(cond, x, y *Expr) *Expr {
	return c.apply("Ite", []*Expr{cond, x, y}, func(_ C.uint, a *C.Z3_ast) C.Z3_ast {
		return C.Z3_mk_ite(c.c, at(a, 0), at(a, 1), at(a, 2))
	})
}

// Go wrappers for the Z3 constructors, so they can be passed as values.
func mkAdd(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast      { return C.Z3_mk_add(c, n, a) }
func mkSub(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast      { return C.Z3_mk_sub(c, n, a) }
func mkMul(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast      { return C.Z3_mk_mul(c, n, a) }
func mkDistinct(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast { return C.Z3_mk_distinct(c, n, a) }
func mkAnd(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast      { return C.Z3_mk_and(c, n, a) }
func mkOr(c C.Z3_context, n C.uint, a *C.Z3_ast) C.Z3_ast       { return C.Z3_mk_or(c, n, a) }
func mkNeg(c C.Z3_context, x C.Z3_ast) C.Z3_ast                 { return C.Z3_mk_unary_minus(c, x) }
func mkNot(c C.Z3_context, x C.Z3_ast) C.Z3_ast                 { return C.Z3_mk_not(c, x) }
func mkInt2Real(c C.Z3_context, x C.Z3_ast) C.Z3_ast            { return C.Z3_mk_int2real(c, x) }
func mkReal2Int(c C.Z3_context, x C.Z3_ast) C.Z3_ast            { return C.Z3_mk_real2int(c, x) }
func mkDiv(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast              { return C.Z3_mk_div(c, x, y) }
func mkMod(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast              { return C.Z3_mk_mod(c, x, y) }
func mkEq(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast               { return C.Z3_mk_eq(c, x, y) }
func mkLt(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast               { return C.Z3_mk_lt(c, x, y) }
func mkLe(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast               { return C.Z3_mk_le(c, x, y) }
func mkGt(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast               { return C.Z3_mk_gt(c, x, y) }
func mkGe(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast               { return C.Z3_mk_ge(c, x, y) }
func mkImplies(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast          { return C.Z3_mk_implies(c, x, y) }
func mkXor(c C.Z3_context, x, y C.Z3_ast) C.Z3_ast              { return C.Z3_mk_xor(c, x, y) }

// ID is Z3's identifier of the term, unique among the live terms of its
// context: structurally equal terms share it, so it keys maps from
// assumption literals (as returned by UnsatCore) back to what they track.
func (e *Expr) ID() uint {
	if e == nil || e.ctx.closed {
		return 0
	}
	return uint(C.Z3_get_ast_id(e.ctx.c, e.ast))
}

// String is the term in SMT-LIB form, for messages and tests.
func (e *Expr) String() string {
	if e == nil {
		return "<nil>"
	}
	if e.ctx.closed {
		return "<closed>"
	}
	return C.GoString(C.Z3_ast_to_string(e.ctx.c, e.ast))
}

// value checks that e is a usable literal value.
func (e *Expr) value() error {
	if e == nil {
		return errors.New("z3: nil value")
	}
	return e.ctx.usable()
}

// AsInt64 reads an integer literal (such as a model value of an Int term).
// It fails if e is not an integer numeral or does not fit in an int64.
func (e *Expr) AsInt64() (int64, error) {
	if err := e.value(); err != nil {
		return 0, err
	}
	var v C.int64_t
	if !C.Z3_is_numeral_ast(e.ctx.c, e.ast) || !C.Z3_get_numeral_int64(e.ctx.c, e.ast, &v) {
		return 0, fmt.Errorf("z3: %s is not an int64 numeral", e)
	}
	return int64(v), nil
}

// AsRat reads a numeral (Int or Real) exactly as a big.Rat. It fails for
// anything else, including irrational algebraic numbers, which only
// nonlinear problems produce.
func (e *Expr) AsRat() (*big.Rat, error) {
	if err := e.value(); err != nil {
		return nil, err
	}
	if !C.Z3_is_numeral_ast(e.ctx.c, e.ast) {
		return nil, fmt.Errorf("z3: %s is not a numeral", e)
	}
	s := C.GoString(C.Z3_get_numeral_string(e.ctx.c, e.ast))
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("z3: numeral %s is not rational", strconv.Quote(s))
	}
	return r, nil
}

// AsBool reads the literal true or false.
func (e *Expr) AsBool() (bool, error) {
	if err := e.value(); err != nil {
		return false, err
	}
	switch C.Z3_get_bool_value(e.ctx.c, e.ast) {
	case C.Z3_L_TRUE:
		return true, nil
	case C.Z3_L_FALSE:
		return false, nil
	}
	return false, fmt.Errorf("z3: %s is not a Boolean literal", e)
}
