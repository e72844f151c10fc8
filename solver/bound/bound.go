package bound

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// Reasons a bounded run stops before it finishes (Incomplete.Reason).
const (
	// IncompleteDeadline: the run's time budget (its Timeout, or the
	// deadline of the caller's context) ran out, while running or while
	// waiting for a Gate slot.
	IncompleteDeadline = "deadline_exceeded"
	// IncompleteCanceled: the caller's context was cancelled.
	IncompleteCanceled = "canceled"
	// IncompleteUndecided: the solver gave up on a question within its
	// time (a Z3 check answered unknown, or the encoding failed), so the
	// run stopped with what it had decided instead of failing the request.
	IncompleteUndecided = "solver_undecided"
)

// Incomplete says why a bounded run stopped before deciding everything it
// planned. It is also an error, for the calls that report a partial result
// as one (SuggestCases, as Analyze does).
type Incomplete struct {
	// Reason is one of the Incomplete* constants.
	Reason string `json:"reason" doc:"Why the run stopped: deadline_exceeded (its time budget, or the request's deadline, ran out, while running or waiting for a solver slot), canceled (the caller went away) or solver_undecided (the solver could not decide a question)."`
	// Detail says what was done and what was not, in a sentence, e.g.
	// "the 10s budget ran out after 212 of 400 mutants".
	Detail string `json:"detail" doc:"What was done and what was not, in a sentence."`
	// cause is the error the run stopped on, when Halted knows it, so
	// that errors.Is still finds context.Canceled or DeadlineExceeded.
	cause error
}

func (i *Incomplete) Error() string { return "solver: incomplete (" + i.Reason + "): " + i.Detail }

// Unwrap is the error the run stopped on, nil when not known.
func (i *Incomplete) Unwrap() error { return i.cause }

// Progress says how much of a bounded run's planned work was done. It is
// embedded in the reports of the runs that can stop early, so its members
// appear at their top level.
type Progress struct {
	// Candidates counts the items (mutants, goals) the ruleset has.
	Candidates int `json:"candidates" doc:"The items (mutants, goals) there are."`
	// Planned counts the items chosen to run: every candidate, or a
	// deterministic sample when there are more than the cap.
	Planned int `json:"planned" doc:"The items chosen to run: all of them, or a fixed sample when there are more than the cap."`
	// Sampled is true when Planned < Candidates: the run covered a sample,
	// the same one every time for the same ruleset.
	Sampled bool `json:"sampled" doc:"True when planned < candidates: the run covered a fixed sample, the same every time."`
	// Done counts the planned items decided before the run ended.
	Done int `json:"done" doc:"The planned items decided before the run ended."`
	// Complete is true when every planned item was decided.
	Complete bool `json:"complete" doc:"True when the run finished. False when it stopped early (its share of the time budget ran out, while running or waiting for a solver slot, or the solver could not decide): the answer then holds only what was decided and incomplete says why. Never an error."`
	// Incomplete says why the run stopped early; nil when Complete.
	Incomplete *Incomplete `json:"incomplete,omitempty" doc:"Why the run stopped early; absent when complete."`
}

// Stop marks p incomplete because ctx ended (err is ctx's error, or an
// error wrapping it), naming what was being counted ("mutants", "goals")
// and the budget when the run had one of its own, so that the report says
// how far the run got instead of failing or claiming a result.
func (p *Progress) Stop(err error, what string, budget time.Duration) {
	p.Complete = false
	reason := IncompleteDeadline
	if errors.Is(err, context.Canceled) {
		reason = IncompleteCanceled
	}
	detail := fmt.Sprintf("stopped after %d of %d %s", p.Done, p.Planned, what)
	switch {
	case reason == IncompleteCanceled:
		detail = "cancelled: " + detail
	case budget > 0:
		detail = fmt.Sprintf("the %s budget ran out: %s", budget, detail)
	default:
		detail = "the deadline passed: " + detail
	}
	p.Incomplete = &Incomplete{Reason: reason, Detail: detail}
}

