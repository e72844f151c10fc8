package plan

import (
	"context"
	"fmt"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/z3"
)

// solverFeasibility decides reachability with Z3 over the ruleset's
// encoding. Building an encoding costs far more than a check, so prepared
// encodings (a context, the encoding and a solver with its axioms) are kept
// in a pool per content digest and reused: a plan takes one, states its
// answers in a pushed scope, asks each candidate as a check under
// assumptions (presence literals and a goal literal), pops the scope and
// gives it back. Each prepared encoding is used by one goroutine at a time,
// as z3 requires.
type solverFeasibility struct {
	// pools holds each ruleset's pool by content digest; evicting one
	// shuts it.
	pools *lru.Cache[string, *encodingPool]
	// perRuleset bounds the idle prepared encodings kept per ruleset.
	perRuleset int
}

// encodingPoolRulesets bounds the rulesets whose prepared encodings are
// kept.
const encodingPoolRulesets = 32

func newSolverFeasibility(perRuleset int) *solverFeasibility {
	f := &solverFeasibility{perRuleset: max(perRuleset, 1)}
	f.pools, _ = lru.NewWithEvict(encodingPoolRulesets, func(_ string, p *encodingPool) { p.shut() })
	return f
}

// encodingPool holds idle prepared encodings of one ruleset.
type encodingPool struct {
	// mu guards idle and closed.
	mu sync.Mutex
	// idle are the encodings no plan is using.
	idle []*preparedEncoding
	// closed is set by shut: encodings given back are then closed, not
	// kept.
	closed bool
	// limit bounds len(idle) (solverFeasibility.perRuleset).
	limit int
}

func (p *encodingPool) take() *preparedEncoding {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		pe := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return pe
	}
	return nil
}

// give returns pe to the pool, or closes it when the pool is full or shut.
func (p *encodingPool) give(pe *preparedEncoding) {
	p.mu.Lock()
	if !p.closed && len(p.idle) < p.limit {
		p.idle = append(p.idle, pe)
		pe = nil
	}
	p.mu.Unlock()
	if pe != nil {
		pe.close()
	}
}

// shut closes the idle encodings; encodings in use are closed when given
// back.
func (p *encodingPool) shut() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, pe := range idle {
		pe.close()
	}
}

// preparedEncoding is one ruleset encoded in its own z3 context, with a
// solver holding the axioms and tracked literals for every goal a plan asks
// about.
type preparedEncoding struct {
	// c owns everything below; closing it frees the whole encoding.
	c *z3.Context
	// enc is the ruleset's encoding in c.
	enc *solver.Encoding
	// s holds the axioms and the goal trackers; a session states its
	// answers in a pushed scope.
	s *z3.Solver
	// goals[g] implies the outcome reaching g.
	goals [2]*z3.Expr
	// present[i] and absent[i] are field i's presence literal and its
	// negation, the assumptions that fix which fields a candidate answers.
	present, absent []*z3.Expr
	// absentSlot and presentSlot map the IDs of absent[i] and present[i]
	// to i, to read unsat cores.
	absentSlot, presentSlot map[uint]int
}

func prepareEncoding(rs *engine.Ruleset, timeout time.Duration) (_ *preparedEncoding, err error) {
	c, err := z3.NewContext()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	enc, err := solver.Encode(c, rs)
	if err != nil {
		return nil, err
	}
	s, err := enc.NewSolver(timeout)
	if err != nil {
		return nil, err
	}
	pe := &preparedEncoding{c: c, enc: enc, s: s,
		absentSlot: make(map[uint]int, len(rs.Fields)), presentSlot: make(map[uint]int, len(rs.Fields))}
	for i := range rs.Fields {
		pe.present = append(pe.present, enc.Present(i))
		pe.absent = append(pe.absent, enc.Unanswered(i))
		pe.presentSlot[pe.present[i].ID()] = i
		pe.absentSlot[pe.absent[i].ID()] = i
	}
	eligible := enc.OutcomeIs(engine.Eligible)
	if pe.goals[goalEligible], err = enc.Track(s, "path|eligible", eligible); err != nil {
		return nil, err
	}
	settled := c.Or(eligible, enc.OutcomeIs(engine.NotEligible))
	if pe.goals[goalSettled], err = enc.Track(s, "path|settled", settled); err != nil {
		return nil, err
	}
	return pe, nil
}

