package metering

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eligo/eligo/store"
)

// ErrBackendUnavailable wraps every failure to reach the counter store. The
// API answers it with 503 rate_limit_backend_unavailable: a request that
// cannot be metered (past the outage share, see Config.OutageFraction) is
// not served.
var ErrBackendUnavailable = errors.New("metering backend unavailable")

// Config tunes a Meter. The zero value gives the budgets of docs/metering.md and the
// defaults below.
type Config struct {
	// Budgets is the tier × class budget table; DefaultBudgets() when nil.
	Budgets Budgets
	// FlushInterval is how often counts accumulated in memory are written
	// to the database. Default 250ms; values above one second are lowered
	// to one second.
	FlushInterval time.Duration
	// WindowCacheTTL is how long a window sum read from the database is
	// reused before it is read again, so that other processes' traffic
	// shows in the headers. Default one second. The over-limit bound does
	// not depend on it (see Meter). RetryAt reuses its read of the window's
	// buckets for as long.
	WindowCacheTTL time.Duration
	// SlackFraction sets the per-process slack: a process admits at most
	// Slack(limit) = max(1, ceil(limit × SlackFraction)) units (or one
	// request, if that costs more) for a
	// subject and class before it writes its counts and reads the window
	// again. Default 0.01 (one per cent of the budget).
	SlackFraction float64
	// OutageFraction sets the outage share: while the counter store is
	// unreachable, a process admits for one subject and class at most
	// max(1, ceil(limit × OutageFraction)) units (and never past the
	// budget as last read), counting them in memory and writing them when
	// the store answers again; past the share, Admit fails with
	// ErrBackendUnavailable. Default 0.05 (five per cent of the budget);
	// a negative value admits nothing during an outage.
	OutageFraction float64
	// BackendTimeout bounds each database call made while a request waits,
	// so an unreachable database gives a prompt 503. Default two seconds.
	BackendTimeout time.Duration
	// Clock returns the current time; time.Now when nil. Tests move it to
	// walk a window hour by hour.
	Clock func() time.Time
	// Logger receives flush failures; slog.Default() when nil.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Budgets == nil {
		c.Budgets = DefaultBudgets()
	}
	if c.FlushInterval <= 0 {
		c.FlushInterval = 250 * time.Millisecond
	}
	c.FlushInterval = min(c.FlushInterval, time.Second)
	if c.WindowCacheTTL <= 0 {
		c.WindowCacheTTL = time.Second
	}
	if c.SlackFraction <= 0 {
		c.SlackFraction = 0.01
	}
	if c.OutageFraction == 0 {
		c.OutageFraction = 0.05
	}
	if c.BackendTimeout <= 0 {
		c.BackendTimeout = 2 * time.Second
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Caller is who a request is counted for.
type Caller struct {
	// Subject names the counter owner: KeySubject or AddrSubject.
	Subject string
	// Tier selects the budgets: Anonymous or a key tier.
	Tier string
}

// KeySubject is the subject of a keyed caller: budgets belong to the key.
func KeySubject(keyID int64) string { return "key:" + strconv.FormatInt(keyID, 10) }

// AddrSubject is the subject of an anonymous caller: its client address.
// IPv6 addresses are counted per /64, the block one host or site normally
// holds, so that rotating through one's own /64 does not multiply the
// budget.
func AddrSubject(addr netip.Addr) string {
	addr = addr.Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return "ip:" + p.String()
	}
	return "ip:" + addr.String()
}

// Decision is the outcome of Admit, and what the rate-limit headers say.
type Decision struct {
	// Class is the class the request counted against.
	Class Class
	// Allowed is false when the request is refused for budget. A
	// report-only class always allows.
	Allowed bool
	// Over is true when the request went past the budget: refused, or (for
	// a report-only class) recorded beyond it.
	Over bool
	// Limit is the budget of the class for the caller's tier.
	Limit int64
	// Used is the rolling 24-hour usage including this request when it was
	// allowed.
	Used int64
	// Remaining is Limit minus Used, never below zero.
	Remaining int64
	// Reset is the next hourly boundary, when the oldest bucket leaves the
	// window.
	Reset time.Time
}

