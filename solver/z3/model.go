package z3

/*
#include <z3.h>
*/
import "C"

import (
	"fmt"
	"math/big"
	"unsafe"
)

// Model is a satisfying assignment returned after a Sat check. It belongs
// to its Context; Close it when done.
type Model struct {
	// owned holds the model's reference and its context.
	owned
	// m is the Z3 model.
	m C.Z3_model
}

func (c *Context) model(zm C.Z3_model) (*Model, error) {
	if err := c.lastError("Model"); err != nil {
		return nil, err
	}
	if zm == nil {
		return nil, &Error{Op: "Model", Msg: "no model (the last check was not sat)"}
	}
	C.Z3_model_inc_ref(c.c, zm)
	m := &Model{m: zm}
	m.owned = own(c, m, release{kind: releaseModel, ptr: unsafe.Pointer(zm)})
	return m, nil
}

// Eval evaluates e in the model. With completion, constants the model
// leaves free get a default value, so the result of a well-sorted term is
// always a literal; without it, the result may still mention them (which
// tells "any value works" apart from a value).
func (m *Model) Eval(e *Expr, completion bool) (*Expr, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	a, ok := m.ctx.args("Eval", []*Expr{e})
	if !ok {
		return nil, m.ctx.err
	}
	var out C.Z3_ast
	if !C.Z3_model_eval(m.ctx.c, m.m, a[0], C.bool(completion), &out) {
		if err := m.ctx.lastError("Eval"); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("z3: cannot evaluate %s", e)
	}
	if v := m.ctx.wrap("Eval", out); v != nil {
		return v, nil
	}
	return nil, m.ctx.err
}

// Int64 is the value of the Int term e in the model (completed).
func (m *Model) Int64(e *Expr) (int64, error) {
	v, err := m.Eval(e, true)
	if err != nil {
		return 0, err
	}
	return v.AsInt64()
}

// Rat is the exact value of the Int or Real term e in the model
// (completed), as a big.Rat.
func (m *Model) Rat(e *Expr) (*big.Rat, error) {
	v, err := m.Eval(e, true)
	if err != nil {
		return nil, err
	}
	return v.AsRat()
}

// Bool is the value of the Boolean term e in the model (completed).
func (m *Model) Bool(e *Expr) (bool, error) {
	v, err := m.Eval(e, true)
	if err != nil {
		return false, err
	}
	return v.AsBool()
}

// String is the model in Z3's text form, for messages and tests.
func (m *Model) String() string {
	if m.usable() != nil {
		return "<closed>"
	}
	return C.GoString(C.Z3_model_to_string(m.ctx.c, m.m))
}
