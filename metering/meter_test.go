package metering

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// fakeClock is a settable clock for walking windows hour by hour.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func budgets(t testing.TB, spec string) Budgets {
	t.Helper()
	b, err := DefaultBudgets().Override(spec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWindowSlidesHourByHour walks 60 hours: every hour some requests are
// admitted, and the usage each decision reports is the sum of the current
// hour's bucket and the 23 before it, nothing older; the reset is the next
// hourly boundary.
func TestWindowSlidesHourByHour(t *testing.T) {
	t.Parallel()
	st := store.New(storetest.New(t))
	start := time.Date(2026, 1, 10, 0, 5, 0, 0, time.UTC)
	clock := &fakeClock{t: start}
	m := New(Config{Clock: clock.Now, Budgets: budgets(t, "free.decide=100000")}, st)
	defer m.Close(context.Background())
	caller := Caller{Subject: "key:1", Tier: "free"}
	ctx := context.Background()

	perHour := map[int]int64{}
	for h := range 60 {
		// Vary the minute within the hour so cached reads cross the
		// boundary at different offsets.
		clock.Set(start.Add(time.Duration(h)*time.Hour + time.Duration(h%4)*10*time.Minute))
		for range h%3 + 1 {
			d, err := m.Admit(ctx, caller, ClassDecide, 1)
			if err != nil {
				t.Fatal(err)
			}
			perHour[h]++
			var want int64
			for i := max(0, h-23); i <= h; i++ {
				want += perHour[i]
			}
			if d.Used != want || d.Remaining != 100000-want {
				t.Fatalf("hour %d: used %d remaining %d, want used %d", h, d.Used, d.Remaining, want)
			}
			if wantReset := HourOf(clock.Now()).Add(time.Hour); !d.Reset.Equal(wantReset) {
				t.Fatalf("hour %d: reset %v, want %v", h, d.Reset, wantReset)
			}
		}
		if h%12 == 11 {
			r, err := m.Usage(ctx, caller)
			if err != nil {
				t.Fatal(err)
			}
			var day, week int64
			for i := 0; i <= h; i++ {
				if i > h-24 {
					day += perHour[i]
				}
				week += perHour[i]
			}
			got := r.Classes[0]
			if got.Class != ClassDecide || got.Used != day || got.Week != week || got.Month != week {
				t.Fatalf("hour %d: usage report %+v, want used %d, week and month %d", h, got, day, week)
			}
		}
	}
}

// TestEnforcedAndReportOnly: an enforced class refuses the request that
// would pass the budget and does not count it; the report-only class
// counts and serves it.
func TestEnforcedAndReportOnly(t *testing.T) {
	t.Parallel()
	st := store.New(storetest.New(t))
	m := New(Config{Budgets: budgets(t, "free.decide=3,free.generate=2")}, st)
	defer m.Close(context.Background())
	ctx := context.Background()
	caller := Caller{Subject: "key:7", Tier: "free"}
	var allowed []bool
	for range 5 {
		d, err := m.Admit(ctx, caller, ClassDecide, 1)
		if err != nil {
			t.Fatal(err)
		}
		allowed = append(allowed, d.Allowed)
		if d.Over == d.Allowed {
			t.Fatalf("decide: allowed %v but over %v", d.Allowed, d.Over)
		}
	}
	if want := []bool{true, true, true, false, false}; !slices.Equal(allowed, want) {
		t.Fatalf("decide admissions %v, want %v", allowed, want)
	}
	for i := range 4 {
		d, err := m.Admit(ctx, caller, ClassGenerate, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed || d.Over != (i >= 2) || d.Used != int64(i+1) {
			t.Fatalf("generate call %d: %+v", i+1, d)
		}
	}
	r, err := m.Usage(ctx, caller)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Classes {
		want := map[Class]int64{ClassDecide: 3, ClassGenerate: 4}[c.Class]
		if c.Used != want {
			t.Errorf("%s: used %d, want %d (refused requests are not counted; report-only ones are)", c.Class, c.Used, want)
		}
	}
}

// TestTwoMetersOneDatabase runs N goroutines × M requests split over two
// meters (two accumulators) on one database. Under the budget every request
// is stored exactly once; over it, the admitted count lies between the
// budget and the budget plus the documented slack of one other process.
func TestTwoMetersOneDatabase(t *testing.T) {
	t.Parallel()
	const goroutines, perGoroutine = 8, 150
	cases := []struct {
		name         string
		tier         string
		budget, cost int64
	}{
		{"under budget", "free", 1_000_000, 1},
		{"over budget", "free", 400, 1},
		{"over budget, anonymous trace and explanation", Anonymous, 2_000, 11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pool := storetest.New(t)
			cfg := Config{
				Budgets:        Budgets{c.tier: {ClassDecide: c.budget}},
				FlushInterval:  5 * time.Millisecond,
				WindowCacheTTL: time.Hour, // only the slack forces reads
			}
			meters := []*Meter{New(cfg, store.New(pool)), New(cfg, store.New(pool))}
			caller := Caller{Subject: "key:42", Tier: c.tier}
			var admitted atomic.Int64
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for range perGoroutine {
						d, err := meters[g%2].Admit(context.Background(), caller, ClassDecide, c.cost)
						if err != nil {
							t.Error(err)
							return
						}
						if d.Allowed {
							admitted.Add(c.cost)
						}
					}
				})
			}
			wg.Wait()
			for _, m := range meters {
				if err := m.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			w := WindowEnding(time.Now(), WindowHours)
			stored, err := store.New(pool).UsageSum(context.Background(), caller.Subject, string(ClassDecide), w.First, w.Last)
			if err != nil {
				t.Fatal(err)
			}
			total := int64(goroutines*perGoroutine) * c.cost
			// One other process's slack, or one request if dearer.
			slack := max(meters[0].Slack(c.budget), c.cost)
			switch {
			case stored != admitted.Load():
				t.Fatalf("stored %d units, admitted %d", stored, admitted.Load())
			case c.budget >= total && stored != total:
				t.Fatalf("stored %d units, want all %d", stored, total)
			case c.budget < total && (stored <= c.budget-c.cost || stored > c.budget+slack):
				// Refusals are never wrong: the budget is used up to less
				// than one request.
				t.Fatalf("admitted %d units with budget %d: want more than budget - %d and at most budget + slack %d", stored, c.budget, c.cost, slack)
			}
			t.Logf("%d units asked, budget %d, admitted %d (slack %d)", total, c.budget, stored, slack)
		})
	}
}