// Meter admits and counts requests. It is safe for concurrent use. Build it
// with New and Close it to write the last counts.
//
// Correctness across processes. For each subject and class a process keeps
// base, the window sum it last read from the database, and local, the units
// it admitted since. It admits a request of cost c when base + local + c ≤
// limit. Before local would pass the slack S = Slack(limit) (unless local
// is 0: a single request dearer than S is decided on a fresh read), when the cached
// read is older than WindowCacheTTL, when the hour changes, or after a
// failed flush, it first writes its own pending counts and reads the window
// again, in one round trip and with its periodic flush excluded, so that
// base then holds every unit this process ever admitted plus whatever the
// other processes had written. Hence:
//
//   - This process's own traffic is counted exactly; rejections are never
//     wrong (base + local never exceeds the true usage).
//   - With K processes sharing one database, the units admitted for one
//     subject and class in a window exceed its budget by at most (K − 1) × S:
//     the process that read last saw everything the others admitted before
//     their own last reads, and each of them admitted at most max(S, c)
//     since, c being the dearest single request. Per process, the slack is
//     therefore ⌈1% of the budget⌉ units (at least 1), or one request if
//     that costs more: 5 for a 500 budget, 100 for 10,000, 1,000 for
//     100,000; up to 21 for anonymous /decide calls with every costly
//     flag.
//
// A request is not counted when it is refused. The periodic flush writes
// pending counts at least every second; a failed write keeps them in memory
// and makes every request read the database until a write succeeds.
//
// While the database is unreachable, a process degrades rather than stops:
// for each subject and class it admits, against the window sum it last read
// (none for a subject it never read), at most the outage share of the
// budget (OutageFraction, 5%), counted in memory like any admission and
// written once the database answers; past the share, Admit fails with
// ErrBackendUnavailable, never unmetered service. So an outage adds at
// most K × share units per subject and class to the cross-process bound
// above. After a failed read the process answers from memory for
// WindowCacheTTL before it tries the database again, so that requests do
// not each wait for a dead server. A process that dies without Close loses
// at most one flush interval of counts, or what it admitted during an
// outage (an undercount, never an overcount).
type Meter struct {
	// cfg is the configuration, defaults filled in.
	cfg Config
	// store holds the hourly usage buckets all processes share.
	store *store.Store

	// flushMu orders window reads against the periodic flush: a read holds
	// it shared, a flush exclusively, so a read never misses counts that a
	// flush has taken from an entry but not yet committed. Lock order:
	// flushMu, then entries, then an entry's mu.
	flushMu sync.RWMutex

	// entriesMu guards the entries map (not the entries themselves).
	entriesMu sync.Mutex
	// entries holds the in-memory state per subject and class; Flush
	// drops those idle for idleEviction.
	entries map[entryKey]*entry

	// flushFailed is set while the last flush failed: every request then
	// reads the database first.
	flushFailed atomic.Bool
	// downUntil is, after a failed read, the Unix nanoseconds until which
	// reads are not tried again (the outage share is used instead).
	downUntil atomic.Int64

	// startOnce starts the flush loop at the first counted request (or,
	// in Close, marks it as never started).
	startOnce sync.Once
	// stop is closed by Close to end the flush loop.
	stop chan struct{}
	// done is closed when the flush loop has ended (or never started).
	done chan struct{}
	// closeOnce makes Close idempotent.
	closeOnce sync.Once
}

type entryKey struct {
	// subject is the caller's Subject: KeySubject or AddrSubject.
	subject string
	// class is the metering class counted.
	class Class
}