// Halted is the Incomplete of a run that stopped on err: ctx's end (its
// budget ran out, or the caller went away) or the solver giving up, with
// detail saying how far the run got ("stopped after 3 of 9 survivors").
// Runs without a Progress of their own (explain-failure) report with it.
func Halted(ctx context.Context, err error, detail string) *Incomplete {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return &Incomplete{Reason: IncompleteCanceled, Detail: "cancelled: " + detail, cause: err}
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return &Incomplete{Reason: IncompleteDeadline, Detail: "the deadline passed: " + detail, cause: err}
	}
	return &Incomplete{Reason: IncompleteUndecided, Detail: "the solver could not decide (" + err.Error() + "): " + detail, cause: err}
}

// GiveUp marks p incomplete because the solver failed with err while ctx
// was still running (a question it could not decide in its time), so that
// a report says how far the run got instead of the request failing. An
// err that is ctx's end is Stop's.
func (p *Progress) GiveUp(ctx context.Context, err error, what string, budget time.Duration) {
	if ctx.Err() != nil {
		p.Stop(err, what, budget)
		return
	}
	p.Complete = false
	p.Incomplete = Halted(ctx, err, fmt.Sprintf("stopped after %d of %d %s", p.Done, p.Planned, what))
}

// Share is an equal share, among left runs still to go, of the time to
// ctx's deadline (zero when ctx has none, which WithBudget reads as its
// default), so that the runs of one operation (the review's solver checks;
// suggest-cases' search, score and kills) share its budget and time one
// does not use passes to the next.
func Share(ctx context.Context, left int) time.Duration {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	// Rounded to the millisecond, as reports name it; never zero, which
	// WithBudget would read as its default.
	return max((time.Until(deadline) / time.Duration(max(left, 1))).Round(time.Millisecond), time.Nanosecond)
}

// sampleSeed fixes the sample of a capped run, so that the same ruleset
// always gets the same mutants and goals (reports are deterministic).
const sampleSeed = 0x5eed_e11_90

// Choose picks which of n candidates a run capped at limit covers: all of
// them when n <= limit, else limit of them drawn by a seeded shuffle, in
// their original order, the same for the same n every time so that
// reports are deterministic. limit <= 0 means no cap. The Progress counts
// the candidates and the planned items, ready for the run to fill in.
func Choose(n, limit int) (chosen []int, p Progress) {
	p = Progress{Candidates: n, Planned: n, Complete: true}
	if limit <= 0 || n <= limit {
		chosen = make([]int, n)
		for i := range chosen {
			chosen[i] = i
		}
		return chosen, p
	}
	rng := rand.New(rand.NewPCG(sampleSeed, uint64(n)))
	chosen = rng.Perm(n)[:limit]
	slices.Sort(chosen)
	p.Planned, p.Sampled = limit, true
	return chosen, p
}

