-- Tenants own everything else; keys, audit events and (later) rulesets,
-- rulebooks and projects all point here.
CREATE TABLE tenants (
    id         text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- API keys are stored only as the SHA-256 hash of the full key text plus the
-- public prefix shown in listings. The raw key never reaches the database.
CREATE TABLE api_keys (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id    text NOT NULL REFERENCES tenants (id),
    name         text NOT NULL DEFAULT '',
    prefix       text NOT NULL UNIQUE CHECK (prefix ~ '^[a-z0-9]{8}$'),
    key_hash     bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    scopes       text[] NOT NULL,
    tier         text NOT NULL CHECK (tier IN ('free', 'starter', 'pro', 'internal')),
    expires_at   timestamptz,
    revoked_at   timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz
);

CREATE INDEX api_keys_tenant_id_idx ON api_keys (tenant_id);

-- Server-side audit trail (key issuance and revocation now; publish bypasses
-- and promotions later). Never delivered to callers.
CREATE TABLE audit_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id  text REFERENCES tenants (id),
    kind       text NOT NULL,
    detail     jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX audit_events_tenant_id_created_at_idx ON audit_events (tenant_id, created_at);
