-- A ruleset row is one immutable content cut: the source text and compiled IR
-- of one publish under one slug. Its id is the concrete ruleset_id
-- (<section_id>:<yyyymmdd>-<hash>, see store.RulesetID) and never changes;
-- only visibility and status do. Republishing identical compiled content
-- under the same slug reuses the row (same id, same version); changed
-- content adds a row with the slug's next version.
CREATE TABLE rulesets (
    id             text PRIMARY KEY CHECK (id ~ '^[a-z][a-z0-9_]*:[0-9]{8}-[0-9a-f]{12}$'),
    tenant_id      text NOT NULL REFERENCES tenants (id),
    slug           text NOT NULL CHECK (slug ~ '^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$'),
    version        integer NOT NULL CHECK (version >= 1),
    section_id     text NOT NULL,
    name           text NOT NULL,
    description    text NOT NULL DEFAULT '',
    rule_count     integer NOT NULL CHECK (rule_count >= 0),
    content_digest text NOT NULL CHECK (content_digest ~ '^sha256:[0-9a-f]{64}$'),
    source_text    text NOT NULL,
    compiled_ir    jsonb NOT NULL,
    visibility     text NOT NULL CHECK (visibility IN ('public', 'private')),
    status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (slug, content_digest),
    UNIQUE (slug, version)
);

CREATE INDEX rulesets_tenant_id_idx ON rulesets (tenant_id);

-- A slug is a movable pointer to the current cut. It is globally unique and
-- belongs to the tenant that first published it; a republish by that tenant
-- moves it to the new cut. latest_version is the highest version cut under
-- the slug, so the next changed publish takes latest_version + 1.
CREATE TABLE ruleset_slugs (
    slug           text PRIMARY KEY CHECK (slug ~ '^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$'),
    tenant_id      text NOT NULL REFERENCES tenants (id),
    ruleset_id     text NOT NULL REFERENCES rulesets (id),
    latest_version integer NOT NULL CHECK (latest_version >= 1),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX ruleset_slugs_tenant_id_idx ON ruleset_slugs (tenant_id);
