-- Authoring projects: a tenant's workspace for turning statute text and test
-- cases into a ruleset (see package authoring).

-- A project belongs to one tenant and authors one section. test_cases are
-- the acceptance tests; contract is the acceptance contract they came with
-- (contract_version 1 and, when declared, expected_review_bindings), or
-- null when the tests were written without one. draft_text is the draft
-- ruleset (null before the first); draft_origin says who wrote it (hand or
-- generation) and draft_inputs records the authoring inputs a generated
-- draft was made from (null for a hand-written one). source_questions are
-- the draft's open questions about its sources.
CREATE TABLE projects (
    id               text PRIMARY KEY CHECK (id ~ '^prj_[A-Za-z0-9_-]{16}$'),
    tenant_id        text NOT NULL REFERENCES tenants (id),
    name             text NOT NULL,
    section_id       text NOT NULL CHECK (section_id ~ '^[a-z][a-z0-9_]*$'),
    test_cases       jsonb NOT NULL DEFAULT '[]',
    contract         jsonb,
    draft_text       text,
    draft_origin     text CHECK (draft_origin IN ('hand', 'generation')),
    draft_inputs     jsonb,
    source_questions jsonb NOT NULL DEFAULT '[]',
    draft_updated_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX projects_tenant_id_idx ON projects (tenant_id, created_at, id);

-- An uploaded source: the original bytes as sent (served back by .../raw),
-- the text extracted from them (what quotes are verified against), the page
-- start offsets of a PDF's text, a MinHash signature for near-duplicate
-- detection, and the token estimate of the text. position is the upload
-- order within the project.
CREATE TABLE project_sources (
    id               text PRIMARY KEY CHECK (id ~ '^src_[A-Za-z0-9_-]{16}$'),
    project_id       text NOT NULL REFERENCES projects (id),
    position         integer NOT NULL CHECK (position >= 0),
    filename         text NOT NULL,
    media_type       text NOT NULL,
    title            text NOT NULL DEFAULT '',
    url              text NOT NULL DEFAULT '',
    licence          text NOT NULL DEFAULT '',
    content          bytea NOT NULL,
    content_digest   text NOT NULL CHECK (content_digest ~ '^sha256:[0-9a-f]{64}$'),
    extracted_text   text NOT NULL,
    pages            jsonb,
    signature        bytea NOT NULL,
    estimated_tokens integer NOT NULL CHECK (estimated_tokens >= 0),
    status           text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'reference_only')),
    superseded_by    text REFERENCES project_sources (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, position),
    UNIQUE (id, project_id)
);

-- Guidance notes, in the order they were added.
CREATE TABLE project_guidance (
    project_id    text NOT NULL REFERENCES projects (id),
    position      integer NOT NULL CHECK (position >= 0),
    guidance_text text NOT NULL,
    process_type  text NOT NULL CHECK (process_type IN ('field_extraction', 'rule_generation')),
    adherence     text CHECK (adherence IN ('exact')),
    domain_scope  text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, position)
);

-- The provenance of a ruleset published from a project: which project
-- source each source the rules declare was verified against, as a URL (v1)
-- or an artefact (v2) reference. A row keeps its source from being deleted
-- (ON DELETE RESTRICT): a source a published ruleset cites is never lost.
CREATE TABLE ruleset_provenance (
    ruleset_id      text NOT NULL REFERENCES rulesets (id),
    project_id      text NOT NULL REFERENCES projects (id),
    rules_source_id text NOT NULL,
    source_id       text NOT NULL,
    target_kind     text NOT NULL CHECK (target_kind IN ('url', 'artefact')),
    content_digest  text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (ruleset_id, project_id, rules_source_id, source_id),
    -- The source must be one of the project's own.
    FOREIGN KEY (source_id, project_id) REFERENCES project_sources (id, project_id) ON DELETE RESTRICT
);

CREATE INDEX ruleset_provenance_source_id_idx ON ruleset_provenance (source_id);
