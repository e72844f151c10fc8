package plan

import (
	"container/heap"
	"context"
	"fmt"
	"time"

	"github.com/eligo/eligo/engine"
)

// pathGoal is what a set of further answers must be able to reach.
type pathGoal uint8

const (
	// goalEligible: the outcome eligible.
	goalEligible pathGoal = iota
	// goalSettled: the outcome eligible or not_eligible.
	goalSettled
)

func (g pathGoal) String() string {
	if g == goalEligible {
		return "eligible"
	}
	return "settled"
}

// pathFeasibility decides, for one request's answers, whether a set of further
// answers can reach a goal. The path search asks it only about candidates the
// supports did not already rule out.
type pathFeasibility interface {
	open(ctx context.Context, q *planQuery, timeout time.Duration) (pathSession, error)
}

// pathSession is a feasibility oracle bound to one request's answers. It is used
// by one goroutine and closed when the plan is done.
type pathSession interface {
	// reachable reports whether, with the fields of ask answered (with
	// values of the session's choosing) on top of the request's answers and
	// every other field left unanswered, the outcome can reach g. When it
	// cannot, why says which of those answers and gaps already rule g out.
	reachable(ctx context.Context, ask fieldSet, g pathGoal) (ok bool, why pathCore, err error)
	close()
}

// pathCore is why a set of fields cannot reach a goal (an unsat core read
// as fields): no set answering every field of asked and none of missing
// can. A set it rules out is grown only by fields of missing, since every
// larger set reaching the goal answers one of them; and it rules out,
// without asking the solver, every other set it covers.
type pathCore struct {
	// asked are fields whose answering the reason needs.
	asked fieldSet
	// missing are unanswered fields one of which a reaching set answers;
	// empty when answering more cannot help.
	missing fieldSet
}

// covers reports whether c rules out the set s.
func (c pathCore) covers(s fieldSet) bool {
	return c.asked.subsetOf(s) && s.disjoint(c.missing)
}

// pathSearch finds the best reachable set of further answers for a goal.
//
// The order of sets is: least total weight, then fewest fields, then most
// preferred fields (inquiry context), then declaration order (the set whose
// earliest differing field is declared first). Adding a field never makes a
// set better, so a best-first walk that starts from the ways' minimal
// supports and grows rejected sets one field at a time meets the best
// reachable set first: every smaller set on the way to it is better, so it is
// popped, found unreachable and grown before the best set is. A rejected set
// is grown only by the fields the solver names as wanting (its unsat core):
// the best set holds one of them, so some smaller set on the way to it is
// still grown, and a household's many questions are not each tried in turn
// beside every other.
type pathSearch struct {
	// q is the request being planned.
	q *planQuery
	// wit tries likely answers with the engine before any solver query.
	wit *witness
	// feas opens sess.
	feas pathFeasibility
	// timeout bounds each solver query.
	timeout time.Duration
	// sess is opened at the first solver query: a plan that the engine's
	// own evaluation settles never pays for a Z3 context. nil until then.
	sess pathSession
	// sup gives the ways' minimal supports under the request's answers.
	sup *supportState
	// budget bounds checks (Planner.maxChecks).
	budget int
	// checks counts the solver queries made so far.
	checks int
	// learned are the reasons found so far why sets cannot reach each
	// goal: a set one of them covers needs no query.
	learned [2][]pathCore
}

// liveWay is a way that the answers so far leave open: avail are its
// fields the applicant may still answer, sup the minimal sets of them one of
// which a reaching set contains.
type liveWay struct {
	// avail are the way's fields the applicant may still answer.
	avail fieldSet
	// sup are the minimal subsets of avail, one of which a reaching set
	// contains.
	sup supportFamily
}

func (s *pathSearch) ways(g pathGoal) []liveWay {
	m := s.q.m
	var rs []way
	if g == goalEligible {
		rs = m.toEligible
	} else {
		rs = append(append(rs, m.toEligible...), m.toNotEligible...)
	}
	var out []liveWay
	for i, r := range rs {
		sup := s.sup.way(r)
		if m.whole {
			// One way over every criterion per outcome; its supports
			// come from the outcome expression itself.
			sup = s.sup.outcome(m.rs.Outcome, i < len(m.toEligible))
		}
		if len(sup) == 0 {
			continue
		}
		out = append(out, liveWay{avail: r.fields.intersect(s.q.askable), sup: sup})
	}
	return out
}

