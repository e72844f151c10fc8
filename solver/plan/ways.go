package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
)

// This file holds what the path search can know about a ruleset before any
// answer arrives: the ways the outcome can be reached. A way (one of
// "the ways the outcome can still become eligible" of docs/api.md) is one term of the
// outcome's disjunctive form, a set of criterion statuses that together
// decide the outcome, with the fields those criteria read and their total
// weight. The ways are computed once per compiled ruleset and shared by
// every request for it.

// maxWays bounds a disjunctive form. Past it the outcome is searched as one
// way covering every criterion, which is slower but exact.
const maxWays = 4096

// wayLiteral asks criterion crit (flat index, as in engine.Result.Criteria) to
// have status want (Satisfied or NotSatisfied).
type wayLiteral struct {
	// crit is the criterion's flat index.
	crit int
	// want is the status asked for: Satisfied or NotSatisfied.
	want engine.Status
}

// way is one term of the outcome's disjunctive form: when every literal
// holds, the outcome holds. fields are the fields its criteria read.
type way struct {
	// lits are the criterion statuses the way needs, all at once.
	lits []wayLiteral
	// fields are the slots the literals' criteria read.
	fields fieldSet
	// weight is the total weight of fields.
	weight int64
}

// wayModel is the per-ruleset precomputation shared by all plans of one compiled
// ruleset (keyed by content digest).
type wayModel struct {
	// rs is the compiled ruleset.
	rs *engine.Ruleset
	// digest is rs's content digest, the model's cache key.
	digest string
	// weights[i] is the weight of field slot i.
	weights []int64
	// critFields[c] are the slots criterion c reads.
	critFields []fieldSet
	// critGroup[c] is the index of criterion c's group.
	critGroup []int
	// crits[c] is criterion c (CriterionAt order).
	crits []*engine.Criterion
	// critPresence[c] is true when criterion c reads a field under a
	// presence operator (present, absent, ??): answering more fields can
	// then change its status even once it is known.
	critPresence []bool
	// monotone is true when no criterion reads a presence operator: more
	// answers then only ever settle statuses, never change settled ones.
	monotone bool
	// relevant are the fields some criterion reads.
	relevant fieldSet
	// groupFields[g] are the fields the criteria of group g read.
	groupFields []fieldSet
	// toEligible and toNotEligible are the disjunctive forms of "the
	// outcome is eligible" and "the outcome is not eligible".
	toEligible, toNotEligible []way
	// whole is set when those forms were too large; each then holds one
	// way over every criterion, and the search relies on the
	// outcome-level supports.
	whole bool
	// witness are the likely answers tried before a solver query.
	witness witnessValues
	// valueNeeds[v] are the fields named value v cannot be known without
	// (neededFields).
	valueNeeds []fieldSet
	// lists are the lists whose members the search treats as
	// interchangeable (members.go).
	lists []memberList
}

// valueNeeds works out, for every named value of rs, the fields it cannot
// be known without, each value after the values it reads.
func valueNeeds(rs *engine.Ruleset) []fieldSet {
	needs := make([]fieldSet, len(rs.Values))
	done := make([]bool, len(rs.Values))
	var need func(v int) fieldSet
	need = func(v int) fieldSet {
		if done[v] {
			return needs[v]
		}
		done[v] = true // the checker refuses cycles; this only stops a walk
		nv := &rs.Values[v]
		var out fieldSet
		if nv.Expr != nil {
			neededFields(rs, nv.Expr, need, &out)
		}
		for _, k := range nv.Keys {
			neededFields(rs, k, need, &out) // a lookup needs every key
		}
		// and whichever row the keys pick: what every row needs.
		var rows []engine.TableRow
		rows = append(rows, nv.Rows...)
		for _, p := range nv.Periods {
			rows = append(rows, p.Rows...)
		}
		var common fieldSet
		for i, row := range rows {
			var r fieldSet
			neededFields(rs, row.Value, need, &r)
			if i == 0 {
				common = r
			} else {
				common = common.intersect(r)
			}
		}
		out = out.union(common)
		needs[v] = out
		return out
	}
	for v := range rs.Values {
		need(v)
	}
	return needs
}