func (pe *preparedEncoding) close() { pe.c.Close() }

func (f *solverFeasibility) open(ctx context.Context, q *planQuery, timeout time.Duration) (pathSession, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pool := &encodingPool{limit: f.perRuleset}
	if prev, ok, _ := f.pools.PeekOrAdd(q.m.digest, pool); ok {
		pool = prev
	}
	pe := pool.take()
	if pe == nil {
		var err error
		if pe, err = prepareEncoding(q.m.rs, timeout); err != nil {
			return nil, fmt.Errorf("encode %s: %w", q.m.rs.SectionID, err)
		}
	}
	sess := &solverSession{q: q, pool: pool, pe: pe, unanswered: q.unanswered.slots()}
	if err := sess.stateAnswers(); err != nil {
		pe.close() // its scope is half-stated
		return nil, err
	}
	return sess, nil
}

// solverSession asks one request's questions of a prepared encoding.
type solverSession struct {
	// q is the request whose answers are stated in pe's scope.
	q *planQuery
	// pool is where pe goes back when the session closes.
	pool *encodingPool
	// pe is the prepared encoding the session holds.
	pe *preparedEncoding
	// broken is set when a check failed: the context may be mid-way
	// through an interrupted search, so it is not reused.
	broken bool
	// assume is scratch for one check's assumptions: the goal literal,
	// then a presence or absence literal per unanswered field.
	assume []*z3.Expr
	// unanswered are the slots of the request's unanswered fields.
	unanswered []int
}

// stateAnswers pushes a scope holding the request's answers (and decision
// date).
func (s *solverSession) stateAnswers() error {
	if err := s.pe.s.Push(); err != nil {
		return err
	}
	enc := s.pe.enc
	for i, v := range s.q.in.Values {
		if v.Known {
			if err := s.pe.s.Assert(enc.Answered(i, v)); err != nil {
				return fmt.Errorf("state answer %s: %w", s.q.m.rs.Fields[i].ID, err)
			}
		}
	}
	if s.q.m.rs.DependsOnDate() {
		if err := s.pe.s.Assert(enc.DecisionDateIs(s.q.res.DecisionDate)); err != nil {
			return fmt.Errorf("state decision date: %w", err)
		}
	}
	return nil
}

// check asks whether lit can hold with exactly the fields of ask answered
// among the unanswered ones. When it cannot, why is the unsat core read as
// fields: the answered ones and the unanswered ones whose presence or
// absence it holds.
func (s *solverSession) check(ctx context.Context, ask fieldSet, lit *z3.Expr) (ok bool, why pathCore, err error) {
	s.assume = append(s.assume[:0], lit)
	for _, i := range s.unanswered {
		if ask.has(i) {
			s.assume = append(s.assume, s.pe.present[i])
		} else {
			s.assume = append(s.assume, s.pe.absent[i])
		}
	}
	r, err := s.pe.s.CheckAssumptions(ctx, s.assume...)
	if err != nil {
		s.broken = true
		return false, pathCore{}, err
	}
	if r == z3.Sat {
		return true, pathCore{}, nil
	}
	core, err := s.pe.s.UnsatCore()
	if err != nil {
		s.broken = true
		return false, pathCore{}, fmt.Errorf("read unsat core: %w", err)
	}
	for _, e := range core {
		if i, found := s.pe.absentSlot[e.ID()]; found {
			why.missing.add(i)
		} else if i, found := s.pe.presentSlot[e.ID()]; found {
			why.asked.add(i)
		}
	}
	return false, why, nil
}

func (s *solverSession) reachable(ctx context.Context, ask fieldSet, g pathGoal) (bool, pathCore, error) {
	return s.check(ctx, ask, s.pe.goals[g])
}

func (s *solverSession) close() {
	if s.broken {
		s.pe.close()
		return
	}
	if err := s.pe.s.Pop(1); err != nil {
		s.pe.close()
		return
	}
	s.pool.give(s.pe)
}

// close shuts every pool.
func (f *solverFeasibility) close() { f.pools.Purge() }
