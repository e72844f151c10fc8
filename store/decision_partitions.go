package store

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// The decisions table is range-partitioned by decided_at, one partition per
// calendar month in UTC, named decisions_YYYY_MM, beside a default
// partition that catches a record no month covers
// (migrations/0014_decisions_partitioned.sql says why the primary key is
// (decision_id, decided_at) and how idempotency and lookups by id hold).

// DecisionPartition is one month partition of the decisions table.
type DecisionPartition struct {
	// Name is the partition's table, decisions_YYYY_MM.
	Name string
	// From is the first instant it holds (the month's first midnight,
	// UTC) and To the first it does not (the next month's).
	From, To time.Time
}

// MonthStart returns the first instant of t's calendar month in UTC: the
// lower bound of the partition that holds a decision made at t.
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// partitionName matches the month partitions decisions_add_partition
// makes; any other partition (the default, or one attached by hand) is
// none of this code's business.
var partitionName = regexp.MustCompile(`^decisions_([0-9]{4,})_([0-9]{2})$`)

// partitionOf returns the month partition called name; ok is false when
// name is not one.
func partitionOf(name string) (DecisionPartition, bool) {
	m := partitionName.FindStringSubmatch(name)
	if m == nil {
		return DecisionPartition{}, false
	}
	year, _ := strconv.Atoi(m[1])
	month, _ := strconv.Atoi(m[2])
	if month < 1 || month > 12 {
		return DecisionPartition{}, false
	}
	from := time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC)
	return DecisionPartition{Name: name, From: from, To: from.AddDate(0, 1, 0)}, true
}

const sqlAddDecisionPartition = `SELECT decisions_add_partition($1)`

// AddDecisionPartition creates the partition of month's calendar month
// (UTC) unless it exists, moving into it the rows of that month the default
// partition holds. created is false when it existed already, so calling it
// again is harmless.
func (s *Store) AddDecisionPartition(ctx context.Context, month time.Time) (created bool, err error) {
	var name *string
	if err := s.pool.QueryRow(ctx, sqlAddDecisionPartition, MonthStart(month)).Scan(&name); err != nil {
		return false, fmt.Errorf("add the decisions partition of %s: %w", MonthStart(month).Format("2006-01"), err)
	}
	return name != nil, nil
}

const sqlDecisionPartitions = `
SELECT c.relname
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'decisions'::regclass
ORDER BY c.relname`

// DecisionPartitions returns the month partitions of the decisions table,
// oldest first.
func (s *Store) DecisionPartitions(ctx context.Context) ([]DecisionPartition, error) {
	rows, err := s.pool.Query(ctx, sqlDecisionPartitions)
	if err != nil {
		return nil, fmt.Errorf("list the decisions partitions: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list the decisions partitions: %w", err)
	}
	var parts []DecisionPartition
	for _, name := range names {
		if p, ok := partitionOf(name); ok {
			parts = append(parts, p)
		}
	}
	return parts, nil
}

const sqlDefaultDecisionMonths = `
SELECT DISTINCT date_trunc('month', decided_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
FROM decisions_default ORDER BY 1`

// DefaultDecisionMonths returns the months (their first instant, UTC) of
// the records the default partition holds: those recorded while their
// month had no partition. AddDecisionPartition files them.
func (s *Store) DefaultDecisionMonths(ctx context.Context) ([]time.Time, error) {
	rows, err := s.pool.Query(ctx, sqlDefaultDecisionMonths)
	if err != nil {
		return nil, fmt.Errorf("months in the default decisions partition: %w", err)
	}
	months, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return nil, fmt.Errorf("months in the default decisions partition: %w", err)
	}
	for i := range months {
		months[i] = months[i].UTC()
	}
	return months, nil
}

// DropLockTimeout bounds how long DropDecisionPartition waits for its lock
// on the decisions table. DETACH needs the table to itself for a moment,
// and while it waits (behind a long read of the table, say) every write to
// the table queues behind it; past this the drop gives up, to be tried
// again on the job's next run.
const DropLockTimeout = 2 * time.Second

// The statements of DropDecisionPartition, run in one transaction. It
// cannot DETACH ... CONCURRENTLY: PostgreSQL refuses that on a table with a
// default partition.
var (
	sqlDropLockTimeout = fmt.Sprintf(`SET LOCAL lock_timeout = %d`, DropLockTimeout.Milliseconds())
	sqlDetachDecisions = `ALTER TABLE decisions DETACH PARTITION %s`
	sqlDropDetached    = `DROP TABLE %s`
)

// DropDecisionPartition detaches the month partition p from the decisions
// table and drops it, with every record it holds.
func (s *Store) DropDecisionPartition(ctx context.Context, p DecisionPartition) error {
	if _, ok := partitionOf(p.Name); !ok {
		return fmt.Errorf("drop decisions partition %q: not a month partition", p.Name)
	}
	name := pgx.Identifier{p.Name}.Sanitize()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, stmt := range []string{sqlDropLockTimeout, fmt.Sprintf(sqlDetachDecisions, name), fmt.Sprintf(sqlDropDetached, name)} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop decisions partition %s: %w", p.Name, err)
	}
	return nil
}