// neededFields adds to need the fields e cannot be known without: none for
// a comparison ranges decide, every
// field a strict operator reads; of `a ?? d` what d needs; of an if, an
// and or an or only what every branch needs (a known condition or a
// deciding side spares the others); of a named value what value(v) says.
func neededFields(rs *engine.Ruleset, e *engine.Expr, value func(v int) fieldSet, need *fieldSet) {
	switch {
	case rs.BoundedComparison(e):
		// Ranges may settle it with any of its fields unanswered
		// (engine/bounds.go): no one field is needed.
	case e.Kind == engine.ExprField:
		need.add(e.Slot)
	case e.Kind == engine.ExprValue:
		*need = need.union(value(e.Slot))
	case e.Kind == engine.ExprOp && e.Op == engine.OpDefault:
		neededFields(rs, e.Args[1], value, need)
	case e.Kind == engine.ExprOp && (e.Op == engine.OpIf || e.Op == engine.OpAnd || e.Op == engine.OpOr):
		branches := e.Args
		if e.Op == engine.OpIf {
			branches = e.Args[1:]
		}
		var common fieldSet
		for i, b := range branches {
			var f fieldSet
			neededFields(rs, b, value, &f)
			if i == 0 {
				common = f
			} else {
				common = common.intersect(f)
			}
		}
		*need = need.union(common)
	default:
		for _, a := range e.Args {
			neededFields(rs, a, value, need)
		}
	}
}

// newWayModel precomputes the ways of rs.
func newWayModel(rs *engine.Ruleset) *wayModel {
	m := &wayModel{rs: rs, digest: rs.ContentDigest(), monotone: true}
	m.weights = make([]int64, len(rs.Fields))
	for i, f := range rs.Fields {
		m.weights[i] = int64(f.Weight)
	}
	n := rs.NumCriteria()
	m.critFields = make([]fieldSet, n)
	m.critGroup = make([]int, n)
	m.crits = make([]*engine.Criterion, n)
	m.critPresence = make([]bool, n)
	m.groupFields = make([]fieldSet, len(rs.Groups))
	for i := range n {
		c, g := rs.CriterionAt(i)
		m.crits[i], m.critGroup[i] = c, g
		for _, s := range c.Slots {
			m.critFields[i].add(s)
		}
		m.relevant = m.relevant.union(m.critFields[i])
		m.groupFields[g] = m.groupFields[g].union(m.critFields[i])
		if c.Expr != nil && readsPresence(rs, c.Expr) {
			m.critPresence[i] = true
			m.monotone = false
		}
	}
	m.valueNeeds = valueNeeds(rs)
	m.lists = memberLists(rs)
	m.witness = newWitnessValues(rs)
	b := dnfBuilder{m: m}
	var errE, errN error
	m.toEligible, errE = b.terms(rs.Outcome, true)
	m.toNotEligible, errN = b.terms(rs.Outcome, false)
	if errE != nil || errN != nil {
		m.whole = true
		all := m.wholeWay()
		m.toEligible, m.toNotEligible = []way{all}, []way{all}
		return m
	}
	m.finishWays(m.toEligible)
	m.finishWays(m.toNotEligible)
	return m
}

// wholeWay is the way standing for "some combination of every
// criterion"; it has no literals.
func (m *wayModel) wholeWay() way {
	r := way{fields: m.relevant}
	r.weight = m.weightOf(r.fields)
	return r
}

func (m *wayModel) finishWays(rs []way) {
	for i := range rs {
		for _, l := range rs[i].lits {
			rs[i].fields = rs[i].fields.union(m.critFields[l.crit])
		}
		rs[i].weight = m.weightOf(rs[i].fields)
	}
}

func (m *wayModel) weightOf(s fieldSet) int64 { return s.weigh(m.weights) }

func readsPresence(rs *engine.Ruleset, e *engine.Expr) bool {
	found := false
	solver.WalkRule(rs, e, func(x *engine.Expr) {
		found = found || x.Kind == engine.ExprOp && (x.Op == engine.OpPresent || x.Op == engine.OpAbsent || x.Op == engine.OpDefault)
	})
	return found
}

// errTooManyWays stops a disjunctive form that outgrew maxWays.
var errTooManyWays = errors.New("too many ways")

