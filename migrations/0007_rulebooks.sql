-- Rulebooks: several published section rulesets composed under one outcome
-- logic (see package rulebook), with immutable, labelled releases.

-- A cut keeps the test cases it was published with, so a promotion can run
-- them again as a go-live gate.
ALTER TABLE rulesets ADD COLUMN test_cases jsonb NOT NULL DEFAULT '[]';

-- The draft of a rulebook: what its next release will freeze. A rulebook's
-- slug is globally unique, like a ruleset's. current_release_id is the head;
-- it carries no foreign key on purpose, so that a head naming a release this
-- server does not hold is answered 422 rulebook_release_missing rather than
-- prevented silently. publication_pending is set when the draft changed but
-- its release could not be published; the next activate or edit publishes.
-- pinned is set by the first promotion: from then on every reference names
-- an exact cut.
CREATE TABLE rulebooks (
    id                  text PRIMARY KEY CHECK (id ~ '^rb_[A-Za-z0-9_-]{16}$'),
    tenant_id           text NOT NULL REFERENCES tenants (id),
    slug                text NOT NULL UNIQUE CHECK (slug ~ '^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$'),
    name                text NOT NULL,
    domain              text NOT NULL DEFAULT '',
    description         text NOT NULL DEFAULT '',
    outcome_logic       jsonb,
    robot_hints         jsonb,
    field_overlay       jsonb NOT NULL DEFAULT '{}',
    visibility          text NOT NULL DEFAULT 'private' CHECK (visibility IN ('public', 'private')),
    status              text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'archived')),
    pinned              boolean NOT NULL DEFAULT false,
    current_release_id  uuid,
    publication_pending boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX rulebooks_tenant_id_idx ON rulebooks (tenant_id);

-- A rulebook's references, lettered A, B, C... by position. live_ruleset_id
-- is the section's live cut in this rulebook: for a floating reference the
-- newest active cut of the section when the reference was added, for a
-- pinned one its exact cut; a promotion moves it.
CREATE TABLE rulebook_refs (
    rulebook_id     text NOT NULL REFERENCES rulebooks (id),
    position        integer NOT NULL CHECK (position >= 0 AND position < 26),
    section_id      text NOT NULL,
    pin_mode        text NOT NULL CHECK (pin_mode IN ('latest_active', 'pinned')),
    live_ruleset_id text NOT NULL REFERENCES rulesets (id),
    PRIMARY KEY (rulebook_id, position),
    UNIQUE (rulebook_id, section_id)
);

-- Releases are immutable: a trigger refuses every UPDATE and DELETE. content
-- is the frozen content (outcome tree, members with their ruleset ids and
-- digests, overlay, hints, names); content_identity is its digest
-- (rulebook.ContentIdentity), and identical content reuses its release.
CREATE TABLE rulebook_releases (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    rulebook_id      text NOT NULL REFERENCES rulebooks (id),
    version          integer NOT NULL CHECK (version >= 1),
    label            text NOT NULL CHECK (label ~ '^[a-z]+-[a-z]+$'),
    title            text NOT NULL,
    content_identity text NOT NULL CHECK (content_identity ~ '^sha256:[0-9a-f]{64}$'),
    content          jsonb NOT NULL,
    published_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (rulebook_id, version),
    UNIQUE (rulebook_id, label),
    UNIQUE (rulebook_id, content_identity)
);

CREATE FUNCTION rulebook_releases_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rulebook releases are immutable';
END
$$;

CREATE TRIGGER rulebook_releases_immutable BEFORE UPDATE OR DELETE ON rulebook_releases
    FOR EACH ROW EXECUTE FUNCTION rulebook_releases_immutable();

-- Decision records name the rulebook and release they were served from.
ALTER TABLE decisions ADD COLUMN rulebook_id text, ADD COLUMN release_id uuid;
