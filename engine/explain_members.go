package engine

import (
	"slices"
	"strconv"
	"strings"
)

// This file names the members of a household a criterion's status rests
// on (docs/language.md#households): "Person 2 does not live in the state"
// is why all(member where member.resident) failed, not the whole list.

// MemberReason is one member of a list whose own condition settles an
// any or all the way it went: a member not meeting it for a failed all,
// the one meeting it for a satisfied any, every member for a failed any.
type MemberReason struct {
	// List is the list's name; Index the member's, from 0, as sent.
	List  string `json:"list"`
	Index int    `json:"index"`
	// Label names the member for people: the list's noun and number
	// ("Person 3"), which a client may replace by a name it was given.
	Label string `json:"label"`
	// Condition is the aggregate's condition as written (member.resident).
	Condition string `json:"condition"`
	// Status is the condition's status for this member.
	Status Status `json:"status"`
	// Facts are the member's answers the condition read.
	Facts []Fact `json:"facts"`
}

// MemberReasons are, for each any or all inside e (a criterion's
// condition), the members whose condition has the status the aggregate
// came to: those that decide it, or, when it is unknown, those whose
// answers are still missing. Members beyond the list's length are no one
// and never named. Empty when e reads no list through any or all.
func (r *Ruleset) MemberReasons(e *Expr, in *Inputs, decisionDate int64) []MemberReason {
	var out []MemberReason
	var walk func(x *Expr)
	walk = func(x *Expr) {
		if x == nil {
			return
		}
		if a, ok := AggregateOf(x); ok && (a.Kind == "any" || a.Kind == "all") {
			out = append(out, r.membersOf(x, a, in, decisionDate)...)
			return
		}
		for _, arg := range x.Args {
			walk(arg)
		}
	}
	walk(e)
	return out
}

// membersOf is MemberReasons for the one aggregate x, recognised as a.
func (r *Ruleset) membersOf(x *Expr, a Aggregate, in *Inputs, date int64) []MemberReason {
	whole := r.EvaluateExpr(x, in, date)
	list := r.FieldIndex(a.List)
	n := in.Values[list]
	if list < 0 || !n.Known {
		return nil
	}
	noun := "person"
	if l := r.Fields[list].List; l != nil && l.Noun != "" {
		noun = l.Noun
	}
	condition := ""
	if a.Where != nil {
		condition = exprText(a.Where)
	}
	var out []MemberReason
	for i, part := range x.Args {
		if int64(i) >= n.Num {
			break
		}
		// any's part is `guard and cond`, all's `not guard or cond`.
		cond := part.Args[1]
		status := r.EvaluateExpr(cond, in, date)
		if status != whole {
			continue
		}
		m := MemberReason{List: a.List, Index: i, Label: strings.ToUpper(noun[:1]) + noun[1:] + " " + strconv.Itoa(i+1),
			Condition: condition, Status: status, Facts: []Fact{}}
		for _, s := range fieldsIn(cond) {
			if v := in.Values[s]; v.Known {
				m.Facts = append(m.Facts, Fact{Field: r.Fields[s].ID, Value: r.ValueJSON(s, v)})
			}
		}
		out = append(out, m)
	}
	return out
}

// fieldsIn are the slots of the fields e reads directly, each once, in
// the order first read.
func fieldsIn(e *Expr) []int {
	var out []int
	var walk func(x *Expr)
	walk = func(x *Expr) {
		if x.Kind == ExprField && !slices.Contains(out, x.Slot) {
			out = append(out, x.Slot)
		}
		for _, arg := range x.Args {
			walk(arg)
		}
	}
	walk(e)
	return out
}