// dnfBuilder turns the outcome expression into sums of products of
// criterion literals. Kleene's logic distributes like Boolean logic once
// negations are pushed to the leaves, where "group is false" becomes "some
// criterion not satisfied" (all) or "every alternative not satisfied" (any).
type dnfBuilder struct {
	// m is the way model being built.
	m *wayModel
}

func (b dnfBuilder) terms(e *engine.Expr, want bool) ([]way, error) {
	switch {
	case e.Kind == engine.ExprGroup:
		return b.group(e.Slot, want), nil
	case e.Kind == engine.ExprOp && e.Op == engine.OpNot:
		return b.terms(e.Args[0], !want)
	case e.Kind == engine.ExprOp && (e.Op == engine.OpAnd || e.Op == engine.OpOr):
		// and-true and or-false are products; the others are sums.
		product := (e.Op == engine.OpAnd) == want
		var acc []way
		for i, a := range e.Args {
			t, err := b.terms(a, want)
			if err != nil {
				return nil, err
			}
			switch {
			case i == 0:
				acc = t
			case product:
				acc = productWays(acc, t)
			default:
				acc = append(acc, t...)
			}
			acc = absorbWays(acc)
			if len(acc) > maxWays {
				return nil, errTooManyWays
			}
		}
		return acc, nil
	}
	return nil, fmt.Errorf("solver: unexpected outcome node %v %q", e.Kind, e.Op)
}

// group expands "group g is true/false" into criterion literals. A
// discretionary criterion never settles, so a term needing it is dropped.
func (b dnfBuilder) group(g int, want bool) []way {
	kind := b.m.rs.Groups[g].Kind
	n := len(b.m.rs.Groups[g].Criteria)
	st := engine.NotSatisfied
	if want {
		st = engine.Satisfied
	}
	var out []way
	if (kind == engine.GroupAll) == want {
		// Every criterion must have st: one term.
		r := way{}
		for i := range n {
			c := b.m.rs.CriterionIndex(g, i)
			if b.m.crits[c].Discretionary {
				return nil
			}
			r.lits = append(r.lits, wayLiteral{crit: c, want: st})
		}
		return []way{r}
	}
	// Any one criterion with st: one term each.
	for i := range n {
		c := b.m.rs.CriterionIndex(g, i)
		if !b.m.crits[c].Discretionary {
			out = append(out, way{lits: []wayLiteral{{crit: c, want: st}}})
		}
	}
	return out
}

// productWays is the conjunction of two sums: every pair's literals
// together, leaving out pairs that ask one criterion for both statuses.
func productWays(a, b []way) []way {
	var out []way
	for _, x := range a {
	pair:
		for _, y := range b {
			lits := slices.Clone(x.lits)
			for _, l := range y.lits {
				switch i := slices.IndexFunc(lits, func(k wayLiteral) bool { return k.crit == l.crit }); {
				case i < 0:
					lits = append(lits, l)
				case lits[i].want != l.want:
					continue pair
				}
			}
			slices.SortFunc(lits, func(p, q wayLiteral) int { return p.crit - q.crit })
			out = append(out, way{lits: lits})
		}
	}
	return out
}

// absorbWays removes duplicate terms and terms that contain another term
// (x or (x and y) is x), keeping the first occurrence's order.
func absorbWays(rs []way) []way {
	for i := range rs {
		slices.SortFunc(rs[i].lits, func(p, q wayLiteral) int { return p.crit - q.crit })
	}
	out := rs[:0:0]
	for i, r := range rs {
		absorbed := false
		for j, o := range rs {
			if i != j && containsLits(r.lits, o.lits) && (len(o.lits) < len(r.lits) || j < i) {
				absorbed = true
				break
			}
		}
		if !absorbed {
			out = append(out, r)
		}
	}
	return out
}

// containsLits reports whether every literal of sub is in super (both
// sorted by criterion).
func containsLits(super, sub []wayLiteral) bool {
	i := 0
	for _, l := range sub {
		for i < len(super) && super[i].crit < l.crit {
			i++
		}
		if i == len(super) || super[i] != l {
			return false
		}
	}
	return true
}
