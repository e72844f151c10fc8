package auth

import (
	"hash/maphash"
	"sync"
	"time"
)

// Sign-in limits (docs/console.md#sign-in-limits, docs/limits.md#limits):
// a console sign-in exchanges a key for a session, so it is where a key
// would be guessed and where sessions would be piled up. The attempts an
// address or a key prefix may make are bounded by an AttemptLimiter, and
// the live sessions of one key by MaxSessionsPerKey.
const (
	// SignInFailuresPerAddress is how many failed sign-ins one client
	// address (an IPv6 address's /64) may make at once; one more is
	// allowed every SignInWindow / SignInFailuresPerAddress (30 s).
	// Successful sign-ins do not count, so an office behind one address
	// signs in freely.
	SignInFailuresPerAddress = 20
	// SignInAttemptsPerPrefix is how many sign-ins, failed or not, may
	// name one key prefix at once; one more is allowed every
	// SignInWindow / SignInAttemptsPerPrefix (20 s). It bounds guessing
	// one key's secret from many addresses, and sessions opened in a loop.
	SignInAttemptsPerPrefix = 30
	// SignInWindow is the period over which those budgets refill.
	SignInWindow = 10 * time.Minute
	// MaxSessionsPerKey is how many console sessions one key may have
	// live; a sign-in past it ends the key's least recently used one.
	MaxSessionsPerKey = 50
)

// The limiter's table: limiterRows rows of limiterSlots slots each, a
// fixed 2 × 65,536 × 8 bytes = 1 MiB however many subjects it sees.
const (
	limiterRows  = 2
	limiterSlots = 1 << 16
)

// AttemptLimiter bounds the attempts of each subject (an address, a key
// prefix) to burst at once, refilled at one per window/burst: a generic
// cell rate algorithm whose theoretical arrival times live in a fixed table
// rather than a map, so that a caller choosing subjects cannot grow it.
// Each subject has one slot in each of two rows, picked by hashes seeded
// per limiter (so a caller cannot aim at another's slots); its state is
// the least of its two slots, and a taken attempt raises both to at least
// the new state. Subjects sharing a slot can only make each other wait
// sooner, never later; with two rows of 65,536, a subject finds both its
// slots worn down only when hundreds of thousands of subjects failed
// within one window.
// It keeps the attempts of this process only: each replica limits on its
// own (docs/limits.md#limits). It is safe for concurrent use.
type AttemptLimiter struct {
	// burst is how many attempts a subject may make at once; interval is
	// how long after an attempt its slot is free again (window/burst).
	burst    int64
	interval int64
	seeds    [limiterRows]maphash.Seed
	mu       sync.Mutex
	// tat is each slot's theoretical arrival time, in Unix nanoseconds:
	// a subject may attempt when tat - now <= (burst-1) × interval.
	tat [limiterRows][limiterSlots]int64
}

// NewAttemptLimiter returns a limiter allowing burst attempts per subject
// at once, refilled over window.
func NewAttemptLimiter(burst int, window time.Duration) *AttemptLimiter {
	l := &AttemptLimiter{burst: int64(burst), interval: int64(window) / int64(burst)}
	for i := range l.seeds {
		l.seeds[i] = maphash.MakeSeed()
	}
	return l
}

// slots returns subject's slot in each row.
func (l *AttemptLimiter) slots(subject string) [limiterRows]int {
	var s [limiterRows]int
	for i, seed := range l.seeds {
		s[i] = int(maphash.String(seed, subject) % limiterSlots)
	}
	return s
}

// Take records an attempt by subject at now and returns 0, or, when
// subject has used its budget, how long until it may try again (the
// attempt is then not recorded).
func (l *AttemptLimiter) Take(subject string, now time.Time) time.Duration {
	slots := l.slots(subject)
	t := now.UnixNano()
	l.mu.Lock()
	defer l.mu.Unlock()
	tat := l.tat[0][slots[0]]
	for r := 1; r < limiterRows; r++ {
		tat = min(tat, l.tat[r][slots[r]])
	}
	tat = max(tat, t)
	if wait := tat - t - (l.burst-1)*l.interval; wait > 0 {
		return time.Duration(wait)
	}
	for r := range limiterRows {
		l.tat[r][slots[r]] = max(l.tat[r][slots[r]], tat+l.interval)
	}
	return 0
}

// Give returns an attempt subject took that should not count (a sign-in
// that succeeded, where only failures are limited).
func (l *AttemptLimiter) Give(subject string) {
	slots := l.slots(subject)
	l.mu.Lock()
	defer l.mu.Unlock()
	for r := range limiterRows {
		l.tat[r][slots[r]] -= l.interval
	}
}
