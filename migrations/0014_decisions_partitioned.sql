-- decisions becomes range-partitioned by decided_at, one partition per
-- calendar month in UTC (decisions_YYYY_MM), plus a default partition that
-- catches a record no month partition covers yet (a clock far off, or a
-- deployment whose worker has not run): no decision is ever refused for
-- want of a partition. Retention then drops whole months (DETACH, DROP
-- TABLE: no DELETE, no bloat, no vacuum), and each month's indexes stay
-- the size of a month. See docs/decision-records.md#partitions-and-retention.
--
-- The primary key is (decision_id, decided_at): PostgreSQL requires every
-- unique key of a partitioned table to include the partition key. We keep
-- no second table of decision ids, and the ids stay as they are (96 random
-- bits, no time in them), because:
--   * idempotency on decision_id still holds where it is needed: a record
--     written twice (the shipper re-sending a batch whose commit it did not
--     see, a spool shipped again after a crash) is the same record, with
--     the same decided_at, so it lands in the same partition and its
--     primary key refuses the second copy (unique_violation on
--     decisions_YYYY_MM_pkey), which the writer counts as written. Two
--     different decisions sharing an id would need a collision of 96
--     random bits;
--   * a lookup by decision_id alone (replay, the MissingDecisionIDs audit)
--     uses the leading column of each partition's primary key: one index
--     probe per partition, a few pages each. Retention bounds the count;
--     at 60 monthly partitions the lookup stays under a millisecond
--     (docs/performance.md#decision-partitions). A unique table of ids
--     would cost a second index insert on every record, on the path whose
--     throughput this table exists for;
--   * ids encoding their time (UUIDv7-like) would let a lookup prune to one
--     partition, but every id already issued has none, and the id format
--     is part of the API.
--
-- decisions_add_partition(month) creates the month's partition if missing,
-- moving into it any rows of that month the default partition holds. It
-- builds the table apart and ATTACHes it, which locks the parent only in
-- SHARE UPDATE EXCLUSIVE mode, so writes to other months go on meanwhile
-- (CREATE TABLE ... PARTITION OF would lock them out). Callers: this
-- migration and the decision_partitions job (package worker).
ALTER TABLE decisions RENAME TO decisions_unpartitioned;
ALTER TABLE decisions_unpartitioned RENAME CONSTRAINT decisions_pkey TO decisions_unpartitioned_pkey;
DROP INDEX decisions_tenant_id_decided_at_idx;
DROP INDEX decisions_decided_at_idx;

CREATE TABLE decisions (
    decision_id      text NOT NULL CHECK (decision_id ~ '^dec_[A-Za-z0-9_-]{16}$'),
    tenant_id        text,
    ruleset_id       text NOT NULL,
    slug             text NOT NULL DEFAULT '',
    ruleset_version  text NOT NULL,
    content_digest   text NOT NULL CHECK (content_digest ~ '^sha256:[0-9a-f]{64}$'),
    engine_version   text NOT NULL,
    outcome          text NOT NULL CHECK (outcome IN ('eligible', 'not_eligible', 'undetermined')),
    inputs_hash      text NOT NULL CHECK (inputs_hash ~ '^sha256:[0-9a-f]{64}$'),
    flags            text[] NOT NULL DEFAULT '{}',
    cache_hit        boolean NOT NULL,
    fields_provided  integer NOT NULL,
    field_errors     integer NOT NULL,
    decided_at       timestamptz NOT NULL,
    duration_us      integer NOT NULL CHECK (duration_us >= 0),
    caller_ref       jsonb,
    recorded_at      timestamptz NOT NULL DEFAULT now(),
    rulebook_id      text,
    release_id       uuid,
    decision_date    date,
    CONSTRAINT decisions_anonymous_without_caller_ref CHECK (tenant_id IS NOT NULL OR caller_ref IS NULL),
    CONSTRAINT decisions_pkey PRIMARY KEY (decision_id, decided_at)
) PARTITION BY RANGE (decided_at);

CREATE INDEX decisions_tenant_id_decided_at_idx ON decisions (tenant_id, decided_at) WHERE tenant_id IS NOT NULL;
CREATE INDEX decisions_decided_at_idx ON decisions (decided_at);

CREATE TABLE decisions_default PARTITION OF decisions DEFAULT;

CREATE FUNCTION decisions_add_partition(month timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    first timestamptz := date_trunc('month', month AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    next  timestamptz := (date_trunc('month', month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    name  text := 'decisions_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
BEGIN
    -- One caller at a time; a second finds the partition made.
    PERFORM pg_advisory_xact_lock(hashtext('eligo.decisions_add_partition'));
    IF to_regclass(quote_ident(name)) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    -- The parent first, in the mode ATTACH takes (writes go on), then the
    -- default partition, so that the locks are always taken in the order
    -- an ANALYZE of decisions takes them. Writes routed to the default
    -- partition wait (there are none while the month partitions ahead
    -- exist), so none can slip in between the move and the ATTACH, which
    -- checks the default holds nothing of the month.
    LOCK TABLE ONLY decisions IN SHARE UPDATE EXCLUSIVE MODE;
    LOCK TABLE decisions_default IN ACCESS EXCLUSIVE MODE;
    EXECUTE format('CREATE TABLE %I (LIKE decisions INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('WITH moved AS (DELETE FROM decisions_default WHERE decided_at >= $1 AND decided_at < $2 RETURNING *) '
        'INSERT INTO %I SELECT * FROM moved', name) USING first, next;
    EXECUTE format('ALTER TABLE decisions ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, first, next);
    RETURN name;
END
$$;

-- The months of the rows already recorded, and the current month and the
-- next three (the job keeps that many ahead), get their partitions before
-- the rows are copied, so every row lands in its month. On a large table
-- this copy is the migration's cost: it rewrites the table once, inside
-- the migration's transaction, with writes to decisions blocked meanwhile
-- (run it in a quiet hour; the spool mode's replicas keep answering and
-- ship what they spooled once it is done).
SELECT decisions_add_partition(m)
FROM (
    SELECT DISTINCT date_trunc('month', decided_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS m FROM decisions_unpartitioned
    UNION
    SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => ahead)) AT TIME ZONE 'UTC'
    FROM generate_series(0, 3) AS ahead
) AS months
ORDER BY m;

INSERT INTO decisions (decision_id, tenant_id, ruleset_id, slug, ruleset_version, content_digest, engine_version,
    outcome, inputs_hash, flags, cache_hit, fields_provided, field_errors, decided_at, duration_us, caller_ref,
    recorded_at, rulebook_id, release_id, decision_date)
SELECT decision_id, tenant_id, ruleset_id, slug, ruleset_version, content_digest, engine_version,
    outcome, inputs_hash, flags, cache_hit, fields_provided, field_errors, decided_at, duration_us, caller_ref,
    recorded_at, rulebook_id, release_id, decision_date
FROM decisions_unpartitioned;

DROP TABLE decisions_unpartitioned;
