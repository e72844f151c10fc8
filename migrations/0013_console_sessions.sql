-- Console sessions. The web console signs in by exchanging an API key for
-- a session: the browser keeps only a random session id in an HttpOnly
-- cookie, and this table keeps only the SHA-256 of that id, so a read of
-- the table cannot be replayed as a cookie. A session acts as the key it
-- was opened with (same tenant, scopes, tier and metering), and ends when
-- the key is revoked or deleted, after 30 minutes idle, after 12 hours in
-- all, or at sign-out. last_seen_at moves at most once a minute. Ended
-- rows are deleted by the hourly prune job.
CREATE TABLE console_sessions (
    id_hash      bytea       PRIMARY KEY CHECK (octet_length(id_hash) = 32),
    tenant_id    text        NOT NULL REFERENCES tenants (id),
    api_key_id   bigint      NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);

CREATE INDEX console_sessions_api_key_id_idx ON console_sessions (api_key_id);
CREATE INDEX console_sessions_last_seen_at_idx ON console_sessions (last_seen_at);
CREATE INDEX console_sessions_expires_at_idx ON console_sessions (expires_at);
