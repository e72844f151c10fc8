package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// This file is the last step shared by Compile and Build: the derived
// members, the content digest and the evaluation program.

// finish derives each criterion's Text, computes the content digest and
// prepares the evaluation program: the last step of Compile and of Build,
// so both paths derive these the same way.
func (r *Ruleset) finish(hash bool) error {
	for i := range r.Values {
		if v := &r.Values[i]; v.Expr != nil {
			v.Text = exprText(v.Expr)
		}
	}
	for gi := range r.Groups {
		for ci := range r.Groups[gi].Criteria {
			if c := &r.Groups[gi].Criteria[ci]; c.Expr != nil {
				c.Text = exprText(c.Expr)
			}
		}
	}
	if hash {
		canon, err := r.canonicalJSON()
		if err != nil {
			return err
		}
		r.digest = digestOf(canon)
	}
	r.groupStart = make([]int, len(r.Groups))
	for gi := range r.Groups {
		r.groupStart[gi] = len(r.criteria)
		for ci := range r.Groups[gi].Criteria {
			r.criteria = append(r.criteria, criterionRef{group: gi, index: ci})
			c := &r.Groups[gi].Criteria[ci]
			r.refs = append(r.refs, r.references(c.Citations))
			r.criterionValues = append(r.criterionValues, valuesRead(r, c.Expr))
		}
	}
	r.valueRefs = make([][]SourceReference, len(r.Values))
	for i := range r.Values {
		r.valueRefs[i] = r.references(r.Values[i].Citations)
	}
	r.index = make(map[string]int, len(r.Fields))
	r.memberSlots = nil
	for i, f := range r.Fields {
		r.index[f.ID] = i
		if m := f.Member; m != nil {
			if r.memberSlots == nil {
				r.memberSlots = map[memberKey]int{}
			}
			r.memberSlots[memberKey{m.List, m.Index, m.Name}] = i
		}
	}
	r.readSlots = make([]bool, len(r.Fields))
	for i := range r.criteria {
		c, _ := r.CriterionAt(i)
		for _, s := range c.Slots {
			r.readSlots[s] = true
		}
	}
	r.markListValues()
	r.prog = buildProgram(r)
	return nil
}

// valuesRead lists the named values x reads, directly or through other
// values, each once, in declaration order; nil when it reads none.
func valuesRead(r *Ruleset, x *Expr) []int {
	if len(r.Values) == 0 {
		return nil
	}
	seen := make([]bool, len(r.Values))
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil {
			return
		}
		if e.Kind == ExprValue && !seen[e.Slot] {
			seen[e.Slot] = true
			for _, x := range r.Values[e.Slot].Exprs() {
				walk(x)
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(x)
	var out []int
	for i, ok := range seen {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// canonicalJSON returns the RFC 8785 form of the ruleset's JSON, the bytes
// ContentDigest hashes.
func (r *Ruleset) canonicalJSON() ([]byte, error) {
	js, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode compiled ruleset: %w", err)
	}
	canon, err := jcs.Transform(js)
	if err != nil {
		return nil, fmt.Errorf("canonicalise compiled ruleset: %w", err)
	}
	return canon, nil
}

// digestOf is the content digest of canonical JSON: "sha256:" + hex.
func digestOf(canon []byte) string {
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:])
}