// TestUnreachableStore: with degradation off (a negative OutageFraction),
// when the counter store cannot be reached Admit fails with
// ErrBackendUnavailable rather than admitting unmetered, both for a caller
// it has never read and, once a flush has failed, for one it has.
func TestUnreachableStore(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	m := New(Config{WindowCacheTTL: time.Hour, OutageFraction: -1, Logger: slog.New(slog.DiscardHandler)}, store.New(pool))
	defer m.Close(context.Background())
	ctx := context.Background()
	known := Caller{Subject: "ip:198.51.100.7", Tier: Anonymous}
	if d, err := m.Admit(ctx, known, ClassDecide, 1); err != nil || !d.Allowed {
		t.Fatalf("before the outage: %+v %v", d, err)
	}
	pool.Close()
	if _, err := m.Admit(ctx, Caller{Subject: "ip:198.51.100.8", Tier: Anonymous}, ClassDecide, 1); !errors.Is(err, ErrBackendUnavailable) {
		t.Fatalf("new caller during the outage: %v, want ErrBackendUnavailable", err)
	}
	if err := m.Flush(ctx); !errors.Is(err, ErrBackendUnavailable) {
		t.Fatalf("flush during the outage: %v", err)
	}
	if _, err := m.Admit(ctx, known, ClassDecide, 1); !errors.Is(err, ErrBackendUnavailable) {
		t.Fatalf("known caller after a failed flush: %v, want ErrBackendUnavailable", err)
	}
	if _, err := m.Usage(ctx, known); !errors.Is(err, ErrBackendUnavailable) {
		t.Fatalf("usage during the outage: %v", err)
	}
}

