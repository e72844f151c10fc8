-- Answer logging (docs/decision-records.md#answer-logging): a tenant's
-- opt-in, per slug of one of its rulesets or rulebooks, to keep the answers
-- of the decisions its own keys make under that slug, with some fields
-- dropped and some masked, for a number of days. Off (no row) by default,
-- when a decision record keeps only the inputs hash.

-- Every write of a setting draws a new version from this sequence, so a
-- version names one setting as it was, across tenants, slugs, deletes and
-- re-creations: a logged decision says which one it was kept under.
CREATE SEQUENCE answer_logging_versions;

CREATE TABLE answer_logging_settings (
    tenant_id      text NOT NULL REFERENCES tenants (id),
    kind           text NOT NULL CHECK (kind IN ('ruleset', 'rulebook')),
    slug           text NOT NULL,
    version        bigint NOT NULL CHECK (version >= 1),
    dropped        text[] NOT NULL DEFAULT '{}',
    masked         text[] NOT NULL DEFAULT '{}',
    retention_days integer NOT NULL CHECK (retention_days BETWEEN 1 AND 90),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, kind, slug)
);

-- The answers of one logged decision, written in the same transaction as
-- its row of decisions (so never one without the other) and deleted by the
-- hourly prune once expires_at passes. Kept apart from decisions, which is
-- append-only and dropped a month at a time: answers go after days, row by
-- row, and a decision record without them stays what it always was. No
-- foreign keys, as on decisions: the shipper may write a record long after
-- its decision.
CREATE TABLE decision_answers (
    decision_id     text PRIMARY KEY CHECK (decision_id ~ '^dec_[A-Za-z0-9_-]{16}$'),
    tenant_id       text NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('ruleset', 'rulebook')),
    slug            text NOT NULL,
    setting_version bigint NOT NULL,
    answers         jsonb NOT NULL CHECK (jsonb_typeof(answers) = 'object'),
    decided_at      timestamptz NOT NULL,
    decision_date   date,
    expires_at      timestamptz NOT NULL
);

-- A caseload from the log reads one slug's answers in decision order.
CREATE INDEX decision_answers_slug_idx ON decision_answers (tenant_id, kind, slug, decided_at, decision_id);
CREATE INDEX decision_answers_expires_idx ON decision_answers (expires_at);
