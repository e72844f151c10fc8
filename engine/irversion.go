package engine

import (
	"errors"
	"fmt"
)

// The versions of the compiled IR: which one a ruleset needs, and the
// error for one this engine does not read (LoadIR, load.go).

// IRVersion is the version of the compiled IR this engine writes: the
// shape of the JSON a Ruleset marshals to and the meaning of its members.
// Stored content carries the version it was written in, and LoadIR reads
// every version this engine has ever written or refuses one it does not
// know, so a change to the IR can never be misread as the old shape. The
// version is not part of the JSON document (adding it would change every
// published content digest): the store keeps it beside the IR bytes.
//
// Version 2 adds named values (the values member, value_ref nodes) and
// the operators if, /, floor, ceil, round and abs; a ruleset that uses
// none of them is written as version 1 (Ruleset.FormatVersion), so an
// engine that reads only version 1 still reads it. Version 3 adds lists
// of members (a field's list and member members); a ruleset without
// lists is written as version 2 or 1 as before.
const IRVersion = 3

// FormatVersion is the IR version the ruleset's JSON needs: 1 unless it
// uses what version 2 or 3 added. The store keeps it beside the IR bytes.
func (r *Ruleset) FormatVersion() int {
	for _, f := range r.Fields {
		if f.List != nil || f.Member != nil {
			return 3
		}
	}
	if len(r.Values) > 0 {
		return 2
	}
	v2 := false
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil || v2 {
			return
		}
		switch e.Op {
		case OpIf, OpDiv, OpFloor, OpCeil, OpRound, OpAbs:
			v2 = true
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for gi := range r.Groups {
		for ci := range r.Groups[gi].Criteria {
			walk(r.Groups[gi].Criteria[ci].Expr)
		}
	}
	if v2 {
		return 2
	}
	return 1
}

// ErrUnknownIRVersion is wrapped by LoadIR's error for an IR version this
// engine does not read (one written by a newer engine, or a bad record), so
// callers can tell "upgrade the engine" from "corrupt content".
var ErrUnknownIRVersion = errors.New("unknown compiled IR version")

// unknownVersionError is LoadIR's error for a version it does not read.
type unknownVersionError int

func (v unknownVersionError) Error() string {
	return fmt.Sprintf("compiled IR version %d is not one this engine reads (it reads versions 1 to %d)", int(v), IRVersion)
}

func (v unknownVersionError) Unwrap() error { return ErrUnknownIRVersion }
