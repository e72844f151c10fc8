package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// DecisionRecord is the durable record of one evaluation (one metered
// decision): the audit envelope and aggregate metadata, never the raw
// field_values unless the slug's owner turned answer logging on
// (AnswerLogging), and then only as that setting keeps them. A cache hit
// is its own record with CacheHit set.
type DecisionRecord struct {
	// DecisionID is the envelope's decision_id (dec_ + 16 URL-safe
	// characters), unique per call.
	DecisionID string
	// TenantID is the keyed caller's tenant; empty for an anonymous call.
	TenantID string
	// RulesetID is the concrete ruleset id that ran.
	RulesetID string
	// Slug is the resolved slug, or empty when the ruleset has none.
	Slug string
	// RulesetVersion is the v<N> label at the time of the call.
	RulesetVersion string
	// ContentDigest identifies the rules that ran (sha256:<hex>).
	ContentDigest string
	// EngineVersion is the engine build that decided (eligo-core@x.y.z).
	EngineVersion string
	// Outcome is eligible, not_eligible or undetermined.
	Outcome string
	// InputsHash is the sha256 of the canonical field_values.
	InputsHash string
	// Flags lists the request flags that were set, by their request names
	// (include_trace, no_cache, ...), in a fixed order.
	Flags []string
	// CacheHit is true when the decision was served from the decision
	// cache.
	CacheHit bool
	// FieldsProvided counts the non-null keys sent.
	FieldsProvided int
	// FieldErrors counts the field_errors entries.
	FieldErrors int
	// DecidedAt is the envelope's decision_time.
	DecidedAt time.Time
	// Duration is the server time spent on the call.
	Duration time.Duration
	// CallerRef is the caller's own attribution map; always nil for an
	// anonymous call (the table refuses one).
	CallerRef map[string]string
	// RulebookID names the rulebook of a rulebook call (RulesetID is then
	// empty); empty for a ruleset call.
	RulebookID string
	// ReleaseID is the release a rulebook call was served from; empty for
	// the live composition and for ruleset calls.
	ReleaseID string
	// DecisionDate is the date the decision was made as of (the request's
	// decision_date, else the day of the call, UTC), at midnight UTC: with
	// the inputs hash and the content digest, what a replay compares. Zero
	// on records written before it was kept (stored as NULL).
	DecisionDate time.Time
	// Answers is the request's field_values as the slug's answer logging
	// setting keeps them (its fields dropped and masked), a JSON object,
	// written beside the record in decision_answers; nil, the default,
	// when no setting is on, and the record then keeps only InputsHash.
	Answers json.RawMessage
	// AnswerSetting is the version of the setting Answers was kept under
	// (AnswerLogging.Version); 0 without answers.
	AnswerSetting int64
	// AnswerRetentionDays is how many days after DecidedAt Answers is
	// kept; 0 without answers.
	AnswerRetentionDays int
}

// AnswerKind is the kind of slug a record's answers are logged under:
// KindRulebook for a rulebook call, else KindRuleset.
func (d *DecisionRecord) AnswerKind() string {
	if d.RulebookID != "" {
		return KindRulebook
	}
	return KindRuleset
}

// decisionColumns are the columns InsertDecisions copies, in the order of
// decisionRow.
var decisionColumns = []string{
	"decision_id", "tenant_id", "ruleset_id", "slug", "ruleset_version", "content_digest",
	"engine_version", "outcome", "inputs_hash", "flags", "cache_hit", "fields_provided",
	"field_errors", "decided_at", "duration_us", "caller_ref", "rulebook_id", "release_id",
	"decision_date",
}

func decisionRow(d *DecisionRecord) []any {
	var tenant, callerRef, rulebook, release, date any
	if !d.DecisionDate.IsZero() {
		date = d.DecisionDate
	}
	if d.RulebookID != "" {
		rulebook = d.RulebookID
	}
	if d.ReleaseID != "" {
		release = d.ReleaseID
	}
	if d.TenantID != "" {
		tenant = d.TenantID
		if d.CallerRef != nil {
			callerRef = d.CallerRef
		}
	}
	flags := d.Flags
	if flags == nil {
		flags = []string{}
	}
	return []any{
		d.DecisionID, tenant, d.RulesetID, d.Slug, d.RulesetVersion, d.ContentDigest,
		d.EngineVersion, d.Outcome, d.InputsHash, flags, d.CacheHit, int32(d.FieldsProvided),
		int32(d.FieldErrors), d.DecidedAt, int32(d.Duration.Microseconds()), callerRef, rulebook, release,
		date,
	}
}

// InsertDecisions writes records with one COPY, all or none. A caller_ref
// on an anonymous record is dropped here as well as by the API, so no code
// path can store one.
func (s *Store) InsertDecisions(ctx context.Context, records []DecisionRecord) error {
	if len(records) == 0 {
		return nil
	}
	if len(records) <= pipelinedInsertMax {
		return s.insertDecisionsPipelined(ctx, records)
	}
	answered := withAnswers(records)
	if len(answered) == 0 {
		return copyDecisions(ctx, s.pool, records)
	}
	// Records and their answers are written all or none: one transaction.
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := copyDecisions(ctx, tx, records); err != nil {
			return err
		}
		n, err := tx.CopyFrom(ctx, pgx.Identifier{"decision_answers"}, answerColumns,
			pgx.CopyFromSlice(len(answered), func(i int) ([]any, error) { return answerRow(answered[i]), nil }))
		if err != nil {
			return fmt.Errorf("insert %d decisions' answers: %w", len(answered), err)
		}
		if int(n) != len(answered) {
			return fmt.Errorf("insert decisions' answers: copied %d of %d rows", n, len(answered))
		}
		return nil
	})
}