// run returns the best set reaching g, or found false when none does.
func (s *pathSearch) run(ctx context.Context, g pathGoal) (best fieldSet, found bool, err error) {
	live := s.ways(g)
	if len(live) == 0 {
		return fieldSet{}, false, nil
	}
	// Without presence operators more answers never hurt: if even every
	// open field cannot reach g, no subset can. Asked once the first
	// candidate fails, so that the common case pays one query, not two.
	var all fieldSet
	for _, r := range live {
		all = all.union(r.avail)
	}
	shortcut := s.q.m.monotone
	h := &pathCandidates{}
	seen := map[fieldSet]bool{}
	push := func(set fieldSet) {
		// One set stands for its family of interchangeable members'
		// questions (members.go).
		set = s.q.canonical(set)
		if !seen[set] {
			seen[set] = true
			heap.Push(h, s.q.pathCandidate(set))
		}
	}
	for _, r := range live {
		for _, m := range r.sup {
			push(m)
		}
	}
	for h.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return fieldSet{}, false, err
		}
		c := heap.Pop(h).(pathCandidate)
		ok, why, err := s.reachable(ctx, c.set, g)
		if err != nil {
			return fieldSet{}, false, err
		}
		if ok {
			return c.set, true, nil
		}
		if shortcut && c.set != all {
			shortcut = false
			if ok, _, err := s.reachable(ctx, all, g); err != nil || !ok {
				return fieldSet{}, false, err
			}
		}
		for _, r := range live {
			if !c.set.subsetOf(r.avail) || !r.sup.satisfiedBy(c.set) {
				continue
			}
			for _, f := range r.avail.minus(c.set).intersect(why.missing).slots() {
				push(c.set.with(f))
			}
		}
	}
	return fieldSet{}, false, nil
}

// reachable is pathSession.reachable, answered by the engine, or by a
// reason learned from an earlier query, where it can.
func (s *pathSearch) reachable(ctx context.Context, set fieldSet, g pathGoal) (ok bool, why pathCore, err error) {
	if set.empty() && len(s.q.res.FieldErrors) == 0 {
		// The engine has decided the answers as they stand.
		o := s.q.res.Outcome
		return o == engine.Eligible || (g == goalSettled && o == engine.NotEligible), pathCore{missing: s.q.askable}, nil
	}
	// Of the reasons ruling set out, the one leaving the fewest fields to
	// grow by.
	found, fewest := false, 0
	for _, c := range s.learned[g] {
		if c.covers(set) {
			if n := c.missing.count(); !found || n < fewest {
				found, fewest, why = true, n, c
			}
		}
	}
	if found {
		return false, why, nil
	}
	if s.wit.reaches(set, g) {
		return true, pathCore{}, nil
	}
	if s.checks >= s.budget {
		return false, pathCore{}, fmt.Errorf("%w (%d queries)", ErrSearchBudget, s.checks)
	}
	s.checks++
	if s.sess == nil {
		sess, err := s.feas.open(ctx, s.q, s.timeout)
		if err != nil {
			return false, pathCore{}, fmt.Errorf("solver: open path session: %w", err)
		}
		s.sess = sess
	}
	ok, why, err = s.sess.reachable(ctx, set, g)
	if err != nil {
		return false, pathCore{}, fmt.Errorf("solver: can %s be reached: %w", g, err)
	}
	if !ok {
		s.learned[g] = append(s.learned[g], why)
	}
	return ok, why, nil
}

// close gives the solver session back.
func (s *pathSearch) close() {
	if s.sess != nil {
		s.sess.close()
	}
}

// pathCandidate is a set of fields with the keys it is ordered by.
type pathCandidate struct {
	// set are the fields to ask.
	set fieldSet
	// weight is the fields' total weight.
	weight int64
	// count is the number of fields in set.
	count int
	// preferred counts the fields of set the inquiry context prefers.
	preferred int
}

func (q *planQuery) pathCandidate(s fieldSet) pathCandidate {
	return pathCandidate{set: s, weight: q.m.weightOf(s), count: s.count(), preferred: s.intersect(q.preferred).count()}
}

// betterPath is the order of sets: least weight, fewest fields, most preferred
// fields, then the set whose earliest differing field is declared first.
func betterPath(a, b pathCandidate) bool {
	switch {
	case a.weight != b.weight:
		return a.weight < b.weight
	case a.count != b.count:
		return a.count < b.count
	case a.preferred != b.preferred:
		return a.preferred > b.preferred
	}
	return a.set.firstDiffers(b.set)
}

// pathCandidates is a heap of sets, best first.
type pathCandidates struct {
	// xs holds the heap, ordered by betterPath.
	xs []pathCandidate
}

func (h *pathCandidates) Len() int           { return len(h.xs) }
func (h *pathCandidates) Less(i, j int) bool { return betterPath(h.xs[i], h.xs[j]) }
func (h *pathCandidates) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *pathCandidates) Push(x any)         { h.xs = append(h.xs, x.(pathCandidate)) }
func (h *pathCandidates) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}
