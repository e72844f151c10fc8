-- One row per evaluation served by POST /decide, cache hits included: the
-- metered decision and its audit envelope. Raw field_values are never
-- stored, only their inputs_hash. Anonymous decisions (tenant_id NULL) keep
-- the hash and aggregate metadata only, never a caller_ref.
--
-- The table is append-only and written in batches (COPY) off the request
-- path. It carries no foreign keys on purpose: a record must land even when
-- the ruleset it names has since been archived, and COPY stays cheap. At
-- scale it is range-partitioned by decided_at (see
-- docs/decision-records.md#decision-records).
CREATE TABLE decisions (
    decision_id      text PRIMARY KEY CHECK (decision_id ~ '^dec_[A-Za-z0-9_-]{16}$'),
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
    CONSTRAINT decisions_anonymous_without_caller_ref CHECK (tenant_id IS NOT NULL OR caller_ref IS NULL)
);

CREATE INDEX decisions_tenant_id_decided_at_idx ON decisions (tenant_id, decided_at) WHERE tenant_id IS NOT NULL;
CREATE INDEX decisions_decided_at_idx ON decisions (decided_at);
