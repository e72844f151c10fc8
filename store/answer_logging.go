package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The kinds of slug an answer logging setting is for: a ruleset's or a
// rulebook's (the two may share a slug).
const (
	KindRuleset  = "ruleset"
	KindRulebook = "rulebook"
)

// MaskedAnswer is what a masked field's answer is kept as: a fixed marker,
// whatever the answer was. Not a coarse form of it (a year for a date, a
// band for a number): a run over the log would decide a coarse answer as
// if it were the applicant's, and move cases across a limit without
// saying so, where the marker is refused as an answer and counted by
// field under the run's undecided cases (docs/decision-records.md#answer-logging).
const MaskedAnswer = "[masked]"

// AnswerLogging is a tenant's opt-in to keep the answers of the decisions
// its own keys make under one of its slugs (docs/decision-records.md#answer-logging).
// The zero value (Version 0) is off, the default.
type AnswerLogging struct {
	// TenantID owns the slug; Kind is KindRuleset or KindRulebook.
	TenantID, Kind, Slug string
	// Version names this setting as it was written: a new one, from a
	// sequence shared by every setting, on each write; 0 means off.
	Version int64
	// Dropped fields are left out of the answers kept; Masked fields'
	// answers are kept as MaskedAnswer. Field ids, sorted.
	Dropped, Masked []string
	// RetentionDays is how long a decision's answers are kept after it.
	RetentionDays int
	// UpdatedAt dates the write.
	UpdatedAt time.Time
}

// On reports whether the setting keeps answers.
func (a AnswerLogging) On() bool { return a.Version != 0 }

// Keep is fieldValues (a JSON object, as /decide read it) as the setting
// keeps it: its dropped fields left out, its masked ones' answers replaced
// by MaskedAnswer, members in key order. An answer holding a NUL
// character anywhere, which PostgreSQL's jsonb cannot hold, is kept as
// MaskedAnswer too, and a member whose name holds one (no field's) is
// left out: the database would otherwise refuse the decision's record,
// and the record would be lost with its answers
// (docs/decision-records.md#answer-logging).
func (a AnswerLogging) Keep(fieldValues []byte) (json.RawMessage, error) {
	var values map[string]json.RawMessage
	if err := json.Unmarshal(fieldValues, &values); err != nil {
		return nil, fmt.Errorf("read field_values to keep: %w", err)
	}
	if values == nil {
		values = map[string]json.RawMessage{}
	}
	for _, f := range a.Dropped {
		delete(values, f)
	}
	for f, v := range values {
		switch {
		case strings.ContainsRune(f, 0):
			delete(values, f)
		case slices.Contains(a.Masked, f) || holdsNUL(v):
			values[f] = json.RawMessage(`"` + MaskedAnswer + `"`)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(values); err != nil {
		return nil, fmt.Errorf("encode the answers kept: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// holdsNUL reports whether a JSON value holds a NUL character in a
// string or a member's name, at any depth: only a value that spells the
// escape \u0000 can, and only such a value is decoded to tell.
func holdsNUL(raw json.RawMessage) bool {
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return true // not read as /decide read it: kept as a marker
	}
	return nulIn(v)
}

// nulIn is holdsNUL over a decoded value.
func nulIn(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, 0)
	case []any:
		return slices.ContainsFunc(v, nulIn)
	case map[string]any:
		for k, x := range v {
			if strings.ContainsRune(k, 0) || nulIn(x) {
				return true
			}
		}
	}
	return false
}

const (
	answerLoggingColumns = `tenant_id, kind, slug, version, dropped, masked, retention_days, updated_at`

	sqlPutAnswerLogging = `
INSERT INTO answer_logging_settings AS a (tenant_id, kind, slug, version, dropped, masked, retention_days)
VALUES ($1, $2, $3, nextval('answer_logging_versions'), $4, $5, $6)
ON CONFLICT (tenant_id, kind, slug) DO UPDATE
SET version = EXCLUDED.version, dropped = EXCLUDED.dropped, masked = EXCLUDED.masked,
    retention_days = EXCLUDED.retention_days, updated_at = now()
RETURNING ` + answerLoggingColumns

	sqlAnswerLogging = `SELECT ` + answerLoggingColumns + ` FROM answer_logging_settings
WHERE tenant_id = $1 AND kind = $2 AND slug = $3`

	sqlDeleteAnswerLogging = `DELETE FROM answer_logging_settings WHERE tenant_id = $1 AND kind = $2 AND slug = $3`

	sqlDeleteExpiredAnswers = `DELETE FROM decision_answers WHERE expires_at <= now()`

	sqlLoggedAnswers = `SELECT decision_id, answers, decision_date, expires_at FROM decision_answers
WHERE tenant_id = $1 AND kind = $2 AND slug = $3 AND decided_at >= $4 AND decided_at < COALESCE($5::timestamptz, 'infinity') AND expires_at > now()
ORDER BY decided_at, decision_id`

	sqlLoggedAnswerOf = `SELECT decision_id, answers, decision_date, setting_version, expires_at FROM decision_answers
WHERE decision_id = $1`
)

func scanAnswerLogging(row pgx.Row) (AnswerLogging, error) {
	var a AnswerLogging
	err := row.Scan(&a.TenantID, &a.Kind, &a.Slug, &a.Version, &a.Dropped, &a.Masked, &a.RetentionDays, &a.UpdatedAt)
	a.Dropped, a.Masked = sortedOrEmpty(a.Dropped), sortedOrEmpty(a.Masked)
	return a, err
}

// PutAnswerLogging writes a's setting (its Dropped and Masked sorted) as a
// new version, and tells every process to drop its cached copy when the
// write commits (InvalidateAnswerLogging). The caller has checked that
// a.TenantID owns the slug and that the fields are the slug's.
func (s *Store) PutAnswerLogging(ctx context.Context, a AnswerLogging) (AnswerLogging, error) {
	dropped, masked := sortedOrEmpty(a.Dropped), sortedOrEmpty(a.Masked)
	var out AnswerLogging
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanAnswerLogging(tx.QueryRow(ctx, sqlPutAnswerLogging, a.TenantID, a.Kind, a.Slug, dropped, masked, a.RetentionDays))
		if err != nil {
			return err
		}
		return notify(ctx, tx, answerLoggingInvalidation(a))
	})
	if err != nil {
		return AnswerLogging{}, fmt.Errorf("write answer logging of %s %q: %w", a.Kind, a.Slug, err)
	}
	return out, nil
}