// copier is what copyDecisions copies with: the pool, or a transaction.
type copier interface {
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
}

// copyDecisions writes records' rows of decisions with one COPY.
func copyDecisions(ctx context.Context, db copier, records []DecisionRecord) error {
	n, err := db.CopyFrom(ctx, pgx.Identifier{"decisions"}, decisionColumns,
		pgx.CopyFromSlice(len(records), func(i int) ([]any, error) { return decisionRow(&records[i]), nil }))
	if err != nil {
		return fmt.Errorf("insert %d decisions: %w", len(records), err)
	}
	if int(n) != len(records) {
		return fmt.Errorf("insert decisions: copied %d of %d rows", n, len(records))
	}
	return nil
}

// withAnswers is the records that carry answers; none (and no allocation)
// when answer logging is off for all of them, the common case.
func withAnswers(records []DecisionRecord) []*DecisionRecord {
	var out []*DecisionRecord
	for i := range records {
		if records[i].Answers != nil {
			out = append(out, &records[i])
		}
	}
	return out
}

// answerColumns are the columns of decision_answers a record's answers
// fill, in the order of answerRow.
var answerColumns = []string{"decision_id", "tenant_id", "kind", "slug", "setting_version", "answers",
	"decided_at", "decision_date", "expires_at"}

func answerRow(d *DecisionRecord) []any {
	var date any
	if !d.DecisionDate.IsZero() {
		date = d.DecisionDate
	}
	return []any{d.DecisionID, d.TenantID, d.AnswerKind(), d.Slug, d.AnswerSetting, string(d.Answers),
		d.DecidedAt, date, d.DecidedAt.AddDate(0, 0, d.AnswerRetentionDays)}
}

// sqlInsertAnswers inserts one record's answers; its parameters are
// answerRow's.
var sqlInsertAnswers = insertStatement("decision_answers", answerColumns)

// pipelinedInsertMax is the largest batch written as pipelined INSERTs
// rather than COPY. With group commit most batches are small (a record
// waits for its own write), and a COPY costs three round trips (pgx reads
// the column types, starts the COPY, then sends the rows) where a
// pipeline of prepared INSERTs costs one. Past a few dozen rows COPY's
// cheaper rows win.
const pipelinedInsertMax = 32

// sqlInsertDecision inserts one record; its parameters are decisionRow's.
var sqlInsertDecision = insertStatement("decisions", decisionColumns)

// insertStatement is the INSERT of one row of table's columns, each a
// parameter in turn.
func insertStatement(table string, columns []string) string {
	params := make([]string, len(columns))
	for i := range params {
		params[i] = fmt.Sprintf("$%d", i+1)
	}
	return "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES (" + strings.Join(params, ", ") + ")"
}

// insertDecisionsPipelined sends one INSERT per record in a single round
// trip. pgx runs a batch in one implicit transaction, so the records are
// written all or none, as with COPY.
func (s *Store) insertDecisionsPipelined(ctx context.Context, records []DecisionRecord) error {
	var batch pgx.Batch
	for i := range records {
		batch.Queue(sqlInsertDecision, decisionRow(&records[i])...)
		if records[i].Answers != nil {
			batch.Queue(sqlInsertAnswers, answerRow(&records[i])...)
		}
	}
	if err := s.pool.SendBatch(ctx, &batch).Close(); err != nil {
		return fmt.Errorf("insert %d decisions: %w", len(records), err)
	}
	return nil
}

const sqlDecisionByID = `
SELECT decision_id, COALESCE(tenant_id, ''), ruleset_id, slug, ruleset_version, content_digest,
       engine_version, outcome, inputs_hash, flags, cache_hit, fields_provided, field_errors,
       decided_at, duration_us, caller_ref, COALESCE(rulebook_id, ''), COALESCE(release_id::text, ''),
       decision_date
FROM decisions WHERE decision_id = $1`

// DecisionByID returns the record of one decision; ErrNotFound when there is
// none.
func (s *Store) DecisionByID(ctx context.Context, decisionID string) (DecisionRecord, error) {
	var (
		d        DecisionRecord
		duration int32
		date     *time.Time
	)
	err := s.pool.QueryRow(ctx, sqlDecisionByID, decisionID).Scan(&d.DecisionID, &d.TenantID,
		&d.RulesetID, &d.Slug, &d.RulesetVersion, &d.ContentDigest, &d.EngineVersion, &d.Outcome,
		&d.InputsHash, &d.Flags, &d.CacheHit, &d.FieldsProvided, &d.FieldErrors, &d.DecidedAt,
		&duration, &d.CallerRef, &d.RulebookID, &d.ReleaseID, &date)
	if errors.Is(err, pgx.ErrNoRows) {
		return DecisionRecord{}, ErrNotFound
	}
	if err != nil {
		return DecisionRecord{}, fmt.Errorf("decision %s: %w", decisionID, err)
	}
	d.Duration = time.Duration(duration) * time.Microsecond
	if date != nil {
		d.DecisionDate = date.UTC()
	}
	return d, nil
}

const sqlMissingDecisionIDs = `
SELECT id FROM unnest($1::text[]) AS wanted(id)
WHERE NOT EXISTS (SELECT 1 FROM decisions WHERE decision_id = wanted.id)
ORDER BY id`

// MissingDecisionIDs returns the ids among ids that have no record, sorted;
// empty when every one was recorded. Operators use it to audit that issued
// decisions were all persisted.
func (s *Store) MissingDecisionIDs(ctx context.Context, ids []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, sqlMissingDecisionIDs, ids)
	if err != nil {
		return nil, fmt.Errorf("missing decision ids: %w", err)
	}
	missing, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("missing decision ids: %w", err)
	}
	return missing, nil
}