// entry is the in-memory state of one subject and class.
type entry struct {
	// mu guards every other field.
	mu     sync.Mutex
	synced bool      // base has been read at least once
	hour   time.Time // the bucket hour base was read for
	readAt time.Time // when base was read
	base   int64     // window sum in the database at readAt
	local  int64     // units admitted since readAt
	outage int64     // units admitted from the outage share since readAt
	// pending are the counted units not yet written, per bucket hour,
	// oldest first.
	pending []hourCount
	// lastUse is when a request was last counted; Flush evicts the entry
	// after idleEviction without one.
	lastUse time.Time
	evicted bool // removed from the map; look the key up again
	// hourly is the window bucket by bucket, read only when a request is
	// refused and kept for RetryAt; nil until then.
	hourly *hourlyWindow
}

// hourlyWindow is one read of a window's buckets: counts[i] is the hour
// last-(WindowHours-1-i), this process's unwritten counts included.
type hourlyWindow struct {
	last time.Time // the window's current hour
	// readAt is when the buckets were read; the read is reused for
	// WindowCacheTTL.
	readAt time.Time
	// counts are the units per bucket, oldest first (see above).
	counts [WindowHours]int64
}

// firstAdmission returns the first hourly boundary after w.last at which a
// request of cost fits limit if nothing else is counted meanwhile: the
// first boundary b such that the buckets still in the window ending at b,
// plus cost, are within limit. A request dearer than the whole budget is
// never admitted; for it the answer is the first boundary at which the
// window is empty, when the whole budget is free again.
func (w *hourlyWindow) firstAdmission(limit, cost int64) time.Time {
	need := min(cost, limit)
	var remaining int64
	for _, n := range w.counts {
		remaining += n
	}
	for k := 1; k < WindowHours; k++ {
		// At the boundary k hours on, the k oldest buckets have left.
		remaining -= w.counts[k-1]
		if remaining+need <= limit {
			return w.last.Add(time.Duration(k) * time.Hour)
		}
	}
	return w.last.Add(WindowHours * time.Hour)
}

type hourCount struct {
	// hour is the bucket: the start of a UTC hour.
	hour time.Time
	// count is the units admitted in that hour.
	count int64
}