// sortedOrEmpty is list sorted, never nil (a JSON list, never null).
func sortedOrEmpty(list []string) []string {
	if len(list) == 0 {
		return []string{}
	}
	return slices.Sorted(slices.Values(list))
}

// AnswerLoggingOf reads the setting of the tenant's slug; ErrNotFound when
// it has none (answer logging is off).
func (s *Store) AnswerLoggingOf(ctx context.Context, tenantID, kind, slug string) (AnswerLogging, error) {
	a, err := scanAnswerLogging(s.pool.QueryRow(ctx, sqlAnswerLogging, tenantID, kind, slug))
	if errors.Is(err, pgx.ErrNoRows) {
		return AnswerLogging{}, ErrNotFound
	}
	if err != nil {
		return AnswerLogging{}, fmt.Errorf("read answer logging of %s %q: %w", kind, slug, err)
	}
	return a, nil
}

// DeleteAnswerLogging turns answer logging off for the tenant's slug, and
// tells every process; ErrNotFound when it was off. The answers already
// kept stay until their retention ends.
func (s *Store) DeleteAnswerLogging(ctx context.Context, tenantID, kind, slug string) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sqlDeleteAnswerLogging, tenantID, kind, slug)
		if err != nil {
			return fmt.Errorf("delete answer logging of %s %q: %w", kind, slug, err)
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return notify(ctx, tx, answerLoggingInvalidation(AnswerLogging{TenantID: tenantID, Kind: kind, Slug: slug}))
	})
}

// answerLoggingInvalidation names a's setting: the tenant as ID, the
// kind and slug as Slug.
func answerLoggingInvalidation(a AnswerLogging) Invalidation {
	return Invalidation{Kind: InvalidateAnswerLogging, ID: a.TenantID, Slug: a.Kind + ":" + a.Slug}
}

// DeleteExpiredAnswers removes every decision's answers whose retention
// has ended by the database's clock, and returns how many. (Answers past
// their retention that no prune has reached yet are already left out of
// every caseload made from the log.)
func (s *Store) DeleteExpiredAnswers(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, sqlDeleteExpiredAnswers)
	if err != nil {
		return 0, fmt.Errorf("delete expired answers: %w", err)
	}
	return tag.RowsAffected(), nil
}

// LoggedAnswer is one decision's answers as its slug's setting kept them.
type LoggedAnswer struct {
	// DecisionID names the decision.
	DecisionID string
	// Answers is the JSON object kept.
	Answers json.RawMessage
	// DecisionDate is the date it was decided as of; zero when unknown.
	DecisionDate time.Time
	// ExpiresAt is when its retention ends and it goes.
	ExpiresAt time.Time
	// SettingVersion is the setting it was kept under (read by
	// LoggedAnswerOf only).
	SettingVersion int64
}

// LoggedAnswers calls each with the unexpired answers kept for the
// tenant's slug of decisions made from since up to, not including, until,
// in decision order (a zero until: every one kept so far), one row at a
// time as the database sends them (never all in memory). An error of each
// stops the read and is returned.
func (s *Store) LoggedAnswers(ctx context.Context, tenantID, kind, slug string, since, until time.Time, each func(LoggedAnswer) error) error {
	var upTo any // no upper bound: every decision kept so far
	if !until.IsZero() {
		upTo = until
	}
	rows, err := s.pool.Query(ctx, sqlLoggedAnswers, tenantID, kind, slug, since, upTo)
	if err != nil {
		return fmt.Errorf("read answers logged for %s %q: %w", kind, slug, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			a    LoggedAnswer
			date *time.Time
		)
		if err := rows.Scan(&a.DecisionID, &a.Answers, &date, &a.ExpiresAt); err != nil {
			return fmt.Errorf("read answers logged for %s %q: %w", kind, slug, err)
		}
		if date != nil {
			a.DecisionDate = date.UTC()
		}
		if err := each(a); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read answers logged for %s %q: %w", kind, slug, err)
	}
	return nil
}

// LoggedAnswerOf reads the answers kept for one decision, expired or
// not; ErrNotFound when none were (logging was off) or they were pruned.
func (s *Store) LoggedAnswerOf(ctx context.Context, decisionID string) (LoggedAnswer, error) {
	var (
		a    LoggedAnswer
		date *time.Time
	)
	err := s.pool.QueryRow(ctx, sqlLoggedAnswerOf, decisionID).Scan(&a.DecisionID, &a.Answers, &date, &a.SettingVersion, &a.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return LoggedAnswer{}, ErrNotFound
	}
	if err != nil {
		return LoggedAnswer{}, fmt.Errorf("read answers of decision %s: %w", decisionID, err)
	}
	if date != nil {
		a.DecisionDate = date.UTC()
	}
	return a, nil
}
