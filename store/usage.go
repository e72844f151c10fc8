package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// UsageCount is an increment of one metering bucket: Count requests (or
// cost units) by Subject in Class during the UTC hour starting at Hour.
type UsageCount struct {
	// Subject is who is counted: "key:<id>" for a keyed caller, "ip:<addr>"
	// for an anonymous one (metering.KeySubject, metering.AddrSubject).
	Subject string
	// Class is the metering class of the requests, e.g. "decide".
	Class string
	// Hour is the start of the UTC hour the requests fell in; callers
	// truncate it (metering.HourOf).
	Hour time.Time
	// Count is the increment in cost units: one per ordinary request, more
	// for a request that costs more (the cost passed to metering's Admit).
	Count int64
}

// sqlAddUsage adds counts to their buckets, creating missing rows. Rows
// arrive sorted by key so that concurrent writers lock rows in one order
// and cannot deadlock each other.
const sqlAddUsage = `
INSERT INTO usage_buckets AS b (subject, class, hour, count)
SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[])
ON CONFLICT (subject, class, hour) DO UPDATE SET count = b.count + EXCLUDED.count`

// sqlUsageSum is the rolling-window read: one range scan of the primary
// key.
const sqlUsageSum = `
SELECT COALESCE(sum(count), 0)::bigint FROM usage_buckets
WHERE subject = $1 AND class = $2 AND hour BETWEEN $3 AND $4`

// AddUsage adds counts to their hourly buckets in one statement. Counts for
// the same bucket are merged first.
func (s *Store) AddUsage(ctx context.Context, counts []UsageCount) error {
	if len(counts) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, sqlAddUsage, usageArgs(counts)...); err != nil {
		return fmt.Errorf("add usage (%d buckets): %w", len(counts), err)
	}
	return nil
}

// AddUsageAndSum adds counts (as AddUsage) and then returns the sum of
// subject's class buckets with hours in [first, last], the two in one round
// trip and one transaction, so the sum includes the counts just added.
func (s *Store) AddUsageAndSum(ctx context.Context, counts []UsageCount, subject, class string, first, last time.Time) (int64, error) {
	batch := &pgx.Batch{}
	if len(counts) > 0 {
		batch.Queue(sqlAddUsage, usageArgs(counts)...)
	}
	var sum int64
	batch.Queue(sqlUsageSum, subject, class, first, last).QueryRow(func(row pgx.Row) error {
		return row.Scan(&sum)
	})
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return 0, fmt.Errorf("add and sum usage of %s/%s: %w", subject, class, err)
	}
	return sum, nil
}

// UsageSum returns the sum of subject's class buckets with hours in [first,
// last].
func (s *Store) UsageSum(ctx context.Context, subject, class string, first, last time.Time) (int64, error) {
	return s.AddUsageAndSum(ctx, nil, subject, class, first, last)
}

// sqlUsageByHour lists one subject's class buckets in a range of hours:
// the same range scan of the primary key as sqlUsageSum, without the sum.
const sqlUsageByHour = `
SELECT hour, count FROM usage_buckets
WHERE subject = $1 AND class = $2 AND hour BETWEEN $3 AND $4
ORDER BY hour`

// UsageByHour returns subject's class buckets with hours in [first, last],
// oldest first; hours without a row are absent. Metering reads it to work
// out when enough old usage leaves the window to admit a refused request.
func (s *Store) UsageByHour(ctx context.Context, subject, class string, first, last time.Time) ([]UsageCount, error) {
	rows, err := s.pool.Query(ctx, sqlUsageByHour, subject, class, first, last)
	if err != nil {
		return nil, fmt.Errorf("usage of %s/%s by hour: %w", subject, class, err)
	}
	var out []UsageCount
	var hour time.Time
	var count int64
	_, err = pgx.ForEachRow(rows, []any{&hour, &count}, func() error {
		out = append(out, UsageCount{Subject: subject, Class: class, Hour: hour.UTC(), Count: count})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("usage of %s/%s by hour: %w", subject, class, err)
	}
	return out, nil
}

// usageArgs merges counts by bucket, sorts them by key and returns the four
// column arrays of sqlAddUsage.
func usageArgs(counts []UsageCount) []any {
	type bucket struct {
		subject, class string
		hour           int64
	}
	merged := map[bucket]int64{}
	for _, c := range counts {
		merged[bucket{c.Subject, c.Class, c.Hour.UTC().Unix()}] += c.Count
	}
	keys := make([]bucket, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b bucket) int {
		return cmp.Or(cmp.Compare(a.subject, b.subject), cmp.Compare(a.class, b.class), cmp.Compare(a.hour, b.hour))
	})
	subjects, classes := make([]string, len(keys)), make([]string, len(keys))
	hours, values := make([]time.Time, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		subjects[i], classes[i], hours[i], values[i] = k.subject, k.class, time.Unix(k.hour, 0).UTC(), merged[k]
	}
	return []any{subjects, classes, hours, values}
}

// sqlUsageTotals sums each class of a subject over several windows that
// all end at the same hour, in one scan of the subject's rows.
const sqlUsageTotals = `
SELECT b.class, w.n::int, sum(b.count)::bigint
FROM usage_buckets b
JOIN unnest($2::timestamptz[]) WITH ORDINALITY AS w(first, n) ON b.hour >= w.first
WHERE b.subject = $1 AND b.hour >= (SELECT min(f) FROM unnest($2::timestamptz[]) AS f) AND b.hour <= $3
GROUP BY b.class, w.n`

// UsageTotals returns, for each class subject has used, its totals over the
// windows that start at the given hours and end at last (inclusive):
// totals[class][i] belongs to firsts[i]. Classes never used are absent.
func (s *Store) UsageTotals(ctx context.Context, subject string, firsts []time.Time, last time.Time) (map[string][]int64, error) {
	rows, err := s.pool.Query(ctx, sqlUsageTotals, subject, firsts, last)
	if err != nil {
		return nil, fmt.Errorf("usage totals of %s: %w", subject, err)
	}
	totals := map[string][]int64{}
	var class string
	var n int
	var sum int64
	_, err = pgx.ForEachRow(rows, []any{&class, &n, &sum}, func() error {
		if n < 1 || n > len(firsts) {
			return fmt.Errorf("window %d out of range", n)
		}
		if totals[class] == nil {
			totals[class] = make([]int64, len(firsts))
		}
		totals[class][n-1] = sum
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("usage totals of %s: %w", subject, err)
	}
	return totals, nil
}

const sqlDeleteUsageBefore = `DELETE FROM usage_buckets WHERE hour < $1`

// DeleteUsageBefore removes buckets of hours before cutoff, which no window
// reads any more, and returns how many rows went.
func (s *Store) DeleteUsageBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, sqlDeleteUsageBefore, cutoff)
	if err != nil {
		return 0, fmt.Errorf("delete usage before %s: %w", cutoff.Format(time.RFC3339), err)
	}
	return tag.RowsAffected(), nil
}
