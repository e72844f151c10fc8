-- Slug namespaces are owned. A slug's namespace is the part before its
-- first "/" (the whole slug when it has none). The first tenant to publish
-- a ruleset or create a rulebook under a namespace owns it; another tenant
-- is refused (403 namespace_owned) whether or not the slug it asked for
-- exists, so a refusal never tells it which slugs are taken. The claim is
-- made in the transaction that stores the slug (store.PublishRuleset,
-- store.CreateRulebook), so a refused or failed publish claims nothing.
CREATE TABLE slug_namespaces (
    namespace  text PRIMARY KEY CHECK (namespace ~ '^[a-z][a-z0-9-]*$'),
    tenant_id  text NOT NULL REFERENCES tenants (id),
    claimed_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX slug_namespaces_tenant_id_idx ON slug_namespaces (tenant_id);

-- Backfill: a namespace already in use belongs to the tenant with its
-- earliest slug (ruleset cut or rulebook, by creation time; ties go to the
-- tenant id that sorts first). Slugs other tenants already hold under it
-- stay theirs and may still be republished by them (see
-- store.PublishRuleset); they only cannot add new ones.
INSERT INTO slug_namespaces (namespace, tenant_id, claimed_at)
SELECT DISTINCT ON (namespace) namespace, tenant_id, created_at
FROM (
    SELECT split_part(slug, '/', 1) AS namespace, tenant_id, created_at FROM rulesets
    UNION ALL
    SELECT split_part(slug, '/', 1), tenant_id, created_at FROM rulebooks
) AS used
ORDER BY namespace, created_at, tenant_id;

-- ruleset_cites_artefacts says whether a cut's compiled IR declares a
-- source by artefact: a v2 reference to an uploaded project file, whose
-- quotes and project and source ids are confidential to the tenant.
CREATE FUNCTION ruleset_cites_artefacts(ir jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT jsonb_path_exists(ir, '$.sources[*].artefact ? (@ != "")')
$$;

-- rulebook_artefact_members lists, per rulebook, every member cut that
-- cites project artefacts, through its draft (via = 'draft') or through
-- any of its releases (via = 'release', with the release). Such a
-- rulebook may not be public (publish refuses with 422
-- artefact_reference_public_visibility_forbidden); the rows of public
-- rulebooks here are leaks made before that rule, which `eligo serve`,
-- `eligo worker` and `eligo migrate` log at start (see
-- store.RulebooksExposingArtefacts) and an operator can list with
--   SELECT * FROM rulebook_artefact_members WHERE visibility = 'public';
CREATE VIEW rulebook_artefact_members AS
SELECT b.id AS rulebook_id, b.tenant_id, b.slug, b.visibility, 'draft'::text AS via,
       NULL::uuid AS release_id, r.id AS ruleset_id
FROM rulebooks b
JOIN rulebook_refs f ON f.rulebook_id = b.id
JOIN rulesets r ON r.id = f.live_ruleset_id
WHERE ruleset_cites_artefacts(r.compiled_ir)
UNION ALL
SELECT b.id, b.tenant_id, b.slug, b.visibility, 'release'::text, rel.id, r.id
FROM rulebooks b
JOIN rulebook_releases rel ON rel.rulebook_id = b.id
CROSS JOIN LATERAL jsonb_array_elements(rel.content -> 'sections') AS s(section)
JOIN rulesets r ON r.id = s.section ->> 'ruleset_id'
WHERE ruleset_cites_artefacts(r.compiled_ir);

-- Say so in the server log of the migration too.
DO $$
DECLARE
    leak record;
BEGIN
    FOR leak IN SELECT DISTINCT rulebook_id, tenant_id, slug FROM rulebook_artefact_members WHERE visibility = 'public' LOOP
        RAISE WARNING 'public rulebook % (%) of tenant % has a member citing project artefacts; make it private',
            leak.slug, leak.rulebook_id, leak.tenant_id;
    END LOOP;
END
$$;