// WithBudget is ctx bounded by budget (def when budget is zero or
// negative), and the budget used, so that a run with no budget of its own
// still ends and its Progress can name the budget that ran out.
func WithBudget(ctx context.Context, budget, def time.Duration) (context.Context, context.CancelFunc, time.Duration) {
	if budget <= 0 {
		budget = def
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	return ctx, cancel, budget
}

// Gate bounds how many heavy runs (mutation scores, suggested cases,
// diffs, explanations, polarity gates, analyses, and the text extraction
// of uploads) use the process's cores at once, so that one caller sending
// large drafts cannot take every core from the others; and, through For,
// how many of them one tenant holds, so that one tenant cannot take every
// slot either. A run takes one slot for as long as it runs, and the
// mutation score takes spare slots for its extra workers without waiting.
// Waiting honours the caller's context: a caller whose deadline passes in
// the queue gives up with the context's error.
//
// Build one per process in the composition root and hand it to every
// authoring-time caller through the options' Gate fields, narrowed with
// For to the caller's tenant. A nil *Gate admits everything at once (the
// CLI and tests).
type Gate struct {
	// sem holds the process's slots.
	sem *semaphore.Weighted
	// size is the number of slots.
	size int64
	// tenants holds each tenant's share; shared by every view For makes.
	tenants *tenantShares
	// tenant is the view's tenant; empty for the whole-process gate,
	// which takes no tenant's share.
	tenant string
}

// tenantShares counts the slots each tenant holds, up to max each. A
// tenant's entry exists only while it holds or waits for a slot, so the
// map is as large as the runs in flight.
type tenantShares struct {
	max int64
	mu  sync.Mutex
	by  map[string]*tenantShare
}

// tenantShare is one tenant's semaphore and how many runs use it.
type tenantShare struct {
	sem   *semaphore.Weighted
	users int
}

// NewGate makes a Gate of size slots, of which one tenant may hold at most
// half (at least one); size <= 0 means runtime.GOMAXPROCS, one run per
// core the process may use.
func NewGate(size int) *Gate {
	if size <= 0 {
		size = runtime.GOMAXPROCS(0)
	}
	share := max(int64(size)/2, 1)
	return &Gate{sem: semaphore.NewWeighted(int64(size)), size: int64(size),
		tenants: &tenantShares{max: share, by: map[string]*tenantShare{}}}
}

// For is the view of g that counts the runs it admits against tenant's
// share as well as the process's slots. A nil g stays nil.
func (g *Gate) For(tenant string) *Gate {
	if g == nil {
		return nil
	}
	v := *g
	v.tenant = tenant
	return &v
}

// share returns the view's tenant share, counted as one more user, and
// the function that uncounts it; nil when the view has no tenant.
func (g *Gate) share() (*semaphore.Weighted, func()) {
	if g.tenant == "" || g.tenants == nil {
		return nil, func() {}
	}
	t := g.tenants
	t.mu.Lock()
	defer t.mu.Unlock()
	sh := t.by[g.tenant]
	if sh == nil {
		sh = &tenantShare{sem: semaphore.NewWeighted(t.max)}
		t.by[g.tenant] = sh
	}
	sh.users++
	return sh.sem, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if sh.users--; sh.users == 0 {
			delete(t.by, g.tenant)
		}
	}
}

// Enter waits for one slot of the tenant's share and one of the process,
// or until ctx ends (then it returns ctx's error); call the returned
// function to give the slots back.
func (g *Gate) Enter(ctx context.Context) (release func(), err error) {
	if g == nil {
		return func() {}, ctx.Err()
	}
	tenant, done := g.share()
	if tenant != nil {
		if err := tenant.Acquire(ctx, 1); err != nil {
			done()
			return nil, fmt.Errorf("solver: waiting for a slot of the tenant's share: %w", err)
		}
	}
	if err := g.sem.Acquire(ctx, 1); err != nil {
		if tenant != nil {
			tenant.Release(1)
		}
		done()
		return nil, fmt.Errorf("solver: waiting for a solver slot: %w", err)
	}
	return func() {
		g.sem.Release(1)
		if tenant != nil {
			tenant.Release(1)
		}
		done()
	}, nil
}

// TryMore takes up to n more slots that are free now, within the tenant's
// share, without waiting, and returns how many it took with the function
// that gives them back.
func (g *Gate) TryMore(n int) (took int, release func()) {
	if g == nil {
		return n, func() {}
	}
	tenant, done := g.share()
	for took < n {
		if tenant != nil && !tenant.TryAcquire(1) {
			break
		}
		if !g.sem.TryAcquire(1) {
			if tenant != nil {
				tenant.Release(1)
			}
			break
		}
		took++
	}
	if took == 0 {
		done()
		return 0, func() {}
	}
	return took, func() {
		g.sem.Release(int64(took))
		if tenant != nil {
			tenant.Release(int64(took))
		}
		done()
	}
}