// New returns a Meter counting into st. The background flush starts with
// the first counted request.
func New(cfg Config, st *store.Store) *Meter {
	return &Meter{
		cfg:     cfg.withDefaults(),
		store:   st,
		entries: map[entryKey]*entry{},
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
}

// Budgets returns the budget table in force.
func (m *Meter) Budgets() Budgets { return m.cfg.Budgets }

// Slack returns the per-process slack for a budget of limit: the most units
// a process admits for one subject and class between two reads of the
// window, unless a single request costs more.
func (m *Meter) Slack(limit int64) int64 {
	return max(1, int64(math.Ceil(float64(limit)*m.cfg.SlackFraction)))
}

// Admit decides whether a request of cost units from caller fits the
// budget of class, and counts it when it is allowed. The error wraps
// ErrBackendUnavailable when the counter store could not be reached.
func (m *Meter) Admit(ctx context.Context, caller Caller, class Class, cost int64) (Decision, error) {
	limit := m.cfg.Budgets.Limit(caller.Tier, class)
	slack := m.Slack(limit)
	key := entryKey{caller.Subject, class}
	for {
		now := m.cfg.Clock()
		e := m.entry(key)
		e.mu.Lock()
		if e.evicted {
			e.mu.Unlock()
			continue
		}
		if !m.needsRead(e, now, cost, slack) {
			d := m.decide(e, class, limit, cost, now)
			e.mu.Unlock()
			return d, nil
		}
		e.mu.Unlock()

		m.flushMu.RLock()
		e.mu.Lock()
		if e.evicted {
			e.mu.Unlock()
			m.flushMu.RUnlock()
			continue
		}
		var err error
		if m.needsRead(e, now, cost, slack) {
			err = m.read(ctx, key, e, now)
		}
		var d Decision
		switch {
		case err == nil:
			d = m.decide(e, class, limit, cost, now)
		case e.outage+cost <= m.outageShare(limit):
			// The database is away: admit from the outage share, against
			// the window as last read.
			if d = m.decide(e, class, limit, cost, now); d.Allowed {
				e.outage += cost
			}
			err = nil
		}
		e.mu.Unlock()
		m.flushMu.RUnlock()
		return d, err
	}
}

// outageShare is the most units a process admits for one subject and class
// of budget limit while the database is unreachable (Config.OutageFraction);
// 0 when degradation is off.
func (m *Meter) outageShare(limit int64) int64 {
	if m.cfg.OutageFraction < 0 {
		return 0
	}
	return max(1, int64(math.Ceil(float64(limit)*m.cfg.OutageFraction)))
}

// RetryAt returns when a request of cost from caller in class, refused by
// Admit, would be admitted if caller sent nothing else meanwhile: the first
// hourly boundary at which enough old usage has left the rolling window (see
// hourlyWindow.firstAdmission for a request dearer than the budget). It
// reads the window's 24 buckets in one indexed query, adds this process's
// unwritten counts, and reuses that read for WindowCacheTTL within the hour,
// so a flood of refused requests from one subject costs one query a second.
// Other processes' unwritten counts show within their flush interval. The
// error wraps ErrBackendUnavailable when the counter store could not be
// reached.
func (m *Meter) RetryAt(ctx context.Context, caller Caller, class Class, cost int64) (time.Time, error) {
	limit := m.cfg.Budgets.Limit(caller.Tier, class)
	now := m.cfg.Clock()
	w := WindowEnding(now, WindowHours)
	// flushMu shared and e.mu held: no unit is in flight between the
	// database and e.pending while the buckets are read, and a flush
	// cannot evict e.
	m.flushMu.RLock()
	defer m.flushMu.RUnlock()
	e := m.entry(entryKey{caller.Subject, class})
	e.mu.Lock()
	defer e.mu.Unlock()
	if h := e.hourly; h != nil && h.last.Equal(w.Last) && now.Sub(h.readAt) < m.cfg.WindowCacheTTL {
		return h.firstAdmission(limit, cost), nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.BackendTimeout)
	defer cancel()
	buckets, err := m.store.UsageByHour(ctx, caller.Subject, string(class), w.First, w.Last)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %w", ErrBackendUnavailable, err)
	}
	h := &hourlyWindow{last: w.Last, readAt: now}
	add := func(hour time.Time, n int64) {
		if age := w.Last.Sub(hour); age >= 0 && age < WindowHours*time.Hour {
			h.counts[WindowHours-1-int(age/time.Hour)] += n
		}
	}
	for _, b := range buckets {
		add(b.Hour, b.Count)
	}
	for _, p := range e.pending {
		add(p.hour, p.count)
	}
	e.hourly = h
	return h.firstAdmission(limit, cost), nil
}

// entry returns the state of key, creating it.
func (m *Meter) entry(key entryKey) *entry {
	m.entriesMu.Lock()
	defer m.entriesMu.Unlock()
	e := m.entries[key]
	if e == nil {
		e = &entry{}
		m.entries[key] = e
	}
	return e
}

// needsRead reports whether e must be brought up to date from the database
// before a request of cost is decided. e.mu is held.
func (m *Meter) needsRead(e *entry, now time.Time, cost, slack int64) bool {
	return !e.synced ||
		!e.hour.Equal(HourOf(now)) ||
		now.Sub(e.readAt) >= m.cfg.WindowCacheTTL ||
		(e.local > 0 && e.local+cost > slack) ||
		m.unhealthy()
}