// TestOutageShare: while the counter store is unreachable, a meter admits
// each subject and class up to its outage share (5% of a 400 budget: 20),
// never past the budget as last read, then fails with
// ErrBackendUnavailable; once the store is back, the counts admitted
// during the outage are written and the window is read again.
func TestOutageShare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	direct := storetest.New(t)
	proxied, outage := storetest.Proxied(t, direct)
	clock := &fakeClock{t: time.Date(2026, 1, 10, 9, 5, 0, 0, time.UTC)}
	m := withoutBackgroundFlush(New(Config{Clock: clock.Now, Budgets: budgets(t, "free.decide=400"),
		Logger: slog.New(slog.DiscardHandler)}, store.New(proxied)))
	defer m.Close(ctx)
	known := Caller{Subject: "key:1", Tier: "free"}
	nearlySpent := Caller{Subject: "key:2", Tier: "free"}
	unseen := Caller{Subject: "key:3", Tier: "free"}
	// key:2 has used 395 of its 400 before the outage.
	w := WindowEnding(clock.Now(), WindowHours)
	if err := store.New(direct).AddUsage(ctx, []store.UsageCount{{Subject: nearlySpent.Subject, Class: string(ClassDecide), Hour: w.Last, Count: 395}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Caller{known, nearlySpent} {
		if d, err := m.Admit(ctx, c, ClassDecide, 1); err != nil || !d.Allowed {
			t.Fatalf("%s before the outage: %+v %v", c.Subject, d, err)
		}
	}

	outage.Cut()
	clock.Set(clock.Now().Add(2 * time.Second)) // past the cached read
	admit := func(c Caller) (admitted int, err error) {
		for range 100 {
			d, err := m.Admit(ctx, c, ClassDecide, 1)
			if err != nil {
				return admitted, err
			}
			if !d.Allowed {
				return admitted, nil
			}
			admitted++
		}
		return admitted, nil
	}
	for _, c := range []struct {
		caller  Caller
		want    int
		wantErr bool
	}{
		{known, 20, true},       // the share, then 503
		{unseen, 20, true},      // the share, against a window it never read
		{nearlySpent, 4, false}, // the budget as last read comes first: refused, not 503
	} {
		n, err := admit(c.caller)
		if n != c.want || errors.Is(err, ErrBackendUnavailable) != c.wantErr {
			t.Errorf("%s during the outage: %d admitted, %v; want %d, error %v", c.caller.Subject, n, err, c.want, c.wantErr)
		}
	}

	outage.Restore()
	clock.Set(clock.Now().Add(2 * time.Second))
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		caller Caller
		want   int64
	}{{known, 21}, {unseen, 20}, {nearlySpent, 400}} {
		n, err := store.New(direct).UsageSum(ctx, c.caller.Subject, string(ClassDecide), w.First, w.Last)
		if err != nil || n != c.want {
			t.Errorf("%s after the outage: %d units stored, want %d (%v)", c.caller.Subject, n, c.want, err)
		}
	}
	if d, err := m.Admit(ctx, known, ClassDecide, 1); err != nil || !d.Allowed || d.Used != 22 {
		t.Errorf("after the outage: %+v %v, want admitted with 22 used", d, err)
	}
}

// withoutBackgroundFlush keeps m's periodic flush from ever starting, so
// that counts stay pending until the test or an Admit read writes them;
// Close still writes them.
func withoutBackgroundFlush(m *Meter) *Meter {
	m.startOnce.Do(func() { close(m.done) })
	return m
}

