-- Model-backed generations of a project's draft (see authoring and worker).

-- One row per generation: its request, where it runs, its progress and its
-- end. owner_queue is the River queue of the process that accepted it and
-- holds the caller's provider key in memory; no other process can run it.
-- The provider key itself is never stored, here or anywhere. A project
-- admits one active (queued or running) generation: the partial unique
-- index refuses a second, whatever races.
CREATE TABLE generations (
    id              text PRIMARY KEY CHECK (id ~ '^gen_[A-Za-z0-9_-]{16}$'),
    project_id      text NOT NULL REFERENCES projects (id),
    tenant_id       text NOT NULL REFERENCES tenants (id),
    mode            text NOT NULL CHECK (mode IN ('fresh', 'refine')),
    seed_ruleset_id text NOT NULL DEFAULT '',
    model           text NOT NULL,
    owner_queue     text NOT NULL,
    river_job_id    bigint,
    state           text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'success', 'failed')),
    outcome         text CHECK (outcome IN ('accepted', 'failing_tests', 'failed', 'cancelled')),
    stage           text NOT NULL DEFAULT 'assemble',
    round           integer NOT NULL DEFAULT 0,
    tests_passing   integer NOT NULL DEFAULT 0,
    tests_total     integer NOT NULL DEFAULT 0,
    prompt_tokens   integer NOT NULL DEFAULT 0,
    tokens_used     integer NOT NULL DEFAULT 0,
    error_reason    text,
    error_retryable boolean,
    error_message   text,
    result          jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX generations_one_active_idx ON generations (project_id) WHERE state IN ('queued', 'running');
CREATE INDEX generations_project_idx ON generations (project_id, created_at DESC);

-- The processes that accept generations, by queue, with when each last
-- said it was alive. A generation whose owner has gone quiet can never get
-- its key back, so any process fails it (provider_key_unavailable).
CREATE TABLE generation_owners (
    queue        text PRIMARY KEY,
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- released_at is when the worker running a generation returned: a
-- generation that ended (by a cancel) while its worker still runs is
-- "cleanup_pending" until then.
ALTER TABLE generations ADD COLUMN released_at timestamptz;