// read writes e's pending counts and reads the window sum in one round
// trip. The caller holds flushMu shared and e.mu. A caller that hangs up
// does not cancel it: a write cut off after the database committed it
// would be written again (only a timeout can still do that, and then the
// error is an overcount, never an undercount).
func (m *Meter) read(ctx context.Context, key entryKey, e *entry, now time.Time) error {
	if now.UnixNano() < m.downUntil.Load() {
		return fmt.Errorf("%w: the last read failed less than %s ago", ErrBackendUnavailable, m.cfg.WindowCacheTTL)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.cfg.BackendTimeout)
	defer cancel()
	pending := e.pending
	w := WindowEnding(now, WindowHours)
	sum, err := m.store.AddUsageAndSum(ctx, counts(key, pending), key.subject, string(key.class), w.First, w.Last)
	if err != nil {
		m.downUntil.Store(m.cfg.Clock().Add(m.cfg.WindowCacheTTL).UnixNano())
		return fmt.Errorf("%w: %w", ErrBackendUnavailable, err)
	}
	e.pending = nil
	e.synced, e.hour, e.readAt, e.base, e.local, e.outage = true, w.Last, now, sum, 0, 0
	return nil
}

// decide admits or refuses a request of cost against e. e.mu is held and e
// is up to date.
func (m *Meter) decide(e *entry, class Class, limit, cost int64, now time.Time) Decision {
	used := e.base + e.local
	d := Decision{Class: class, Limit: limit, Reset: NextReset(now)}
	d.Over = used+cost > limit
	d.Allowed = !d.Over || !class.Enforced()
	if d.Allowed {
		used += cost
		e.local += cost
		hour := HourOf(now)
		if n := len(e.pending); n > 0 && e.pending[n-1].hour.Equal(hour) {
			e.pending[n-1].count += cost
		} else {
			e.pending = append(e.pending, hourCount{hour, cost})
		}
		m.startOnce.Do(func() { go m.flushLoop() })
	}
	e.lastUse = now
	d.Used = used
	d.Remaining = max(0, limit-used)
	return d
}

func counts(key entryKey, pending []hourCount) []store.UsageCount {
	out := make([]store.UsageCount, len(pending))
	for i, p := range pending {
		out[i] = store.UsageCount{Subject: key.subject, Class: string(key.class), Hour: p.hour, Count: p.count}
	}
	return out
}

func (m *Meter) unhealthy() bool { return m.flushFailed.Load() }

// idleEviction is how long an entry with nothing pending stays in memory
// after its last use. Dropping it loses nothing: all its counts are in the
// database, and the next request reads them again.
const idleEviction = time.Minute

func (m *Meter) flushLoop() {
	defer close(m.done)
	ticker := time.NewTicker(m.cfg.FlushInterval)
	defer ticker.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-ticker.C:
			ctx, cancel := context.WithTimeout(context.Background(), m.cfg.BackendTimeout)
			wasFailing := m.unhealthy()
			// Log transitions only, not every tick of an outage.
			switch err := m.Flush(ctx); {
			case err != nil && !wasFailing:
				m.cfg.Logger.Error("metering flush failed; requests will be refused with 503 until the database answers", "error", err)
			case err == nil && wasFailing:
				m.cfg.Logger.Info("metering flush recovered")
			}
			cancel()
		}
	}
}

// Flush writes every pending count to the database in one statement and
// drops entries idle for a minute. On failure the counts stay pending, and
// until a later flush succeeds every request reads the database first.
func (m *Meter) Flush(ctx context.Context) error {
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	now := m.cfg.Clock()
	var batch []store.UsageCount
	taken := map[*entry][]hourCount{}
	m.entriesMu.Lock()
	for key, e := range m.entries {
		e.mu.Lock()
		if len(e.pending) > 0 {
			taken[e] = e.pending
			batch = append(batch, counts(key, e.pending)...)
			e.pending = nil
		} else if now.Sub(e.lastUse) > idleEviction {
			e.evicted = true
			delete(m.entries, key)
		}
		e.mu.Unlock()
	}
	m.entriesMu.Unlock()
	var err error
	if len(batch) > 0 {
		err = m.store.AddUsage(ctx, batch)
	}
	if err != nil {
		for e, p := range taken {
			e.mu.Lock()
			e.pending = append(p, e.pending...)
			e.mu.Unlock()
		}
		err = fmt.Errorf("%w: %w", ErrBackendUnavailable, err)
	}
	m.flushFailed.Store(err != nil)
	return err
}

