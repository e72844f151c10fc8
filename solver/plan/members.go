package plan

import (
	"math/bits"
	"slices"

	"github.com/eligo/eligo/engine"
)

// This file is what the path search knows about lists of members
// (docs/language.md#households). A list is compiled into one field per
// member and member field, and every rule reads the members only through
// count, sum, any, all, min and max, unrolled alike for each member. Two
// members the answers say the same about (the same answers, the same
// fields declined and preferred) are therefore interchangeable: a set of
// questions and the set asking member j's questions of member i and
// member i's of member j reach the same outcomes, and weigh the same. The
// search keeps one set of each such family, the one the order of sets
// puts first, so that a household of eight people is searched about as
// fast as a household of one; and it never asks about a member beyond the
// list's answered length, whom no request can answer for.

// memberList is one list's member fields, by member and field.
type memberList struct {
	// count is the slot of the field holding how many members there are.
	count int
	// slots[i][k] is the slot of member i's k-th field; in every
	// ruleset the checker builds, slots grow member by member, then field
	// by field, which the order of sets relies on.
	slots [][]int
}

// memberLists finds the lists of rs whose member fields the search can
// treat as interchangeable: the fields laid out member by member in the
// same order and at most 64 per member (a member's fields fit a word).
// Other lists are searched field by field as any field is.
func memberLists(rs *engine.Ruleset) []memberList {
	var out []memberList
	for ci, f := range rs.Fields {
		if f.List == nil {
			continue
		}
		l := memberList{count: ci, slots: make([][]int, f.List.Max)}
		var names []string
		for s, g := range rs.Fields {
			m := g.Member
			if m == nil || m.List != f.ID || m.Index < 0 || m.Index >= f.List.Max {
				continue
			}
			if m.Index == 0 {
				names = append(names, m.Name)
			}
			l.slots[m.Index] = append(l.slots[m.Index], s)
		}
		if ok := len(names) > 0 && len(names) <= 64 && membersInOrder(rs, l.slots, names); ok {
			out = append(out, l)
		}
	}
	return out
}

// membersInOrder reports whether every member has the fields names, in
// that order, each member's slots after the previous member's.
func membersInOrder(rs *engine.Ruleset, slots [][]int, names []string) bool {
	last := -1
	for _, ms := range slots {
		if len(ms) != len(names) {
			return false
		}
		for k, s := range ms {
			if s <= last || rs.Fields[s].Member.Name != names[k] {
				return false
			}
			last = s
		}
	}
	return true
}

// memberClasses are, for one request, the members of one list that the
// answers leave interchangeable.
type memberClasses struct {
	// list is the list's fields.
	list *memberList
	// classes are groups of two or more interchangeable members, each in
	// increasing order.
	classes [][]int
}

// beyondList returns the member fields of members beyond their list's
// answered length: no request can answer them, so no path asks them.
func (q *planQuery) beyondList() fieldSet {
	var out fieldSet
	for i := range q.m.lists {
		l := &q.m.lists[i]
		n := q.in.Values[l.count]
		if !n.Known {
			continue
		}
		for idx := max(n.Num, 0); idx < int64(len(l.slots)); idx++ {
			for _, s := range l.slots[idx] {
				out.add(s)
			}
		}
	}
	return out
}

// memberClasses groups the members of each list that the request's
// answers, declined and preferred fields say the same about.
func (q *planQuery) memberClasses() []memberClasses {
	var out []memberClasses
	for i := range q.m.lists {
		l := &q.m.lists[i]
		mc := memberClasses{list: l}
		seen := make([]bool, len(l.slots))
		for a := range l.slots {
			if seen[a] {
				continue
			}
			class := []int{a}
			for b := a + 1; b < len(l.slots); b++ {
				if !seen[b] && q.alikeMembers(l.slots[a], l.slots[b]) {
					seen[b] = true
					class = append(class, b)
				}
			}
			if len(class) > 1 {
				mc.classes = append(mc.classes, class)
			}
		}
		if len(mc.classes) > 0 {
			out = append(out, mc)
		}
	}
	return out
}

// alikeMembers reports whether the request says the same of the members
// whose fields are a and b: the same answers, and the same fields askable
// and preferred.
func (q *planQuery) alikeMembers(a, b []int) bool {
	for k := range a {
		x, y := a[k], b[k]
		if q.in.Values[x] != q.in.Values[y] || q.askable.has(x) != q.askable.has(y) || q.preferred.has(x) != q.preferred.has(y) {
			return false
		}
	}
	return true
}

// canonical returns the set of s's family (s with interchangeable
// members' questions swapped) that the order of sets puts first: within
// each class, the member asked the earliest-declared question comes
// first. Every set of a family weighs the same, has as many fields and as
// many preferred ones, and reaches the same outcomes.
func (q *planQuery) canonical(s fieldSet) fieldSet {
	for _, mc := range q.members {
		for _, class := range mc.classes {
			pats := make([]uint64, len(class))
			for j, idx := range class {
				for k, sl := range mc.list.slots[idx] {
					if s.has(sl) {
						pats[j] |= 1 << uint(k)
					}
				}
			}
			// The earlier member takes the pattern with the first field
			// where two differ.
			sorted := slices.IsSortedFunc(pats, earlierPattern)
			if sorted {
				continue
			}
			slices.SortStableFunc(pats, earlierPattern)
			for j, idx := range class {
				for k, sl := range mc.list.slots[idx] {
					if pats[j]&(1<<uint(k)) != 0 {
						s.add(sl)
					} else {
						s.remove(sl)
					}
				}
			}
		}
	}
	return s
}

// earlierPattern orders members' patterns of questions: the one holding
// the first question where they differ comes first.
func earlierPattern(a, b uint64) int {
	d := a ^ b
	if d == 0 {
		return 0
	}
	if a&(1<<uint(bits.TrailingZeros64(d))) != 0 {
		return -1
	}
	return 1
}