// TestUsageIncludesPendingWithoutWriting: a usage report made right after
// admissions includes this process's unwritten counts, in the day, week
// and month totals, and writes nothing: neither the caller's counts nor
// another subject's reach the database because of it.
func TestUsageIncludesPendingWithoutWriting(t *testing.T) {
	t.Parallel()
	st := store.New(storetest.New(t))
	clock := &fakeClock{t: time.Date(2026, 3, 2, 10, 20, 0, 0, time.UTC)}
	m := withoutBackgroundFlush(New(Config{
		Clock: clock.Now, WindowCacheTTL: time.Hour, SlackFraction: 0.5,
		Budgets: budgets(t, "free.decide=1000,free.generate=1000"),
	}, st))
	defer m.Close(context.Background())
	ctx := context.Background()
	caller, other := Caller{Subject: "key:1", Tier: "free"}, Caller{Subject: "key:2", Tier: "free"}
	admit := func(c Caller, class Class, n int) {
		t.Helper()
		for range n {
			if d, err := m.Admit(ctx, c, class, 1); err != nil || !d.Allowed {
				t.Fatalf("admit %s %s: %+v %v", c.Subject, class, d, err)
			}
		}
	}
	stored := func(c Caller, class Class) int64 {
		t.Helper()
		w := WindowEnding(clock.Now(), WindowHours)
		n, err := st.UsageSum(ctx, c.Subject, string(class), w.First, w.Last)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Hour 10: 5 decide calls, pending. Hour 11: the first call writes
	// those 5 and reads; 3 decide and 3 generate calls stay pending, and
	// so do the other subject's 6.
	admit(caller, ClassDecide, 5)
	clock.Set(clock.Now().Add(time.Hour))
	admit(caller, ClassDecide, 3)
	admit(caller, ClassGenerate, 3)
	admit(other, ClassDecide, 6)
	before := map[string]int64{
		"caller decide": stored(caller, ClassDecide), "caller generate": stored(caller, ClassGenerate),
		"other decide": stored(other, ClassDecide),
	}
	if want := map[string]int64{"caller decide": 5, "caller generate": 0, "other decide": 0}; !maps.Equal(before, want) {
		t.Fatalf("stored before the report %v, want %v (the test needs counts still pending)", before, want)
	}

	r, err := m.Usage(ctx, caller)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Classes {
		want := map[Class]int64{ClassDecide: 8, ClassGenerate: 3}[c.Class]
		if c.Used != want || c.Week != want || c.Month != want || c.Remaining != c.Budget-want {
			t.Errorf("%s: %+v, want used, week and month %d", c.Class, c, want)
		}
	}
	after := map[string]int64{
		"caller decide": stored(caller, ClassDecide), "caller generate": stored(caller, ClassGenerate),
		"other decide": stored(other, ClassDecide),
	}
	if !maps.Equal(after, before) {
		t.Fatalf("stored after the report %v, before %v: the report wrote counts", after, before)
	}
	// The counts are still pending and are written exactly once.
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err = m.Usage(ctx, caller); err != nil || r.Classes[0].Used != 8 {
		t.Fatalf("after the flush: %+v %v, want decide used 8", r.Classes, err)
	}
	if got := stored(other, ClassDecide); got != 6 {
		t.Fatalf("other subject stored %d after the flush, want 6", got)
	}
}

// TestRetryAtFirstBoundaryThatAdmits spends an anonymous budget of 10 over
// hours 0, 3 and 7 (4, 3 and 3 units; the last 3 still unwritten), is
// refused at 7:40, and checks that RetryAt names the boundary at which
// enough old usage has left the window for the refused cost: refused a
// minute before it, admitted on it.
func TestRetryAtFirstBoundaryThatAdmits(t *testing.T) {
	t.Parallel()
	pool := storetest.New(t)
	start := time.Date(2026, 6, 1, 0, 10, 0, 0, time.UTC)
	hour := func(h int) time.Time { return start.Truncate(time.Hour).Add(time.Duration(h) * time.Hour) }
	cases := []struct {
		cost int64
		want time.Time
	}{
		{1, hour(24)},  // hour 0 leaves: 6 used, 6 + 1 ≤ 10
		{4, hour(24)},  // 6 + 4 = 10, exactly the budget
		{5, hour(27)},  // 6 + 5 > 10; hour 3 leaves too: 3 + 5 ≤ 10
		{8, hour(31)},  // only an empty window has room for 8
		{11, hour(31)}, // dearer than the budget: when the window is empty
	}
	for _, c := range cases {
		t.Run(strconv.FormatInt(c.cost, 10), func(t *testing.T) {
			t.Parallel()
			clock := &fakeClock{t: start}
			m := withoutBackgroundFlush(New(Config{
				Clock: clock.Now, WindowCacheTTL: time.Hour, SlackFraction: 1,
				Budgets: Budgets{Anonymous: {ClassDecide: 10}},
			}, store.New(pool)))
			defer m.Close(context.Background())
			ctx := context.Background()
			caller := Caller{Subject: "ip:192.0.2." + strconv.FormatInt(c.cost, 10), Tier: Anonymous}
			admit := func(at time.Time, cost int64) Decision {
				t.Helper()
				clock.Set(at)
				d, err := m.Admit(ctx, caller, ClassDecide, cost)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			for _, spend := range []struct {
				hour  int
				units int64
			}{{0, 4}, {3, 3}, {7, 3}} {
				if d := admit(hour(spend.hour).Add(5*time.Minute), spend.units); !d.Allowed {
					t.Fatalf("spending %d at hour %d: %+v", spend.units, spend.hour, d)
				}
			}
			if d := admit(hour(7).Add(40*time.Minute), c.cost); d.Allowed {
				t.Fatalf("cost %d with the budget spent: %+v, want refused", c.cost, d)
			}
			got, err := m.RetryAt(ctx, caller, ClassDecide, c.cost)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(c.want) {
				t.Fatalf("retry at %v, want %v", got, c.want)
			}
			if d := admit(c.want.Add(-time.Minute), c.cost); d.Allowed {
				t.Fatalf("a minute before %v: %+v, want refused", c.want, d)
			}
			d := admit(c.want, c.cost)
			if c.cost > 10 {
				if d.Allowed || d.Remaining != 10 {
					t.Fatalf("at %v, cost above the budget: %+v, want refused with the whole budget free", c.want, d)
				}
				return
			}
			if !d.Allowed {
				t.Fatalf("at %v: %+v, want admitted", c.want, d)
			}
		})
	}
}

// TestRetryAtReusesItsRead: within WindowCacheTTL and the hour, RetryAt
// answers from its last read, so usage written meanwhile does not show;
// after the TTL it reads again.
func TestRetryAtReusesItsRead(t *testing.T) {
	t.Parallel()
	st := store.New(storetest.New(t))
	clock := &fakeClock{t: time.Date(2026, 6, 1, 12, 10, 0, 0, time.UTC)}
	m := New(Config{Clock: clock.Now, WindowCacheTTL: time.Minute, Budgets: Budgets{Anonymous: {ClassDecide: 10}}}, st)
	defer m.Close(context.Background())
	ctx := context.Background()
	caller := Caller{Subject: "ip:192.0.2.1", Tier: Anonymous}
	h := HourOf(clock.Now())
	if err := st.AddUsage(ctx, []store.UsageCount{{Subject: caller.Subject, Class: string(ClassDecide), Hour: h.Add(-20 * time.Hour), Count: 10}}); err != nil {
		t.Fatal(err)
	}
	retry := func() time.Time {
		t.Helper()
		got, err := m.RetryAt(ctx, caller, ClassDecide, 1)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := retry(), h.Add(4*time.Hour); !got.Equal(want) {
		t.Fatalf("retry at %v, want %v", got, want)
	}
	// Another process fills the current hour too.
	if err := st.AddUsage(ctx, []store.UsageCount{{Subject: caller.Subject, Class: string(ClassDecide), Hour: h, Count: 10}}); err != nil {
		t.Fatal(err)
	}
	clock.Set(clock.Now().Add(59 * time.Second))
	if got, want := retry(), h.Add(4*time.Hour); !got.Equal(want) {
		t.Fatalf("within the TTL: retry at %v, want the cached %v", got, want)
	}
	clock.Set(clock.Now().Add(time.Second))
	if got, want := retry(), h.Add(24*time.Hour); !got.Equal(want) {
		t.Fatalf("after the TTL: retry at %v, want %v", got, want)
	}
}
