-- Idempotency keys. A POST that creates (a project, a source upload,
-- guidance, a publish) may carry an Idempotency-Key header; the first
-- request with a key claims it here, and its answer is kept, so that a
-- retry with the same key gets that answer instead of doing the work
-- twice. A claim is scoped to the tenant and the operation; the request
-- hash tells a retry from another request reusing the key. Rows older
-- than a day are deleted by the hourly prune job.
CREATE TABLE idempotency_keys (
    tenant_id    text        NOT NULL,
    operation    text        NOT NULL,
    key          text        NOT NULL,
    request_hash text        NOT NULL,
    -- status is 0 while the first request runs, then its HTTP status.
    status       integer     NOT NULL DEFAULT 0,
    content_type text        NOT NULL DEFAULT '',
    body         bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, operation, key)
);

CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
