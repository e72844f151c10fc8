package worker

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/eligo/eligo/store"
)

// PartitionsAhead is how many months after the current one the
// decision_partitions job keeps a partition ready for, so that a record
// lands in its month's partition even if the job has not run for a while.
const PartitionsAhead = 3

// DecisionPartitionsArgs asks for the decisions table's month partitions
// to be maintained: the current month's and PartitionsAhead more created,
// the records the default partition caught filed into their months, and,
// when Retention is set, the months entirely older than it dropped. It
// runs hourly; a second run in a row finds nothing to do.
type DecisionPartitionsArgs struct {
	// Retention is how long records are kept, from the configuration of
	// the process that scheduled the job (River's leader); zero keeps
	// everything.
	Retention Retention `json:"retention"`
}

// Kind is the job's name in River's table.
func (DecisionPartitionsArgs) Kind() string { return "decision_partitions" }

// Retention is how long decision records are kept: Months calendar months
// and Days days (`--decision-retention`, 13mo or 400d). The zero value
// keeps everything, the default.
type Retention struct {
	Months int `json:"months,omitempty"`
	Days   int `json:"days,omitempty"`
}

// ParseRetention reads a retention: a count of months (13mo) or of days
// (400d); empty or 0 keeps everything.
func ParseRetention(s string) (Retention, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return Retention{}, nil
	}
	bad := fmt.Errorf("decision retention %q: want a count of months or days such as 13mo or 400d, or 0 to keep every record", s)
	digits, unit := s, ""
	if d, ok := strings.CutSuffix(s, "mo"); ok {
		digits, unit = d, "mo"
	} else if d, ok := strings.CutSuffix(s, "d"); ok {
		digits, unit = d, "d"
	}
	n, err := strconv.Atoi(digits)
	if unit == "" || err != nil || n < 1 || n > 36600 {
		return Retention{}, bad
	}
	if unit == "mo" {
		return Retention{Months: n}, nil
	}
	return Retention{Days: n}, nil
}

// String is the retention as ParseRetention reads it.
func (r Retention) String() string {
	switch {
	case r.Months > 0:
		return strconv.Itoa(r.Months) + "mo"
	case r.Days > 0:
		return strconv.Itoa(r.Days) + "d"
	}
	return "0"
}

// Cutoff returns the instant before which records are past r at now; ok is
// false when r keeps everything.
func (r Retention) Cutoff(now time.Time) (cutoff time.Time, ok bool) {
	if r.Months <= 0 && r.Days <= 0 {
		return time.Time{}, false
	}
	return now.UTC().AddDate(0, -r.Months, -r.Days), true
}

// DecisionPartitionsOutput is what a run records on its job row.
type DecisionPartitionsOutput struct {
	// Created names the month partitions made ahead.
	Created []string `json:"created,omitempty"`
	// Filed lists the months (2006-01) whose records the default
	// partition held and that now have their own partition.
	Filed []string `json:"filed,omitempty"`
	// Cutoff is the retention's cutoff, when one is set: only partitions
	// ending at or before it are dropped.
	Cutoff *time.Time `json:"cutoff,omitempty"`
	// Dropped names the partitions detached and dropped.
	Dropped []string `json:"dropped,omitempty"`
}

// DecisionPartitionsWorker maintains the decisions table's month
// partitions (migrations/0014_decisions_partitioned.sql).
type DecisionPartitionsWorker struct {
	// WorkerDefaults gives the job River's defaults for middleware, the
	// retry schedule and the timeout; it overrides none of them.
	river.WorkerDefaults[DecisionPartitionsArgs]
	store *store.Store
	// now is the clock the months and the cutoff are read from.
	now func() time.Time
}

// Work creates the partitions ahead, files the default partition's
// records, then drops the months past retention, and records what it did.
// A partition is dropped only whole: one whose last instant is before the
// cutoff.
func (w *DecisionPartitionsWorker) Work(ctx context.Context, job *river.Job[DecisionPartitionsArgs]) error {
	var out DecisionPartitionsOutput
	now := w.now()
	for i := range PartitionsAhead + 1 {
		month := store.MonthStart(now).AddDate(0, i, 0)
		created, err := w.store.AddDecisionPartition(ctx, month)
		if err != nil {
			return err
		}
		if created {
			out.Created = append(out.Created, "decisions_"+month.Format("2006_01"))
		}
	}
	stray, err := w.store.DefaultDecisionMonths(ctx)
	if err != nil {
		return err
	}
	for _, month := range stray {
		if _, err := w.store.AddDecisionPartition(ctx, month); err != nil {
			return err
		}
		out.Filed = append(out.Filed, month.Format("2006-01"))
	}
	if cutoff, ok := job.Args.Retention.Cutoff(now); ok {
		out.Cutoff = &cutoff
		parts, err := w.store.DecisionPartitions(ctx)
		if err != nil {
			return err
		}
		for _, p := range parts {
			if p.To.After(cutoff) {
				continue
			}
			if err := w.store.DropDecisionPartition(ctx, p); err != nil {
				return err
			}
			out.Dropped = append(out.Dropped, p.Name)
		}
	}
	if err := river.RecordOutput(ctx, out); err != nil {
		return fmt.Errorf("decision partitions: record output: %w", err)
	}
	return nil
}