// Close stops the background flush and writes what is pending. Call it
// after the HTTP server has stopped serving.
func (m *Meter) Close(ctx context.Context) error {
	m.closeOnce.Do(func() {
		close(m.stop)
		m.startOnce.Do(func() { close(m.done) })
	})
	select {
	case <-m.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return m.Flush(ctx)
}

// ClassReport is one class's line of a usage report.
type ClassReport struct {
	// Class is the metering class the line reports.
	Class Class
	// Budget, Used and Remaining are for the rolling 24-hour window.
	Budget, Used, Remaining int64
	// Week and Month are the 7-day and 30-day totals.
	Week, Month int64
}

// Report is a caller's usage across every class.
type Report struct {
	// Reset is the next hourly boundary.
	Reset time.Time
	// Classes follows the order of the class table.
	Classes []ClassReport
}

// Usage reports caller's usage of every class over 24 hours, 7 days and 30
// days: the database's totals plus this process's counts for caller that
// are not written yet, so a caller sees every request this process served
// it; other processes' counts show within their flush interval. It writes
// nothing: reading one's usage must not make the process write every
// subject's counts, nor hold the flush lock exclusively while it does.
func (m *Meter) Usage(ctx context.Context, caller Caller) (Report, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.cfg.BackendTimeout)
	defer cancel()
	now := m.cfg.Clock()
	day, week, month := WindowEnding(now, WindowHours), WindowEnding(now, WeekHours), WindowEnding(now, MonthHours)
	spans := []Span{day, week, month}
	firsts := []time.Time{day.First, week.First, month.First}

	// With flushMu shared and caller's entries locked, each pending unit is
	// either in the database or in an entry, never in flight between them,
	// so the sum below counts it exactly once.
	m.flushMu.RLock()
	defer m.flushMu.RUnlock()
	entries := m.lockEntries(caller.Subject)
	defer func() {
		for _, e := range entries {
			e.mu.Unlock()
		}
	}()
	totals, err := m.store.UsageTotals(ctx, caller.Subject, firsts, day.Last)
	if err != nil {
		return Report{}, fmt.Errorf("%w: %w", ErrBackendUnavailable, err)
	}
	r := Report{Reset: NextReset(now)}
	for _, c := range Classes {
		t := totals[string(c.Class)]
		if t == nil {
			t = make([]int64, len(spans))
		}
		if e := entries[c.Class]; e != nil {
			for i, s := range spans {
				t[i] += e.pendingIn(s)
			}
		}
		budget := m.cfg.Budgets.Limit(caller.Tier, c.Class)
		r.Classes = append(r.Classes, ClassReport{
			Class: c.Class, Budget: budget, Used: t[0], Remaining: max(0, budget-t[0]), Week: t[1], Month: t[2],
		})
	}
	return r, nil
}

// lockEntries returns subject's existing entries by class, each locked, in
// the order of the class table. The caller holds flushMu (shared), so no
// flush can evict them meanwhile, and unlocks them. Nothing else holds two
// entries' locks, so taking several here cannot deadlock.
func (m *Meter) lockEntries(subject string) map[Class]*entry {
	found := make(map[Class]*entry, len(Classes))
	m.entriesMu.Lock()
	for _, c := range Classes {
		if e := m.entries[entryKey{subject, c.Class}]; e != nil {
			found[c.Class] = e
		}
	}
	m.entriesMu.Unlock()
	for _, c := range Classes {
		if e := found[c.Class]; e != nil {
			e.mu.Lock()
		}
	}
	return found
}

// pendingIn returns the units of e not yet written whose hours lie in s.
// e.mu is held.
func (e *entry) pendingIn(s Span) int64 {
	var n int64
	for _, p := range e.pending {
		if !p.hour.Before(s.First) && !p.hour.After(s.Last) {
			n += p.count
		}
	}
	return n
}
