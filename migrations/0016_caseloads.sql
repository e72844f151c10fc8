-- Caseloads and impact runs (docs/impact.md#over-http).

-- A caseload: a file of applicants' answers a tenant uploaded to one of
-- its projects, kept as sent (content) until expires_at, when the hourly
-- prune deletes it with its runs. The counts are what the upload's check
-- found (impact.Scan): rows read, rows that read as cases, and the bad
-- rows by reason with their first line numbers. It is private to its
-- tenant: nothing reads it but that tenant's impact runs.
CREATE TABLE caseloads (
    id             text PRIMARY KEY CHECK (id ~ '^cld_[A-Za-z0-9_-]{16}$'),
    project_id     text NOT NULL REFERENCES projects (id),
    tenant_id      text NOT NULL REFERENCES tenants (id),
    filename       text NOT NULL,
    format         text NOT NULL CHECK (format IN ('jsonl', 'csv')),
    content        bytea NOT NULL,
    size           bigint NOT NULL CHECK (size >= 0),
    content_digest text NOT NULL CHECK (content_digest ~ '^sha256:[0-9a-f]{64}$'),
    row_count      bigint NOT NULL CHECK (row_count >= 0),
    case_count     bigint NOT NULL CHECK (case_count >= 0),
    bad_rows       jsonb NOT NULL DEFAULT '[]',
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL
);

CREATE INDEX caseloads_project_idx ON caseloads (project_id, created_at, id);
CREATE INDEX caseloads_expires_idx ON caseloads (expires_at);

-- An impact run of a caseload: the two rulesets (the candidate a published
-- cut, or the project's draft text as it was when the run was asked for),
-- its River job, its progress and its end. A run is deleted with its
-- caseload. report is impact.Report as the run left it: partial when the
-- run was cancelled or ran out of time.
CREATE TABLE impact_runs (
    id                   text PRIMARY KEY CHECK (id ~ '^imp_[A-Za-z0-9_-]{16}$'),
    project_id           text NOT NULL REFERENCES projects (id),
    tenant_id            text NOT NULL REFERENCES tenants (id),
    caseload_id          text NOT NULL REFERENCES caseloads (id) ON DELETE CASCADE,
    baseline_ruleset_id  text NOT NULL,
    candidate_ruleset_id text,
    candidate_draft      text,
    decision_date        date NOT NULL,
    examples             integer NOT NULL CHECK (examples >= 0),
    river_job_id         bigint,
    state                text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    rows_total           bigint NOT NULL,
    rows_done            bigint NOT NULL DEFAULT 0,
    cases_done           bigint NOT NULL DEFAULT 0,
    partial              boolean NOT NULL DEFAULT false,
    report               jsonb,
    error_message        text,
    created_at           timestamptz NOT NULL DEFAULT now(),
    started_at           timestamptz,
    finished_at          timestamptz,
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((candidate_ruleset_id IS NULL) <> (candidate_draft IS NULL))
);

CREATE INDEX impact_runs_project_idx ON impact_runs (project_id, created_at DESC);
CREATE INDEX impact_runs_active_idx ON impact_runs (tenant_id) WHERE state IN ('queued', 'running');
CREATE INDEX impact_runs_caseload_idx ON impact_runs (caseload_id);
